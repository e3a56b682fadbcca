package redundant

import (
	"context"
	"math"
	"sort"
)

// GLS is this project's constructive method with local search (not in the
// paper). Construction: hosts sorted by decreasing weight −log p (most
// reliable first), each given to the task whose replicas so far have the
// smallest weight sum — the largest marginal gain, since a task's log
// success log(1 − e^−S) is concave in S (the LPT rule of multiway number
// partitioning). Local search: for each pair of tasks, the best move of one
// host or swap of two hosts between them is applied while it improves
// R_sys; by concavity a move that transfers a weight d from the heavier to
// the lighter task improves R_sys exactly when 0 < d < the gap between
// their sums, and most when d is closest to half the gap. It stops at a
// local optimum for both neighbourhoods. Deterministic; needs no seed.
func GLS(p []float64, n int) []int {
	x, _ := gls(context.Background(), p, n, nil)
	return x
}

// gls is GLS that stops with ctx's error when ctx is cancelled.
func gls(ctx context.Context, p []float64, n int, progress func(string, int64, int64)) ([]int, error) {
	r := reduce(p, n)
	if r.trivial {
		return r.expand(nil), nil
	}
	x, err := glsCore(ctx, r.w, r.coreN, progress)
	if err != nil {
		return nil, err
	}
	return r.expand(x), nil
}

// glsCore partitions the weights w (finite, > 0) into n groups.
func glsCore(ctx context.Context, w []float64, n int, progress func(string, int64, int64)) ([]int, error) {
	m := len(w)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return w[order[a]] > w[order[b]] })
	x := make([]int, m)
	sum := make([]float64, n)
	members := make([][]int, n) // hosts of each group, sorted by weight ascending
	every := max(1, (1<<16)/n)  // hosts between looks at ctx: about 2^16 steps
	for k, i := range order {
		if k%every == 0 { // m·n steps in all
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if progress != nil {
				progress("hosts placed", int64(k), int64(m))
			}
		}
		j := 0
		for k := 1; k < n; k++ {
			if sum[k] < sum[j] {
				j = k
			}
		}
		x[i] = j
		sum[j] += w[i]
		members[j] = append(members[j], i)
	}
	for j := range members {
		sortByWeight(members[j], w)
	}
	if err := localSearch(ctx, w, x, sum, members); err != nil {
		return nil, err
	}
	return x, nil
}

// sortByWeight sorts hosts by increasing weight (insertion sort: groups
// are small and nearly sorted after a move).
func sortByWeight(h []int, w []float64) {
	for i := 1; i < len(h); i++ {
		v := h[i]
		j := i
		for j > 0 && w[h[j-1]] > w[v] {
			h[j] = h[j-1]
			j--
		}
		h[j] = v
	}
}

// localSearch improves the partition in place until no single move or swap
// between two groups improves it, or ctx is cancelled (its error).
func localSearch(ctx context.Context, w []float64, x []int, sum []float64, members [][]int) error {
	n := len(sum)
	const maxPasses = 10000
	// Whether a pair of groups has an improving move depends only on their
	// contents: a pair found without one is skipped until one of the two
	// groups changes (ver counts each group's changes; clean[a*n+b] holds
	// 1 + the versions of the last fruitless check). The cache takes n²
	// words: beyond maxCached groups every pair is checked again (the same
	// answer, computed instead of remembered).
	const maxCached = 2048
	ver := make([]uint32, n)
	var clean []uint64
	if n <= maxCached {
		clean = make([]uint64, n*n)
	}
	// Each pass visits pairs from the largest gap down: the lightest
	// group against the heaviest first, where moves gain the most.
	order := make([]int, n)
	for pass := 0; pass < maxPasses; pass++ {
		improved := false
		for j := range order {
			order[j] = j
		}
		sort.Slice(order, func(i, j int) bool { return sum[order[i]] < sum[order[j]] })
		for ia := 0; ia < n; ia++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			a := order[ia]
			for ib := n - 1; ib > ia; ib-- {
				b := order[ib]
				if sum[a] >= sum[b] { // a is the lighter group
					continue
				}
				stamp := uint64(ver[a])<<32 | uint64(ver[b]) + 1
				if clean != nil && clean[a*n+b] == stamp {
					continue
				}
				gap := sum[b] - sum[a]
				half := gap / 2
				// Best transfer d in (0, gap) closest to gap/2.
				bestD, bestDist := 0.0, math.Inf(1)
				mv, sx, sy := -1, -1, -1 // relocate mv from b, or swap sx∈a with sy∈b
				if len(members[b]) > 1 {
					for _, y := range members[b] {
						d := w[y]
						if d > 0 && d < gap && math.Abs(d-half) < bestDist {
							bestD, bestDist, mv, sx, sy = d, math.Abs(d-half), y, -1, -1
						}
					}
				}
				mb := members[b]
				for _, xa := range members[a] {
					// want w[y] ≈ w[xa] + half, with w[xa] < w[y] < w[xa] + gap
					target := w[xa] + half
					k, hi := 0, len(mb) // first index with w >= target
					for k < hi {
						mid := (k + hi) / 2
						if w[mb[mid]] < target {
							k = mid + 1
						} else {
							hi = mid
						}
					}
					for _, kk := range [2]int{k - 1, k} {
						if kk < 0 || kk >= len(mb) {
							continue
						}
						y := mb[kk]
						d := w[y] - w[xa]
						if d > 0 && d < gap && math.Abs(d-half) < bestDist {
							bestD, bestDist, mv, sx, sy = d, math.Abs(d-half), -1, xa, y
						}
					}
				}
				if mv < 0 && sx < 0 {
					if clean != nil {
						clean[a*n+b] = stamp
					}
					continue
				}
				gain := logSuccess(sum[a]+bestD) + logSuccess(sum[b]-bestD) - logSuccess(sum[a]) - logSuccess(sum[b])
				if !(gain > 1e-14*math.Max(1, math.Abs(logSuccess(sum[a])))) {
					if clean != nil {
						clean[a*n+b] = stamp
					}
					continue
				}
				ver[a]++
				ver[b]++
				if mv >= 0 {
					members[b] = remove(members[b], mv)
					members[a] = append(members[a], mv)
					x[mv] = a
				} else {
					members[a] = remove(members[a], sx)
					members[b] = remove(members[b], sy)
					members[a] = append(members[a], sy)
					members[b] = append(members[b], sx)
					x[sx], x[sy] = b, a
				}
				sortByWeight(members[a], w)
				sortByWeight(members[b], w)
				sum[a] += bestD
				sum[b] -= bestD
				improved = true
			}
		}
		if !improved {
			return nil
		}
	}
	return nil
}

func remove(h []int, v int) []int {
	for k, e := range h {
		if e == v {
			return append(h[:k], h[k+1:]...)
		}
	}
	return h
}
