package campaign

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/stream"
)

// BenchmarkSimulate measures simulated slots per second for each heuristic
// on one §7 scenario (n = 20, n_com = 10, w_min = 5), one realization.
func BenchmarkSimulate(b *testing.B) {
	c := PaperParams()
	c.N, c.NCom, c.WMin = []int{20}, []int{10}, []int{5}
	in, _ := c.InstanceOf(1, 0)
	opt, _ := c.Options()
	for _, h := range []iterative.Heuristic{iterative.Random, iterative.Random2W, iterative.MCT, iterative.EMCTStar, iterative.LW, iterative.UDStar} {
		b.Run(h.String(), func(b *testing.B) {
			sim, err := slotsim.New(in, opt)
			if err != nil {
				b.Fatal(err)
			}
			real := slotsim.Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(1, 1)))
			slots := 0
			c0 := cpuTime()
			for b.Loop() {
				ms, err := sim.Run(h, real, stream.New(1, 2))
				if err != nil {
					b.Fatal(err)
				}
				slots += ms
			}
			b.ReportMetric(float64(slots)/b.Elapsed().Seconds(), "slots/s")
			b.ReportMetric(float64(slots)/(cpuTime()-c0).Seconds(), "slots/cpu-s")
		})
	}
}

// BenchmarkUnit measures whole units of the §7 campaign (one scenario,
// 10 trials × 17 heuristics) across the grid: instances/s.
func BenchmarkUnit(b *testing.B) {
	c := PaperParams()
	c.Scenarios = 1
	u := 0
	c0 := cpuTime()
	for b.Loop() {
		if _, err := c.RunUnit(context.Background(), 1, u%c.Units()); err != nil {
			b.Fatal(err)
		}
		u += 7 // walk the grid
	}
	b.ReportMetric(float64(b.N*c.Trials)/b.Elapsed().Seconds(), "instances/s")
	b.ReportMetric(float64(b.N*c.Trials)/(cpuTime()-c0).Seconds(), "instances/cpu-s")
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// measures the work done better than wall time (benchmarks run one
// goroutine).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGrid runs one trial of every instantiation of Table 1 (120
// units, scenario 0, 17 heuristics each): the campaign's mix of n, n_com
// and w_min. One op is the whole grid (120 instances).
func BenchmarkGrid(b *testing.B) {
	c := PaperParams()
	c.Scenarios, c.Trials = 1, 1
	c0 := cpuTime()
	for b.Loop() {
		for u := 0; u < c.Units(); u++ {
			if _, err := c.RunUnit(context.Background(), 1, u); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*c.Units())/(cpuTime()-c0).Seconds(), "instances/cpu-s")
}

// BenchmarkGridSlots measures, per heuristic, simulated slots per CPU-second
// over one trial of each of the 120 instantiations of Table 1 (realizations
// drawn before the timer starts): the campaign's mix, heuristic by
// heuristic.
func BenchmarkGridSlots(b *testing.B) {
	c := PaperParams()
	c.Scenarios, c.Trials = 1, 1
	opt, _ := c.Options()
	type inst struct {
		sim  *slotsim.Simulator
		real *slotsim.Realization
		u    int
	}
	var insts []inst
	for u := 0; u < c.Units(); u++ {
		in, _ := c.InstanceOf(1, u)
		sim, err := slotsim.New(in, opt)
		if err != nil {
			b.Fatal(err)
		}
		real := slotsim.Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(1, uint64(u), labelTrial, 0)))
		for _, h := range iterative.Heuristics() { // draw the realization as far as any heuristic needs
			if _, err := sim.Run(h, real, stream.New(1, uint64(u), labelDecide, 0, h.Stream())); err != nil {
				b.Fatal(err)
			}
		}
		insts = append(insts, inst{sim, real, u})
	}
	for _, h := range iterative.Heuristics() {
		b.Run(h.String(), func(b *testing.B) {
			slots := 0
			c0 := cpuTime()
			for b.Loop() {
				for _, x := range insts {
					ms, err := x.sim.Run(h, x.real, stream.New(1, uint64(x.u), labelDecide, 0, h.Stream()))
					if err != nil {
						b.Fatal(err)
					}
					slots += ms
				}
			}
			b.ReportMetric(float64(slots)/(cpuTime()-c0).Seconds(), "slots/cpu-s")
		})
	}
}
