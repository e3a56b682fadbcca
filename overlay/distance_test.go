package overlay

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/volsched/volsched/stream"
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
		f.atSorted(ts, out)
		for i, x := range ts {
			if out[i] != f.At(x) {
				t.Fatalf("at %g: %g, At %g", x, out[i], f.At(x))
			}
		}
	})
}

// TestRandomDPNode: the §7.1 DP nodes hold feasible EDF queues (every task
// ends by its deadline, back to back from the running task's end), about
// one in eight is idle, and the reported l is the admission test's.
func TestRandomDPNode(t *testing.T) {
	r := stream.New(3, 0xd9)
	idle := 0
	const n = 4000
	for i := range n {
		s := uniformInt(r, accPowLo, accPowHi)
		e := randomDPNode(r, s)
		if !e.running {
			idle++
			if len(e.runs) != 0 {
				t.Fatal("an idle node with a queue")
			}
			continue
		}
		if e.end < 0 || e.end > e.cur.dur+1e-9 || e.end > e.cur.deadline {
			t.Fatalf("node %d: running task ends at %g (length %g, deadline %g)", i, e.end, e.cur.dur, e.cur.deadline)
		}
		tm := e.end
		prev := e.cur.deadline
		for _, run := range e.runs {
			if run.deadline < prev {
				t.Fatalf("node %d: deadlines out of EDF order", i)
			}
			prev = run.deadline
			tm += float64(run.n) * run.dur
			if tm > run.deadline*(1+1e-12) {
				t.Fatalf("node %d: work ends at %g after its deadline %g", i, tm, run.deadline)
			}
		}
		if i < 200 {
			f := e.Function(0)
			for _, d := range []float64{1, 100, 1000, 5000, 20000, 1e5, 1e6} {
				if math.Abs(f.At(d)-e.LAt(0, d)) > 1e-6*max(1, e.LAt(0, d)) || f.At(d) > s*d+1e-6 {
					t.Fatalf("node %d: l(%g) = %g, admission test %g, power×δ %g", i, d, f.At(d), e.LAt(0, d), s*d)
				}
			}
		}
	}
	if frac := float64(idle) / n; math.Abs(frac-1.0/8) > 0.02 {
		t.Errorf("idle fraction %g, want about 1/8", frac)
	}
}

// TestKNNClustering: the authors' approximate clustering (used only to
// measure its effect) conserves nodes, returns at most k functions, and
// each is the sum of some of the inputs (its values are within theirs).
func TestKNNClustering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		k := rapid.IntRange(1, 16).Draw(t, "k")
		vs := make([]vec, n)
		total := 0.0
		for i := range vs {
			vs[i] = vec{o: [4]float64{rapid.Float64Range(0, 100).Draw(t, "m"), rapid.Float64Range(0, 100).Draw(t, "d")},
				v: float64(rapid.IntRange(1, 5).Draw(t, "v"))}
			total += vs[i].v
		}
		in := slices.Clone(vs)
		m := prepareVecs(vs, 2, k, [4]bool{}, gridCells, DistMSE)
		got := agglomerateKNN(vs, k, rapid.IntRange(1, 12).Draw(t, "K"), &m, func(c *vec) float64 { return c.v }, m.plain)
		if len(got) > max(k, 1) {
			t.Fatalf("%d functions, want <= %d", len(got), k)
		}
		sum := 0.0
		for _, c := range got {
			sum += c.v
			found := false
			for _, x := range in {
				found = found || (x.o[0] == c.o[0])
			}
			if !found {
				t.Fatalf("memory %g is no input's", c.o[0])
			}
		}
		if sum != total {
			t.Fatalf("%g nodes, want %g", sum, total)
		}
	})
}

// TestStarsCellsByHand checks the two cell rules on hand-placed values: with
// b = 2 intervals, gridCells puts an attribute's maximum in cell 1 and
// gridStarsCells in a cell 2 of its own, taken from the value itself for
// an attribute where less is better (MMP's queue end) as for the others.
func TestStarsCellsByHand(t *testing.T) {
	for _, c := range []struct {
		gm   gridMode
		n    float64
		want int
	}{{gridCells, 0, 0}, {gridCells, 0.49, 0}, {gridCells, 0.5, 1}, {gridCells, 1, 1},
		{gridStarsCells, 0.49, 0}, {gridStarsCells, 0.5, 1}, {gridStarsCells, 0.99, 1}, {gridStarsCells, 1, 2}} {
		if got := c.gm.cell(c.n, 2); got != c.want {
			t.Errorf("mode %d cell(%v, 2) = %d, want %d", c.gm, c.n, got, c.want)
		}
	}
	// memory, disk, power (more is better) and queue end (less is better);
	// SF_max 16 over 4 attributes: 2 intervals each.
	mk := func(m, q float64) vec { return vec{o: [4]float64{m, 50, 50, q}, v: 1} }
	cells := func(gm gridMode) [3][2]int {
		vs := []vec{mk(0, 0), mk(60, 40), mk(100, 100)}
		m := prepareVecs(vs, 4, 16, mmpIsMax, gm, DistLoss)
		var out [3][2]int
		for i := range vs {
			out[i] = [2]int{int(vs[i].cell & 0xff), int(vs[i].cell >> 24)}
			if vs[i].cell != m.computeCell(&vs[i]) {
				t.Fatalf("mode %d: stored cell differs from computeCell", gm)
			}
		}
		return out
	}
	// ours: memory by value (100 in the last interval), queue by its
	// distance from the largest queue end (100 → 0, 40 and 0 → 1)
	if got, want := cells(gridCells), [3][2]int{{0, 1}, {1, 1}, {1, 0}}; got != want {
		t.Errorf("gridCells: (memory, queue) cells %v, want %v", got, want)
	}
	// the authors': floor((x − min)·2/Δ) for both, the maxima alone in cell 2
	if got, want := cells(gridStarsCells), [3][2]int{{0, 0}, {1, 0}, {2, 2}}; got != want {
		t.Errorf("gridStarsCells: (memory, queue) cells %v, want %v", got, want)
	}
}

// TestCellDivAtMaximum: with the authors' cells a value at the maximum of
// its range lands in the extra cell b, exactly: computed as d·(1/Δ)·b the
// product rounds below b for some ranges (found here), which the division
// avoids; and a value just below a boundary stays below it.
func TestCellDivAtMaximum(t *testing.T) {
	rounded := 0
	for s := 1.0; s <= 5000; s++ {
		for _, b := range []int{2, 3, 6, 15} {
			if int(s*(1/s*float64(b))) < b {
				rounded++
			}
			if c := gridStarsCells.cellDiv(s, b, s); c != b {
				t.Fatalf("cellDiv(%v, %d, %v) = %d, want %d", s, b, s, c, b)
			}
			if c := gridCells.cellDiv(s, b, s); c != b-1 {
				t.Fatalf("gridCells.cellDiv(%v, %d, %v) = %d, want %d", s, b, s, c, b-1)
			}
			if c := gridStarsCells.cellDiv(s/float64(b)*float64(b-1)-1e-9*s, b, s); c != b-2 {
				t.Fatalf("just below the last boundary: cellDiv = %d, want %d (span %v, b %d)", c, b-2, s, b)
			}
		}
	}
	if rounded == 0 {
		t.Log("no range rounds below b with a multiplication (the division is then only a safeguard)")
	}
	if gridStarsCells.cellDiv(5, 2, 0) != 0 {
		t.Error("an empty range must give cell 0")
	}
}
