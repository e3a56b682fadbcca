package coupled_test

import (
	"fmt"
	"strings"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// A master with four workers decides, from what it knows at one slot,
// whether to keep the configuration it runs: w1 and w3 hold its three
// tasks and their data, 4 of its 8 slots of computation are done, and w3
// has just been RECLAIMED (the computation is suspended); w2 is UP without
// the program; w4 is DOWN. The passive IE keeps a configuration until a
// member goes DOWN. The proactive Y-IE rebuilds one (w2 instead of w3) and
// switches when its yield is strictly larger: valuing the running one as if
// w3 were UP (asup, the default reading), it keeps it; counting w3's
// chance to come back before going DOWN (wait), it switches.
func ExampleEvaluator_Decide() {
	// Availability chains (rows UP, RECLAIMED, DOWN), as the master
	// estimates them (availability.Estimator).
	steady := availability.Chain{P: [3][3]float64{{0.97, 0.02, 0.01}, {0.10, 0.85, 0.05}, {0.05, 0.05, 0.90}}}
	flaky := availability.Chain{P: [3][3]float64{{0.90, 0.05, 0.05}, {0.05, 0.80, 0.15}, {0.05, 0.05, 0.90}}}
	tab, err := analytic.NewTable([]availability.Chain{steady, steady, flaky, steady}, analytic.Options{})
	if err != nil {
		panic(err)
	}
	plat := coupled.Platform{W: []int{4, 5, 3, 4}, NCom: 2, TProg: 3, TData: 1}
	e, err := coupled.NewEvaluator(tab, plat, 3, analytic.Published)
	if err != nil {
		panic(err)
	}
	s := &coupled.Snapshot{
		IDs:     []string{"w1", "w2", "w3", "w4"},
		States:  []availability.State{availability.Up, availability.Up, availability.Reclaimed, availability.Down},
		Prog:    []int{3, 0, 3, 0}, // slots of the program received
		Data:    []int{2, 0, 1, 0}, // slots of task data held
		Elapsed: 12,                // slots since the iteration began
	}
	running := coupled.Running{
		Config: coupled.Config{X: []int{2, 0, 1, 0}, Order: []int{0, 2}},
		Done:   4, // slots of computation completed
	}
	show := func(c coupled.Config) string {
		var b []string
		for _, m := range c.Members(s) {
			b = append(b, fmt.Sprintf("%s:%d", m.ID, m.Tasks))
		}
		return "[" + strings.Join(b, " ") + "]"
	}
	for _, c := range []struct {
		name string
		rv   coupled.ReclaimedValue
	}{{"IE", coupled.AsUp}, {"Y-IE", coupled.AsUp}, {"Y-IE", coupled.Wait}} {
		h, err := coupled.ParseHeuristic(c.name)
		if err != nil {
			panic(err)
		}
		d, err := e.Decide(h, s, running, nil, coupled.Readings{Reclaimed: c.rv})
		if err != nil {
			panic(err)
		}
		name := fmt.Sprintf("%s (%v)", c.name, c.rv)
		switch {
		case !d.Switch:
			fmt.Printf("%s: keep %s", name, show(d.Config))
		case d.Proactive:
			fmt.Printf("%s: switch to %s", name, show(d.Config))
		default:
			fmt.Printf("%s: launch %s", name, show(d.Config))
		}
		if d.Compared {
			fmt.Printf(" (running: P %.3f, E %.1f; rebuilt: P %.3f, E %.1f)", d.Now.P, d.Now.E, d.New.P, d.New.E)
		}
		fmt.Println()
	}
	// Output:
	// IE (asup): keep [w1:2 w3:1]
	// Y-IE (asup): keep [w1:2 w3:1] (running: P 0.709, E 5.6; rebuilt: P 0.701, E 15.8)
	// Y-IE (wait): switch to [w1:2 w2:1] (running: P 0.177, E 10.6; rebuilt: P 0.701, E 15.8)
}
