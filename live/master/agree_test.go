package master

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/whatif/simulate"
)

// TestMachineAgreesWithSimulator (a test may compare the live system with
// a simulator; the package itself imports none) drives the machine on an emulated
// platform (no sockets, simulated time: workers follow their chains one
// draw per slot, transfers and tasks last whole slots) and compares its
// mean makespan with the slot simulator's for the same chains, heuristic,
// T_prog, T_data and w_q. The two are not the same process (the machine
// sees the platform through heart-beats and measured times, starts every
// worker UP without program, and decides at sub-slot events), so the test
// asks for agreement of the means within 4 standard errors of their
// difference plus 10 % of the simulator's mean.
func TestMachineAgreesWithSimulator(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 60
	}
	rng := rand.New(rand.NewPCG(11, 3))
	var chains []availability.Chain
	var ws []int
	for q := 0; q < 6; q++ {
		chains = append(chains, availability.RandomIn(rng, 0.9, 0.99))
		ws = append(ws, 2+rng.IntN(4))
	}
	for _, h := range []string{"EMCT*", "RANDOM1W"} {
		var sum, sum2 float64
		for r := 0; r < runs; r++ {
			cfg := testConfig()
			cfg.Heuristic, cfg.Seed = heuristic(t, h), uint64(r)
			e := newEmu(t, cfg, chains, ws, 3, 2, 2, 10, uint64(100+r))
			ms := e.run(100000)
			if ms < 0 {
				t.Fatal(e.m.Err())
			}
			sum += ms
			sum2 += ms * ms
		}
		n := float64(runs)
		mean := sum / n
		sd := math.Sqrt((sum2 - n*mean*mean) / (n - 1))
		// The simulator with every processor UP at slot 0, as the emulation.
		f, err := simulate.ForecastIterative(PredictParams{Heuristic: heuristic(t, h), ExtraReplicas: 2, Runs: 400, Seed: 9, AllUp: true,
			Instance: iterative.Instance{Chains: chains, W: ws, TProg: 3, TData: 2, NCom: 2, Tasks: 10, Iterations: 2}})
		if err != nil {
			t.Fatal(err)
		}
		smean, ssd := f.Mean, f.SD
		se := math.Sqrt(sd*sd/n + ssd*ssd/400)
		t.Logf("%s: machine %.1f ± %.1f slots (%d runs), simulator %.1f ± %.1f (400 runs)", h, mean, sd, runs, smean, ssd)
		if d := math.Abs(mean - smean); d > 4*se+0.1*smean {
			t.Errorf("%s: means differ by %.1f slots, tolerance %.1f", h, d, 4*se+0.1*smean)
		}
	}
}
