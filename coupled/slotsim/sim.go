// Package slotsim is the time-slot simulator of seeds 000/002 (the
// lock-step iterative application of §III on volatile processors) and its
// schedule checker. The decisions are package coupled's: the simulator
// owns time, availability and holdings, and asks the evaluator to build,
// value and compare configurations (Evaluator.Build, RebuildSnapshot,
// Compare, Comparison.Switches: the pieces of Evaluator.Decide).
package slotsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// Action is what an enrolled processor does in a slot.
type Action byte

const (
	// NotEnrolled: the processor is not in the configuration.
	NotEnrolled Action = '-'
	// Idle: enrolled but neither receiving nor computing.
	Idle Action = 'I'
	// RecvProg: receiving one slot of the program.
	RecvProg Action = 'P'
	// RecvData: receiving one slot of task data.
	RecvData Action = 'D'
	// Compute: computing its tasks (lock-step with all enrolled).
	Compute Action = 'C'
)

// Slot is one slot of a trace.
type Slot struct {
	States []availability.State
	X      []int    // configuration in force during the slot (nil: none)
	Act    []Action // what each processor does
	// Completed is true when an iteration completes at the end of the slot.
	Completed bool
	// Launch is true when the configuration X was launched in this slot
	// (at an iteration start, after a DOWN, or by a proactive switch).
	Launch bool
}

// Options of a simulation.
type Options struct {
	// Readings are the decisions' readings where the paper is silent.
	coupled.Readings
	// Cap is the slot limit: reaching it is a failure (default 1,000,000).
	Cap int
	// Trace records every slot (for the checker and tests; memory grows
	// with the makespan).
	Trace bool
}

// Result of one simulation.
type Result struct {
	// Makespan is the number of slots to complete all iterations (Cap when
	// Failed).
	Makespan int `json:"makespan"`
	// Failed is true when the cap was reached.
	Failed bool `json:"failed"`
	// Iterations completed.
	Iterations int `json:"iterations"`
	// Configs counts the configurations launched (initial, after a DOWN,
	// proactive).
	Configs int `json:"configs"`
	// Proactive counts the proactive replacements among them.
	Proactive int `json:"proactive"`
	// Trace, when requested.
	Trace []Slot `json:"-"`
}

// Simulator runs an application with a list of heuristics on availability
// realizations. All the heuristics of a Run see the same realization
// (common random numbers) and are simulated slot by slot together.
//
// Slot t: (1) the states of slot t are observed; processors DOWN lose the
// program and their data; a configuration with a DOWN member is abandoned
// (all computation of the iteration is lost). (2) Without a configuration
// (start of an iteration, after a DOWN) the heuristic builds one from the UP
// processors; a proactive heuristic otherwise builds one from scratch and
// launches it when its criterion is strictly better than the running one's
// updated value. (3) If some member still needs program or data, up to NCom
// UP members receive one slot each, in enrolment order (communication
// phase); otherwise, if every member is UP, all compute one slot. (4) When
// the computation reaches max_q x_q·w_q slots the iteration completes and
// the next one begins at slot t+1.
//
// Heuristics with the same building block whose simulations are in the
// same state (the passive H and the proactive C-H until one of them
// switches; P-H and Y-H, which mostly take the same decisions) share one
// simulation: the configuration is built and valued once per slot, and
// each heuristic decides by its own criterion; when their decisions differ
// the simulation forks, and two simulations of the same building block that
// reach the same state merge again. The state of a simulation (holdings,
// configuration, progress, iteration and its start) determines its future,
// so sharing changes no result: heuristic i's result is what a Simulator of
// heuristic i alone gives (TestTogetherEqualsAlone).
type Simulator struct {
	e   *coupled.Evaluator
	app coupled.Application
	hs  []coupled.Heuristic
	opt Options
	// sharing counts forks, merges and reused choices over the runs.
	sharing Sharing
	// observe, when set (tests), sees every decision of every run.
	observe func(decision)
	// beliefs are RunBelieving's during its run; believed and believedEval
	// the last chains an evaluator was built for, and it (kept across
	// runs); rebuilds counts the evaluators built.
	beliefs      *Beliefs
	believed     []availability.Chain
	believedEval *coupled.Evaluator
	rebuilds     int
}

// Sharing counts how much the heuristics of a Simulator shared: runs split
// because their members decided differently (Forks), runs joined because
// they reached the same state (Merges), configurations built once and used
// by another run with the same holdings (Reused).
type Sharing struct {
	Forks, Merges, Reused int
}

// New prepares the simulation of application app with the heuristics hs
// on the platform whose estimates are e's. The evaluator is the
// simulator's while it runs (not safe for concurrent use).
func New(e *coupled.Evaluator, app coupled.Application, hs []coupled.Heuristic, opt Options) (*Simulator, error) {
	if err := app.Validate(); err != nil {
		return nil, err
	}
	if app.Tasks != e.Tasks() {
		return nil, fmt.Errorf("simulate: application has m = %d but evaluator %d, want equal", app.Tasks, e.Tasks())
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("simulate: no heuristic, want at least one")
	}
	for _, h := range hs {
		if err := h.Check(); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
	}
	if opt.Cap < 0 {
		return nil, fmt.Errorf("simulate: cap = %d slots, want ≥ 0 (0: the default, %d)", opt.Cap, DefaultCap)
	}
	if opt.Cap == 0 {
		opt.Cap = DefaultCap
	}
	return &Simulator{e: e, app: app, hs: slices.Clone(hs), opt: opt}, nil
}

// DefaultCap is the slot limit of Options.Cap = 0.
const DefaultCap = 1_000_000

// Sharing returns what the runs so far shared.
func (sm *Simulator) Sharing() Sharing { return sm.sharing }

// Run simulates one realization of the availability, av[q] giving
// processor q's states from slot 0 on (availability.Source: Markov chains,
// semi-Markov sojourns, trace replay; drawn one slot at a time, processors
// in index order, availability.Fill), until every heuristic has completed
// the application or reached the cap. The heuristics simulated together
// share the realization: they see the same states. Heuristic i draws from
// rngs[i] (only RANDOM draws: nil is allowed for the others; rngs may be
// nil when none draws). ctx is checked every 4096 slots. Result i is
// heuristic i's.
func (sm *Simulator) Run(ctx context.Context, av []availability.Source, rngs []*rand.Rand) ([]Result, error) {
	if p := sm.e.Platform().P(); len(av) != p {
		return nil, fmt.Errorf("simulate: %d availability sources for %d processors, want one each", len(av), p)
	}
	if rngs == nil {
		rngs = make([]*rand.Rand, len(sm.hs))
	}
	if len(rngs) != len(sm.hs) {
		return nil, fmt.Errorf("simulate: %d heuristics but %d random streams, want equal", len(sm.hs), len(rngs))
	}
	for i, h := range sm.hs {
		if h.Draws() && rngs[i] == nil {
			return nil, fmt.Errorf("simulate: heuristic %s needs a random stream", h.Name)
		}
	}
	sim := sm.newSimulation(rngs)
	res, err := sim.run(ctx, av)
	sm.sharing.Forks += sim.forks
	sm.sharing.Merges += sim.merges
	sm.sharing.Reused += sim.reused
	return res, err
}

// newSimulation prepares the state of one Run: one run per greedy building
// block (RANDOM and heuristics with a Builder alone).
func (sm *Simulator) newSimulation(rngs []*rand.Rand) *simulation {
	e, hs := sm.e, sm.hs
	sim := &simulation{sm: sm, e: e, plat: e.Platform(), app: sm.app, hs: hs, opt: sm.opt, res: make([]Result, len(hs)), observe: sm.observe}
	p := sim.plat.P()
	sim.states = make([]availability.State, p)
	byBuild := map[coupled.Criterion]*run{}
	for i, h := range hs {
		if h.Greedy() {
			if r := byBuild[h.Build]; r != nil {
				r.members = append(r.members, i)
				r.proactive = r.proactive || h.Proactive()
				continue
			}
		}
		r := sim.newRun()
		r.members = append(r.members, i)
		r.h, r.rng, r.proactive = h, rngs[i], h.Proactive()
		if h.Greedy() {
			byBuild[h.Build] = r
			r.merge = true
			r.inc = e.NewConstruction()
		}
		sim.runs = append(sim.runs, r)
	}
	return sim
}

// run simulates until every heuristic has completed the application or
// reached the cap.
func (sim *simulation) run(ctx context.Context, av []availability.Source) ([]Result, error) {
	opt, hs := sim.opt, sim.hs
	for t := 0; len(sim.runs) > 0; t++ {
		if t >= opt.Cap {
			for _, r := range sim.runs {
				for _, i := range r.members {
					sim.res[i].Makespan, sim.res[i].Failed = opt.Cap, true
					sim.res[i].Iterations = r.iters
					sim.res[i].Trace = r.trace
				}
			}
			break
		}
		if t&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("simulate %s: slot %d: %w", hs[sim.runs[0].members[0]].Name, t, err)
			}
		}
		if sim.sm.beliefs != nil {
			if err := sim.believe(t); err != nil {
				return nil, err
			}
		}
		sim.slot(t, av)
		if sim.sm.beliefs != nil {
			sim.sm.beliefs.View.Observe(sim.states)
		}
	}
	return sim.res, nil
}

// simulation is SimulateAll's state: the runs in progress and the results.
type simulation struct {
	sm     *Simulator
	epoch  int // the view's epoch of the evaluator (with beliefs)
	e      *coupled.Evaluator
	plat   coupled.Platform
	app    coupled.Application
	hs     []coupled.Heuristic
	opt    Options
	res    []Result
	runs   []*run
	free   []*run
	states []availability.State // the slot's states (shared by the runs' snapshots)
	down   []int                // processors DOWN in the slot
	ups    []int                // processors UP in the slot
	t      int                  // the slot
	launch []int                // scratch: members that switch
	stay   []int
	// forks and merges count the runs split and joined, reused the choices
	// taken from another run (Sharing)
	forks, merges, reused int
	observe               func(decision)
}

// decision is what a run decided at one slot, for an observer (tests): the
// master's view before deciding (the snapshot once the DOWN processors
// lost their holdings, the running configuration and its progress) and,
// for each member heuristic, the configuration it runs afterwards, whether
// it was launched in the slot, and whether by the proactive rule.
type decision struct {
	T         int
	Snapshot  *coupled.Snapshot
	Before    coupled.Running
	Members   []int
	After     []coupled.Config
	Launched  []bool
	Proactive []bool
}

// run is one simulation state and the heuristics that are in it.
type run struct {
	members   []int // indices into hs; all share the building block
	h         coupled.Heuristic
	rng       *rand.Rand
	proactive bool // some member is proactive
	merge     bool // may merge with another run of the same building block
	inc       *coupled.Construction
	snap      *coupled.Snapshot
	cur       coupled.Config // X == nil: no configuration
	W, done   int
	iterStart int
	iters     int
	trace     []Slot
	memo      choice // the run's last choice
	launched  bool   // a configuration was launched in this slot (trace)
}

func (sim *simulation) newRun() *run {
	if n := len(sim.free); n > 0 {
		r := sim.free[n-1]
		sim.free = sim.free[:n-1]
		return r
	}
	p := sim.plat.P()
	return &run{
		snap: &coupled.Snapshot{States: sim.states, Prog: make([]int, p), Data: make([]int, p)},
		memo: choice{t: -1},
	}
}

// fork returns a copy of r's state with no members.
func (sim *simulation) fork(r *run) *run {
	n := sim.newRun()
	n.members = n.members[:0]
	n.h, n.rng, n.merge = r.h, r.rng, r.merge
	if r.inc != nil {
		if n.inc == nil {
			n.inc = sim.e.NewConstruction()
		}
		n.inc.CopyFrom(r.inc)
	}
	copy(n.snap.Prog, r.snap.Prog)
	copy(n.snap.Data, r.snap.Data)
	n.snap.Elapsed = r.snap.Elapsed
	n.cur, n.W, n.done, n.iterStart, n.iters = r.cur, r.W, r.done, r.iterStart, r.iters
	if r.trace != nil {
		n.trace = slices.Clone(r.trace)
	} else {
		n.trace = nil
	}
	return n
}

// sameState reports whether runs a and b are in the same state (then they
// evolve identically).
func sameState(a, b *run) bool {
	return a.iters == b.iters && a.iterStart == b.iterStart && a.done == b.done && a.W == b.W &&
		slices.Equal(a.snap.Prog, b.snap.Prog) && slices.Equal(a.snap.Data, b.snap.Data) &&
		slices.Equal(a.cur.X, b.cur.X) && slices.Equal(a.cur.Order, b.cur.Order) &&
		(a.cur.X == nil) == (b.cur.X == nil)
}

// launch makes c the configuration of r.
func (sim *simulation) launchRun(r *run, c coupled.Config) {
	plat := &sim.plat
	snap := r.snap
	for q := range snap.Prog {
		if c.X[q] == 0 {
			snap.Data[q] = 0
			if snap.Prog[q] < plat.TProg {
				snap.Prog[q] = 0 // interrupted communications restart from scratch
			}
		} else if lim := c.X[q] * plat.TData; snap.Data[q] > lim {
			snap.Data[q] = lim
		}
	}
	r.cur = c
	r.W = 0
	for q, x := range c.X {
		r.W = max(r.W, x*plat.W[q])
	}
	r.done = 0
	r.launched = true
	for _, i := range r.members {
		sim.res[i].Configs++
	}
}

// choose builds a configuration for run r from snapshot s. A building
// block's choice depends only on the UP processors, their holdings and
// (for the yield) the elapsed time: when another run of the same building
// block chose from the same in this slot, its choice is reused.
func (sim *simulation) choose(r *run, s *coupled.Snapshot) (coupled.Config, bool) {
	b := r.h.Build
	if !r.h.Greedy() {
		return sim.e.Build(r.h, nil, s, r.rng, sim.opt.Readings)
	}
	for _, o := range sim.runs {
		if o != r && o.memo.t == sim.t && o.h.Build == b && o.memo.same(s, sim.ups, b == coupled.Yield) {
			sim.reused++
			return o.memo.c, o.memo.ok
		}
	}
	c, ok := sim.e.Build(r.h, r.inc, s, r.rng, sim.opt.Readings)
	r.memo.set(sim.t, s, sim.ups, c, ok)
	return c, ok
}

// choice is the last choice of a run: the slot, what it depended on (the
// holdings of the UP processors, the elapsed time) and the configuration.
type choice struct {
	t          int
	prog, data []int
	elapsed    int
	c          coupled.Config
	ok         bool
}

func (ch *choice) set(t int, s *coupled.Snapshot, ups []int, c coupled.Config, ok bool) {
	if ch.prog == nil {
		ch.prog, ch.data = make([]int, len(s.Prog)), make([]int, len(s.Prog))
	}
	for _, q := range ups {
		ch.prog[q], ch.data[q] = s.Prog[q], s.Data[q]
	}
	ch.t, ch.elapsed, ch.c, ch.ok = t, s.Elapsed, c, ok
}

// same reports whether snapshot s (whose UP processors are ups, the same
// as the choice's: same slot) gives the same choice.
func (ch *choice) same(s *coupled.Snapshot, ups []int, elapsed bool) bool {
	if elapsed && s.Elapsed != ch.elapsed {
		return false
	}
	for _, q := range ups {
		if s.Prog[q] != ch.prog[q] || s.Data[q] != ch.data[q] {
			return false
		}
	}
	return true
}

// slot simulates slot t for every run.
func (sim *simulation) slot(t int, av []availability.Source) {
	availability.Fill(av, sim.states)
	sim.t = t
	sim.down, sim.ups = sim.down[:0], sim.ups[:0]
	for q, s := range sim.states {
		switch s {
		case availability.Up:
			sim.ups = append(sim.ups, q)
		case availability.Down:
			sim.down = append(sim.down, q)
		}
	}
	n := len(sim.runs)
	for i := 0; i < len(sim.runs); i++ {
		r := sim.runs[i]
		if i < n { // runs forked in this slot have decided already
			sim.decide(r, t)
		}
		sim.act(r, t)
	}
	// drop the finished runs, merge runs in the same state
	k := 0
	for _, r := range sim.runs {
		if r.iters == sim.app.Iterations {
			sim.free = append(sim.free, r)
			continue
		}
		merged := false
		if r.merge && !sim.opt.Trace {
			for _, o := range sim.runs[:k] {
				if o.merge && o.h.Build == r.h.Build && sameState(o, r) {
					o.members = append(o.members, r.members...)
					o.proactive = o.proactive || r.proactive
					merged = true
					sim.merges++
					break
				}
			}
		}
		if merged {
			sim.free = append(sim.free, r)
			continue
		}
		sim.runs[k] = r
		k++
	}
	clear(sim.runs[k:])
	sim.runs = sim.runs[:k]
}

// decide observes slot t's states in run r and takes the heuristics'
// decisions; members that decide differently are forked into a new run
// (appended to sim.runs).
func (sim *simulation) decide(r *run, t int) {
	if sim.observe == nil {
		sim.decideRun(r, t)
		return
	}
	d := decision{T: t, Members: slices.Clone(r.members), Before: coupled.Running{Config: r.cur, Done: r.done}}
	s := &coupled.Snapshot{States: slices.Clone(sim.states), Prog: slices.Clone(r.snap.Prog), Data: slices.Clone(r.snap.Data), Elapsed: t - r.iterStart}
	for _, q := range sim.down {
		s.Prog[q], s.Data[q] = 0, 0
	}
	d.Snapshot = s
	pro := make([]int, len(d.Members))
	for k, i := range d.Members {
		pro[k] = sim.res[i].Proactive
	}
	n := len(sim.runs)
	sim.decideRun(r, t)
	for k, i := range d.Members {
		in := r
		for _, o := range sim.runs[n:] {
			if slices.Contains(o.members, i) {
				in = o
			}
		}
		d.After = append(d.After, in.cur)
		d.Launched = append(d.Launched, in.launched)
		d.Proactive = append(d.Proactive, sim.res[i].Proactive > pro[k])
	}
	sim.observe(d)
}

// decideRun is decide for run r.
func (sim *simulation) decideRun(r *run, t int) {
	plat := &sim.plat
	snap := r.snap
	broken := false
	for _, q := range sim.down {
		snap.Prog[q], snap.Data[q] = 0, 0
		if r.cur.X != nil && r.cur.X[q] > 0 {
			broken = true
		}
	}
	if broken {
		for q, x := range r.cur.X { // survivors keep their data for possible reuse
			if x == 0 {
				snap.Data[q] = 0
			}
		}
		r.cur, r.done = coupled.Config{}, 0
	}
	snap.Elapsed = t - r.iterStart
	if r.cur.X == nil {
		if c, ok := sim.choose(r, snap); ok {
			sim.launchRun(r, c)
		} else { // nobody enrolled: interrupted communications are lost
			clear(snap.Data)
			for q := range snap.Prog {
				if snap.Prog[q] < plat.TProg {
					snap.Prog[q] = 0
				}
			}
		}
		return
	}
	if !r.proactive {
		return
	}
	// the proactive rule (Evaluator.Decide's): rebuild, compare, switch
	// when strictly better by the member's criterion
	from := sim.e.RebuildSnapshot(snap, sim.opt.Readings)
	c, ok := sim.choose(r, from)
	if !ok {
		return
	}
	cmp, ok := sim.e.Compare(coupled.Running{Config: r.cur, Done: r.done}, c, snap, from, sim.opt.Readings)
	if !ok {
		return
	}
	sim.launch, sim.stay = sim.launch[:0], sim.stay[:0]
	for _, i := range r.members {
		if cmp.Switches(sim.hs[i].Switch, snap.Elapsed) {
			sim.launch = append(sim.launch, i)
		} else {
			sim.stay = append(sim.stay, i)
		}
	}
	if len(sim.launch) == 0 {
		return
	}
	target := r
	if len(sim.stay) > 0 {
		target = sim.fork(r)
		target.members = append(target.members, sim.launch...)
		target.proactive = true
		r.members = append(r.members[:0], sim.stay...)
		r.proactive = false
		for _, i := range r.members {
			r.proactive = r.proactive || sim.hs[i].Proactive()
		}
		sim.runs = append(sim.runs, target)
		sim.forks++
	}
	if sim.opt.ResendData {
		clear(target.snap.Data)
	}
	sim.launchRun(target, c)
	for _, i := range target.members {
		sim.res[i].Proactive++
	}
}

// act performs slot t's communications or computation in run r.
func (sim *simulation) act(r *run, t int) {
	plat := &sim.plat
	snap := r.snap
	var rec *Slot
	if sim.opt.Trace {
		r.trace = append(r.trace, Slot{States: append([]availability.State(nil), sim.states...), Act: make([]Action, len(sim.states))})
		rec = &r.trace[len(r.trace)-1]
		rec.Launch = r.launched
		for q := range rec.Act {
			rec.Act[q] = NotEnrolled
		}
		if r.cur.X != nil {
			rec.X = append([]int(nil), r.cur.X...)
			for _, q := range r.cur.Order {
				rec.Act[q] = Idle
			}
		}
	}
	r.launched = false
	if r.cur.X == nil {
		return
	}
	// communication phase?
	comm := false
	for _, q := range r.cur.Order {
		if snap.Prog[q] < plat.TProg || snap.Data[q] < r.cur.X[q]*plat.TData {
			comm = true
			break
		}
	}
	if comm {
		ch := plat.NCom
		for _, q := range r.cur.Order {
			if ch == 0 {
				break
			}
			if sim.states[q] != availability.Up {
				continue
			}
			switch {
			case snap.Prog[q] < plat.TProg:
				snap.Prog[q]++
				if rec != nil {
					rec.Act[q] = RecvProg
				}
			case snap.Data[q] < r.cur.X[q]*plat.TData:
				snap.Data[q]++
				if rec != nil {
					rec.Act[q] = RecvData
				}
			default:
				continue
			}
			ch--
		}
		return
	}
	for _, q := range r.cur.Order {
		if sim.states[q] != availability.Up {
			return
		}
	}
	r.done++
	if rec != nil {
		for _, q := range r.cur.Order {
			rec.Act[q] = Compute
		}
	}
	if r.done < r.W {
		return
	}
	r.iters++
	if rec != nil {
		rec.Completed = true
	}
	if r.iters == sim.app.Iterations {
		for _, i := range r.members {
			sim.res[i].Makespan = t + 1
			sim.res[i].Iterations = r.iters
			sim.res[i].Trace = r.trace
		}
		return
	}
	clear(snap.Data) // every iteration needs new data
	r.cur, r.done, r.iterStart = coupled.Config{}, 0, t+1
}
