package robustness

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/availability"
)

// Shapes from seed 003's Table 1: the log-normal fit of the UCB trace's
// availability intervals has σ = 2.419. Table 1 gives no Weibull fit; the
// Weibull that maximizes the likelihood of a large sample of a log-normal
// of parameter σ has shape 1/σ (the score equation 1/k + E[ln X] −
// E[X^k ln X]/E[X^k] = 0 with E[X^k ln X]/E[X^k] = μ + kσ² gives k = 1/σ),
// 0.413 for UCB; `volsched trace fit` on the synthetic UCB trace
// (`volsched trace gen --preset ucb --seed 1`) finds 0.404.
const (
	UCBSigma        = 2.419
	UCBWeibullShape = 1 / UCBSigma
)

// slotMeanTerms is the number of terms of SlotMean's series summed one by
// one; the rest is taken from the Euler–Maclaurin formula.
const slotMeanTerms = 256

// SlotMean is the mean number of slots a sojourn of law d (in slots)
// occupies once cut into slots, E[max(1, ⌈X⌉)] = 1 + Σ_{k≥1} P(X > k)
// (availability.SlotsOf: P(N > k) = P(X > k) for k ≥ 1). The first
// slotMeanTerms terms are summed; the tail Σ_{k>K} S(k) is ∫_K^∞ S(x) dx −
// S(K)/2 + f(K)/12 (Euler–Maclaurin, f the density, taken as the CDF's
// difference over [K − ½, K + ½]; the next term involves f″ and is
// negligible there), with ∫_K^∞ S = E[X·1{X > K}] − K·S(K) in closed form
// for each family.
func SlotMean(d availability.Sojourn) float64 {
	const K = slotMeanTerms
	sum := 1.0
	for k := 1; k <= K; k++ {
		sum += 1 - d.CDF(float64(k))
	}
	sK := 1 - d.CDF(K)
	fK := d.CDF(K+0.5) - d.CDF(K-0.5)
	return sum + upperPartialMean(d, K) - K*sK - sK/2 + fK/12
}

// upperPartialMean is E[X·1{X > x}].
func upperPartialMean(d availability.Sojourn, x float64) float64 {
	switch d.Family {
	case availability.Exponential:
		return (x + 1/d.Rate) * math.Exp(-d.Rate*x)
	case availability.Weibull:
		a := 1 + 1/d.Shape
		return d.Scale * math.Gamma(a) * mathext.GammaIncRegComp(a, math.Pow(x/d.Scale, d.Shape))
	default:
		m := math.Exp(d.Mu + d.Sigma*d.Sigma/2)
		return m * distuv.UnitNormal.Survival((math.Log(x)-d.Mu-d.Sigma*d.Sigma)/d.Sigma)
	}
}

// SojournOfSlotMean is the law of the family with the given shape (Weibull
// k, log-normal σ; ignored for the exponential) whose sojourns last
// slotMean slots on average once cut into slots (SlotMean), found on the
// law's continuous mean by regula falsi (Illinois) within a bracket
// (SlotMean grows with it: the family is a scale family; it tends to 1 as
// the mean tends to 0 and exceeds the mean). slotMean must exceed 1.
func SojournOfSlotMean(f availability.Family, shape, slotMean float64) (availability.Sojourn, error) {
	if !(slotMean > 1) || math.IsInf(slotMean, 0) {
		return availability.Sojourn{}, fmt.Errorf("mean sojourn of %v slots, want a finite number > 1", slotMean)
	}
	law := func(mean float64) availability.Sojourn {
		switch f {
		case availability.Weibull:
			return availability.WeibullMean(shape, mean)
		case availability.LogNormal:
			return availability.LogNormalMean(shape, mean)
		}
		return availability.ExponentialMean(mean)
	}
	if err := law(slotMean).Validate(); err != nil {
		return availability.Sojourn{}, err
	}
	// g(m) = SlotMean(law(m)) − slotMean: g(0+) = 1 − slotMean < 0 and
	// g(slotMean) ≥ 0.
	g := func(m float64) float64 { return SlotMean(law(m)) - slotMean }
	a, b := 0.0, slotMean
	ga, gb := 1-slotMean, g(b)
	side := 0
	for i := 0; i < 200 && gb != 0 && b-a > 1e-12*slotMean; i++ {
		c := (a*gb - b*ga) / (gb - ga)
		gc := g(c)
		switch {
		case gc == 0:
			a, b, ga, gb = c, c, 0, 0
		case (gc > 0) == (gb > 0):
			b, gb = c, gc
			if side == -1 {
				ga /= 2
			}
			side = -1
		default:
			a, ga = c, gc
			if side == 1 {
				gb /= 2
			}
			side = 1
		}
		if math.Abs(gc) < 1e-11*slotMean {
			return law(c), nil
		}
	}
	return law((a + b) / 2), nil
}

// SemiMarkovOf is the semi-Markov model with the chain's mean sojourns and
// jumps but sojourns of another law: in state i the processor stays on
// average 1/(1 − P_ii) slots (the chain's geometric mean), with a law of
// family f and shape (SojournOfSlotMean), then moves to j ≠ i with
// probability P_ij/(1 − P_ii). Its long-run fractions of time in each
// state are the chain's stationary distribution; only the shape of the
// sojourns differs. Every P_ii must be < 1.
func SemiMarkovOf(c availability.Chain, f availability.Family, shape float64) (availability.SemiMarkov, error) {
	var m availability.SemiMarkov
	for i := 0; i < 3; i++ {
		stay := c.P[i][i]
		if !(stay < 1) {
			return m, fmt.Errorf("P[%s][%s] = %v: a state never left has no sojourn law", availability.State(i), availability.State(i), stay)
		}
		s, err := SojournOfSlotMean(f, shape, 1/(1-stay))
		if err != nil {
			return m, fmt.Errorf("state %s: %w", availability.State(i), err)
		}
		m.Sojourn[i] = s
		for j := 0; j < 3; j++ {
			if j != i {
				m.Jump[i][j] = c.P[i][j] / (1 - stay)
			}
		}
	}
	return m, m.Validate()
}
