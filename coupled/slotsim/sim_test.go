package slotsim_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/campaign"
	"github.com/volsched/volsched/coupled/slotsim"
	"github.com/volsched/volsched/stream"
)

// simulate runs heuristic h alone (slotsim.New with one heuristic, Run
// with its random stream).
func simulate(e *coupled.Evaluator, app coupled.Application, h coupled.Heuristic, av []availability.Source, rng *rand.Rand, opt slotsim.Options) (slotsim.Result, error) {
	sim, err := slotsim.New(e, app, []coupled.Heuristic{h}, opt)
	if err != nil {
		return slotsim.Result{}, err
	}
	rs, err := sim.Run(context.Background(), av, []*rand.Rand{rng})
	if err != nil {
		return slotsim.Result{}, err
	}
	return rs[0], nil
}

// pattern is an availability given slot by slot, one string per processor
// ('u', 'r', 'd'); past the end the last state repeats.
type pattern []string

// sources are the pattern's availability sources (availability.Sequence).
func (pt pattern) sources() []availability.Source {
	src := make([]availability.Source, len(pt))
	for q, row := range pt {
		s := make([]availability.State, len(row))
		for t, c := range []byte(row) {
			switch c {
			case 'u':
				s[t] = availability.Up
			case 'r':
				s[t] = availability.Reclaimed
			default:
				s[t] = availability.Down
			}
		}
		src[q] = availability.Sequence(s...)
	}
	return src
}

// markov is the availability of the chains for stream (seed, labels…):
// processor q follows its chain from the stationary distribution, drawing
// from (seed, labels…, q), as the campaign's units do.
func markov(chains []availability.Chain, seed uint64, labels ...uint64) []availability.Source {
	rngs := make([]*rand.Rand, len(chains))
	for q := range rngs {
		rngs[q] = stream.New(seed, append(slices.Clone(labels), uint64(q))...)
	}
	return availability.ChainSources(chains, availability.StartStationary, rngs...)
}

func chainOf(uu, ur, ru, rr, du float64) availability.Chain {
	return availability.Chain{P: [3][3]float64{
		{uu, ur, 1 - uu - ur},
		{ru, rr, 1 - ru - rr},
		{du, 0.5 * (1 - du), 0.5 * (1 - du)},
	}}
}

func evaluator(t *testing.T, chains []availability.Chain, plat coupled.Platform, m int) *coupled.Evaluator {
	t.Helper()
	tab, err := analytic.NewTable(chains, analytic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := coupled.NewEvaluator(tab, plat, m, analytic.Published)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// randomSetup draws a scenario of parameters sp from stream (labels…) and
// builds its table and an evaluator with form f.
func randomSetup(t *testing.T, sp campaign.ScenarioParams, f analytic.Form, labels ...uint64) (campaign.Scenario, *analytic.Table, *coupled.Evaluator) {
	t.Helper()
	scn, err := campaign.RandomScenario(stream.New(labels[0], labels[1:]...), sp)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := analytic.NewTable(scn.Chains, analytic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, f)
	if err != nil {
		t.Fatal(err)
	}
	return scn, tab, e
}

// TestFigure1 replays the example of §III.C / Figure 1: m = 5, p = 5,
// w_i = i, n_com = 2, T_prog = 2, T_data = 1, two tasks on P2 and P3, one
// on P4, configuration selected at time 1. The availability pattern is the
// one the text determines (P1, P5 not UP at time 1; P3 RECLAIMED after
// receiving the program; P2 RECLAIMED at 10–11; P3 RECLAIMED at 12), with
// communications served in enrolment order (docs/model-002.md).
func TestFigure1(t *testing.T) {
	plat := coupled.Platform{W: []int{1, 2, 3, 4, 5}, NCom: 2, TProg: 2, TData: 1}
	app := coupled.Application{Tasks: 5, Iterations: 1}
	av := pattern{
		"rdddddddddddddddd",
		"ruuuuuuuuurruuuuu",
		"ruuuruuuuuuuruuuu",
		"ruuuuuuuuuuuuuuuu",
		"rrrrrrrrrrrrrrrrr",
	}
	chains := make([]availability.Chain, 5)
	for i := range chains {
		chains[i] = chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	}
	e := evaluator(t, chains, plat, 5)
	fig := coupled.Heuristic{Name: "figure1", Builder: func(_ *coupled.Evaluator, s *coupled.Snapshot, _ *rand.Rand) (coupled.Config, bool) {
		if s.States[1] != availability.Up || s.States[2] != availability.Up || s.States[3] != availability.Up {
			return coupled.Config{}, false
		}
		return coupled.Config{X: []int{0, 2, 2, 1, 0}, Order: []int{1, 2, 3}}, true
	}}
	res, err := simulate(e, app, fig, av.sources(), nil, slotsim.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan != 16 || res.Iterations != 1 || res.Failed {
		t.Fatalf("makespan %d iterations %d failed %v, want 16, 1, false", res.Makespan, res.Iterations, res.Failed)
	}
	// P2, P3, P4 receive in enrolment order; P4 waits for a channel during
	// slots 1–3; compute 7–9, suspended 10–12 (P2 then P3 RECLAIMED), resumed
	// 13–15; the next iteration could begin at time 16.
	want := []string{
		"----------------",
		"-PPDDIICCCIIICCC",
		"-PPDIDICCCIIICCC",
		"-IIIPPDCCCIIICCC",
		"----------------",
	}
	for q := range 5 {
		var b strings.Builder
		for _, s := range res.Trace {
			b.WriteByte(byte(s.Act[q]))
		}
		if got := b.String(); got != want[q] {
			t.Errorf("P%d: got %s, want %s", q+1, got, want[q])
		}
	}
	it, mk, err := slotsim.Check(plat, app, res.Trace, slotsim.CheckOptions{Passive: true})
	if err != nil || it != 1 || mk != 16 {
		t.Fatalf("check: %d iterations, makespan %d, err %v; want 1, 16, nil", it, mk, err)
	}

	// A DOWN at time 14 loses the computation and restarts communications.
	av2 := append(pattern(nil), av...)
	av2[3] = "ruuuuuuuuuuuuudddd"
	av2[0] = "rdddddddddddddduuuuuu"
	res2, err := simulate(e, app, coupled.Heuristic{Name: "fig", Builder: func(_ *coupled.Evaluator, s *coupled.Snapshot, _ *rand.Rand) (coupled.Config, bool) {
		var up []int
		for q := range s.States {
			if s.States[q] == availability.Up {
				up = append(up, q)
			}
		}
		if len(up) < 3 {
			return coupled.Config{}, false
		}
		x := make([]int, 5)
		x[up[0]], x[up[1]], x[up[2]] = 2, 2, 1
		return coupled.Config{X: x, Order: up[:3]}, true
	}}, av2.sources(), nil, slotsim.Options{Trace: true, Cap: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Configs < 2 || res2.Makespan <= 16 {
		t.Fatalf("after a DOWN at 14: %d configurations, makespan %d; want a restart", res2.Configs, res2.Makespan)
	}
	if _, _, err := slotsim.Check(plat, app, res2.Trace, slotsim.CheckOptions{Passive: true}); err != nil {
		t.Fatalf("check after DOWN: %v", err)
	}
}

// TestCheckRejects mutates a valid trace and expects the checker to object.
func TestCheckRejects(t *testing.T) {
	plat := coupled.Platform{W: []int{1, 2, 3, 4, 5}, NCom: 2, TProg: 2, TData: 1}
	app := coupled.Application{Tasks: 5, Iterations: 1}
	base := func() []slotsim.Slot {
		av := pattern{"rd", "ruuuuuuuuurruuuuu", "ruuuruuuuuuuruuuu", "ru", "r"}
		chains := make([]availability.Chain, 5)
		for i := range chains {
			chains[i] = chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
		}
		e := evaluator(t, chains, plat, 5)
		res, err := simulate(e, app, coupled.Heuristic{Name: "f", Builder: func(_ *coupled.Evaluator, s *coupled.Snapshot, _ *rand.Rand) (coupled.Config, bool) {
			if s.States[1] != availability.Up {
				return coupled.Config{}, false
			}
			return coupled.Config{X: []int{0, 2, 2, 1, 0}, Order: []int{1, 2, 3}}, true
		}}, av.sources(), nil, slotsim.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		return res.Trace
	}
	cases := map[string]func(tr []slotsim.Slot){
		"three communications": func(tr []slotsim.Slot) { tr[1].Act[3] = slotsim.RecvProg },
		"compute while reclaimed": func(tr []slotsim.Slot) {
			tr[10].Act[1], tr[10].Act[2], tr[10].Act[3] = slotsim.Compute, slotsim.Compute, slotsim.Compute
		},
		"partial compute":       func(tr []slotsim.Slot) { tr[7].Act[1] = slotsim.Idle },
		"data before program":   func(tr []slotsim.Slot) { tr[1].Act[1] = slotsim.RecvData },
		"early completion":      func(tr []slotsim.Slot) { tr[14].Completed = true },
		"act without enrolment": func(tr []slotsim.Slot) { tr[3].Act[4] = slotsim.RecvProg },
		"wrong task count":      func(tr []slotsim.Slot) { tr[5].X = []int{0, 2, 2, 2, 0} },
	}
	if _, _, err := slotsim.Check(plat, app, base(), slotsim.CheckOptions{}); err != nil {
		t.Fatalf("valid trace rejected: %v", err)
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			tr := base()
			mutate(tr)
			if _, _, err := slotsim.Check(plat, app, tr, slotsim.CheckOptions{}); err == nil {
				t.Fatal("checker accepted an invalid trace")
			}
		})
	}
}

// Every heuristic on random small scenarios: traces pass the checker,
// the checker's makespan agrees, passive heuristics never reconfigure
// alive configurations, every heuristic of a trial sees the same
// availability, and the caches do not change decisions.
func TestSimulateRandomScenarios(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 2
	}
	for sc := range n {
		sp := campaign.ScenarioParams{P: 8, Tasks: 3 + sc%3, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
		scn, err := campaign.RandomScenario(stream.New(11, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := analytic.NewTable(scn.Chains, analytic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var states0 [][]availability.State
		for _, h := range coupled.Heuristics() {
			e, err := coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, analytic.Published)
			if err != nil {
				t.Fatal(err)
			}
			av := markov(scn.Chains, 5, uint64(sc))
			res, err := simulate(e, scn.App, h, av, stream.New(5, uint64(sc), 99), slotsim.Options{Trace: true, Cap: 20000})
			if err != nil {
				t.Fatal(err)
			}
			it, mk, err := slotsim.Check(scn.Platform, scn.App, res.Trace, slotsim.CheckOptions{Passive: !h.Proactive()})
			if err != nil {
				t.Fatalf("scenario %d %s: %v", sc, h.Name, err)
			}
			if !res.Failed && (it != scn.App.Iterations || mk != res.Makespan) {
				t.Fatalf("scenario %d %s: checker %d iterations makespan %d, simulator %+v", sc, h.Name, it, mk, res)
			}
			if !h.Proactive() && res.Proactive != 0 {
				t.Fatalf("%s: passive heuristic made %d proactive changes", h.Name, res.Proactive)
			}
			if states0 == nil {
				for _, s := range res.Trace {
					states0 = append(states0, s.States)
				}
			}
			for i := 0; i < len(res.Trace) && i < len(states0); i++ {
				for q := range states0[i] {
					if res.Trace[i].States[q] != states0[i][q] {
						t.Fatalf("%s sees another availability at slot %d", h.Name, i)
					}
				}
			}
			// same run again with a fresh evaluator reusing nothing, and with
			// the warmed evaluator: identical results
			res2, err := simulate(e, scn.App, h, markov(scn.Chains, 5, uint64(sc)), stream.New(5, uint64(sc), 99), slotsim.Options{Cap: 20000})
			if err != nil || res2.Makespan != res.Makespan || res2.Configs != res.Configs {
				t.Fatalf("%s: rerun with warm caches %+v, first %+v (%v)", h.Name, res2, res, err)
			}
		}
	}
}

// The other readings of §VI.B and of a RECLAIMED member's value (fresh:
// new configurations built and measured without task data; scratch: and a
// switch re-sends all task data; wait and replace for the running
// configuration with a RECLAIMED member): traces stay valid lock-step
// schedules, passive heuristics are unaffected, and each reading changes
// some proactive run.
func TestReadings(t *testing.T) {
	readings := []struct {
		name string
		opt  slotsim.Options
	}{
		{"fresh", slotsim.Options{Readings: coupled.Readings{FreshRebuild: true}}},
		{"scratch", slotsim.Options{Readings: coupled.Readings{FreshRebuild: true, ResendData: true}}},
		{"wait", slotsim.Options{Readings: coupled.Readings{Reclaimed: coupled.Wait}}},
		{"replace", slotsim.Options{Readings: coupled.Readings{Reclaimed: coupled.Replace}}},
	}
	resendCaught, keptCaught := false, false
	for _, rd := range readings {
		differs := false
		for sc := range 4 {
			sp := campaign.ScenarioParams{P: 8, Tasks: 3 + sc%3, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
			scn, _, e := randomSetup(t, sp, analytic.Published, 41, uint64(sc))
			for _, h := range coupled.Heuristics() {
				var res [2]slotsim.Result
				for i, opt := range []slotsim.Options{{}, rd.opt} {
					opt.Trace, opt.Cap = true, 20000
					r, err := simulate(e, scn.App, h, markov(scn.Chains, 6, uint64(sc)), stream.New(6, uint64(sc), 1), opt)
					if err != nil {
						t.Fatal(err)
					}
					if _, _, err := slotsim.Check(scn.Platform, scn.App, r.Trace, slotsim.CheckOptions{Passive: !h.Proactive(), ResendData: opt.ResendData}); err != nil {
						t.Fatalf("%s: scenario %d %s: %v", rd.name, sc, h.Name, err)
					}
					res[i] = r
				}
				if res[0].Makespan != res[1].Makespan || res[0].Configs != res[1].Configs {
					if !h.Proactive() {
						t.Fatalf("%s: scenario %d: passive %s changed", rd.name, sc, h.Name)
					}
					differs = true
				}
				if rd.opt.ResendData {
					// the checker's rule has teeth: a trace of one reading
					// checked with the other's rule is rejected somewhere
					if _, _, err := slotsim.Check(scn.Platform, scn.App, res[1].Trace, slotsim.CheckOptions{}); err != nil {
						resendCaught = true
					}
					if _, _, err := slotsim.Check(scn.Platform, scn.App, res[0].Trace, slotsim.CheckOptions{ResendData: true}); err != nil {
						keptCaught = true
					}
				}
			}
		}
		if !differs {
			t.Errorf("%s: the reading changed no run", rd.name)
		}
	}
	if !resendCaught || !keptCaught {
		t.Errorf("checker: scratch traces rejected without ResendData %v, default traces rejected with it %v; want both", resendCaught, keptCaught)
	}
}

// The heuristics simulated together (runs shared while their states are
// equal, forked when their decisions differ, merged when their states meet
// again, choices reused between runs with the same holdings) give each
// heuristic exactly what it gets simulated alone, for both E(S)(W) forms,
// the rebuild readings and the valuations of a running configuration with a
// RECLAIMED member; with traces (no merging) every
// heuristic's trace passes the checker and equals its trace alone.
func TestTogetherEqualsAlone(t *testing.T) {
	forks, merges, reused := 0, 0, 0
	n := 16
	if testing.Short() {
		n = 6
	}
	hs := coupled.Heuristics()
	for sc := range n {
		sp := campaign.ScenarioParams{P: 8 + sc%5, Tasks: 3 + sc%4, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
		scn, err := campaign.RandomScenario(stream.New(51, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
		form := []analytic.Form{analytic.Published, analytic.Conditional}[sc%2]
		opt := slotsim.Options{Cap: 20000, Readings: coupled.Readings{FreshRebuild: sc%4 == 3, ResendData: sc%8 == 7, Reclaimed: coupled.ReclaimedValue(sc % 3)}, Trace: sc%3 == 1}
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = stream.New(7, uint64(sc))
		e, err := coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, form)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := slotsim.New(e, scn.App, hs, opt)
		if err != nil {
			t.Fatal(err)
		}
		all, err := sim.Run(context.Background(), markov(scn.Chains, 8, uint64(sc)), rngs)
		if err != nil {
			t.Fatal(err)
		}
		sh := sim.Sharing()
		forks += sh.Forks
		merges += sh.Merges
		reused += sh.Reused
		for i, h := range hs {
			alone, _ := coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, form)
			r, err := simulate(alone, scn.App, h, markov(scn.Chains, 8, uint64(sc)), stream.New(7, uint64(sc)), opt)
			if err != nil {
				t.Fatal(err)
			}
			a := all[i]
			if a.Makespan != r.Makespan || a.Failed != r.Failed || a.Iterations != r.Iterations || a.Configs != r.Configs || a.Proactive != r.Proactive {
				t.Fatalf("scenario %d %s: together %+v, alone %+v", sc, h.Name, a, r)
			}
			if opt.Trace {
				if len(a.Trace) != len(r.Trace) {
					t.Fatalf("scenario %d %s: trace of %d slots together, %d alone", sc, h.Name, len(a.Trace), len(r.Trace))
				}
				for k := range a.Trace {
					if !slices.Equal(a.Trace[k].Act, r.Trace[k].Act) || !slices.Equal(a.Trace[k].X, r.Trace[k].X) {
						t.Fatalf("scenario %d %s: slot %d differs together and alone", sc, h.Name, k)
					}
				}
				if _, _, err := slotsim.Check(scn.Platform, scn.App, a.Trace, slotsim.CheckOptions{Passive: !h.Proactive(), ResendData: opt.ResendData}); err != nil {
					t.Fatalf("scenario %d %s: %v", sc, h.Name, err)
				}
			}
		}
	}
	if forks == 0 || merges == 0 || reused == 0 {
		t.Errorf("%d forks, %d merges, %d choices reused: the test does not exercise sharing", forks, merges, reused)
	}
	t.Logf("%d forks, %d merges, %d choices reused", forks, merges, reused)
}

// 100 and 300 processors through the simulator and the checker: every
// heuristic, simulated together with the others, completes the
// application; its trace is a valid lock-step schedule whose makespan the
// checker finds too, and equals its run alone (common random numbers).
func TestManyProcessorsSimulated(t *testing.T) {
	hs := coupled.Heuristics()
	for _, p := range []int{100, 300} {
		sp := campaign.ScenarioParams{P: p, Tasks: 8, NCom: 4, WMin: 1, Iterations: 2}
		scn, tab, e := randomSetup(t, sp, analytic.Published, 81, uint64(p))
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = stream.New(82, uint64(p))
		opt := slotsim.Options{Cap: 50000, Trace: true}
		sim, err := slotsim.New(e, scn.App, hs, opt)
		if err != nil {
			t.Fatal(err)
		}
		all, err := sim.Run(context.Background(), markov(scn.Chains, 83, uint64(p)), rngs)
		if err != nil {
			t.Fatal(err)
		}
		beyond := 0
		for i, h := range hs {
			r := all[i]
			if r.Failed {
				t.Fatalf("p = %d %s: failed (cap %d)", p, h.Name, opt.Cap)
			}
			it, mk, err := slotsim.Check(scn.Platform, scn.App, r.Trace, slotsim.CheckOptions{Passive: !h.Proactive()})
			if err != nil || it != sp.Iterations || mk != r.Makespan {
				t.Fatalf("p = %d %s: checker %d iterations, makespan %d, %v; simulator %d", p, h.Name, it, mk, err, r.Makespan)
			}
			for _, s := range r.Trace {
				for q := 64; q < p; q++ {
					if s.Act[q] == slotsim.Compute {
						beyond++
						break
					}
				}
			}
			if h.Name == "RANDOM" || h.Name == "IE" || h.Name == "Y-IE" {
				alone, _ := coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, analytic.Published)
				a, err := simulate(alone, scn.App, h, markov(scn.Chains, 83, uint64(p)), stream.New(82, uint64(p)), opt)
				if err != nil || a.Makespan != r.Makespan || a.Configs != r.Configs {
					t.Fatalf("p = %d %s: alone makespan %d configs %d (%v), together %d %d", p, h.Name, a.Makespan, a.Configs, err, r.Makespan, r.Configs)
				}
			}
		}
		if beyond == 0 {
			t.Errorf("p = %d: no processor beyond the 64th ever computed: the test does not exercise them", p)
		}
	}
}

// Evaluator.Decide takes, from the master's view alone, the decisions the
// simulator takes. The 17 heuristics are simulated together on random
// scenarios (both E(S)(W) forms, every reading); at every slot, for every
// heuristic, Decide on an evaluator of its own, given the snapshot the
// simulator decided on (states, holdings once the DOWN processors lost
// theirs, elapsed time) and the running configuration with its progress,
// must return the configuration the heuristic runs afterwards, Switch
// exactly when the simulator launched one (or dropped a broken one),
// Proactive exactly when it switched by the proactive rule, and ResendData
// with the scratch reading.
func TestDecideMatchesSimulator(t *testing.T) {
	hs := coupled.Heuristics()
	readings := []coupled.Readings{{}, {FreshRebuild: true}, {FreshRebuild: true, ResendData: true}, {Reclaimed: coupled.Wait}, {Reclaimed: coupled.Replace}, {RandomDistinct: true}}
	n := len(readings) * 2
	if testing.Short() {
		n = len(readings)
	}
	var decisions, switches, proactive, broken int
	for sc := range n {
		sp := campaign.ScenarioParams{P: 7 + sc%4, Tasks: 3 + sc%3, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
		scn, tab, e := randomSetup(t, sp, []analytic.Form{analytic.Published, analytic.Conditional}[sc%2], 91, uint64(sc))
		rd := readings[sc%len(readings)]
		sim, err := slotsim.New(e, scn.App, hs, slotsim.Options{Readings: rd, Cap: 20000})
		if err != nil {
			t.Fatal(err)
		}
		evs := make([]*coupled.Evaluator, len(hs))
		for i := range hs {
			evs[i], _ = coupled.NewEvaluator(tab, scn.Platform, sp.Tasks, e.Form())
		}
		rng := stream.New(92, uint64(sc)) // RANDOM's draws: the same stream for Decide
		slotsim.Observe(sim, func(d slotsim.Decision) {
			for k, i := range d.Members {
				got, err := evs[i].Decide(hs[i], d.Snapshot, d.Before, rng, rd)
				if err != nil {
					t.Fatalf("scenario %d slot %d %s: %v", sc, d.T, hs[i].Name, err)
				}
				after := d.After[k]
				sw := d.Launched[k] || (d.Before.Config.X != nil && after.X == nil)
				if !slices.Equal(got.Config.X, after.X) || !slices.Equal(got.Config.Order, after.Order) || got.Switch != sw ||
					got.Proactive != d.Proactive[k] || got.ResendData != (d.Proactive[k] && rd.ResendData) {
					t.Fatalf("scenario %d slot %d %s (%+v): Decide %+v, simulator %v %v switch %v proactive %v", sc, d.T, hs[i].Name, rd, got, after.X, after.Order, sw, d.Proactive[k])
				}
				decisions++
				if got.Switch {
					switches++
				}
				if got.Proactive {
					proactive++
				}
				if d.Before.Config.X != nil && got.Switch && !got.Proactive {
					broken++
				}
			}
		})
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = stream.New(92, uint64(sc))
		if _, err := sim.Run(context.Background(), markov(scn.Chains, 93, uint64(sc)), rngs); err != nil {
			t.Fatal(err)
		}
	}
	if switches == 0 || proactive == 0 || broken == 0 {
		t.Errorf("%d decisions: %d switches, %d proactive, %d after a DOWN member: want some of each", decisions, switches, proactive, broken)
	}
	t.Logf("%d decisions: %d switches, %d proactive, %d after a DOWN member", decisions, switches, proactive, broken)
}
