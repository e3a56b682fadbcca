package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/slotsim"
)

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// envUnit reads the manual tools' environment, PREFIX_UNIT (required: the
// test is skipped without it), PREFIX_CAP and PREFIX_TRIAL, and draws that
// unit of the paper's campaign with seed 1.
func envUnit(t *testing.T, prefix string) (c CampaignParams, u, k int, un *Unit) {
	us := os.Getenv(prefix + "_UNIT")
	if us == "" {
		t.Skip("manual tool; set " + prefix + "_UNIT")
	}
	u, _ = strconv.Atoi(us)
	c = PaperCampaign()
	if cs := os.Getenv(prefix + "_CAP"); cs != "" {
		c.Cap, _ = strconv.Atoi(cs)
	}
	k, _ = strconv.Atoi(os.Getenv(prefix + "_TRIAL"))
	un, err := c.Unit(1, u)
	if err != nil {
		t.Fatal(err)
	}
	return c, u, k, un
}

// simulate runs heuristics hs together on trial k of unit un.
func simulate(t *testing.T, e *coupled.Evaluator, un *Unit, hs []coupled.Heuristic, av slotsim.Availability, k int, opt slotsim.Options) []slotsim.Result {
	sim, err := slotsim.New(e, un.Scn.App, hs, opt)
	if err != nil {
		t.Fatal(err)
	}
	rngs := make([]*rand.Rand, len(hs))
	for i, h := range hs {
		if h.Build == coupled.Random {
			rngs[i] = un.Random(k)
		}
	}
	rs, err := sim.Run(context.Background(), av, rngs)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestTimeUnit is a manual measurement, not a check:
//
//	VOLSCHED_TIME_UNIT=<unit> [VOLSCHED_TIME_CAP=<slots>] [VOLSCHED_TIME_TRIAL=<k>] go test ./coupled/campaign -run TestTimeUnit -v
//
// simulates trial k (default 0) of that unit of the paper's campaign (seed
// 1) with the 17 heuristics together, as the campaign does, and prints the
// CPU time and each heuristic's makespan; with VOLSCHED_TIME_SEPARATE=1 it
// simulates the heuristics one after the other (sharing the evaluator and
// the availability) and prints each one's time.
func TestTimeUnit(t *testing.T) {
	c, u, k, un := envUnit(t, "VOLSCHED_TIME")
	m, ncom, wmin, _ := c.UnitParams(u)
	scn, tab := un.Scn, un.Table
	e, _ := coupled.NewEvaluator(tab, scn.Platform, m, analytic.Published)
	av := un.Availability(k)
	hs := coupled.Heuristics()
	if os.Getenv("VOLSCHED_TIME_SEPARATE") == "" {
		start := cpuTime()
		rs := simulate(t, e, un, hs, av, k, slotsim.Options{Cap: c.Cap})
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
	rec := slotsim.NewRecording(av, c.P)
	for _, h := range hs {
		start := cpuTime()
		r := simulate(t, e, un, []coupled.Heuristic{h}, rec.Replay(), k, slotsim.Options{Cap: c.Cap})[0]
		d := cpuTime() - start
		t.Logf("calls %d hits %d candidates evaluated %d", e.Calls, e.Hits, e.Evals)
		e.Calls, e.Hits, e.Evals = 0, 0, 0
		t.Logf("%-7s makespan %7d failed %v configs %6d  CPU %v  (%.2f µs/slot)", h.Name, r.Makespan, r.Failed, r.Configs, d, float64(d.Microseconds())/float64(r.Makespan))
	}
}

// TestTraceUnit is a manual inspection, not a check:
//
//	VOLSCHED_TRACE_UNIT=<unit> [VOLSCHED_TRACE_TRIAL=<k>] [VOLSCHED_TRACE_H=IE,P-IP] [VOLSCHED_TRACE_CAP=<slots>] go test ./coupled/campaign -run TestTraceUnit -v
//
// simulates trial k of that unit of the paper's campaign (seed 1) with each
// named heuristic and prints, per iteration, where its slots went (no
// configuration, communication, computation, suspended by a RECLAIMED
// member), the launches (after a DOWN or proactive) and the launched
// configurations (processors: tasks, and W).
func TestTraceUnit(t *testing.T) {
	c, u, k, un := envUnit(t, "VOLSCHED_TRACE")
	m, ncom, wmin, si := c.UnitParams(u)
	scn, tab := un.Scn, un.Table
	t.Logf("m %d ncom %d wmin %d scenario %d trial %d; w = %v", m, ncom, wmin, si, k, scn.Platform.W)
	for q, ch := range scn.Chains {
		st := tab.Single(q)
		t.Logf("P%-2d w %3d  P_uu %.3f P_ud %.3f P_rr %.3f P_dd %.3f  P+ %.4f", q, scn.Platform.W[q], ch.P[0][0], ch.P[0][2], ch.P[1][1], ch.P[2][2], st.PPlus)
	}
	names := strings.Split(os.Getenv("VOLSCHED_TRACE_H"), ",")
	if names[0] == "" {
		names = []string{"IE", "P-IP"}
	}
	for _, name := range names {
		h, err := coupled.ParseHeuristic(name)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := coupled.NewEvaluator(tab, scn.Platform, m, analytic.Published)
		r := simulate(t, e, un, []coupled.Heuristic{h}, un.Availability(k), k, slotsim.Options{Cap: c.Cap, Trace: true})[0]
		t.Logf("%s: makespan %d, %d configurations (%d proactive)", h.Name, r.Makespan, r.Configs, r.Proactive)
		var none, comm, comp, susp, launches, downs, pro, start int
		var cfgs []string
		prev := []int(nil)
		for i, s := range r.Trace {
			if s.Launch {
				launches++
				switch {
				case prev == nil:
				case func() bool {
					for q, x := range prev {
						if x > 0 && s.States[q] == availability.Down {
							return true
						}
					}
					return false
				}():
					downs++
				default:
					pro++
				}
				if len(cfgs) < 6 {
					W, desc := 0, ""
					for q, x := range s.X {
						if x > 0 {
							desc += fmt.Sprintf(" P%d:%d", q, x)
							W = max(W, x*scn.Platform.W[q])
						}
					}
					cfgs = append(cfgs, fmt.Sprintf("[%s W %d]", desc, W))
				}
			}
			switch {
			case s.X == nil:
				none++
			default:
				a := slotsim.Idle
				for _, x := range s.Act {
					if x == slotsim.RecvProg || x == slotsim.RecvData || x == slotsim.Compute {
						a = x
					}
				}
				switch a {
				case slotsim.Compute:
					comp++
				case slotsim.RecvProg, slotsim.RecvData:
					comm++
				default:
					susp++
				}
			}
			prev = s.X
			if s.Completed || i == len(r.Trace)-1 {
				t.Logf("  iteration slots %6d-%6d: none %5d comm %5d compute %5d idle/suspended %6d; launches %4d (after DOWN %4d, proactive %4d) %s",
					start, i, none, comm, comp, susp, launches, downs, pro, strings.Join(cfgs, " "))
				none, comm, comp, susp, launches, downs, pro, start, cfgs, prev = 0, 0, 0, 0, 0, 0, 0, i+1, nil, nil
			}
		}
	}
}

// TestRandomBeyondCap is a manual measurement, not a check:
//
//	VOLSCHED_RANDOM_CAP=<slots> VOLSCHED_RANDOM_UNITS=<u,u,…> [VOLSCHED_RANDOM_TRIALS=<n>] go test ./coupled/campaign -run TestRandomBeyondCap -v
//
// runs RANDOM alone, with that cap, on trials 0…n−1 (default 10) of the
// given units of the paper's campaign (seed 1) and prints its makespans:
// how long RANDOM needs where the 10⁶-slot cap makes it fail.
func TestRandomBeyondCap(t *testing.T) {
	cs := os.Getenv("VOLSCHED_RANDOM_CAP")
	if cs == "" {
		t.Skip("manual measurement; set VOLSCHED_RANDOM_CAP and VOLSCHED_RANDOM_UNITS")
	}
	c := PaperCampaign()
	c.Cap, _ = strconv.Atoi(cs)
	trials := 10
	if s := os.Getenv("VOLSCHED_RANDOM_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	h, _ := coupled.ParseHeuristic("RANDOM")
	for _, us := range strings.Split(os.Getenv("VOLSCHED_RANDOM_UNITS"), ",") {
		u, _ := strconv.Atoi(us)
		m, ncom, wmin, si := c.UnitParams(u)
		un, err := c.Unit(1, u)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := coupled.NewEvaluator(un.Table, un.Scn.Platform, m, analytic.Published)
		ms := make([]int, trials)
		for k := range trials {
			ms[k] = simulate(t, e, un, []coupled.Heuristic{h}, un.Availability(k), k, slotsim.Options{Cap: c.Cap})[0].Makespan
		}
		t.Logf("unit %d (m %d ncom %d wmin %d scenario %d): RANDOM makespans %v", u, m, ncom, wmin, si, ms)
	}
}
