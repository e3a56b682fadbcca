package main

import (
	"math"
	"testing"

	"github.com/volsched/volsched/workload"
)

// TestFitRecoversAKnownModel: data tabulated from a known model (an atom
// and two log-normals on a grid) are fitted back within a small
// Kolmogorov–Smirnov distance, with the atom found and the mean kept.
func TestFitRecoversAKnownModel(t *testing.T) {
	if testing.Short() {
		t.Skip("a few CPU-seconds of Nelder–Mead; skipped with -short")
	}
	// (no other value holds 2 % of the probability: the only atom is 1)
	truth := workload.Dist{Min: 1, Max: 1000, Step: 1, Atoms: []workload.Atom{{Value: 1, P: 0.3}},
		Mix: []workload.LogNormal{{W: 0.6, Mu: math.Log(40), Sigma: 1}, {W: 0.4, Mu: math.Log(300), Sigma: 0.5}}}
	if err := truth.Validate("truth"); err != nil {
		t.Fatal(err)
	}
	data := truth.Table("truth")
	r, err := fitDist(data)
	if err != nil {
		t.Fatal(err)
	}
	d := r.dist
	if len(d.Atoms) != 1 || d.Atoms[0].Value != 1 || math.Abs(d.Atoms[0].P-0.3) > 1e-9 {
		t.Errorf("atoms %+v, want 1 with probability 0.3", d.Atoms)
	}
	if d.Min != 1 || d.Max != 1000 || d.Step != 1 {
		t.Errorf("support [%g, %g] step %g, want [1, 1000] step 1", d.Min, d.Max, d.Step)
	}
	if r.ks > 0.005 {
		t.Errorf("KS %g (by K: %v), want <= 0.005", r.ks, r.tried)
	}
	if m, want := d.Table("").Mean(), data.Mean(); math.Abs(m/want-1) > 0.02 {
		t.Errorf("mean %g, want %g", m, want)
	}
}

func TestSupportAndStep(t *testing.T) {
	c := &workload.CDF{Values: []float64{1, 1.1, 1.3, 2.5, 7, 7}, Probs: []float64{0.2, 0.3, 0.5, 0.9, 1, 1}}
	min, max, step := newEmpirical(c).support()
	if min != 1 || max != 7 || step != 0.1 {
		t.Errorf("support %g..%g step %g, want 1..7 step 0.1", min, max, step)
	}
	c = &workload.CDF{Values: []float64{10000, 12000, 16000, 20000}, Probs: []float64{0.1, 0.5, 0.9, 1}}
	if _, _, step := newEmpirical(c).support(); step != 2000 {
		t.Errorf("step %g, want 2000", step)
	}
	c = &workload.CDF{Values: []float64{0.5, math.Pi}, Probs: []float64{0.5, 1}}
	if _, _, step := newEmpirical(c).support(); step != 0 {
		t.Errorf("step %g, want 0 (continuous)", step)
	}
}

func TestMergePoints(t *testing.T) {
	n := 3 * fitPoints
	xs, rs := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], rs[i] = float64(i), 1
	}
	p := mergePoints(xs, rs)
	if len(p.x) > fitPoints+1 || p.R[len(p.R)-1] != 1 {
		t.Fatalf("%d points (want <= %d), last R %g", len(p.x), fitPoints+1, p.R[len(p.R)-1])
	}
	sum := 0.0
	for _, r := range p.r {
		sum += r
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("merged masses sum to %g", sum)
	}
}
