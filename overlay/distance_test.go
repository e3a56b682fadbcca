package overlay

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// closeF says whether a float32 spread agrees with its exact value.
func closeF(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-5*max(1, math.Abs(want))
}

// TestSpreadExact: a function's spread is the exact first and second
// moment of its nodes' deviations from its value, whatever the order of
// the merges (all nodes clustered into one function).
func TestSpreadExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 60).Draw(t, "n")
		ibp, _ := newIBP(1)
		mmp, _ := newMMP(1, 0.5)
		dp, _ := newDP(1, 10, 1000)
		is, ms, ds := make([]Summary, n), make([]Summary, n), make([]Summary, n)
		var mem, disk, pow, q []float64
		for i := range n {
			m := float64(rapid.IntRange(0, 100).Draw(t, "m"))
			d := float64(rapid.IntRange(0, 100).Draw(t, "d"))
			s := float64(rapid.IntRange(1, 100).Draw(t, "s"))
			e := float64(rapid.IntRange(0, 100).Draw(t, "q"))
			mem, disk, pow, q = append(mem, m), append(disk, d), append(pow, s), append(q, e)
			is[i] = IBPSummary{{Mem: float32(m), Disk: float32(d), V: 1}}
			ms[i] = MMPSummary{{Mem: float32(m), Disk: float32(d), Power: float32(s), Q: e, V: 1}}
			ds[i] = DPSummary{{Mem: float32(m), Disk: float32(d), V: 1, L: LFunc{P: []LPoint{{T: e, L: 0}}, Slope: s}}}
		}
		moments := func(xs []float64, isMax bool) (lin, sq, far float64) {
			h := slices.Min(xs)
			if isMax {
				h = slices.Max(xs)
			}
			for _, x := range xs {
				lin += math.Abs(x - h)
				sq += (x - h) * (x - h)
				far = max(far, math.Abs(x-h))
			}
			return lin, sq, far
		}
		check := func(name string, got Spread, xs []float64, isMax bool) {
			lin, sq, far := moments(xs, isMax)
			if !closeF(got.Lin, lin) || !closeF(got.Sq, sq) || !closeF(got.Far, far) {
				t.Fatalf("%s spread %+v, want lin %g sq %g far %g", name, got, lin, sq, far)
			}
		}
		ri, si := plainOf[IBPSummary](aggregateAll(ibp, is))
		rm, sm := plainOf[MMPSummary](aggregateAll(mmp, ms))
		rd, sd := plainOf[DPSummary](aggregateAll(dp, ds))
		if len(ri) != 1 || len(rm) != 1 || len(rd) != 1 {
			t.Fatalf("want one function each, got %d %d %d", len(ri), len(rm), len(rd))
		}
		// all nodes identical: no spread, plain summaries
		si, sm, sd = append(si, make([]Spread, 2)...), append(sm, make([]Spread, 4)...), append(sd, make([]Spread, 3)...)
		check("ibp memory", si[0], mem, false)
		check("ibp disk", si[1], disk, false)
		check("mmp memory", sm[0], mem, false)
		check("mmp disk", sm[1], disk, false)
		check("mmp power", sm[2], pow, false)
		check("mmp queue", sm[3], q, true)
		check("dp memory", sd[0], mem, false)
		check("dp disk", sd[1], disk, false)
		if sd[2].Lin < 0 || sd[2].Sq < 0 {
			t.Fatalf("dp l spread %+v negative", sd[2])
		}
	})
}

// TestAtSorted: the one-pass evaluation equals At.
func TestAtSorted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "s"))
		ts := make([]float64, rapid.IntRange(1, 50).Draw(t, "n"))
		for i := range ts {
			ts[i] = rapid.Float64Range(-10, 200).Draw(t, "t")
		}
		slices.Sort(ts)
		out := make([]float64, len(ts))
		f.AtSorted(ts, out)
		for i, x := range ts {
			if out[i] != f.At(x) {
				t.Fatalf("at %g: %g, At %g", x, out[i], f.At(x))
			}
		}
	})
}

// divCells is a Cells rule for the tests (the authors' rule of package
// stars: the maximum in a cell b of its own).
type divCells struct{}

func (divCells) Cell(d, span float64, b int) int {
	if !(span > 0) {
		return 0
	}
	return max(0, min(int(d*float64(b)/span), b))
}

// TestCellsRule checks that a Cells rule (Options.Cells) replaces ours on
// hand-placed values: with b = 2 intervals ours puts an attribute's
// maximum in cell 1, divCells in a cell 2 of its own, and the rule is
// given the value itself (x − min) for an attribute where less is better
// (MMP's queue end) as for the others.
func TestCellsRule(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want int
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {1, 1}} {
		if got := gridCell(c.n, 2); got != c.want {
			t.Errorf("gridCell(%v, 2) = %d, want %d", c.n, got, c.want)
		}
	}
	// memory, disk, power (more is better) and queue end (less is better);
	// SF_max 16 over 4 attributes: 2 intervals each.
	mk := func(m, q float64) vec { return vec{o: [4]float64{m, 50, 50, q}, v: 1} }
	cells := func(rule Cells) [3][2]int {
		vs := []vec{mk(0, 0), mk(60, 40), mk(100, 100)}
		m := prepareVecs(vs, 4, 16, mmpIsMax, gridSpec{cells: rule}, DistLoss)
		var out [3][2]int
		for i := range vs {
			out[i] = [2]int{int(vs[i].cell & 0xff), int(vs[i].cell >> 24)}
			if vs[i].cell != m.computeCell(&vs[i]) {
				t.Fatalf("rule %v: stored cell differs from computeCell", rule)
			}
		}
		return out
	}
	// ours: memory by value (100 in the last interval), queue by its
	// distance from the largest queue end (100 → 0, 40 and 0 → 1)
	if got, want := cells(nil), [3][2]int{{0, 1}, {1, 1}, {1, 0}}; got != want {
		t.Errorf("our cells: (memory, queue) cells %v, want %v", got, want)
	}
	// the rule: floor((x − min)·2/Δ) for both, the maxima alone in cell 2
	if got, want := cells(divCells{}), [3][2]int{{0, 0}, {1, 0}, {2, 2}}; got != want {
		t.Errorf("divCells: (memory, queue) cells %v, want %v", got, want)
	}
}
