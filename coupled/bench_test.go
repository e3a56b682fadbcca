package coupled

import (
	"context"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

// hardScenario is unit 599 of the paper's campaign (m = 10, n_com = 20,
// w_min = 10, scenario 9) with seed 1: every heuristic fails there, so the
// simulations run to the cap and the proactive heuristics rebuild a
// configuration almost every slot.
func hardScenario(b *testing.B) (Scenario, *analytic.Table, []uint64) {
	un, err := PaperCampaign().unit(1, 599)
	if err != nil {
		b.Fatal(err)
	}
	return un.scn, un.tab, un.labels
}

// BenchmarkGreedy builds one configuration from scratch (no previous construction) with
// each building block on a snapshot where 15 of the 20 processors are UP.
func BenchmarkGreedy(b *testing.B) {
	scn, tab, _ := hardScenario(b)
	s := &Snapshot{States: downs(20), Prog: make([]int, 20), Data: make([]int, 20)}
	for q := range 15 {
		s.States[q] = availability.Up
	}
	for _, bc := range []struct {
		name string
		c    Criterion
	}{{"IP", Prob}, {"IE", Time}, {"IY", Yield}, {"IAY", ApparentYield}} {
		b.Run(bc.name, func(b *testing.B) {
			e, _ := NewEvaluator(tab, scn.Platform, scn.App.Tasks, analytic.Published)
			e.Choose(bc.c, s, nil) // fill the set cache once
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				e.forget()
				e.Choose(bc.c, s, nil)
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSimulateSlots runs 20,000 slots of the hard scenario (one
// failing trial cut at 20,000 slots) per heuristic; ns/op / 20,000 is the
// cost of one slot.
func BenchmarkSimulateSlots(b *testing.B) {
	scn, tab, labels := hardScenario(b)
	for _, name := range []string{"IE", "P-IE", "E-IE", "Y-IE", "Y-IY", "E-IAY"} {
		h, _ := ParseHeuristic(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				e, _ := NewEvaluator(tab, scn.Platform, scn.App.Tasks, analytic.Published)
				av := NewMarkov(scn.Chains, 1, append(labels, purposeAvailability, 0)...)
				if _, err := Simulate(context.Background(), e, scn.App, h, av, nil, Options{Cap: 20000}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
