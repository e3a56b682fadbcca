// Package slotsim is the time-slot simulator of seed 001's model (§3): a
// Simulator runs one of the 17 heuristics of package iterative, calling the
// same Decider a live master calls, on an availability Realization shared by
// every heuristic of a trial (common random numbers); Check replays a
// simulation's event log against the rules of the model independently of
// the simulator's bookkeeping.
package slotsim

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
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
//
// It steps slot by slot but visits only what changes: the processors whose
// state changes in the slot (the realization lists them), those computing,
// those holding a channel, and those a decision or a completion touches.
// The sets it needs at the start of a slot (computing processors, the
// processors that can begin a transfer, the UP processors the heuristic
// sees, the transfers competing for channels) are kept up to date by
// refresh whenever something about a processor changes; the channel
// allocation is recomputed only when a transfer or its receiver's state
// changed. The schedule is the same as stepping every processor every slot
// (TestMatchesReference compares the event logs with the reference
// simulator of commit f15770e).
type Simulator struct {
	in   *iterative.Instance
	opt  iterative.Options
	crit []iterative.Criteria
	// base are the criteria of the instance's chains; crit differs from
	// them after a run on a believing realization (believed).
	base     []iterative.Criteria
	believed bool

	// Log, when not nil, receives the events of the next runs.
	Log *[]Event
	// Stats accumulates counters over runs (for profiling).
	Stats SimStats

	dec    iterative.Decider
	picks  []iterative.Pick
	snap   iterative.Snapshot
	procs  []procState
	views  []iterative.ProcView // = snap.Procs: the master's view, updated in place
	done   []bool
	copies []int

	// tasks (the snapshot's Tasks) lists the tasks of the iteration not
	// completed, in task order, with their copies; pos[task] is the task's
	// index in tasks (−1: completed). unstarted counts the open tasks
	// with no copy, repl those with 1..ExtraReplicas copies. All are kept
	// as copies begin, disappear and complete.
	pos       []int
	tasks     []iterative.OpenTask
	unstarted int
	repl      int
	// Options.Sticky rebuilds its own open tasks at every slot.
	sTasks []iterative.OpenTask
	// hints are the decision's performance aids (the UP processors, the
	// random heuristic's weights, the wanted prefix) and Sticky's queues.
	hints iterative.Hints

	// Sets kept up to date by refresh (and see), as of the start of the
	// slot: the processors UP in the master's view (a bit set; up lists them
	// in index order when upDirty is false), the processors computing, the
	// candidates for a channel (a begun transfer whose receiver is UP, or
	// RECLAIMED with HoldWhileReclaimed), the acceptors (UP, no transfer,
	// able to take the program or a task). comp and cands are in no order;
	// compAt and candAt give each member's position + 1 (0: absent).
	upBits    []uint64
	nUp       int
	up        []int
	upDirty   bool
	comp      []int
	compAt    []int
	cands     []int
	candAt    []int
	xferKind  []int8 // the transfer kind refresh last saw, per processor
	watch     []bool
	acceptors int
	// active is the kind of transfer each processor progresses in this slot
	// (tNone: none). While the candidates fit in the n_com channels refresh
	// keeps it (every candidate UP progresses); otherwise allocate applies
	// the channel rule, again whenever a transfer or its receiver changed
	// (chDirty).
	active    []int8
	chDirty   bool
	contended bool

	st      []availability.State // the states of the current slot
	cand    []int                // scratch of allocate
	xdone   []int                // transfers finished in this slot
	picked  []bool
	order   []int
	compl   []int
	weights []float64

	// Options.Sticky: the processor each unstarted task is queued on (−1:
	// none) and the order in which it was queued.
	plan    []int
	planSeq []int
	seq     int
	queued  []int
	reps    []iterative.Pick
}

// DefaultMaxSlots is the slot limit of a simulation when Options.MaxSlots
// is 0.
const DefaultMaxSlots = 1 << 26

// New validates the instance and options and prepares a simulator.
func New(in *iterative.Instance, opt iterative.Options) (*Simulator, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.MaxSlots == 0 {
		opt.MaxSlots = DefaultMaxSlots
	}
	s := &Simulator{in: in, opt: opt}
	s.crit = make([]iterative.Criteria, len(in.Chains))
	for q, c := range in.Chains {
		s.crit[q] = iterative.NewCriteria(c)
	}
	s.base = slices.Clone(s.crit)
	p := len(in.Chains)
	s.procs = make([]procState, p)
	s.active = make([]int8, p)
	s.picked = make([]bool, p)
	s.watch = make([]bool, p)
	s.compAt = make([]int, p)
	s.candAt = make([]int, p)
	s.upBits = make([]uint64, (p+63)/64)
	s.xferKind = make([]int8, p)
	s.done = make([]bool, in.Tasks)
	s.pos = make([]int, in.Tasks)
	s.copies = make([]int, in.Tasks)
	s.plan = make([]int, in.Tasks)
	s.planSeq = make([]int, in.Tasks)
	s.queued = make([]int, p)
	s.views = make([]iterative.ProcView, p)
	s.snap = iterative.Snapshot{Procs: s.views, Crit: s.crit, TData: in.TData, NCom: in.NCom, ExtraReplicas: opt.ExtraReplicas}
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
	v.HasNext, v.Next = false, iterative.Work{}
	if !v.HasCur {
		v.Cur = iterative.Work{}
	}
	s.setCopies(t, s.copies[t]-1)
}

// Run simulates the instance under heuristic h on the availability
// realization real until all iterations are done and returns the makespan
// in slots. Random heuristics draw from rng (it may be nil for the greedy
// ones). The heuristic believes the instance's chains, or, when real has a
// view (Realization.Believe), the chains the view has estimated from the
// slots before the current one.
//
// A slot: the processors going DOWN lose their program and copies; the
// begun transfers of processors that can progress compete for the n_com
// channels; the heuristic decides (only when a processor can begin a
// transfer and a channel is free); every UP processor holding the program
// and a copy whose data is complete computes one slot of it; the transfers
// holding a channel progress one slot; completed copies return their
// results and the other copies of their tasks are cancelled.
func (s *Simulator) Run(h iterative.Heuristic, real *Realization, rng *rand.Rand) (int, error) {
	if !h.Valid() {
		return 0, fmt.Errorf("no heuristic (the zero iterative.Heuristic), want a registered one")
	}
	if h.IsRandom() && rng == nil {
		return 0, fmt.Errorf("heuristic %v needs a random stream", h)
	}
	in := s.in
	p := len(in.Chains)
	if real.p != p {
		return 0, fmt.Errorf("realization of %d processors for an instance of %d", real.p, p)
	}
	s.reset()
	believing := real.view != nil
	if believing {
		copy(s.crit, real.crit0)
		s.believed = true
	} else if s.believed {
		copy(s.crit, s.base)
		s.believed = false
	}
	s.hints.Weights = nil
	if h.Kind() == iterative.KindRandom { // the heuristic's weights, computed once
		s.weights = resizeF(s.weights, p)
		for q := range s.weights {
			s.weights[q] = h.Weight(&s.crit[q], in.W[q])
		}
		s.hints.Weights = s.weights
	}
	remaining := in.Tasks
	iter := 0
	decideObserve := s.opt.Order == iterative.DecideThenObserve
	for t := 0; ; t++ {
		if t >= s.opt.MaxSlots {
			return 0, fmt.Errorf("%v after %d slots (%d/%d iterations): %w", h, t, iter, in.Iterations, ErrTooLong)
		}
		s.Stats.Slots++
		st := real.At(t)
		if believing && t > 0 {
			// The criteria re-estimated from the slots up to t − 1.
			for _, b := range real.beliefsAt(t) {
				s.crit[b.q] = b.crit
				if s.hints.Weights != nil {
					s.weights[b.q] = h.Weight(&b.crit, in.W[b.q])
				}
			}
		}
		view := st
		if decideObserve && t > 0 {
			view = real.At(t - 1)
		}
		s.st = st
		// The states of the slot: DOWN loses the program, all data and
		// partial work; the sets follow the processors that changed.
		if t == 0 {
			for q := 0; q < p; q++ {
				s.see(q, view[q])
				s.arrive(q)
			}
		} else {
			for _, q := range real.Changes(t) {
				s.arrive(int(q))
				if !decideObserve {
					s.see(int(q), view[q])
				}
			}
			if decideObserve && t > 1 {
				for _, q := range real.Changes(t - 1) {
					s.see(int(q), view[q])
				}
			}
		}
		// The begun transfers of processors that can progress compete for
		// the channels.
		if s.chDirty {
			s.allocate()
		}
		free := max(in.NCom-len(s.cands), 0)
		// The heuristic decides where the unstarted tasks (and replicas) go;
		// its decision only matters if some processor can begin a transfer.
		if s.opt.Sticky {
			s.decideSticky(h, t, st, rng, remaining, &free)
		} else if (free > 0 || in.TData == 0) && s.acceptors > 0 {
			s.decide(h, t, st, rng, remaining, s.acceptors, &free)
		}
		// Computation (a copy whose data was complete at the start of the
		// slot progresses on an UP processor holding the program), then the
		// transfers holding a channel. With T_data = 0 a copy begun in this
		// slot computes at once: every processor is visited; otherwise only
		// those found computing before the decision and the candidates for
		// a channel (the transfers begun in this slot included).
		s.compl, s.xdone = s.compl[:0], s.xdone[:0]
		if in.TData == 0 {
			for q := 0; q < p; q++ {
				s.compute(t, q, st)
				s.progress(t, q)
			}
		} else {
			for _, q := range s.comp {
				s.compute(t, q, st)
			}
			for _, q := range s.cands {
				s.progress(t, q)
			}
		}
		for _, q := range s.xdone {
			s.refresh(q)
		}
		// Completions, in processor order: results reach the master; other
		// copies are cancelled.
		if len(s.compl) > 1 {
			slices.Sort(s.compl)
		}
		for _, q := range s.compl {
			v := &s.views[q]
			if !v.HasCur || v.Cur.WorkLeft > 0 {
				continue // cancelled by a copy completing in the same slot
			}
			task := s.procs[q].cur.task
			s.complete(task)
			remaining--
			s.log(t, EvDone, q, task)
			s.dropCopy(q, true)
			s.refresh(q)
			if s.copies[task] == 0 {
				continue
			}
			for r := 0; r < p; r++ {
				rv, rs := &s.views[r], &s.procs[r]
				if rv.HasNext && rs.next.task == task {
					s.log(t, EvCancel, r, task)
					s.dropCopy(r, false)
					s.refresh(r)
				}
				if rv.HasCur && rs.cur.task == task {
					s.log(t, EvCancel, r, task)
					s.dropCopy(r, true)
					s.refresh(r)
				}
			}
		}
		if remaining == 0 {
			s.log(t, EvIterDone, -1, -1)
			iter++
			if iter == in.Iterations {
				return t + 1, nil
			}
			remaining = in.Tasks
			s.newIteration()
			for q := range s.views {
				v := &s.views[q]
				v.HasCur, v.HasNext, v.Cur, v.Next = false, false, iterative.Work{}, iterative.Work{}
				if x := s.procs[q].xfer; x == tCur || x == tNext {
					s.procs[q].xfer = tNone
				}
				s.refresh(q)
			}
		}
	}
}

// reset prepares a run: every processor without program or task, every
// set empty.
func (s *Simulator) reset() {
	in := s.in
	for q := range s.procs {
		s.procs[q] = procState{}
		s.views[q] = iterative.ProcView{ID: int64(q), W: in.W[q], ProgramLeft: in.TProg, State: availability.Down}
		s.active[q], s.xferKind[q] = tNone, tNone
		s.compAt[q], s.candAt[q], s.watch[q] = 0, 0, false
	}
	s.newIteration()
	for i := range s.upBits {
		s.upBits[i] = 0
	}
	s.nUp, s.upDirty = 0, true
	s.comp, s.cands = s.comp[:0], s.cands[:0]
	s.acceptors, s.chDirty, s.contended = 0, false, false
	s.seq = 0
}

// newIteration makes every task of the iteration open, with no copy.
func (s *Simulator) newIteration() {
	s.tasks = s.tasks[:0]
	for i := range s.done {
		s.done[i], s.copies[i], s.plan[i], s.pos[i] = false, 0, -1, i
		s.tasks = append(s.tasks, iterative.OpenTask{ID: int64(i)})
	}
	s.unstarted, s.repl = len(s.done), 0
	s.snap.Tasks = s.tasks
}

// setCopies sets the number of begun copies of task and keeps the open
// tasks' summary.
func (s *Simulator) setCopies(task, c int) {
	old := s.copies[task]
	s.copies[task] = c
	i := s.pos[task]
	if i < 0 {
		return
	}
	s.tasks[i].Copies = c
	s.count(old, -1)
	s.count(c, 1)
}

// count adds d to the counter of open tasks with c copies.
func (s *Simulator) count(c, d int) {
	if c == 0 {
		s.unstarted += d
	} else if c <= s.opt.ExtraReplicas {
		s.repl += d
	}
}

// complete marks task completed: it leaves the open list.
func (s *Simulator) complete(task int) {
	s.done[task] = true
	i := s.pos[task]
	s.count(s.tasks[i].Copies, -1)
	s.tasks = append(s.tasks[:i], s.tasks[i+1:]...)
	s.pos[task] = -1
	for j := i; j < len(s.tasks); j++ {
		s.pos[s.tasks[j].ID] = j
	}
	s.snap.Tasks = s.tasks
}

// arrive applies processor q's state of this slot, s.st[q]: DOWN loses the
// program, the copies and the transfer; the sets follow.
func (s *Simulator) arrive(q int) {
	v, ps := &s.views[q], &s.procs[q]
	if ps.xfer != tNone {
		s.chDirty = true // its transfer competes for a channel or no longer does
	}
	if s.st[q] == availability.Down && (ps.xfer != tNone || v.HasCur || v.ProgramLeft != s.in.TProg) {
		v.ProgramLeft, ps.xfer = s.in.TProg, tNone
		for v.HasCur {
			s.dropCopy(q, true)
		}
	}
	s.refresh(q)
}

// see applies processor q's state in the master's view: the UP processors
// the heuristic sees.
func (s *Simulator) see(q int, a availability.State) {
	v := &s.views[q]
	was := v.State == availability.Up
	v.State = a
	if now := a == availability.Up; now != was {
		s.upBits[q>>6] ^= 1 << (q & 63)
		s.upDirty = true
		if now {
			s.nUp++
		} else {
			s.nUp--
		}
	}
}

// eligible returns the processors UP in the master's view, in index order.
func (s *Simulator) eligible() []int {
	if s.upDirty {
		s.up = s.up[:0]
		for w, b := range s.upBits {
			for ; b != 0; b &= b - 1 {
				s.up = append(s.up, w<<6+bits.TrailingZeros64(b))
			}
		}
		s.upDirty = false
	}
	return s.up
}

// refresh recomputes what the sets say of processor q from its state and
// holdings: computing (UP, program, a copy with complete data), acceptor
// (UP, no transfer begun, able to take the program or a task), candidate
// for a channel, and the transfer it progresses if the candidates fit in
// the channels. A change of transfer or of candidacy calls for a new
// channel allocation.
func (s *Simulator) refresh(q int) {
	v, ps := &s.views[q], &s.procs[q]
	a := s.st[q]
	up := a == availability.Up
	if c := up && v.HasCur && v.Cur.DataLeft == 0 && v.ProgramLeft == 0; c != (s.compAt[q] > 0) {
		s.comp = setMember(s.comp, s.compAt, q, c)
	}
	if acc := up && ps.xfer == tNone && (v.ProgramLeft > 0 || !v.HasCur || !v.HasNext); acc != s.watch[q] {
		s.watch[q] = acc
		if acc {
			s.acceptors++
		} else {
			s.acceptors--
		}
	}
	c := ps.xfer != tNone && (up || (s.opt.HoldWhileReclaimed && a == availability.Reclaimed))
	if c != (s.candAt[q] > 0) {
		s.cands = setMember(s.cands, s.candAt, q, c)
		s.chDirty = true
	}
	if ps.xfer != s.xferKind[q] {
		s.xferKind[q] = ps.xfer
		s.chDirty = true
	}
	switch {
	case c && s.contended:
		s.chDirty = true // whether it holds a channel is allocate's to say
	case c && up:
		s.active[q] = ps.xfer
	default:
		s.active[q] = tNone
	}
}

// setMember adds q to (in true) or removes it from the unordered set list
// whose positions + 1 are in at, and returns the list.
func setMember(list, at []int, q int, in bool) []int {
	if in {
		list = append(list, q)
		at[q] = len(list)
		return list
	}
	i := at[q] - 1
	last := list[len(list)-1]
	list[i], at[last] = last, i+1
	at[q] = 0
	return list[:len(list)-1]
}

// allocate applies the channel rule when the candidates for a channel do
// not fit in the n_com channels: the rule's first n_com hold one (those UP
// progress), the others wait. When they fit (again), every candidate UP
// progresses.
func (s *Simulator) allocate() {
	s.chDirty = false
	if len(s.cands) <= s.in.NCom {
		if s.contended {
			s.contended = false
			for _, q := range s.cands {
				s.refresh(q)
			}
		}
		return
	}
	s.contended = true
	s.cand = append(s.cand[:0], s.cands...)
	slices.Sort(s.cand)
	if s.opt.Channels == iterative.ChannelFIFO {
		// By the slot the transfer began, ties by processor index (cand is
		// in index order: a stable insertion sort).
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
	for i, q := range s.cand {
		s.active[q] = tNone
		if i < s.in.NCom && s.st[q] == availability.Up {
			s.active[q] = s.procs[q].xfer
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
	left := &v.ProgramLeft
	task := -1
	switch s.active[q] {
	case tNone:
		return
	case tCur:
		left, task = &v.Cur.DataLeft, ps.cur.task
	case tNext:
		left, task = &v.Next.DataLeft, ps.next.task
	}
	*left--
	if task < 0 {
		s.log(t, EvProgram, q, -1)
	} else {
		s.log(t, EvData, q, task)
	}
	if *left <= 0 {
		ps.xfer = tNone
		s.active[q] = tNone
		s.xdone = append(s.xdone, q)
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
		s.refresh(q)
		return true
	}
	if in.TData > 0 && *free == 0 {
		return false
	}
	c := taskCopy{task: task, start: t}
	w := iterative.Work{DataLeft: in.TData, WorkLeft: in.W[q]}
	kind := int8(tCur)
	if !v.HasCur {
		v.HasCur, v.Cur, ps.cur = true, w, c
	} else {
		v.HasNext, v.Next, ps.next = true, w, c
		kind = tNext
	}
	if in.TData > 0 {
		ps.xfer = kind
		*free--
	}
	s.setCopies(task, s.copies[task]+1)
	s.log(t, EvBegin, q, task)
	s.refresh(q)
	return true
}

// decideSticky is the decision step under Options.Sticky: queued tasks stay
// on their processor (until it goes DOWN); the heuristic places only the
// unstarted tasks queued nowhere (and replicas, as in the default mode);
// each processor that can begin a transfer begins its earliest queued task.
func (s *Simulator) decideSticky(h iterative.Heuristic, t int, st []availability.State, rng *rand.Rand, remaining int, free *int) {
	in := s.in
	p := len(in.Chains)
	for q := 0; q < p; q++ {
		s.queued[q], s.picked[q] = 0, false
	}
	s.sTasks = s.sTasks[:0]
	unplanned, replicable := 0, false
	for task, d := range s.done {
		if q := s.plan[task]; q >= 0 && (d || s.copies[task] > 0 || st[q] == availability.Down) {
			s.plan[task] = -1
		}
		if d {
			continue
		}
		c := s.copies[task]
		if c == 0 && s.plan[task] >= 0 {
			c = 1 // a queued copy
			s.queued[s.plan[task]]++
		}
		s.sTasks = append(s.sTasks, iterative.OpenTask{ID: int64(task), Copies: c})
		if c == 0 {
			unplanned++
		} else if c <= s.opt.ExtraReplicas {
			replicable = true
		}
	}
	if replicable {
		replicable = s.nUp > remaining
	}
	s.reps = s.reps[:0]
	if unplanned > 0 || replicable {
		s.snap.Tasks = s.sTasks
		hints := iterative.Hints{Up: s.eligible(), Weights: s.hints.Weights, Queued: s.queued}
		s.picks = s.dec.DecideWith(h, &s.snap, &hints, rng, s.picks)
		s.snap.Tasks = s.tasks
		s.Stats.Decisions++
		s.Stats.Picks += int64(len(s.picks))
		for _, pk := range s.picks {
			if pk.Replica {
				s.reps = append(s.reps, pk)
				continue
			}
			task := int(s.sTasks[pk.Task].ID)
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
	if s.opt.Channels == iterative.ChannelIndex {
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
		s.begin(t, q, int(s.sTasks[pk.Task].ID), free)
	}
}

// decide runs the heuristic when its decision can have an effect (the
// acceptors, s.watch, were found by Run) and begins the transfers it asks
// for as channels allow.
func (s *Simulator) decide(h iterative.Heuristic, t int, st []availability.State, rng *rand.Rand, remaining, acceptors int, free *int) {
	in := s.in
	// Only the first picks of acceptors can begin transfers: with FIFO
	// channels the decision can stop once min(free, acceptors) of them are
	// picked (with TData = 0 data needs no channel: no early stop).
	s.hints.Want, s.hints.StopAfter = s.watch, 0
	if in.TData > 0 && in.TProg > 0 {
		if s.opt.Channels == iterative.ChannelFIFO {
			s.hints.StopAfter = min(*free, acceptors)
		} else {
			s.hints.StopAfter = acceptors
		}
	}
	if s.unstarted == 0 && (s.repl == 0 || s.nUp <= remaining) {
		return
	}
	s.hints.Up = s.eligible()
	s.picks = s.dec.DecideWith(h, &s.snap, &s.hints, rng, s.picks)
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
	if s.opt.Channels == iterative.ChannelIndex { // by processor (insertion sort: few)
		for i := 1; i < len(s.order); i++ {
			for j := i; j > 0 && s.picks[s.order[j]].Proc < s.picks[s.order[j-1]].Proc; j-- {
				s.order[j], s.order[j-1] = s.order[j-1], s.order[j]
			}
		}
	}
	for _, i := range s.order {
		pk := s.picks[i]
		q := pk.Proc
		s.picked[q] = false
		if st[q] != availability.Up || s.active[q] != tNone || !s.acceptor(q) {
			continue
		}
		s.begin(t, q, int(s.tasks[pk.Task].ID), free)
	}
}

func resizeF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
