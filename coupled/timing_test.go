package coupled

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/stream"
)

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestTimeUnit is a manual measurement, not a check:
//
//	VOLSCHED_TIME_UNIT=<unit> [VOLSCHED_TIME_CAP=<slots>] [VOLSCHED_TIME_TRIAL=<k>] go test ./coupled -run TestTimeUnit -v
//
// simulates trial k (default 0) of that unit of the paper's campaign (seed
// 1) with the 17 heuristics together, as the campaign does, and prints the
// CPU time and each heuristic's makespan; with VOLSCHED_TIME_SEPARATE=1 it
// simulates the heuristics one after the other (sharing the evaluator and
// the availability) and prints each one's time.
func TestTimeUnit(t *testing.T) {
	us := os.Getenv("VOLSCHED_TIME_UNIT")
	if us == "" {
		t.Skip("manual measurement; set VOLSCHED_TIME_UNIT")
	}
	u, _ := strconv.Atoi(us)
	c := PaperCampaign()
	if cs := os.Getenv("VOLSCHED_TIME_CAP"); cs != "" {
		c.Cap, _ = strconv.Atoi(cs)
	}
	k, _ := strconv.Atoi(os.Getenv("VOLSCHED_TIME_TRIAL"))
	m, ncom, wmin, si := c.UnitParams(u)
	labels := []uint64{uint64(m), uint64(ncom), uint64(wmin), uint64(si)}
	scn, _ := RandomScenario(stream.New(1, append(labels, purposeScenario)...), ScenarioParams{P: c.P, M: m, NCom: ncom, WMin: wmin, Iterations: c.Iterations})
	tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
	e, _ := NewEvaluator(tab, scn.Platform, m, analytic.Published)
	av := NewMarkov(scn.Chains, 1, append(labels, purposeAvailability, uint64(k))...)
	rng := stream.New(1, append(labels, purposeRandom, uint64(k))...)
	hs := Heuristics()
	if os.Getenv("VOLSCHED_TIME_SEPARATE") == "" {
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = rng
		start := cpuTime()
		rs, err := SimulateAll(context.Background(), e, scn.App, hs, av, rngs, Options{Cap: c.Cap})
		if err != nil {
			t.Fatal(err)
		}
		d := cpuTime() - start
		slots := 0
		for i, r := range rs {
			slots += r.Makespan
			t.Logf("%-7s makespan %7d failed %v configs %6d", hs[i].Name, r.Makespan, r.Failed, r.Configs)
		}
		t.Logf("m %d ncom %d wmin %d trial %d: CPU %v for %d heuristic-slots (%.3f µs each); calls %d hits %d candidates evaluated %d pruned %d",
			m, ncom, wmin, k, d, slots, float64(d.Nanoseconds())/1e3/float64(slots), e.Calls, e.Hits, e.Evals, e.Pruned)
		return
	}
	rec := NewRecording(av, c.P)
	for _, h := range hs {
		start := cpuTime()
		r, err := Simulate(context.Background(), e, scn.App, h, rec.Replay(), stream.New(1, append(labels, purposeRandom, uint64(k))...), Options{Cap: c.Cap})
		if err != nil {
			t.Fatal(err)
		}
		d := cpuTime() - start
		t.Logf("calls %d hits %d candidates evaluated %d", e.Calls, e.Hits, e.Evals)
		e.Calls, e.Hits, e.Evals = 0, 0, 0
		t.Logf("%-7s makespan %7d failed %v configs %6d  CPU %v  (%.2f µs/slot)", h.Name, r.Makespan, r.Failed, r.Configs, d, float64(d.Microseconds())/float64(r.Makespan))
	}
}
