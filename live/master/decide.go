package master

// This file is the only one of the live runtime that uses package
// iterative: the snapshot the heuristic decides on, the call of the
// decision function (the same one the slot simulator calls), and the slot
// simulator for predictions. When the iterative API changes, only this
// file changes.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
)

// procView is the machine's view of a worker in the model's terms (slots).
type procView struct {
	state              availability.State
	w                  int
	programLeft        int
	hasCur, hasNext    bool
	curData, curWork   int
	nextData, nextWork int
}

// pick is one decision: open task index task goes to worker proc.
type pick struct {
	task, proc int
	replica    bool
}

// Heuristic is a heuristic of the iterative model: the master decides with
// it. Any registered one (iterative.Register) will do; its name is read
// once, where the master's configuration is read (iterative.ParseHeuristic
// or Heuristic.UnmarshalText), and the value is passed down.
type Heuristic = iterative.Heuristic

// DefaultHeuristic is the heuristic of Options that leave it unset: EMCT*.
var DefaultHeuristic = iterative.EMCTStar

// decider wraps iterative.Decider with the snapshot the machine fills.
type decider struct {
	h     iterative.Heuristic
	dec   iterative.Decider
	snap  iterative.Snapshot
	hints iterative.Hints
	rng   *rand.Rand
	picks []iterative.Pick
}

func newDecider(cfg Config) (*decider, error) {
	if !cfg.Heuristic.Valid() {
		return nil, errNoHeuristic
	}
	d := &decider{h: cfg.Heuristic, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6c697665))}
	d.snap.NCom = cfg.NCom
	d.snap.ExtraReplicas = cfg.ExtraReplicas
	return d, nil
}

func (d *decider) addProc(c availability.Chain) {
	d.snap.Procs = append(d.snap.Procs, iterative.ProcView{ID: int64(len(d.snap.Procs))})
	d.snap.Crit = append(d.snap.Crit, iterative.NewCriteria(c))
}

func (d *decider) setChain(q int, c availability.Chain) {
	d.snap.Crit[q] = iterative.NewCriteria(c)
}

// decide runs the heuristic on the views: copies has one entry per open
// task (its begun copies); watch marks the workers that can begin a
// transfer; the decision may stop after stopAfter of them are picked, as
// the slot simulator's does.
func (d *decider) decide(views []procView, copies []int, tdata int, watch []bool, stopAfter int, out []pick) []pick {
	for q, v := range views {
		d.snap.Procs[q] = iterative.ProcView{
			ID:    int64(q),
			State: v.state, W: v.w, ProgramLeft: v.programLeft,
			HasCur: v.hasCur, Cur: iterative.Work{DataLeft: v.curData, WorkLeft: v.curWork},
			HasNext: v.hasNext, Next: iterative.Work{DataLeft: v.nextData, WorkLeft: v.nextWork},
		}
	}
	d.snap.Tasks = d.snap.Tasks[:0]
	for i, c := range copies {
		d.snap.Tasks = append(d.snap.Tasks, iterative.OpenTask{ID: int64(i), Copies: c})
	}
	d.snap.TData = tdata
	d.hints = iterative.Hints{Want: watch, StopAfter: stopAfter}
	d.picks = d.dec.DecideWith(d.h, &d.snap, &d.hints, d.rng, d.picks)
	out = out[:0]
	for _, p := range d.picks {
		out = append(out, pick{task: p.Task, proc: p.Proc, replica: p.Replica})
	}
	return out
}

// PredictParams describe a prediction by the slot simulator.
type PredictParams struct {
	Chains        []availability.Chain
	W             []int
	TProg, TData  int
	NCom          int
	Tasks         int
	Iterations    int
	Heuristic     Heuristic
	ExtraReplicas int
	Runs          int
	Seed          uint64
	// Start, when not nil, is each processor's state at slot 0 (else drawn
	// from the chains' stationary distributions, or UP for PredictFrom's
	// allUp).
	Start []availability.State
}

// fromState is a processor's availability starting in a given state,
// then following its chain.
type fromState struct {
	chain availability.Chain
	cur   availability.State
	rng   *rand.Rand
}

func (f *fromState) State(t int) availability.State {
	if t > 0 {
		f.cur = f.chain.NextU(f.cur, f.rng.Float64())
	}
	return f.cur
}

// Predict runs the slot simulator Runs times (independent realizations of
// the chains, stationary initial states) and returns the mean and the
// standard deviation of the makespan in slots.
func Predict(p PredictParams) (mean, sd float64, err error) {
	return predict(p, iterative.StartStationary)
}

// predictUp is Predict with every processor UP at slot 0.
func predictUp(p PredictParams) (mean, sd float64, err error) {
	return predict(p, iterative.StartUp)
}

func predict(p PredictParams, init iterative.InitialState) (mean, sd float64, err error) {
	h := p.Heuristic
	if !h.Valid() {
		return 0, 0, errNoHeuristic
	}
	in := &iterative.Instance{Chains: p.Chains, W: p.W, TProg: p.TProg, TData: p.TData, NCom: p.NCom, Tasks: p.Tasks, Iterations: p.Iterations}
	opt := iterative.DefaultOptions()
	opt.ExtraReplicas = p.ExtraReplicas
	opt.MaxSlots = 1 << 22
	opt.Initial = init
	sim, err := slotsim.New(in, opt)
	if err != nil {
		return 0, 0, err
	}
	if p.Runs < 1 {
		return 0, 0, fmt.Errorf("runs = %d, want ≥ 1", p.Runs)
	}
	var sum, sum2 float64
	for r := 0; r < p.Runs; r++ {
		rng := rand.New(rand.NewPCG(p.Seed, uint64(r)))
		var src []slotsim.Source
		if p.Start != nil {
			if len(p.Start) != len(p.Chains) {
				return 0, 0, fmt.Errorf("%d initial states for %d processors", len(p.Start), len(p.Chains))
			}
			for q, c := range p.Chains {
				src = append(src, &fromState{chain: c, cur: p.Start[q], rng: rng})
			}
		} else {
			src = slotsim.Markov(p.Chains, opt.Initial, rng)
		}
		real := slotsim.NewRealization(src)
		ms, err := sim.Run(h, real, rand.New(rand.NewPCG(p.Seed, uint64(r)+1<<32)))
		if err != nil {
			return 0, 0, err
		}
		sum += float64(ms)
		sum2 += float64(ms) * float64(ms)
	}
	n := float64(p.Runs)
	mean = sum / n
	if p.Runs > 1 {
		sd = math.Sqrt(math.Max(0, (sum2-n*mean*mean)/(n-1)))
	}
	return mean, sd, nil
}

// errNoHeuristic is the error of a configuration without a heuristic.
var errNoHeuristic = errors.New("heuristic: none (the zero Heuristic), want one of the iterative model's (iterative.ParseHeuristic reads a name)")

// PredictFrom is Predict with every processor UP at slot 0 when allUp
// (emulated workers started UP), from the chains' stationary
// distribution otherwise.
func PredictFrom(p PredictParams, allUp bool) (mean, sd float64, err error) {
	if allUp {
		return predict(p, iterative.StartUp)
	}
	return predict(p, iterative.StartStationary)
}
