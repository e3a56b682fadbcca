package slotsim

import (
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// Heuristics of one's own, registered as a user's package registers them
// (iterative.MustRegister): one of each kind. The tests that run every
// registered heuristic (TestRandomInstancesChecked: the schedule checker
// under five option sets, sticky ones included; TestMatchesReference: the
// reference simulator, for the key and the weight; the belief and common
// random numbers tests) run them too.
var (
	// test-WCT*: the smallest completion time weighted by the worker's
	// slots per task (a key that grows with CT), with contention.
	ownKey = iterative.MustRegister(iterative.Spec{Name: "test-WCT*", Description: "a test key",
		Contention: true, Key: func(s *iterative.Snapshot, q int, ct float64) float64 { return ct * float64(s.Procs[q].W) }})
	// test-SPEED: each task to an UP worker drawn in proportion to its
	// speed.
	ownWeight = iterative.MustRegister(iterative.Spec{Name: "test-SPEED", Description: "a test weight",
		Weight: func(_ *iterative.Criteria, w int) float64 { return 1 / float64(w) }})
	// test-RR: the unstarted tasks to the UP workers in turn, from the
	// lowest index, those with queued tasks (Hints.Queued) last; no
	// replicas.
	ownDecision = iterative.MustRegister(iterative.Spec{Name: "test-RR", Description: "a test decision",
		Decide: func(s *iterative.Snapshot, x *iterative.Hints, _ *rand.Rand, out []iterative.Pick) []iterative.Pick {
			var up []int
			for pass := 0; pass < 2; pass++ {
				for q, v := range s.Procs {
					queued := x != nil && x.Queued != nil && x.Queued[q] > 0
					if v.State == availability.Up && queued == (pass == 1) {
						up = append(up, q)
					}
				}
			}
			if len(up) == 0 {
				return out
			}
			k := 0
			for i, t := range s.Tasks {
				if t.Copies == 0 {
					out = append(out, iterative.Pick{Task: i, Proc: up[k%len(up)]})
					k++
				}
			}
			return out
		}})
)
