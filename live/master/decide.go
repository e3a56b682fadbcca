package master

// This file and predict.go (the prediction's request and answer, made
// elsewhere) are the only ones of the live runtime that use package
// iterative: here the snapshot the heuristic decides on and the call of
// the decision function (the same one the slot simulator calls). When the
// iterative API changes, only these files change.

import (
	"errors"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
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

// errNoHeuristic is the error of a configuration without a heuristic.
var errNoHeuristic = errors.New("heuristic: none (the zero Heuristic), want one of the iterative model's (iterative.ParseHeuristic reads a name)")
