package iterative

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

// Heuristic is one of the 17 dynamic on-line heuristics of §6.
type Heuristic uint8

// The heuristics, in the order of §6.
const (
	Random Heuristic = iota
	Random1
	Random2
	Random3
	Random4
	Random1W
	Random2W
	Random3W
	Random4W
	MCT
	MCTStar
	EMCT
	EMCTStar
	LW
	LWStar
	UD
	UDStar
	numHeuristics
)

var heuristicNames = [numHeuristics]string{
	"RANDOM", "RANDOM1", "RANDOM2", "RANDOM3", "RANDOM4",
	"RANDOM1W", "RANDOM2W", "RANDOM3W", "RANDOM4W",
	"MCT", "MCT*", "EMCT", "EMCT*", "LW", "LW*", "UD", "UD*",
}

// Heuristics returns the 17 heuristics in the order of §6.
func Heuristics() []Heuristic {
	hs := make([]Heuristic, numHeuristics)
	for i := range hs {
		hs[i] = Heuristic(i)
	}
	return hs
}

// String is the paper's name of the heuristic.
func (h Heuristic) String() string {
	if h < numHeuristics {
		return heuristicNames[h]
	}
	return fmt.Sprintf("Heuristic(%d)", uint8(h))
}

// ParseHeuristic reads a heuristic's name as the paper writes it (case
// sensitive: "EMCT*", "RANDOM2W").
func ParseHeuristic(s string) (Heuristic, error) {
	for i, n := range heuristicNames {
		if n == s {
			return Heuristic(i), nil
		}
	}
	return 0, fmt.Errorf("heuristic %q: want one of %v", s, heuristicNames)
}

// NumHeuristics is the number of heuristics: len(Heuristics()).
const NumHeuristics = int(numHeuristics)

// Valid reports whether h is one of the 17 heuristics.
func (h Heuristic) Valid() bool { return h < numHeuristics }

// IsRandom reports whether h is one of the nine random heuristics.
func (h Heuristic) IsRandom() bool { return h <= Random4W }

// Contention reports whether h uses the contention-correcting factor of
// Eq. 2 (the starred greedy heuristics).
func (h Heuristic) Contention() bool {
	return h == MCTStar || h == EMCTStar || h == LWStar || h == UDStar
}

// Criteria are the per-processor quantities the heuristics use, derived
// once from its availability chain with the analytic package.
type Criteria struct {
	Chain   availability.Chain
	Puu     float64 // RANDOM1 weight
	PPlus   float64 // Lemma 1, RANDOM2 weight and LW
	PiU     float64 // π_u, RANDOM3 weight
	NotDown float64 // 1 − π_d, RANDOM4 weight

	// E(W) of Theorem 2 is affine for W ≥ 1: E(W) = W + (W−1)·eSlope.
	eSlope float64
	// −ln P+ (LW minimizes CT·negLogPPlus, i.e. maximizes P+^CT).
	negLogPPlus float64
	// ln P_UD(k) = lnPUD2 + (k−2)·lnDecay for k ≥ 2 (the approximation of
	// §6.3.3).
	lnPUD2, lnDecay float64
}

// NewCriteria computes the criteria of a processor from its chain.
func NewCriteria(c availability.Chain) Criteria {
	pi := c.Stationary()
	cr := Criteria{
		Chain:   c,
		Puu:     c.P[availability.Up][availability.Up],
		PPlus:   analytic.PPlus(c),
		PiU:     pi[availability.Up],
		NotDown: 1 - pi[availability.Down],
		eSlope:  analytic.ExpectedTime(c, 2) - 2,
	}
	cr.negLogPPlus = -math.Log(cr.PPlus)
	p2, p3 := analytic.PUDApprox(c, 2), analytic.PUDApprox(c, 3)
	cr.lnPUD2 = math.Log(p2)
	cr.lnDecay = math.Log(p3) - math.Log(p2)
	return cr
}

// ExpectedTime is E^{(q)}(W) of Theorem 2 (analytic.ExpectedTime).
func (c *Criteria) ExpectedTime(w float64) float64 {
	if w <= 1 || math.IsInf(c.eSlope, 1) {
		return analytic.ExpectedTime(c.Chain, w)
	}
	return w + (w-1)*c.eSlope
}

// lnPUD is ln P_UD(k) with the paper's approximation (analytic.PUDApprox).
func (c *Criteria) lnPUD(k float64) float64 {
	if k < 2 {
		return math.Log(analytic.PUDApprox(c.Chain, k))
	}
	return c.lnPUD2 + (k-2)*c.lnDecay
}

// Key is the quantity greedy heuristic h minimizes for a processor with
// these criteria whose completion time (CT of Eq. 1 or 2) is ct: CT (MCT),
// E(CT) (EMCT), CT·(−ln P+) (LW maximizes P+^CT), −ln P_UD(E(CT)) (UD).
// For a random heuristic it is the UD key (not used).
func (c *Criteria) Key(h Heuristic, ct float64) float64 {
	switch h {
	case MCT, MCTStar:
		return ct
	case EMCT, EMCTStar:
		return c.ExpectedTime(ct)
	case LW, LWStar:
		return ct * c.negLogPPlus
	default: // UD, UD*
		return -c.lnPUD(c.ExpectedTime(ct))
	}
}

// Weight is the §6.2 weight of a processor with these criteria and speed w
// (UP slots per task) for random heuristic h: 1 (RANDOM), P_uu (RANDOM1),
// P+ (RANDOM2), π_u (RANDOM3), 1 − π_d (RANDOM4), each divided by w for the
// W variants. It is 0 for the greedy heuristics.
func (c *Criteria) Weight(h Heuristic, w int) float64 {
	var x float64
	switch h {
	case Random:
		return 1
	case Random1, Random1W:
		x = c.Puu
	case Random2, Random2W:
		x = c.PPlus
	case Random3, Random3W:
		x = c.PiU
	case Random4, Random4W:
		x = c.NotDown
	default:
		return 0
	}
	if h >= Random1W {
		x /= float64(w)
	}
	return x
}
