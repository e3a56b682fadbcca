package overlay

import (
	"cmp"
	"math"
	"slices"
)

// Identical sampled functions (equal in every attribute, whatever their v)
// are merged exactly by summing v: their conservative sum loses nothing.
// Aggregate merges them before clustering, so a union of many nodes with
// the same hardware costs one sampled function, not one per node. Summaries
// that Aggregate returns are sorted by cmp and hold no two identical
// functions; the union of two such summaries is a linear merge.

// unionDedup appends to dst the union of x and y with identical functions
// merged (add folds b's v into a). If x and y are sorted by cmp the result
// is sorted and holds no duplicates; otherwise the union is sorted first.
func unionDedup[S ~[]C, C any](dst, x, y S, cmp func(a, b C) int, add func(a, b *C)) S {
	if !sortedBy(x, cmp) || !sortedBy(y, cmp) {
		dst = append(append(dst, x...), y...)
		slices.SortStableFunc(dst, cmp)
		return compactDedup(dst, cmp, add)
	}
	push := func(c *C) {
		if n := len(dst); n > 0 && cmp(dst[n-1], *c) == 0 {
			add(&dst[n-1], c)
			return
		}
		dst = append(dst, *c)
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		if cmp(x[i], y[j]) <= 0 {
			push(&x[i])
			i++
		} else {
			push(&y[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		push(&x[i])
	}
	for ; j < len(y); j++ {
		push(&y[j])
	}
	return dst
}

// sortDedup sorts z by cmp and merges identical functions (used on a
// clustering's result, whose sums may coincide).
func sortDedup[S ~[]C, C any](z S, cmp func(a, b C) int, add func(a, b *C)) S {
	if !sortedBy(z, cmp) {
		slices.SortStableFunc(z, cmp)
	}
	return compactDedup(z, cmp, add)
}

func compactDedup[S ~[]C, C any](z S, cmp func(a, b C) int, add func(a, b *C)) S {
	k := 0
	for i := range z {
		if k > 0 && cmp(z[k-1], z[i]) == 0 {
			add(&z[k-1], &z[i])
			continue
		}
		z[k] = z[i]
		k++
	}
	clear(z[k:])
	return z[:k]
}

func sortedBy[S ~[]C, C any](z S, cmp func(a, b C) int) bool {
	for i := 1; i < len(z); i++ {
		if cmp(z[i-1], z[i]) >= 0 {
			return false
		}
	}
	return true
}

func cmpIBP(a, b IBPCluster) int {
	if c := cmp.Compare(a.Mem, b.Mem); c != 0 {
		return c
	}
	return cmp.Compare(a.Disk, b.Disk)
}

func addIBP(a, b *IBPCluster) { a.V += b.V }

func cmpMMP(a, b MMPCluster) int {
	if c := cmp.Compare(a.Mem, b.Mem); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Disk, b.Disk); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Power, b.Power); c != 0 {
		return c
	}
	return cmp.Compare(a.Q, b.Q)
}

func addMMP(a, b *MMPCluster) { a.V += b.V }

func cmpDP(a, b DPCluster) int {
	if c := cmp.Compare(a.Mem, b.Mem); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Disk, b.Disk); c != 0 {
		return c
	}
	if c := cmp.Compare(a.L.Slope, b.L.Slope); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.L.P), len(b.L.P)); c != 0 {
		return c
	}
	for i := range a.L.P {
		if c := cmp.Compare(a.L.P[i].T, b.L.P[i].T); c != 0 {
			return c
		}
		if c := cmp.Compare(a.L.P[i].L, b.L.P[i].L); c != 0 {
			return c
		}
	}
	return 0
}

func addDP(a, b *DPCluster) { a.V += b.V }

// f32down rounds x to the largest float32 not above it: summaries store
// memory, disk and power in 32 bits (as on the wire) and must never claim
// more than the node has.
func f32down(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}
