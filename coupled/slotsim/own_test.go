package slotsim_test

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// Heuristics of one's own, registered as a user's package registers them
// (coupled.MustRegister): a passive builder and a proactive one switching
// by E. Every test that runs coupled.Heuristics() (the schedule checker on
// random scenarios, TestTogetherEqualsAlone, the belief tests) runs them
// too.
var (
	ownPassive   = coupled.MustRegister(coupled.Heuristic{Name: "test-FAST", Description: "a test builder: the fastest UP workers, one task each in turn", Builder: fastest})
	ownProactive = coupled.MustRegister(coupled.Heuristic{Name: "test-E-FAST", Description: "test-FAST, switching by E", Builder: fastest, Switch: coupled.Time})
)

// fastest gives the m tasks to the UP processors by increasing w (ties by
// index), one each in turn while μ allows.
func fastest(e *coupled.Evaluator, s *coupled.Snapshot, _ *rand.Rand) (coupled.Config, bool) {
	plat := e.Platform()
	var up []int
	for q, st := range s.States {
		if st == availability.Up && plat.MaxTasks(q) > 0 {
			up = append(up, q)
		}
	}
	slices.SortStableFunc(up, func(a, b int) int { return cmp.Compare(plat.W[a], plat.W[b]) })
	c := coupled.Config{X: make([]int, plat.P())}
	for k := 0; k < e.Tasks(); {
		placed := false
		for _, q := range up {
			if k < e.Tasks() && c.X[q] < plat.MaxTasks(q) {
				if c.X[q] == 0 {
					c.Order = append(c.Order, q)
				}
				c.X[q]++
				k++
				placed = true
			}
		}
		if !placed {
			return coupled.Config{}, false
		}
	}
	return c, true
}
