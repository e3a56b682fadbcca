package robustness

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
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
// negligible there), with ∫_K^∞ S = E[X·1{X > K}] − K·S(K) from the law's
// PartialMean (in closed form for every law of package
// availability/sojourn).
func SlotMean(d availability.Sojourn) float64 {
	const K = slotMeanTerms
	sum := 1.0
	for k := 1; k <= K; k++ {
		sum += 1 - d.CDF(float64(k))
	}
	sK := 1 - d.CDF(K)
	fK := d.CDF(K+0.5) - d.CDF(K-0.5)
	return sum + d.PartialMean(K) - K*sK - sK/2 + fK/12
}

// SojournOfSlotMean is the law of family f (a registered sojourn law with
// OfMean) with the given shape (Weibull k, log-normal σ; ignored for the
// exponential) whose sojourns last slotMean slots on average once cut into
// slots (SlotMean), found on the law's continuous mean by regula falsi
// (Illinois) within a bracket (SlotMean grows with it: the family is a
// scale family; it tends to 1 as the mean tends to 0 and exceeds the mean).
// slotMean must exceed 1.
func SojournOfSlotMean(f sojourn.Family, shape, slotMean float64) (availability.Sojourn, error) {
	if f.OfMean == nil {
		return nil, fmt.Errorf("the %s law has no form by shape and mean (sojourn.Family.OfMean), which the study needs", f.Name)
	}
	if !(slotMean > 1) || math.IsInf(slotMean, 0) {
		return nil, fmt.Errorf("mean sojourn of %v slots, want a finite number > 1", slotMean)
	}
	law := func(mean float64) availability.Sojourn { return f.OfMean(shape, mean) }
	if err := law(slotMean).Validate(); err != nil {
		return nil, err
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
func SemiMarkovOf(c availability.Chain, f sojourn.Family, shape float64) (availability.SemiMarkov, error) {
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
