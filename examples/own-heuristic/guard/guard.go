// Package guard is a heuristic of one's own for the iterative model
// (independent tasks, seed 001): GUARD*, which no paper has. Importing the
// package registers it; from then on `volsched simulate`, the slot
// simulator, the campaigns and the live master of the program run it by
// name, as they run EMCT* (docs/extending.md).
package guard

import (
	"math"

	"github.com/volsched/volsched/iterative"
)

// Heuristic is GUARD*: each task goes to the UP worker of smallest
// E(CT)/P+^E(CT), the expected completion time (EMCT's criterion) divided
// by the chance that the worker computes that long without going DOWN (a
// chance LW maximizes): a fast worker that is likely to be lost counts as
// slow. The completion time counts the master's contention (Eq. 2), as
// EMCT*'s does.
var Heuristic = iterative.MustRegister(iterative.Spec{
	Name:        "GUARD*",
	Family:      "GUARD",
	Description: "each task to the UP worker of smallest E(CT)/P+^E(CT): EMCT's expected completion time divided by LW's chance to compute that long without going DOWN; with the master's contention (Eq. 2)",
	Contention:  true,
	Key:         key,
})

// key is ln(E/P+^E) = ln E − E·ln P+, E = E(CT) of worker q: the logarithm
// keeps the numbers finite, and the key grows with ct (E does, and
// d/dE (ln E − E ln P+) = 1/E − ln P+ > 0), as greedy keys must.
func key(s *iterative.Snapshot, q int, ct float64) float64 {
	c := &s.Crit[q]
	e := c.ExpectedTime(ct)
	return math.Log(e) - e*math.Log(c.PPlus)
}
