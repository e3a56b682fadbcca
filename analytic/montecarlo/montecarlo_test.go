package montecarlo

import (
	"math"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

const sigmas = 4 // tolerance in standard errors

func within(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if math.Abs(got-want) > sigmas*se {
		t.Errorf("%s: Monte Carlo %.6g ± %.2g, formula %.6g (off by %.1f SE)", what, got, se, want, math.Abs(got-want)/se)
	}
}

// TestSeed001MonteCarlo checks Lemma 1, Theorem 2 and P_UD against
// simulation over chains from the papers' generator.
func TestSeed001MonteCarlo(t *testing.T) {
	rng := stream.New(2026, 1)
	n := 60000
	if testing.Short() {
		n = 15000
	}
	for k := 0; k < 6; k++ {
		c := availability.Random(rng)
		one := []availability.Chain{c}
		mc := Simulate(one, 2, n, rng)
		within(t, "P+ (Lemma 1)", mc.P(), analytic.PPlus(c), mc.PSE())
		for _, W := range []int{3, 8} {
			mc := Simulate(one, W, n, rng)
			within(t, "E(W) (Theorem 2)", mc.Mean, analytic.ExpectedTime(c, float64(W)), mc.MeanSE)
			within(t, "P+^(W-1)", mc.P(), math.Pow(analytic.PPlus(c), float64(W-1)), mc.PSE())
		}
		// P_UD(k): not DOWN during k slots.
		for _, kk := range []int{2, 10, 40} {
			p, se := NotDown(c, kk, n, rng)
			within(t, "P_UD exact", p, analytic.PUDExact(c, kk), se)
			within(t, "P_ND", p, analytic.PNotDown(c, float64(kk-1)), se)
		}
	}
}

// TestSeed002MonteCarlo checks P+(S), (P+)^(W-1) and the conditional form
// of E(S)(W) against simulation for sets of 1 to 4 generated chains, and
// shows that the published form is not the conditional expectation.
func TestSeed002MonteCarlo(t *testing.T) {
	rng := stream.New(2026, 2)
	n := 40000
	if testing.Short() {
		n = 10000
	}
	publishedOff := 0
	for size := 1; size <= 4; size++ {
		chains := make([]availability.Chain, size)
		for i := range chains {
			chains[i] = availability.Random(rng)
		}
		tab, err := analytic.NewTable(chains, analytic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		all := []int{0, 1, 2, 3}[:size]
		st := tab.SetOf(all...).Stats()
		mc := Simulate(chains, 2, n, rng)
		within(t, "P+(S)", mc.P(), st.PPlus, mc.PSE())
		for _, W := range []int{4, 10} {
			mc := Simulate(chains, W, n, rng)
			within(t, "P(success of W)", mc.P(), st.PSuccess(float64(W)), mc.PSE())
			within(t, "E(S)(W) conditional", mc.Mean, st.ExpectedTime(float64(W), analytic.Conditional), mc.MeanSE)
			if math.Abs(mc.Mean-st.ExpectedTime(float64(W), analytic.Published)) > sigmas*mc.MeanSE {
				publishedOff++
			}
		}
	}
	if publishedOff < 6 {
		t.Errorf("the published E(S)(W) agreed with simulation in %d of 8 cases; docs/analytic.md says it does not", 8-publishedOff)
	}
}

// TestNeverDownAndMixedMonteCarlo covers sets where some or all processors
// never go DOWN (Kac's lemma, and the truncated sums with Λ from the others).
func TestNeverDownAndMixedMonteCarlo(t *testing.T) {
	rng := stream.New(2026, 3)
	safe := availability.Chain{P: [3][3]float64{{0.7, 0.3, 0}, {0.2, 0.8, 0}, {0.4, 0.4, 0.2}}}
	safe2 := availability.Chain{P: [3][3]float64{{0.9, 0.1, 0}, {0.5, 0.5, 0}, {0.4, 0.4, 0.2}}}
	risky := availability.Chain{P: [3][3]float64{{0.93, 0.04, 0.03}, {0.05, 0.93, 0.02}, {0.05, 0.05, 0.9}}}
	n := 40000
	for _, chains := range [][]availability.Chain{{safe, safe2}, {safe, risky}, {safe2, risky, safe}} {
		tab, err := analytic.NewTable(chains, analytic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		all := []int{0, 1, 2}[:len(chains)]
		st := tab.SetOf(all...).Stats()
		mc := Simulate(chains, 6, n, rng)
		within(t, "P(success)", mc.P(), st.PSuccess(6), mc.PSE())
		within(t, "E(S)(6) conditional", mc.Mean, st.ExpectedTime(6, analytic.Conditional), mc.MeanSE)
	}
}
