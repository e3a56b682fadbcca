package iterative

import (
	"fmt"

	"github.com/volsched/volsched/availability"
)

// Work is a task copy a processor has begun: its data transfer has started.
type Work struct {
	DataLeft int // slots of data still to receive
	WorkLeft int // UP slots of computation still needed
}

// ProcView is what the master knows of one processor at decision time: its
// state as last heard (heart-beats), whether it holds the program, and the
// data and progress of the copies it has begun.
type ProcView struct {
	// ID is the driver's name for the processor (a live master's worker
	// id; the simulator uses the processor's index). Decisions do not read
	// it: a Pick names a processor by its index in Snapshot.Procs, and
	// Procs[pick.Proc].ID maps it back.
	ID          int64
	State       availability.State // UP, RECLAIMED or DOWN; only UP processors get tasks
	W           int                // w_q: UP slots to compute one task (≥ 1)
	ProgramLeft int                // slots of program still to receive (0: it holds the program)
	HasCur      bool               // a begun task copy (receiving its data or computing)
	Cur         Work
	HasNext     bool // a second begun copy, receiving its data while Cur computes
	Next        Work
}

// Idle reports whether the processor holds no begun task copy.
func (v *ProcView) Idle() bool { return !v.HasCur && !v.HasNext }

// Delay is Delay(q) of §6.3.1: the number of slots before the processor
// finishes its current activities (the program it still needs, the copies it
// has begun), assuming it stays UP and there is no contention.
func Delay(v *ProcView) int {
	if !v.HasCur {
		return v.ProgramLeft
	}
	end := v.Cur.DataLeft + v.Cur.WorkLeft
	if v.HasNext {
		end = max(end, v.Next.DataLeft) + v.Next.WorkLeft
	}
	return end
}

// CompletionTime is CT(P_q, n) of Eq. 1 with factor = 1 and of Eq. 2 with
// factor = ⌈n_active/n_com⌉: Delay + factor·T_data + max(n−1, 0)·max(factor·T_data, w) + w.
func CompletionTime(delay, tdata, w, n, factor int) int {
	td := factor * tdata
	return delay + td + max(n-1, 0)*max(td, w) + w
}

// OpenTask is a task of the current iteration that has not completed.
type OpenTask struct {
	// ID is the driver's name for the task (the simulator: its index in
	// the iteration). Decisions do not read it: a Pick names a task by its
	// index in Snapshot.Tasks.
	ID int64
	// Copies is the number of its copies begun and not lost (a copy is
	// begun when its data transfer starts; it is lost when its processor
	// goes DOWN). 0: the task is unstarted and the heuristic (re)assigns it.
	Copies int
}

// Snapshot is what a master knows when it decides (§3, §6): its processors,
// their availability chains' criteria, the platform's constants and the open
// tasks of the iteration. It is all a decision depends on (with the random
// stream of the random heuristics): a live master builds one from its
// workers' heart-beats and transfers, the simulator keeps one up to date in
// place.
type Snapshot struct {
	Procs []ProcView
	Crit  []Criteria // one per processor, in the order of Procs
	TData int        // T_data: slots to send one task's data
	NCom  int        // n_com: the master's simultaneous transfers (Eq. 2)
	// Tasks are the open tasks of the iteration, in the order the heuristic
	// considers them (§6.1: task order). Those with no copy are the m − m'
	// tasks the heuristic (re)assigns; the others may get replicas.
	Tasks []OpenTask
	// ExtraReplicas is the maximum number of additional copies of a task
	// (§6.1 uses 2; 0: no replication).
	ExtraReplicas int
}

// Validate checks a snapshot a driver built by hand (the simulator's are
// valid by construction; Decide does not check): one criteria per processor,
// a known state, w ≥ 1, progress ≥ 0, no copy before the program is held,
// no next copy without a current one, T_data ≥ 0, n_com ≥ 1, copies ≥ 0,
// extra replicas ≥ 0. Errors name the processor or task by index and ID.
func (s *Snapshot) Validate() error {
	if len(s.Crit) != len(s.Procs) {
		return fmt.Errorf("snapshot: %d criteria for %d processors, want one per processor", len(s.Crit), len(s.Procs))
	}
	for q := range s.Procs {
		v := &s.Procs[q]
		where := fmt.Sprintf("snapshot: processor %d (ID %d)", q, v.ID)
		switch {
		case v.State > availability.Down:
			return fmt.Errorf("%s: state %d, want UP, RECLAIMED or DOWN", where, v.State)
		case v.W < 1:
			return fmt.Errorf("%s: W = %d, want ≥ 1 (UP slots per task)", where, v.W)
		case v.ProgramLeft < 0:
			return fmt.Errorf("%s: ProgramLeft = %d, want ≥ 0", where, v.ProgramLeft)
		case v.HasNext && !v.HasCur:
			return fmt.Errorf("%s: a next copy without a current one", where)
		case v.HasCur && v.ProgramLeft > 0:
			return fmt.Errorf("%s: a begun copy while %d slots of program are still to receive, want the program first", where, v.ProgramLeft)
		}
		for _, w := range []struct {
			name string
			has  bool
			w    Work
		}{{"Cur", v.HasCur, v.Cur}, {"Next", v.HasNext, v.Next}} {
			if w.has && (w.w.DataLeft < 0 || w.w.WorkLeft < 0) {
				return fmt.Errorf("%s: %s = %+v, want DataLeft and WorkLeft ≥ 0", where, w.name, w.w)
			}
		}
	}
	switch {
	case s.TData < 0:
		return fmt.Errorf("snapshot: TData = %d, want ≥ 0", s.TData)
	case s.NCom < 1:
		return fmt.Errorf("snapshot: NCom = %d, want ≥ 1", s.NCom)
	case s.ExtraReplicas < 0:
		return fmt.Errorf("snapshot: ExtraReplicas = %d, want ≥ 0", s.ExtraReplicas)
	}
	for i, t := range s.Tasks {
		if t.Copies < 0 {
			return fmt.Errorf("snapshot: task %d (ID %d): %d copies, want ≥ 0", i, t.ID, t.Copies)
		}
	}
	return nil
}

// Pick is one decision: a copy of task Tasks[Task] goes to processor
// Procs[Proc] of the snapshot decided on (indices, not IDs: a driver maps
// them back with Procs[p.Proc].ID and Tasks[p.Task].ID); Replica says it is
// an additional copy of a task already begun or picked.
type Pick struct {
	Task    int
	Proc    int
	Replica bool
}

// Hints are what a driver that calls Decide very often (the simulator) can
// add to a snapshot: performance aids that do not change the decision, and
// one model variant. A live master needs none of them (Decide passes nil).
type Hints struct {
	// Up, when not nil, lists the processors whose State is UP in
	// increasing index order (a driver that maintains the list saves the
	// scan). DecideWith does not modify it.
	Up []int
	// Weights, when not nil, are the random heuristic's weights per
	// processor, Crit[q].Weight(h, Procs[q].W) precomputed by the driver.
	Weights []float64
	// Want and StopAfter ask for part of the decision only: when
	// StopAfter > 0, the driver will use only the first pick of each
	// processor q with Want[q], and only the first StopAfter such
	// processors in decision order. The result then contains exactly those
	// picks, in the order of the full decision, possibly with others; the
	// decision stops as soon as they are known. For the greedy heuristics
	// they are the full decision's. For the random heuristics they are
	// drawn by a cheaper sampler (two draws per wanted processor instead
	// of one per task) with the distribution of the full decision's, not
	// draw for draw: with the same stream, the picks differ from those of
	// Decide.
	Want      []bool
	StopAfter int
	// Queued, when not nil, is a model variant, not an aid: the number of
	// tasks the driver keeps queued on each processor from earlier
	// decisions (slotsim's Options.Sticky, not the paper's reading); they
	// count in n_q and n_active (Eq. 2) and exclude the processor from
	// replicas.
	Queued []int
}
