package redundant

import (
	"context"
	"math"
	"math/rand/v2"
)

// AnnealOptions configures the simulated annealing of PPB and EPB. The paper
// says only "simulated annealing"; the schedule below is this project's
// choice (docs/reproduction-003.md).
type AnnealOptions struct {
	// MovesPerHost is the number of proposed moves per host (the run makes
	// MovesPerHost·m proposals, at least MinMoves). Default 300.
	MovesPerHost int
	// MinMoves is the minimum number of proposals. Default 2000.
	MinMoves int
	// Accept0 is the probability of accepting an average worsening move at
	// the start (sets the initial temperature). Default 0.5.
	Accept0 float64
	// Cooling is the ratio of final to initial temperature (geometric
	// schedule). Default 1e-4.
	Cooling float64
}

func (o AnnealOptions) withDefaults() AnnealOptions {
	if o.MovesPerHost <= 0 {
		o.MovesPerHost = 300
	}
	if o.MinMoves <= 0 {
		o.MinMoves = 2000
	}
	if o.Accept0 <= 0 || o.Accept0 >= 1 {
		o.Accept0 = 0.5
	}
	if o.Cooling <= 0 || o.Cooling >= 1 {
		o.Cooling = 1e-4
	}
	return o
}

// PPB is the Purely Probability Based algorithm: simulated annealing on
// log R_sys starting from the EA allocation, with two kinds of moves (give a
// host to another task; swap the tasks of two hosts). It returns the best
// allocation met, which is never worse than EA. Requires 1 <= n <= len(p).
func PPB(p []float64, n int, rng *rand.Rand, opt AnnealOptions) []int {
	return Anneal(p, n, EA(len(p), n), false, rng, opt)
}

// MaxMovesPerHost bounds AnnealOptions.MovesPerHost (a run makes
// MovesPerHost·m proposals; with m ≤ MaxHosts the count fits an int).
const MaxMovesPerHost = 1 << 20

// EPB is the Equal Probability Based algorithm: the annealing of PPB
// restricted to swaps, so that every task keeps the k or k+1 hosts EA gives
// it. Never worse than EA.
func EPB(p []float64, n int, rng *rand.Rand, opt AnnealOptions) []int {
	return Anneal(p, n, EA(len(p), n), true, rng, opt)
}

// Anneal runs simulated annealing on log R_sys from the allocation start
// (not modified); equalSizes restricts moves to swaps, which keep each
// task's host count. It returns the best allocation met: never worse than
// start. Every task of start must have at least one host.
func Anneal(p []float64, n int, start []int, equalSizes bool, rng *rand.Rand, opt AnnealOptions) []int {
	x, _ := anneal(context.Background(), p, n, start, equalSizes, rng, opt, nil)
	return x
}

// anneal is Anneal that stops with ctx's error when ctx is cancelled.
func anneal(ctx context.Context, p []float64, n int, start []int, equalSizes bool, rng *rand.Rand, opt AnnealOptions, progress func(string, int64, int64)) ([]int, error) {
	opt = opt.withDefaults()
	m := len(p)
	x := append([]int(nil), start...)
	best := append([]int(nil), start...)
	if n <= 1 || m <= 1 {
		return best, nil
	}
	g := newGroups(p, x, n)
	// val caches each task's log success; nv1, nv2 are the new values of
	// the two tasks a proposed move changes.
	val := make([]float64, n)
	cur := 0.0
	for j := 0; j < n; j++ {
		val[j] = g.value(j)
		cur += val[j]
	}
	var nv1, nv2 float64
	bestVal := cur

	// propose draws a move and returns its change of log R_sys; apply
	// commits it. A move is (host a → task ja) and, for a swap, (host b →
	// task jb).
	var a, b, ja int
	var swap bool
	propose := func() (float64, bool) {
		a = rng.IntN(m)
		from := x[a]
		if !equalSizes && rng.IntN(2) == 0 {
			swap = false
			if g.size[from] == 1 {
				return 0, false
			}
			to := rng.IntN(n - 1)
			if to >= from {
				to++
			}
			ja = to
			nv1, nv2 = g.valueWith(from, a, -1), g.valueWith(to, a, +1)
			return nv1 + nv2 - val[from] - val[to], true
		}
		swap = true
		b = rng.IntN(m)
		if x[b] == from {
			return 0, false
		}
		nv1, nv2 = g.valueSwap(from, a, b), g.valueSwap(x[b], b, a)
		return nv1 + nv2 - val[from] - val[x[b]], true
	}
	apply := func() {
		if swap {
			fa, fb := x[a], x[b]
			g.add(fa, a, -1)
			g.add(fb, b, -1)
			g.add(fb, a, +1)
			g.add(fa, b, +1)
			x[a], x[b] = fb, fa
			val[fa], val[fb] = nv1, nv2
			return
		}
		from := x[a]
		g.add(from, a, -1)
		g.add(ja, a, +1)
		x[a] = ja
		val[from], val[ja] = nv1, nv2
	}

	// Initial temperature: the mean worsening among a sample of moves is
	// accepted with probability Accept0.
	sum, cnt := 0.0, 0
	for s := 0; s < 200; s++ {
		// Moves that doom a task (d near 10^4) are left out of the
		// estimate, which must describe ordinary moves.
		if d, ok := propose(); ok && d < 0 && d > -50 {
			sum += -d
			cnt++
		}
	}
	if cnt == 0 {
		return best, nil // no worsening move found: flat landscape or optimum
	}
	t0 := (sum / float64(cnt)) / -math.Log(opt.Accept0)
	moves := max(opt.MovesPerHost*m, opt.MinMoves)
	alpha := math.Pow(opt.Cooling, 1/float64(moves))
	temp := t0
	for s := 0; s < moves; s++ {
		temp *= alpha
		d, ok := propose()
		if !ok || math.IsNaN(d) {
			continue
		}
		if d >= 0 || rng.Float64() < math.Exp(d/temp) {
			apply()
			cur += d
			if cur > bestVal+1e-12*math.Abs(bestVal) {
				bestVal = cur
				copy(best, x)
			}
		}
		if s&4095 == 4095 { // bound the drift of the running sum
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if progress != nil {
				progress("annealing moves", int64(s+1), int64(moves))
			}
			cur = 0
			for j := 0; j < n; j++ {
				val[j] = g.value(j)
				cur += val[j]
			}
		}
	}
	return best, nil
}
