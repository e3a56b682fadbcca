package iterative

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/volsched/volsched/availability"
)

// EventKind is the type of an Event of a simulation's log.
type EventKind uint8

// The events a simulation logs, per slot.
const (
	EvProgram  EventKind = iota // one slot of program received by Proc
	EvBegin                     // a copy of Task begun on Proc (its data transfer starts this slot)
	EvData                      // one slot of Task's data received by Proc
	EvCompute                   // one UP slot of computation of Task on Proc
	EvDone                      // Task completed on Proc; its result reached the master
	EvCancel                    // the copy of Task on Proc cancelled (another copy completed)
	EvIterDone                  // the iteration completed at the end of this slot
)

// Event is one entry of a simulation's log.
type Event struct {
	Slot int32
	Kind EventKind
	Proc int16
	Task int16
}

// taskCopy is what the simulator keeps of a begun task copy beyond the
// master's view of it (ProcView.Cur / Next): which task and when its data
// transfer began.
type taskCopy struct {
	task  int
	start int // slot its data transfer began
}

// procState is the simulator's own part of a processor's state; the part
// the heuristics see (program, data and work left) lives in the snapshot's
// ProcView, which the simulator updates in place so that a decision needs
// no copy of the state.
type procState struct {
	xfer      int8 // the transfer it has begun and not finished (tNone, tProg, tCur, tNext)
	progStart int
	cur, next taskCopy
}

// transfer kinds
const (
	tNone = iota
	tProg
	tCur
	tNext
)

// Simulator runs the model of §3 under one heuristic. It is not safe for
// concurrent use; use one per goroutine. Its memory is reused across runs.
type Simulator struct {
	in   *Instance
	opt  Options
	crit []Criteria

	// Log, when not nil, receives the events of the next runs.
	Log *[]Event
	// Stats accumulates counters over runs (for profiling).
	Stats SimStats

	dec    Decider
	picks  []Pick
	snap   Snapshot
	procs  []procState
	views  []ProcView // = snap.Procs: the master's view, updated in place
	done   []bool
	copies []int
	open   []int // uncompleted tasks, in task order (snapshot index → task)
	cand   []int
	comp   []int // processors computing in this slot (found before the decision)

	// open and snap.Copies are rebuilt from done and copies only when one
	// of them changed (tasksDirty); unstarted and replicable summarize them.
	tasksDirty bool
	unstarted  int
	replicable bool

	begun  []int  // processors that began a transfer in this slot
	active []int8 // transfer kind progressing this slot, per processor
	picked []bool
	watch  []bool
	order  []int
	compl  []int

	// Options.Sticky: the processor each unstarted task is queued on (−1:
	// none) and the order in which it was queued.
	plan    []int
	planSeq []int
	seq     int
	queued  []int
	reps    []Pick
}

// NewSimulator validates the instance and options and prepares a simulator.
func NewSimulator(in *Instance, opt Options) (*Simulator, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.MaxSlots == 0 {
		opt.MaxSlots = 1 << 26
	}
	s := &Simulator{in: in, opt: opt}
	s.crit = make([]Criteria, len(in.Chains))
	for q, c := range in.Chains {
		s.crit[q] = NewCriteria(c)
	}
	p := len(in.Chains)
	s.procs = make([]procState, p)
	s.active = make([]int8, p)
	s.picked = make([]bool, p)
	s.watch = make([]bool, p)
	s.done = make([]bool, in.Tasks)
	s.copies = make([]int, in.Tasks)
	s.plan = make([]int, in.Tasks)
	s.planSeq = make([]int, in.Tasks)
	s.queued = make([]int, p)
	s.views = make([]ProcView, p)
	s.snap = Snapshot{Procs: s.views, Crit: s.crit, Tdata: in.Tdata, Ncom: in.Ncom, ExtraReplicas: opt.ExtraReplicas}
	return s, nil
}

// SimStats counts what simulations did.
type SimStats struct {
	Slots     int64 // slots simulated
	Decisions int64 // calls of the heuristic
	Picks     int64 // assignments the heuristic returned
}

// ErrTooLong is returned when a simulation exceeds Options.MaxSlots.
var ErrTooLong = errors.New("simulation exceeded the maximum number of slots")

func (s *Simulator) log(t int, k EventKind, q, task int) {
	if s.Log != nil {
		*s.Log = append(*s.Log, Event{Slot: int32(t), Kind: k, Proc: int16(q), Task: int16(task)})
	}
}

// transferOf is the transfer processor q has begun and not finished.
func (s *Simulator) transferOf(q int) int8 { return s.procs[q].xfer }

func (s *Simulator) transferStart(q int, kind int8) int {
	ps := &s.procs[q]
	switch kind {
	case tProg:
		return ps.progStart
	case tCur:
		return ps.cur.start
	}
	return ps.next.start
}

// acceptor reports whether processor q (UP) could begin a new transfer:
// the program if it lacks it, or the data of a task if it holds the program
// and either has no task or computes one and has none ahead.
func (s *Simulator) acceptor(q int) bool {
	if s.transferOf(q) != tNone {
		return false
	}
	v := &s.views[q]
	return v.ProgramLeft > 0 || !v.HasCur || !v.HasNext
}

func (s *Simulator) dropCopy(q int, cur bool) {
	ps, v := &s.procs[q], &s.views[q]
	var t int
	if cur {
		t = ps.cur.task
		ps.cur, v.Cur, v.HasCur = ps.next, v.Next, v.HasNext
		switch ps.xfer {
		case tCur:
			ps.xfer = tNone
		case tNext:
			ps.xfer = tCur
		}
	} else {
		t = ps.next.task
		if ps.xfer == tNext {
			ps.xfer = tNone
		}
	}
	v.HasNext, v.Next = false, Work{}
	if !v.HasCur {
		v.Cur = Work{}
	}
	s.copies[t]--
	s.tasksDirty = true
}

// Run simulates the instance under heuristic h on the availability
// realization real until all iterations are done and returns the makespan
// in slots. Random heuristics draw from rng (it may be nil for the greedy
// ones).
//
// A slot: the processors going DOWN lose their program and copies; the
// begun transfers of processors that can progress compete for the n_com
// channels; the heuristic decides (only when a processor can begin a
// transfer and a channel is free); every UP processor holding the program
// and a copy whose data is complete computes one slot of it; the transfers
// holding a channel progress one slot; completed copies return their
// results and the other copies of their tasks are cancelled.
func (s *Simulator) Run(h Heuristic, real *Realization, rng *rand.Rand) (int, error) {
	if h >= numHeuristics {
		return 0, fmt.Errorf("heuristic %d unknown", h)
	}
	if h.IsRandom() && rng == nil {
		return 0, fmt.Errorf("heuristic %v needs a random stream", h)
	}
	in := s.in
	p := len(in.Chains)
	for q := range s.procs {
		s.procs[q] = procState{}
		s.views[q] = ProcView{W: in.W[q], ProgramLeft: in.Tprog}
	}
	for i := range s.done {
		s.done[i], s.copies[i], s.plan[i] = false, 0, -1
	}
	s.seq, s.tasksDirty = 0, true
	remaining := in.Tasks
	iter := 0
	hold := s.opt.HoldWhileReclaimed
	for t := 0; ; t++ {
		if t >= s.opt.MaxSlots {
			return 0, fmt.Errorf("%v after %d slots (%d/%d iterations): %w", h, t, iter, in.Iterations, ErrTooLong)
		}
		s.Stats.Slots++
		st := real.At(t)
		view := st
		if s.opt.Order == DecideThenObserve && t > 0 {
			view = real.At(t - 1)
			st = real.At(t)
		}
		// DOWN loses the program, all data and partial work; the begun
		// transfers of processors that can progress compete for channels;
		// the UP processors able to begin a transfer are the acceptors.
		s.cand, s.comp, s.begun = s.cand[:0], s.comp[:0], s.begun[:0]
		acceptors := 0
		for q := 0; q < p; q++ {
			v, ps := &s.views[q], &s.procs[q]
			a := st[q]
			v.State = view[q]
			s.active[q] = tNone
			if a == availability.Up && v.HasCur && v.Cur.DataLeft == 0 && v.ProgramLeft == 0 {
				s.comp = append(s.comp, q)
			}
			switch {
			case a == availability.Down:
				s.watch[q] = false
				if ps.xfer != tNone || v.HasCur || v.ProgramLeft != in.Tprog {
					v.ProgramLeft, ps.xfer = in.Tprog, tNone
					for v.HasCur {
						s.dropCopy(q, true)
					}
				}
			case ps.xfer != tNone:
				s.watch[q] = false
				if a == availability.Up || hold {
					s.cand = append(s.cand, q)
				}
			default:
				w := a == availability.Up && (v.ProgramLeft > 0 || !v.HasCur || !v.HasNext)
				s.watch[q] = w
				if w {
					acceptors++
				}
			}
		}
		if len(s.cand) > in.Ncom {
			if s.opt.Channels == ChannelFIFO {
				// By the slot the transfer began, ties by processor index
				// (cand is in index order: a stable insertion sort).
				for i := 1; i < len(s.cand); i++ {
					for j := i; j > 0; j-- {
						a, b := s.cand[j-1], s.cand[j]
						if s.transferStart(b, s.procs[b].xfer) >= s.transferStart(a, s.procs[a].xfer) {
							break
						}
						s.cand[j-1], s.cand[j] = b, a
					}
				}
			}
			s.cand = s.cand[:in.Ncom]
		}
		free := in.Ncom - len(s.cand)
		for _, q := range s.cand {
			if st[q] == availability.Up {
				s.active[q] = s.procs[q].xfer
			}
		}
		// The heuristic decides where the unstarted tasks (and replicas) go;
		// its decision only matters if some processor can begin a transfer.
		if s.opt.Sticky {
			s.decideSticky(h, t, st, view, rng, remaining, &free)
		} else if (free > 0 || in.Tdata == 0) && acceptors > 0 {
			s.decide(h, t, st, view, rng, remaining, acceptors, &free)
		}
		// Computation (a copy whose data was complete at the start of the
		// slot progresses on an UP processor holding the program), then the
		// transfers holding a channel. With T_data = 0 a copy begun in this
		// slot computes at once: every processor is visited; otherwise only
		// those found computing before the decision and those with a
		// transfer.
		s.compl = s.compl[:0]
		if in.Tdata == 0 {
			for q := 0; q < p; q++ {
				s.compute(t, q, st)
				s.progress(t, q)
			}
		} else {
			for _, q := range s.comp {
				s.compute(t, q, st)
			}
			for _, q := range s.cand {
				s.progress(t, q)
			}
			for _, q := range s.begun {
				s.progress(t, q)
			}
		}
		// Completions: results reach the master; other copies are cancelled.
		for _, q := range s.compl {
			v := &s.views[q]
			if !v.HasCur || v.Cur.WorkLeft > 0 {
				continue // cancelled by a copy completing in the same slot
			}
			task := s.procs[q].cur.task
			s.done[task] = true
			s.tasksDirty = true
			remaining--
			s.log(t, EvDone, q, task)
			s.dropCopy(q, true)
			if s.copies[task] == 0 {
				continue
			}
			for r := 0; r < p; r++ {
				rv, rs := &s.views[r], &s.procs[r]
				if rv.HasNext && rs.next.task == task {
					s.log(t, EvCancel, r, task)
					s.dropCopy(r, false)
				}
				if rv.HasCur && rs.cur.task == task {
					s.log(t, EvCancel, r, task)
					s.dropCopy(r, true)
				}
			}
		}
		if remaining == 0 {
			s.log(t, EvIterDone, -1, -1)
			iter++
			if iter == in.Iterations {
				return t + 1, nil
			}
			remaining, s.tasksDirty = in.Tasks, true
			for i := range s.done {
				s.done[i], s.copies[i], s.plan[i] = false, 0, -1
			}
			for q := range s.views {
				v := &s.views[q]
				v.HasCur, v.HasNext, v.Cur, v.Next = false, false, Work{}, Work{}
				if x := s.procs[q].xfer; x == tCur || x == tNext {
					s.procs[q].xfer = tNone
				}
			}
		}
	}
}

// compute runs one slot of the copy processor q computes, if it computes.
func (s *Simulator) compute(t, q int, st []availability.State) {
	v := &s.views[q]
	if st[q] == availability.Up && v.HasCur && v.Cur.DataLeft == 0 && v.ProgramLeft == 0 {
		v.Cur.WorkLeft--
		s.log(t, EvCompute, q, s.procs[q].cur.task)
		if v.Cur.WorkLeft <= 0 {
			s.compl = append(s.compl, q)
		}
	}
}

// progress runs one slot of the transfer processor q has a channel for in
// this slot, if any.
func (s *Simulator) progress(t, q int) {
	v, ps := &s.views[q], &s.procs[q]
	switch s.active[q] {
	case tProg:
		v.ProgramLeft--
		s.log(t, EvProgram, q, -1)
		if v.ProgramLeft <= 0 {
			ps.xfer = tNone
		}
	case tCur:
		v.Cur.DataLeft--
		s.log(t, EvData, q, ps.cur.task)
		if v.Cur.DataLeft <= 0 {
			ps.xfer = tNone
		}
	case tNext:
		v.Next.DataLeft--
		s.log(t, EvData, q, ps.next.task)
		if v.Next.DataLeft <= 0 {
			ps.xfer = tNone
		}
	}
}

// begin starts on processor q (UP, able to accept) the program if it
// lacks it, else the data of task; it reports false when no channel is
// free.
func (s *Simulator) begin(t, q, task int, free *int) bool {
	in := s.in
	ps, v := &s.procs[q], &s.views[q]
	if v.ProgramLeft > 0 {
		if *free == 0 {
			return false
		}
		*free--
		ps.xfer, ps.progStart = tProg, t
		s.active[q] = tProg
		s.begun = append(s.begun, q)
		return true
	}
	if in.Tdata > 0 && *free == 0 {
		return false
	}
	c := taskCopy{task: task, start: t}
	w := Work{DataLeft: in.Tdata, WorkLeft: in.W[q]}
	kind := int8(tCur)
	if !v.HasCur {
		v.HasCur, v.Cur, ps.cur = true, w, c
	} else {
		v.HasNext, v.Next, ps.next = true, w, c
		kind = tNext
	}
	if in.Tdata > 0 {
		s.active[q], ps.xfer = kind, kind
		s.begun = append(s.begun, q)
		*free--
	}
	s.copies[task]++
	s.tasksDirty = true
	s.log(t, EvBegin, q, task)
	return true
}

// decideSticky is the decision step under Options.Sticky: queued tasks stay
// on their processor (until it goes DOWN); the heuristic places only the
// unstarted tasks queued nowhere (and replicas, as in the default mode);
// each processor that can begin a transfer begins its earliest queued task.
func (s *Simulator) decideSticky(h Heuristic, t int, st, view []availability.State, rng *rand.Rand, remaining int, free *int) {
	in := s.in
	p := len(in.Chains)
	for q := 0; q < p; q++ {
		s.queued[q], s.picked[q] = 0, false
	}
	s.tasksDirty = true // open and snap.Copies are rebuilt here with queued copies
	s.open = s.open[:0]
	s.snap.Copies = s.snap.Copies[:0]
	unplanned, replicable := 0, false
	for task, d := range s.done {
		if q := s.plan[task]; q >= 0 && (d || s.copies[task] > 0 || st[q] == availability.Down) {
			s.plan[task] = -1
		}
		if d {
			continue
		}
		s.open = append(s.open, task)
		c := s.copies[task]
		if c == 0 && s.plan[task] >= 0 {
			c = 1 // a queued copy
			s.queued[s.plan[task]]++
		}
		s.snap.Copies = append(s.snap.Copies, c)
		if c == 0 {
			unplanned++
		} else if c <= s.opt.ExtraReplicas {
			replicable = true
		}
	}
	if replicable {
		up := 0
		for q := 0; q < p; q++ {
			if view[q] == availability.Up {
				up++
			}
		}
		replicable = up > remaining
	}
	s.reps = s.reps[:0]
	if unplanned > 0 || replicable {
		s.snap.Queued, s.snap.StopAfter = s.queued, 0
		s.picks = s.dec.Decide(h, &s.snap, rng, s.picks)
		s.snap.Queued = nil
		s.Stats.Decisions++
		s.Stats.Picks += int64(len(s.picks))
		for _, pk := range s.picks {
			if pk.Replica {
				s.reps = append(s.reps, pk)
				continue
			}
			task := s.open[pk.Task]
			s.plan[task], s.planSeq[task] = pk.Proc, s.seq
			s.seq++
		}
	}
	// Acceptors begin their earliest queued task, in the channel rule's
	// order (FIFO: by queueing order), then replicas.
	s.order = s.order[:0]
	for task, q := range s.plan {
		if q < 0 || st[q] != availability.Up || s.active[q] != tNone || !s.acceptor(q) {
			continue
		}
		if s.picked[q] {
			// keep the earliest queued task of q
			for i, o := range s.order {
				if s.plan[o] == q && s.planSeq[task] < s.planSeq[o] {
					s.order[i] = task
				}
			}
			continue
		}
		s.picked[q] = true
		s.order = append(s.order, task)
	}
	if s.opt.Channels == ChannelIndex {
		sort.Slice(s.order, func(i, j int) bool { return s.plan[s.order[i]] < s.plan[s.order[j]] })
	} else {
		sort.Slice(s.order, func(i, j int) bool { return s.planSeq[s.order[i]] < s.planSeq[s.order[j]] })
	}
	for _, task := range s.order {
		q := s.plan[task]
		if s.active[q] != tNone {
			continue
		}
		s.begin(t, q, task, free)
	}
	for _, pk := range s.reps {
		q := pk.Proc
		if s.picked[q] || st[q] != availability.Up || s.active[q] != tNone || !s.acceptor(q) {
			continue
		}
		s.picked[q] = true
		s.begin(t, q, s.open[pk.Task], free)
	}
}

// decide runs the heuristic when its decision can have an effect (the
// acceptors, s.watch, were found by Run) and begins the transfers it asks
// for as channels allow.
func (s *Simulator) decide(h Heuristic, t int, st, view []availability.State, rng *rand.Rand, remaining, acceptors int, free *int) {
	in := s.in
	// Only the first picks of acceptors can begin transfers: with FIFO
	// channels the decision can stop once min(free, acceptors) of them are
	// picked (with Tdata = 0 data needs no channel: no early stop).
	s.snap.Watch, s.snap.StopAfter = s.watch, 0
	if in.Tdata > 0 && in.Tprog > 0 {
		if s.opt.Channels == ChannelFIFO {
			s.snap.StopAfter = min(*free, acceptors)
		} else {
			s.snap.StopAfter = acceptors
		}
	}
	if s.tasksDirty {
		s.tasksDirty = false
		s.open = s.open[:0]
		s.snap.Copies = s.snap.Copies[:0]
		s.unstarted, s.replicable = 0, false
		for task, d := range s.done {
			if d {
				continue
			}
			s.open = append(s.open, task)
			c := s.copies[task]
			s.snap.Copies = append(s.snap.Copies, c)
			if c == 0 {
				s.unstarted++
			} else if c <= s.opt.ExtraReplicas {
				s.replicable = true
			}
		}
	}
	unstarted, replicable := s.unstarted, s.replicable
	if unstarted == 0 {
		up := 0
		for _, a := range view {
			if a == availability.Up {
				up++
			}
		}
		if !replicable || up <= remaining {
			return
		}
	}
	s.picks = s.dec.Decide(h, &s.snap, rng, s.picks)
	s.Stats.Decisions++
	s.Stats.Picks += int64(len(s.picks))
	// Each processor's first pick is what it would begin now.
	s.order = s.order[:0]
	for i, pk := range s.picks {
		if !s.picked[pk.Proc] {
			s.picked[pk.Proc] = true
			s.order = append(s.order, i)
		}
	}
	if s.opt.Channels == ChannelIndex {
		sort.Slice(s.order, func(i, j int) bool { return s.picks[s.order[i]].Proc < s.picks[s.order[j]].Proc })
	}
	for _, i := range s.order {
		pk := s.picks[i]
		q := pk.Proc
		s.picked[q] = false
		if st[q] != availability.Up || s.active[q] != tNone || !s.acceptor(q) {
			continue
		}
		s.begin(t, q, s.open[pk.Task], free)
	}
}
