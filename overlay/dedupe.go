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
// that Aggregate returns are sorted by cmp and hold no two mergeable
// functions; the union of two such summaries is a linear merge.
//
// Which identical functions are merged depends on the distance, so that the
// result stays that of Fig. 3: with DistLoss the distance of two identical
// functions is 0, the smallest possible, and they are always merged; with
// DistMSE it is the mean squared spread of their nodes, 0 only when both
// spreads are zero (e.g. single nodes), so only those are merged (merging
// two identical functions with spread is what Fig. 3 may or may not do
// first; it is left to the clustering).

// unionDedup appends to dst the union of x and y with mergeable identical
// functions merged (merge folds b into a and reports whether it could). If
// x and y are sorted by cmp the result is sorted; otherwise the union is
// sorted first. cmp orders by the attributes, then the spreads; sortCmp is
// the same order on values (for the sort; the scans compare in place).
func unionDedup[S ~[]C, C any](dst, x, y S, cmp func(a, b *C) int, sortCmp func(a, b C) int, merge func(a, b *C) bool) S {
	if !sortedBy(x, cmp) || !sortedBy(y, cmp) {
		dst = append(append(dst, x...), y...)
		slices.SortStableFunc(dst, sortCmp)
		return compactDedup(dst, merge)
	}
	return mergeSorted(dst, x, y, cmp, merge)
}

// mergeSorted appends to dst the linear merge of x and y (sorted by cmp),
// folding each function into the previous one when merge can.
func mergeSorted[S ~[]C, C any](dst, x, y S, cmp func(a, b *C) int, merge func(a, b *C) bool) S {
	push := func(c *C) {
		if n := len(dst); n > 0 && merge(&dst[n-1], c) {
			return
		}
		dst = append(dst, *c)
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		if cmp(&x[i], &y[j]) <= 0 {
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

// sortDedup sorts z by cmp (sortCmp on values) and merges mergeable
// identical functions (used on a clustering's result, whose sums may
// coincide).
func sortDedup[S ~[]C, C any](z S, cmp func(a, b *C) int, sortCmp func(a, b C) int, merge func(a, b *C) bool) S {
	if !sortedBy(z, cmp) {
		slices.SortStableFunc(z, sortCmp)
	}
	return compactDedup(z, merge)
}

// compactDedup merges adjacent mergeable functions of z (sorted by cmp, so
// identical functions are adjacent).
func compactDedup[S ~[]C, C any](z S, merge func(a, b *C) bool) S {
	k := 0
	for i := range z {
		if k > 0 && merge(&z[k-1], &z[i]) {
			continue
		}
		z[k] = z[i]
		k++
	}
	clear(z[k:])
	return z[:k]
}

// sortedBy says whether z is sorted by cmp (compared in place: a
// function with its spreads is too large to pass by value cheaply).
func sortedBy[S ~[]C, C any](z S, cmp func(a, b *C) int) bool {
	for i := 1; i < len(z); i++ {
		if cmp(&z[i-1], &z[i]) > 0 {
			return false
		}
	}
	return true
}

// cmpSpreads orders spreads (zero spreads first).
func cmpSpreads(a, b []Spread) int {
	for i := range a {
		if c := cmpFloat(a[i].Sq, b[i].Sq); c != 0 {
			return c
		}
		if c := cmpFloat(a[i].Lin, b[i].Lin); c != 0 {
			return c
		}
		if c := cmpFloat(a[i].Far, b[i].Far); c != 0 {
			return c
		}
	}
	return 0
}

// mergeable says whether two functions equal in their attributes may be
// merged before clustering (see above).
func mergeable(d Distance, a, b []Spread) bool {
	if d == DistLoss {
		return true
	}
	for i := range a {
		if !a[i].zero() || !b[i].zero() {
			return false
		}
	}
	return true
}

// addSpreads folds b's spreads into a (identical values: deviations 0).
func addSpreads(a, b []Spread) {
	for i := range a {
		a[i] = Spread{a[i].Lin + b[i].Lin, a[i].Sq + b[i].Sq, max(a[i].Far, b[i].Far)}
	}
}

// cmpFloat is cmp.Compare for floats, with the comparisons that decide
// ordinary values first (cmp.Compare tests for NaN before comparing).
func cmpFloat[T ~float32 | ~float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return cmp.Compare(x, y) // a NaN
}

func cmpIBP(a, b IBPCluster) int {
	if c := cmpFloat(a.Mem, b.Mem); c != 0 {
		return c
	}
	return cmpFloat(a.Disk, b.Disk)
}

func addIBP(a, b *IBPCluster) { a.V += b.V }

func cmpMMP(a, b MMPCluster) int {
	if c := cmpFloat(a.Mem, b.Mem); c != 0 {
		return c
	}
	if c := cmpFloat(a.Disk, b.Disk); c != 0 {
		return c
	}
	if c := cmpFloat(a.Power, b.Power); c != 0 {
		return c
	}
	return cmpFloat(a.Q, b.Q)
}

func addMMP(a, b *MMPCluster) { a.V += b.V }

func cmpDP(a, b DPCluster) int {
	if c := cmpFloat(a.Mem, b.Mem); c != 0 {
		return c
	}
	if c := cmpFloat(a.Disk, b.Disk); c != 0 {
		return c
	}
	if c := cmpFloat(a.L.Slope, b.L.Slope); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.L.P), len(b.L.P)); c != 0 {
		return c
	}
	for i := range a.L.P {
		if c := cmpFloat(a.L.P[i].T, b.L.P[i].T); c != 0 {
			return c
		}
		if c := cmpFloat(a.L.P[i].L, b.L.P[i].L); c != 0 {
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

// Float32Down rounds x to the largest float32 not above it, as summaries
// store memory, disk and power (a summary never claims more than the node
// has).
func Float32Down(x float64) float32 { return f32down(x) }
