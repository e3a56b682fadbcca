package simulate

import (
	"context"
	"fmt"
	"testing"

	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/whatif"
)

// BenchmarkRun is issue 18 item 7: the example platform (20 workers) and
// application (10 tasks × 10 iterations), 17 heuristics, 100 trials, on
// one goroutine (docs/benchmarks.md).
func BenchmarkRun(b *testing.B) {
	p, a := loadExample(&testing.T{}, "independent.json")
	for b.Loop() {
		if _, err := Run(context.Background(), p, a, Options{Trials: 100, Seed: 1, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBelieve is the cost of the master's view during one trial of
// the example (every heuristic's run on it): the trial's availability
// and view with the history, the realization fed to the view, the 17 runs.
// Variants: the re-estimation interval (refresh_slots) and whether the
// chain workers' chains are known; "plain" runs the same realization
// without a view (the heuristics believe the instance's chains). It
// reports the criteria recomputed per trial.
func BenchmarkBelieve(b *testing.B) {
	p0, a := loadExample(&testing.T{}, "independent.json")
	for _, known := range []bool{true, false} {
		for _, refresh := range []int{1, 10, 100, -1} {
			name := fmt.Sprintf("known=%v/refresh=%d", known, refresh)
			if refresh < 0 {
				name = fmt.Sprintf("known=%v/plain", known)
			}
			b.Run(name, func(b *testing.B) {
				p := *p0
				p.Estimator.KnownChains = known
				p.Estimator.Refresh = max(refresh, 1)
				in, err := whatif.IterativeInstance(&p, a)
				if err != nil {
					b.Fatal(err)
				}
				sim, err := slotsim.New(in, iterative.DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				recomputed, k := 0, uint64(0)
				for b.Loop() {
					tr, err := p.Trial(1, k)
					if err != nil {
						b.Fatal(err)
					}
					real := slotsim.Realize(tr.Sources)
					if refresh >= 0 {
						if err := real.Believe(tr.View); err != nil {
							b.Fatal(err)
						}
					}
					for _, h := range iterative.Heuristics() {
						if _, err := sim.Run(h, real, whatif.DecideStream(1, k, h.Stream())); err != nil {
							b.Fatal(err)
						}
					}
					recomputed += real.Recomputed
					k++
				}
				b.ReportMetric(float64(recomputed)/float64(k), "criteria/trial")
			})
		}
	}
}
