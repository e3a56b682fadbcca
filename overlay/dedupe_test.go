package overlay

import (
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
)

// aggregateAll aggregates leaf summaries pairwise up to one summary.
func aggregateAll(p Rules, sums []Summary) Summary {
	for len(sums) > 1 {
		var next []Summary
		for i := 0; i < len(sums); i += 2 {
			if i+1 < len(sums) {
				next = append(next, p.Aggregate(sums[i], sums[i+1]))
			} else {
				next = append(next, sums[i])
			}
		}
		sums = next
	}
	return sums[0]
}

// Many nodes with few distinct hardware combinations: identical sampled
// functions are merged exactly (v summed), so the root summary is the
// exact histogram of the combinations even with SF_max below the number
// of nodes, and no clustering loss happens.
func TestAggregateMergesIdenticalFunctions(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	mems := []float64{1024, 2048, 4096}
	disks := []float64{10, 500}
	type hw struct{ m, d float64 }
	want := map[hw]int{}
	const n = 1000
	ibpSums, mmpSums, dpSums := make([]Summary, n), make([]Summary, n), make([]Summary, n)
	lf := LFunc{P: []LPoint{{T: 5, L: 0}, {T: 50, L: 900}}, Slope: 20}
	for i := range n {
		h := hw{mems[rng.IntN(len(mems))], disks[rng.IntN(len(disks))]}
		want[h]++
		ibpSums[i] = IBPSummary{{Mem: float32(h.m), Disk: float32(h.d), V: 1}}
		mmpSums[i] = MMPSummary{{Mem: float32(h.m), Disk: float32(h.d), Power: 1500, Q: 30, V: 1}}
		dpSums[i] = DPSummary{{Mem: float32(h.m), Disk: float32(h.d), V: 1, L: lf}}
	}
	ibp, _ := newIBP(9)
	mmp, _ := newMMP(9, 0.5)
	dp, _ := newDP(9, 10, 100000)
	check := func(name Policy, got map[hw]int, nodes, funcs int) {
		t.Helper()
		if nodes != n || funcs != len(want) || len(got) != len(want) {
			t.Fatalf("%s: %d nodes in %d functions, want %d in %d", name, nodes, funcs, n, len(want))
		}
		for h, v := range want {
			if got[h] != v {
				t.Fatalf("%s: %+v covers %d nodes, want %d", name, h, got[h], v)
			}
		}
	}
	ri := asIBP(aggregateAll(ibp, ibpSums))
	gi := map[hw]int{}
	for _, c := range ri {
		gi[hw{float64(c.Mem), float64(c.Disk)}] += int(c.V)
	}
	check(PolicyIBP, gi, ri.Nodes(), len(ri))
	rm := asMMP(aggregateAll(mmp, mmpSums))
	gm := map[hw]int{}
	for _, c := range rm {
		if c.Power != 1500 || c.Q != 30 {
			t.Fatalf("mmp: %+v changed by the merge", c)
		}
		gm[hw{float64(c.Mem), float64(c.Disk)}] += int(c.V)
	}
	check(PolicyMMP, gm, rm.Nodes(), len(rm))
	rd := asDP(aggregateAll(dp, dpSums))
	gd := map[hw]int{}
	for _, c := range rd {
		if !c.L.Equal(&lf) {
			t.Fatalf("dp: l %+v changed by the merge", c.L)
		}
		gd[hw{float64(c.Mem), float64(c.Disk)}] += int(c.V)
	}
	check(PolicyDP, gd, rd.Nodes(), len(rd))
}

// The union of unsorted inputs (summaries not built by Aggregate) is still
// deduplicated, sorted and conserves v; sorted inputs take the linear merge.
func TestUnionDedup(t *testing.T) {
	x := IBPSummary{{Mem: 3, Disk: 1, V: 2}, {Mem: 1, Disk: 1, V: 1}, {Mem: 3, Disk: 1, V: 4}}
	y := IBPSummary{{Mem: 1, Disk: 1, V: 5}, {Mem: 2, Disk: 9, V: 1}}
	union := func(x, y IBPSummary) IBPSummary {
		fx, fy := fnsOf[IBPSummary](nil, x, 2), fnsOf[IBPSummary](nil, y, 2)
		z := unionDedup([]ibpFn(nil), fx, fy, cmpFnPtr(cmpIBP), cmpFn(cmpIBP), mergeFn(DistMSE, cmpIBP, addIBP))
		return asIBP(summaryOf[IBPSummary](z, 2))
	}
	got := union(x, y)
	want := IBPSummary{{Mem: 1, Disk: 1, V: 6}, {Mem: 2, Disk: 9, V: 1}, {Mem: 3, Disk: 1, V: 6}}
	if !(&IBP{}).Equal(got, want) {
		t.Fatalf("unsorted union: %+v, want %+v", got, want)
	}
	a := IBPSummary{{Mem: 1, Disk: 1, V: 1}, {Mem: 2, Disk: 2, V: 1}}
	b := IBPSummary{{Mem: 1, Disk: 2, V: 1}, {Mem: 2, Disk: 2, V: 3}}
	got = union(a, b)
	want = IBPSummary{{Mem: 1, Disk: 1, V: 1}, {Mem: 1, Disk: 2, V: 1}, {Mem: 2, Disk: 2, V: 4}}
	if !(&IBP{}).Equal(got, want) {
		t.Fatalf("sorted union: %+v, want %+v", got, want)
	}
	if a[1].V != 1 || b[1].V != 3 {
		t.Fatalf("inputs modified: %+v %+v", a, b)
	}
}

func TestF32Down(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := rng.Float64() * 3000
		f := f32down(x)
		if float64(f) > x {
			t.Fatalf("f32down(%v) = %v, above", x, f)
		}
		if next := math.Nextafter32(f, float32(math.Inf(1))); float64(next) <= x {
			t.Fatalf("f32down(%v) = %v, not the largest float32 below (%v)", x, f, next)
		}
	}
	if f32down(4096) != 4096 || f32down(512000) != 512000 {
		t.Fatalf("integers not exact")
	}
}

// plainUnion (Aggregate's fast path) returns what the general path,
// unionOf then summaryOf, returns: random plain summaries with repeated
// values, sorted or not, some nil.
func TestPlainUnionMatchesUnionOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 9))
	random := func() Summary {
		n := rng.IntN(6)
		if n == 0 && rng.IntN(2) == 0 {
			return nil
		}
		s := make(IBPSummary, n)
		for i := range s {
			s[i] = IBPCluster{Mem: float32(rng.IntN(3)), Disk: float32(rng.IntN(3)), V: int32(1 + rng.IntN(3))}
		}
		if rng.IntN(4) != 0 {
			s = asIBP(summaryOf[IBPSummary](fnsOf[IBPSummary](nil, s, 2), 2))
			if s == nil {
				return nil
			}
			s = sortDedup(s, func(a, b *IBPCluster) int { return cmpIBP(*a, *b) }, cmpIBP, func(a, b *IBPCluster) bool {
				if cmpIBP(*a, *b) != 0 {
					return false
				}
				addIBP(a, b)
				return true
			})
		}
		return s
	}
	applied := 0
	for range 2000 {
		x, y := random(), random()
		k := 1 + rng.IntN(10)
		got, ok := plainUnion[IBPSummary](x, y, k, cmpIBP, addIBP)
		if !ok {
			continue
		}
		applied++
		z, scratch := unionOf[IBPSummary](&ibpFnPool, x, y, 2, &ibpOps, DistMSE)
		want := summaryOf[IBPSummary](z, 2)
		scratch.done()
		if (got == nil) != (want == nil) || (got != nil && !(&IBP{}).Equal(got, want)) {
			t.Fatalf("plainUnion(%v, %v) = %v, want %v", x, y, got, want)
		}
	}
	if applied < 500 {
		t.Fatalf("fast path applied %d times, want many", applied)
	}
}

// cmpFloat orders as cmp.Compare, NaNs and signed zeros included.
func TestCmpFloatIsCmpCompare(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(-1), -1, math.Copysign(0, -1), 0, 1e-300, 2, math.Inf(1)}
	for _, x := range vals {
		for _, y := range vals {
			if got, want := cmpFloat(x, y), cmp.Compare(x, y); got != want {
				t.Errorf("cmpFloat(%v, %v) = %d, want %d", x, y, got, want)
			}
			if got, want := cmpFloat(float32(x), float32(y)), cmp.Compare(float32(x), float32(y)); got != want {
				t.Errorf("cmpFloat(float32(%v), float32(%v)) = %d, want %d", x, y, got, want)
			}
		}
	}
}
