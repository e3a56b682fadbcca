package iterative

import (
	"math"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

// The 17 heuristics of §6, each one value of the table of heuristics
// (Register): nine random ones (§6.2), each task to an UP processor drawn
// with probability proportional to a weight, and eight greedy ones (§6.3),
// each task to the UP processor of smallest key (paperKeys). The first
// argument of paperHeuristic and paperGreedy is the heuristic's position in
// §6's order, the label of its random stream (Heuristic.Stream): the
// committed results depend on it.
var (
	Random   = paperHeuristic(0, Spec{Name: "RANDOM", Family: "RANDOM", Weight: weightOne, Description: "each task to an UP worker drawn uniformly at random"})
	Random1  = paperHeuristic(1, Spec{Name: "RANDOM1", Family: "RANDOM", Weight: weightPuu, Description: "each task to an UP worker drawn with probability proportional to P_uu, its chance to stay UP for one more slot"})
	Random2  = paperHeuristic(2, Spec{Name: "RANDOM2", Family: "RANDOM", Weight: weightPPlus, Description: "each task to an UP worker drawn with probability proportional to P+, its chance, once UP, to be UP again without going DOWN in between (Lemma 1)"})
	Random3  = paperHeuristic(3, Spec{Name: "RANDOM3", Family: "RANDOM", Weight: weightPiU, Description: "each task to an UP worker drawn with probability proportional to π_u, the share of time it is UP"})
	Random4  = paperHeuristic(4, Spec{Name: "RANDOM4", Family: "RANDOM", Weight: weightNotDown, Description: "each task to an UP worker drawn with probability proportional to 1 − π_d, the share of time it is not DOWN"})
	Random1W = paperHeuristic(5, Spec{Name: "RANDOM1W", Family: "RANDOM", Weight: perSpeed(weightPuu), Description: "RANDOM1 with each weight divided by w_q, the worker's slots per task (faster workers more likely)"})
	Random2W = paperHeuristic(6, Spec{Name: "RANDOM2W", Family: "RANDOM", Weight: perSpeed(weightPPlus), Description: "RANDOM2 with each weight divided by w_q, the worker's slots per task (faster workers more likely)"})
	Random3W = paperHeuristic(7, Spec{Name: "RANDOM3W", Family: "RANDOM", Weight: perSpeed(weightPiU), Description: "RANDOM3 with each weight divided by w_q, the worker's slots per task (faster workers more likely)"})
	Random4W = paperHeuristic(8, Spec{Name: "RANDOM4W", Family: "RANDOM", Weight: perSpeed(weightNotDown), Description: "RANDOM4 with each weight divided by w_q, the worker's slots per task (faster workers more likely)"})
	MCT      = paperGreedy(9, keyIsCT, Spec{Name: "MCT", Family: "MCT", Description: "each task to the UP worker that would complete it first if it stayed UP: minimum completion time CT (Eq. 1)"})
	MCTStar  = paperGreedy(10, keyIsCT, Spec{Name: "MCT*", Family: "MCT", Contention: true, Description: "MCT with the data time multiplied by the master's contention, ⌈workers receiving/n_com⌉ (Eq. 2)"})
	EMCT     = paperGreedy(11, keyIsExpected, Spec{Name: "EMCT", Family: "EMCT", Description: "each task to the UP worker of minimum expected completion time E(CT) given its availability chain (Theorem 2)"})
	EMCTStar = paperGreedy(12, keyIsExpected, Spec{Name: "EMCT*", Family: "EMCT", Contention: true, Description: "EMCT with the data time multiplied by the master's contention, ⌈workers receiving/n_com⌉ (Eq. 2)"})
	LW       = paperGreedy(13, keyIsLW, Spec{Name: "LW", Family: "LW", Description: "likely to work: each task to the UP worker most likely to compute it without going DOWN, maximum P+^CT"})
	LWStar   = paperGreedy(14, keyIsLW, Spec{Name: "LW*", Family: "LW", Contention: true, Description: "LW with the data time multiplied by the master's contention, ⌈workers receiving/n_com⌉ (Eq. 2)"})
	UD       = paperGreedy(15, keyIsUD, Spec{Name: "UD", Family: "UD", Description: "unlikely DOWN: each task to the UP worker least likely to go DOWN before it is done, maximum P_UD(E(CT)) (§6.3.3)"})
	UDStar   = paperGreedy(16, keyIsUD, Spec{Name: "UD*", Family: "UD", Contention: true, Description: "UD with the data time multiplied by the master's contention, ⌈workers receiving/n_com⌉ (Eq. 2)"})
)

// paperKey names one of the keys of §6.3 (paperKeys). A paper heuristic's
// Spec.Key is paperKeys[k], and Decider calls that same function directly
// (a static call the compiler inlines) instead of through Spec.Key: the
// key is evaluated up to hundreds of thousands of times per decision at
// p = 1,000, where the indirect call cost about 5 % (docs/benchmarks.md).
// The result is the same either way (TestRegisteredLikeBuiltin).
type paperKey uint8

const (
	noPaperKey paperKey = iota // a registered key: called through Spec.Key
	keyIsCT
	keyIsExpected
	keyIsLW
	keyIsUD
)

var paperKeys = [...]KeyFunc{keyIsCT: keyCT, keyIsExpected: keyExpected, keyIsLW: keyLW, keyIsUD: keyUD}

// paperGreedy is paperHeuristic for a greedy heuristic of §6.3, whose key
// is paperKeys[k].
func paperGreedy(label uint64, k paperKey, s Spec) Heuristic {
	s.Key = paperKeys[k]
	h := paperHeuristic(label, s)
	h.s.fast = k
	return h
}

// The keys of the greedy heuristics (§6.3) for a processor whose
// completion time is ct: CT (MCT), E(CT) (EMCT), CT·(−ln P+) (LW maximizes
// P+^CT), −ln P_UD(E(CT)) (UD). Each grows with ct.
func keyCT(_ *Snapshot, _ int, ct float64) float64 { return ct }

func keyExpected(s *Snapshot, q int, ct float64) float64 { return s.Crit[q].ExpectedTime(ct) }

func keyLW(s *Snapshot, q int, ct float64) float64 { return ct * s.Crit[q].negLogPPlus }

func keyUD(s *Snapshot, q int, ct float64) float64 {
	c := &s.Crit[q]
	return -c.lnPUD(c.ExpectedTime(ct))
}

// The weights of the random heuristics (§6.2): 1 (RANDOM), P_uu (RANDOM1),
// P+ (RANDOM2), π_u (RANDOM3), 1 − π_d (RANDOM4), each divided by w for
// the W variants (perSpeed).
func weightOne(*Criteria, int) float64 { return 1 }

func weightPuu(c *Criteria, _ int) float64 { return c.Puu }

func weightPPlus(c *Criteria, _ int) float64 { return c.PPlus }

func weightPiU(c *Criteria, _ int) float64 { return c.PiU }

func weightNotDown(c *Criteria, _ int) float64 { return c.NotDown }

func perSpeed(f WeightFunc) WeightFunc {
	return func(c *Criteria, w int) float64 { return f(c, w) / float64(w) }
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
