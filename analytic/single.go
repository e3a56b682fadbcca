// Package analytic holds the closed forms and numerical approximations of
// seeds 001 and 002 for the 3-state Markov availability model: the
// probability that a processor (or a set of processors) is UP again before
// going DOWN, the expected time to complete a workload conditioned on
// success, the probability of not going DOWN during a number of slots, and
// the communication estimates used by the tightly-coupled heuristics.
//
// Where a published formula differs from the quantity its definition asks
// for, both are available and docs/analytic.md says which is which.
package analytic

import (
	"math"

	"github.com/volsched/volsched/availability"
)

const (
	u = availability.Up
	r = availability.Reclaimed
	d = availability.Down
)

// PPlus is Lemma 1 of seed 001: the probability that a processor UP now will
// be UP again at a later slot without going DOWN in between,
// P+ = P_uu + P_ur·P_ru/(1 − P_rr).
func PPlus(c availability.Chain) float64 {
	return c.P[u][u] + returnViaReclaimed(c)
}

// returnViaReclaimed is P_ur·P_ru/(1 − P_rr): the probability of going
// RECLAIMED and coming back UP without going DOWN. When P_rr = 1 then
// P_ru = 0 and the term is 0.
func returnViaReclaimed(c availability.Chain) float64 {
	if c.P[r][u] == 0 || c.P[u][r] == 0 {
		return 0
	}
	return c.P[u][r] * c.P[r][u] / (1 - c.P[r][r])
}

// ExpectedTime is Theorem 2 of seed 001: the expected number of slots for a
// processor UP now to be UP during W slots (this one included) conditioned
// on not going DOWN before,
// E(W) = W + (W−1)·[P_ur·P_ru/(1−P_rr)] / [P_uu·(1−P_rr) + P_ur·P_ru].
// W ≤ 0 gives 0; a processor that can never return UP gives +Inf for W > 1.
func ExpectedTime(c availability.Chain, W float64) float64 {
	if W <= 0 {
		return 0
	}
	if W <= 1 {
		return W
	}
	z := returnViaReclaimed(c)
	if z == 0 {
		if c.P[u][u] == 0 {
			return math.Inf(1)
		}
		return W
	}
	den := c.P[u][u]*(1-c.P[r][r]) + c.P[u][r]*c.P[r][u]
	return W + (W-1)*z/den
}

// meanGapMass is E_c for a single processor: Σ_t t·P(first return UP at t,
// no DOWN before) = P_uu + P_ur·P_ru·(2 − P_rr)/(1 − P_rr)².
func meanGapMass(c availability.Chain) float64 {
	ec := c.P[u][u]
	if c.P[u][r] > 0 && c.P[r][u] > 0 {
		x := c.P[r][r]
		ec += c.P[u][r] * c.P[r][u] * (2 - x) / ((1 - x) * (1 - x))
	}
	return ec
}

// block is the UP/RECLAIMED block of the transition matrix,
// M = [[P_uu, P_ur], [P_ru, P_rr]]: (M^t)[i][j] is the probability of being
// in j at slot t having started in i and never been DOWN.
type block [2][2]float64

func blockOf(c availability.Chain) block {
	return block{{c.P[u][u], c.P[u][r]}, {c.P[r][u], c.P[r][r]}}
}

func (a block) mul(b block) block {
	return block{
		{a[0][0]*b[0][0] + a[0][1]*b[1][0], a[0][0]*b[0][1] + a[0][1]*b[1][1]},
		{a[1][0]*b[0][0] + a[1][1]*b[1][0], a[1][0]*b[0][1] + a[1][1]*b[1][1]},
	}
}

func (a block) pow(t int) block {
	res := block{{1, 0}, {0, 1}}
	for t > 0 {
		if t&1 == 1 {
			res = res.mul(a)
		}
		a = a.mul(a)
		t >>= 1
	}
	return res
}

// PUpToUp is P^{(q)}_{u→u}(t) of seed 002 §V: the probability that a
// processor UP at slot 0 is UP at slot t without having been DOWN in
// between, (M^t)[u][u].
func PUpToUp(c availability.Chain, t int) float64 {
	if t < 0 {
		return 0
	}
	return blockOf(c).pow(t)[0][0]
}

// PNotDown is P_ND(t) of seed 002 §V.B: the probability that a processor UP
// at slot t' does not go DOWN during the next t transitions, i.e. is UP or
// RECLAIMED at every slot t'+1 … t'+t. For a non-integer t it interpolates
// log-linearly between ⌊t⌋ and ⌈t⌉ (exact when the decay is geometric);
// t ≤ 0 gives 1.
func PNotDown(c availability.Chain, t float64) float64 {
	switch {
	case math.IsNaN(t):
		return math.NaN()
	case t <= 0:
		return 1
	case t >= maxSlots:
		// P_ND is non-increasing and converges geometrically: at 2^62
		// transitions it is its limit to double precision (and t would not
		// fit an int).
		return pNotDownInt(c, maxSlots)
	}
	lo := math.Floor(t)
	plo := pNotDownInt(c, int(lo))
	if lo == t {
		return plo
	}
	return interpolateLog(plo, pNotDownInt(c, int(lo)+1), t-lo)
}

// maxSlots is the largest number of slots the integer forms take; longer
// (or infinite) durations are evaluated at it.
const maxSlots = 1 << 62

func pNotDownInt(c availability.Chain, t int) float64 {
	m := blockOf(c).pow(t)
	// The rounding errors of the squarings compound (by about t·2^-53
	// relatively): a block that never goes DOWN would drift above 1.
	return min(m[0][0]+m[0][1], 1)
}

// interpolateLog returns a^(1−f)·b^f, the geometric interpolation between two
// probabilities (0 if either is 0).
func interpolateLog(a, b, f float64) float64 {
	if a <= 0 || b <= 0 {
		return (1 - f) * a // reaches 0 where b does
	}
	return math.Exp((1-f)*math.Log(a) + f*math.Log(b))
}

// PUDExact is P_UD(k) of seed 001 §6.3.3 computed exactly: the probability
// that a processor UP at its first slot is not DOWN during k slots (k − 1
// transitions), [1 0]·M^{k−1}·[1 1]ᵀ. k ≤ 1 gives 1.
//
// The paper prints the row and column vectors the other way round; that
// literal form is PUDPublishedMatrix (see docs/analytic.md).
func PUDExact(c availability.Chain, k int) float64 {
	if k <= 1 {
		return 1
	}
	return pNotDownInt(c, k-1)
}

// PUDPublishedMatrix is the matrix expression of §6.3.3 exactly as printed,
// [1 1]·M^{k−1}·[1 0]ᵀ, which sums the UP column of M^{k−1} over both start
// states instead of summing the UP row. It is kept to quantify the
// misprint, not for scheduling.
func PUDPublishedMatrix(c availability.Chain, k int) float64 {
	if k <= 1 {
		return 1
	}
	m := blockOf(c).pow(k - 1)
	return m[0][0] + m[1][0]
}

// PUDApprox is the paper's approximation of P_UD(k), forgetting the state
// after the first transition:
// (1 − P_ud)·(1 − (P_ud·π_u + P_rd·π_r)/(π_u + π_r))^{k−2}.
// It is defined for real k ≥ 2 (the heuristics use k = E(CT)); for 1 < k < 2
// it interpolates linearly between 1 at k = 1 and 1 − P_ud at k = 2, and
// k ≤ 1 gives 1.
func PUDApprox(c availability.Chain, k float64) float64 {
	if k <= 1 {
		return 1
	}
	first := 1 - c.P[u][d]
	if k < 2 {
		return 1 - (k-1)*c.P[u][d]
	}
	return first * math.Pow(1-approxDownRate(c), k-2)
}

// approxDownRate is (P_ud·π_u + P_rd·π_r)/(π_u + π_r), the per-slot
// probability of going DOWN for a processor in its stationary regime
// conditioned on not being DOWN.
func approxDownRate(c availability.Chain) float64 {
	pi := c.Stationary()
	if pi[u]+pi[r] == 0 {
		return 1
	}
	return (c.P[u][d]*pi[u] + c.P[r][d]*pi[r]) / (pi[u] + pi[r])
}
