package slotsim_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/campaign"
	"github.com/volsched/volsched/coupled/slotsim"
)

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSimulateSlots runs 20,000 slots of unit 599 of the paper's
// campaign (m = 10, n_com = 20, w_min = 10, scenario 9; seed 1), where
// every heuristic fails, so the simulations run to the cap and the
// proactive heuristics rebuild a configuration almost every slot: one
// failing trial cut at 20,000 slots, per heuristic; ns/op / 20,000 is the
// cost of one slot.
func BenchmarkSimulateSlots(b *testing.B) {
	c := campaign.PaperCampaign()
	un, err := c.Unit(1, 599)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"IE", "P-IE", "E-IE", "Y-IE", "Y-IY", "E-IAY"} {
		h, _ := coupled.ParseHeuristic(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				e, _ := coupled.NewEvaluator(un.Table, un.Scn.Platform, un.Scn.App.Tasks, analytic.Published)
				sim, err := slotsim.New(e, un.Scn.App, []coupled.Heuristic{h}, slotsim.Options{Cap: 20000})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sim.Run(context.Background(), un.Availability(0), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
