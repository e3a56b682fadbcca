package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/campaign"
	"github.com/volsched/volsched/coupled/slotsim"
)

func init() {
	register(command{"time-unit", "CPU time and makespans of one trial of a unit of the paper's campaign (--unit, --trial, --cap, --separate)", timeUnit})
	register(command{"trace-unit", "per iteration, where one trial's slots went and the configurations launched (--unit, --trial, --heuristics, --cap)", traceUnit})
	register(command{"random-beyond-cap", "RANDOM's makespans with a larger cap on units of the paper's campaign (--cap, --units, --trials)", randomBeyondCap})
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// paperUnit draws unit u of the paper's campaign with seed 1 and the cap
// (0: the campaign's).
func paperUnit(u, cap int) (campaign.CampaignParams, *campaign.Unit, error) {
	c := campaign.PaperCampaign()
	if cap < 0 {
		return c, nil, fmt.Errorf("--cap %d: want slots ≥ 1, or 0 for the campaign's %d", cap, c.Cap)
	}
	if cap > 0 {
		c.Cap = cap
	}
	if u < 0 || u >= c.Units() {
		return c, nil, fmt.Errorf("--unit %d: want 0 to %d (the paper's campaign)", u, c.Units()-1)
	}
	un, err := c.Unit(1, u)
	return c, un, err
}

// simulate runs heuristics hs together on trial k of unit un.
func simulate(ctx context.Context, e *coupled.Evaluator, un *campaign.Unit, hs []coupled.Heuristic, av []availability.Source, k int, opt slotsim.Options) ([]slotsim.Result, error) {
	sim, err := slotsim.New(e, un.Scn.App, hs, opt)
	if err != nil {
		return nil, err
	}
	return sim.Run(ctx, av, un.Streams(k, hs))
}

// timeUnit simulates trial k of a unit with the 17 heuristics together,
// as the campaign does, and prints the CPU time and each heuristic's
// makespan; with --separate it simulates the heuristics one after the
// other (sharing the evaluator; the same availability, drawn again for
// each) and prints each one's time.
func timeUnit(ctx context.Context, w io.Writer, args []string) error {
	fs := flags("time-unit")
	u := fs.Int("unit", -1, "unit of the paper's campaign (required)")
	k := fs.Int("trial", 0, "trial")
	capSlots := fs.Int("cap", 0, "slot cap (0: the campaign's)")
	separate := fs.Bool("separate", false, "simulate the heuristics one after the other and time each")
	fs.Parse(args)
	c, un, err := paperUnit(*u, *capSlots)
	if err != nil {
		return err
	}
	m, ncom, wmin, _ := c.UnitParams(*u)
	e, err := coupled.NewEvaluator(un.Table, un.Scn.Platform, m, analytic.Published)
	if err != nil {
		return err
	}
	hs := coupled.Heuristics()
	if !*separate {
		start := cpuTime()
		rs, err := simulate(ctx, e, un, hs, un.Availability(*k), *k, slotsim.Options{Cap: c.Cap})
		if err != nil {
			return err
		}
		d := cpuTime() - start
		slots := 0
		for i, r := range rs {
			slots += r.Makespan
			fmt.Fprintf(w, "%-7s makespan %7d failed %v configs %6d\n", hs[i].Name, r.Makespan, r.Failed, r.Configs)
		}
		fmt.Fprintf(w, "m %d ncom %d wmin %d trial %d: CPU %v for %d heuristic-slots (%.3f µs each); calls %d hits %d candidates evaluated %d pruned %d\n",
			m, ncom, wmin, *k, d, slots, float64(d.Nanoseconds())/1e3/float64(slots), e.Calls, e.Hits, e.Evals, e.Pruned)
		return nil
	}
	for _, h := range hs {
		start := cpuTime()
		rs, err := simulate(ctx, e, un, []coupled.Heuristic{h}, un.Availability(*k), *k, slotsim.Options{Cap: c.Cap})
		if err != nil {
			return err
		}
		r := rs[0]
		d := cpuTime() - start
		fmt.Fprintf(w, "calls %d hits %d candidates evaluated %d\n", e.Calls, e.Hits, e.Evals)
		e.Calls, e.Hits, e.Evals = 0, 0, 0
		fmt.Fprintf(w, "%-7s makespan %7d failed %v configs %6d  CPU %v  (%.2f µs/slot)\n", h.Name, r.Makespan, r.Failed, r.Configs, d, float64(d.Microseconds())/float64(r.Makespan))
	}
	return nil
}

// traceUnit simulates trial k of a unit with each named heuristic and
// prints, per iteration, where its slots went (no configuration,
// communication, computation, suspended by a RECLAIMED member), the
// launches (after a DOWN or proactive) and the first launched
// configurations (processors: tasks, and W).
func traceUnit(ctx context.Context, w io.Writer, args []string) error {
	fs := flags("trace-unit")
	u := fs.Int("unit", -1, "unit of the paper's campaign (required)")
	k := fs.Int("trial", 0, "trial")
	capSlots := fs.Int("cap", 0, "slot cap (0: the campaign's)")
	names := fs.String("heuristics", "IE,P-IP", "heuristics, comma-separated")
	fs.Parse(args)
	c, un, err := paperUnit(*u, *capSlots)
	if err != nil {
		return err
	}
	var hs []coupled.Heuristic
	for _, name := range strings.Split(*names, ",") {
		h, err := coupled.ParseHeuristic(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("--heuristics: %w", err)
		}
		hs = append(hs, h)
	}
	m, ncom, wmin, si := c.UnitParams(*u)
	scn, tab := un.Scn, un.Table
	fmt.Fprintf(w, "m %d ncom %d wmin %d scenario %d trial %d; w = %v\n", m, ncom, wmin, si, *k, scn.Platform.W)
	for q, ch := range scn.Chains {
		st := tab.Single(q)
		fmt.Fprintf(w, "P%-2d w %3d  P_uu %.3f P_ud %.3f P_rr %.3f P_dd %.3f  P+ %.4f\n", q, scn.Platform.W[q], ch.P[0][0], ch.P[0][2], ch.P[1][1], ch.P[2][2], st.PPlus)
	}
	for _, h := range hs {
		e, err := coupled.NewEvaluator(tab, scn.Platform, m, analytic.Published)
		if err != nil {
			return err
		}
		rs, err := simulate(ctx, e, un, []coupled.Heuristic{h}, un.Availability(*k), *k, slotsim.Options{Cap: c.Cap, Trace: true})
		if err != nil {
			return err
		}
		r := rs[0]
		fmt.Fprintf(w, "%s: makespan %d, %d configurations (%d proactive)\n", h.Name, r.Makespan, r.Configs, r.Proactive)
		var none, comm, comp, susp, launches, downs, pro, start int
		var cfgs []string
		prev := []int(nil)
		for i, s := range r.Trace {
			if s.Launch {
				launches++
				switch {
				case prev == nil:
				case lostMember(prev, s.States):
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
				fmt.Fprintf(w, "  iteration slots %6d-%6d: none %5d comm %5d compute %5d idle/suspended %6d; launches %4d (after DOWN %4d, proactive %4d) %s\n",
					start, i, none, comm, comp, susp, launches, downs, pro, strings.Join(cfgs, " "))
				none, comm, comp, susp, launches, downs, pro, start, cfgs, prev = 0, 0, 0, 0, 0, 0, 0, i+1, nil, nil
			}
		}
	}
	return nil
}

// lostMember says whether a member of the previous configuration is DOWN.
func lostMember(prev []int, states []availability.State) bool {
	for q, x := range prev {
		if x > 0 && states[q] == availability.Down {
			return true
		}
	}
	return false
}

// randomBeyondCap runs RANDOM alone, with a cap, on trials 0…n−1 of the
// given units and prints its makespans: how long RANDOM needs where the
// campaign's 10⁶-slot cap makes it fail.
func randomBeyondCap(ctx context.Context, w io.Writer, args []string) error {
	fs := flags("random-beyond-cap")
	capSlots := fs.Int("cap", 0, "slot cap (required, e.g. 5000000)")
	units := fs.String("units", "", "units of the paper's campaign, comma-separated (required)")
	trials := fs.Int("trials", 10, "trials 0…n−1 of each unit")
	fs.Parse(args)
	if *capSlots < 1 || *units == "" {
		return fmt.Errorf("--cap %d --units %q: want a cap ≥ 1 and at least one unit", *capSlots, *units)
	}
	if *trials < 1 {
		return fmt.Errorf("--trials %d: want ≥ 1", *trials)
	}
	h, err := coupled.ParseHeuristic("RANDOM")
	if err != nil {
		return err
	}
	for _, us := range strings.Split(*units, ",") {
		u, err := strconv.Atoi(strings.TrimSpace(us))
		if err != nil {
			return fmt.Errorf("--units: %q is not a unit number", us)
		}
		c, un, err := paperUnit(u, *capSlots)
		if err != nil {
			return err
		}
		m, ncom, wmin, si := c.UnitParams(u)
		e, err := coupled.NewEvaluator(un.Table, un.Scn.Platform, m, analytic.Published)
		if err != nil {
			return err
		}
		ms := make([]int, *trials)
		for k := range ms {
			rs, err := simulate(ctx, e, un, []coupled.Heuristic{h}, un.Availability(k), k, slotsim.Options{Cap: c.Cap})
			if err != nil {
				return err
			}
			ms[k] = rs[0].Makespan
		}
		fmt.Fprintf(w, "unit %d (m %d ncom %d wmin %d scenario %d): RANDOM makespans %v\n", u, m, ncom, wmin, si, ms)
	}
	return nil
}
