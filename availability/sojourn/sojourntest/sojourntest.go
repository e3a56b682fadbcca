// Package sojourntest checks a sojourn law (availability.Sojourn) against
// its own definition, as testing/fstest checks a file system: every law of
// package availability/sojourn passes Check, and a program's own law
// should (docs/extending.md).
package sojourntest

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/volsched/volsched/availability"
)

// draws is the number of draws of each statistical check.
const draws = 20000

// Check runs the property tests of law d, with fixed seeds:
//
//   - Validate accepts it and Family names it;
//   - Rand: draws against CDF (one-sample Kolmogorov–Smirnov statistic
//     below Kolmogorov's 1 % critical value 1.63/√n) and their mean against
//     Mean (within 5 standard errors);
//   - Residual: draws against the equilibrium law (1/Mean)·∫_0^x (1 −
//     CDF), computed by quadrature (KS, 1 %);
//   - PartialMean(x) = x·(1 − CDF(x)) + Mean − ∫_0^x (1 − CDF) at the
//     quartiles and the 99th percentile of the draws (within 10⁻⁶·Mean);
//   - Scaled: Scaled(u).CDF(x) = CDF(u·x) and Scaled(u).Mean() =
//     Mean()/u, and the scaled law is of the same family.
//
// The sample-mean check needs a finite variance that 20,000 draws estimate
// well: check heavy-tailed laws with moderate parameters.
func Check(t testing.TB, d availability.Sojourn) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatalf("%v: Validate: %v", d, err)
	}
	if d.Family() == "" {
		t.Errorf("%v: empty Family", d)
	}
	mean := d.Mean()
	r := rand.New(rand.NewPCG(0x50705, 1))
	x := make([]float64, draws)
	var s, s2 float64
	for i := range x {
		x[i] = d.Rand(r)
		s += x[i]
		s2 += x[i] * x[i]
	}
	crit := 1.63 / math.Sqrt(draws)
	if ks := availability.KSStatistic(x, d.CDF); ks > crit {
		t.Errorf("%v: Rand against CDF: D = %.4f, want < %.4f", d, ks, crit)
	}
	m := s / draws
	se := math.Sqrt((s2/draws - m*m) / draws)
	if math.Abs(m-mean) > 5*se {
		t.Errorf("%v: sample mean %.4g, Mean %.4g ± %.2g (5 s.e.)", d, m, mean, 5*se)
	}
	sort.Float64s(x)
	surv := func(u float64) float64 { return 1 - d.CDF(u) }
	for _, q := range []float64{0.25, 0.5, 0.75, 0.99} {
		at := x[int(q*draws)]
		want := at*surv(at) + mean - integrate(surv, 0, at)
		if got := d.PartialMean(at); math.Abs(got-want) > 1e-6*mean {
			t.Errorf("%v: PartialMean(%.4g) = %.10g, x·S(x) + Mean − ∫S = %.10g", d, at, got, want)
		}
	}
	// Residual draws against the equilibrium CDF, integrated from draw to
	// draw.
	res := make([]float64, draws)
	for i := range res {
		res[i] = d.Residual(r)
	}
	sort.Float64s(res)
	eq := make(map[float64]float64, draws)
	acc, prev := 0.0, 0.0
	for _, v := range res {
		if v > prev {
			acc += integrate(surv, prev, v)
			prev = v
		}
		eq[v] = acc / mean
	}
	if ks := availability.KSStatistic(res, func(v float64) float64 { return eq[v] }); ks > crit {
		t.Errorf("%v: Residual against the equilibrium law: D = %.4f, want < %.4f", d, ks, crit)
	}
	for _, u := range []float64{60, 0.5} {
		sc := d.Scaled(u)
		if sc.Family() != d.Family() {
			t.Errorf("%v: Scaled(%v) is a %s law", d, u, sc.Family())
		}
		if a, b := sc.Mean(), mean/u; math.Abs(a-b) > 1e-9*b {
			t.Errorf("%v: Scaled(%v).Mean() = %v, want %v", d, u, a, b)
		}
		for _, q := range []float64{0.1, 0.5, 0.9} {
			v := x[int(q*draws)] / u
			if a, b := sc.CDF(v), d.CDF(u*v); math.Abs(a-b) > 1e-12 {
				t.Errorf("%v: Scaled(%v).CDF(%v) = %v, CDF(%v) = %v", d, u, v, a, u*v, b)
			}
		}
	}
}

// integrate is ∫_a^b f by adaptive Simpson's rule (absolute tolerance
// 10⁻¹² per unit of length, at most 50 levels).
func integrate(f func(float64) float64, a, b float64) float64 {
	fa, fm, fb := f(a), f((a+b)/2), f(b)
	whole := (b - a) / 6 * (fa + 4*fm + fb)
	return simpson(f, a, b, fa, fm, fb, whole, 1e-12*math.Max(b-a, 1e-300), 50)
}

func simpson(f func(float64) float64, a, b, fa, fm, fb, whole, tol float64, depth int) float64 {
	m := (a + b) / 2
	lm, rm := f((a+m)/2), f((m+b)/2)
	left := (m - a) / 6 * (fa + 4*lm + fm)
	right := (b - m) / 6 * (fm + 4*rm + fb)
	if depth <= 0 || math.Abs(left+right-whole) <= 15*tol {
		return left + right + (left+right-whole)/15
	}
	return simpson(f, a, m, fa, lm, fm, left, tol/2, depth-1) + simpson(f, m, b, fm, rm, fb, right, tol/2, depth-1)
}
