package slotsim

// The reference simulator: the slot-by-slot simulator and decision
// functions of commit f15770e, kept verbatim (renamed) as an oracle for the
// event-driven simulator (TestMatchesReference).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// refSnapshot is the snapshot of commit f15770e: the master's view
// (iterative.Snapshot, whose Tasks it does not use) with the open tasks'
// copies and the driver's plumbing beside it.
type refSnapshot struct {
	iterative.Snapshot
	// Copies has one entry per task of the iteration not yet completed: the
	// number of its copies already begun.
	Copies []int
	// When StopAfter > 0, Decide returns as soon as StopAfter distinct
	// processors with Watch[q] set have been picked.
	Watch     []bool
	StopAfter int
	// Queued, when not nil, is the number of tasks already queued on each
	// processor (Options.Sticky).
	Queued []int
}

// refTaskCopy is what the simulator keeps of a begun task copy beyond the
// master's view of it (ProcView.Cur / Next): which task and when its data
// transfer began.
type refTaskCopy struct {
	task  int
	start int // slot its data transfer began
}

// refProcState is the simulator's own part of a processor's state; the part
// the heuristics see (program, data and work left) lives in the snapshot's
// ProcView, which the simulator updates in place so that a decision needs
// no copy of the state.
type refProcState struct {
	xfer      int8 // the transfer it has begun and not finished (tNone, tProg, tCur, tNext)
	progStart int
	cur, next refTaskCopy
}

// refSimulator runs the model of §3 under one heuristic. It is not safe for
// concurrent use; use one per goroutine. Its memory is reused across runs.
type refSimulator struct {
	in   *iterative.Instance
	opt  iterative.Options
	crit []iterative.Criteria

	// Log, when not nil, receives the events of the next runs.
	Log *[]Event
	// Stats accumulates counters over runs (for profiling).
	Stats SimStats

	dec    refDecider
	picks  []iterative.Pick
	snap   refSnapshot
	procs  []refProcState
	views  []iterative.ProcView // = snap.Procs: the master's view, updated in place
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
	reps    []iterative.Pick
}

// newRefSimulator validates the instance and options and prepares a simulator.
func newRefSimulator(in *iterative.Instance, opt iterative.Options) (*refSimulator, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.MaxSlots == 0 {
		opt.MaxSlots = 1 << 26
	}
	s := &refSimulator{in: in, opt: opt}
	s.crit = make([]iterative.Criteria, len(in.Chains))
	for q, c := range in.Chains {
		s.crit[q] = iterative.NewCriteria(c)
	}
	p := len(in.Chains)
	s.procs = make([]refProcState, p)
	s.active = make([]int8, p)
	s.picked = make([]bool, p)
	s.watch = make([]bool, p)
	s.done = make([]bool, in.Tasks)
	s.copies = make([]int, in.Tasks)
	s.plan = make([]int, in.Tasks)
	s.planSeq = make([]int, in.Tasks)
	s.queued = make([]int, p)
	s.views = make([]iterative.ProcView, p)
	s.snap = refSnapshot{Snapshot: iterative.Snapshot{Procs: s.views, Crit: s.crit, TData: in.TData, NCom: in.NCom, ExtraReplicas: opt.ExtraReplicas}}
	return s, nil
}

func (s *refSimulator) log(t int, k EventKind, q, task int) {
	if s.Log != nil {
		*s.Log = append(*s.Log, Event{Slot: int32(t), Kind: k, Proc: int16(q), Task: int16(task)})
	}
}

// transferOf is the transfer processor q has begun and not finished.
func (s *refSimulator) transferOf(q int) int8 { return s.procs[q].xfer }

func (s *refSimulator) transferStart(q int, kind int8) int {
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
func (s *refSimulator) acceptor(q int) bool {
	if s.transferOf(q) != tNone {
		return false
	}
	v := &s.views[q]
	return v.ProgramLeft > 0 || !v.HasCur || !v.HasNext
}

func (s *refSimulator) dropCopy(q int, cur bool) {
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
func (s *refSimulator) Run(h iterative.Heuristic, real *Realization, rng *rand.Rand) (int, error) {
	if !h.Valid() {
		return 0, fmt.Errorf("no heuristic")
	}
	if h.IsRandom() && rng == nil {
		return 0, fmt.Errorf("heuristic %v needs a random stream", h)
	}
	in := s.in
	p := len(in.Chains)
	for q := range s.procs {
		s.procs[q] = refProcState{}
		s.views[q] = iterative.ProcView{W: in.W[q], ProgramLeft: in.TProg}
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
		if s.opt.Order == iterative.DecideThenObserve && t > 0 {
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
				if ps.xfer != tNone || v.HasCur || v.ProgramLeft != in.TProg {
					v.ProgramLeft, ps.xfer = in.TProg, tNone
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
		if len(s.cand) > in.NCom {
			if s.opt.Channels == iterative.ChannelFIFO {
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
			s.cand = s.cand[:in.NCom]
		}
		free := in.NCom - len(s.cand)
		for _, q := range s.cand {
			if st[q] == availability.Up {
				s.active[q] = s.procs[q].xfer
			}
		}
		// The heuristic decides where the unstarted tasks (and replicas) go;
		// its decision only matters if some processor can begin a transfer.
		if s.opt.Sticky {
			s.decideSticky(h, t, st, view, rng, remaining, &free)
		} else if (free > 0 || in.TData == 0) && acceptors > 0 {
			s.decide(h, t, st, view, rng, remaining, acceptors, &free)
		}
		// Computation (a copy whose data was complete at the start of the
		// slot progresses on an UP processor holding the program), then the
		// transfers holding a channel. With T_data = 0 a copy begun in this
		// slot computes at once: every processor is visited; otherwise only
		// those found computing before the decision and those with a
		// transfer.
		s.compl = s.compl[:0]
		if in.TData == 0 {
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
				v.HasCur, v.HasNext, v.Cur, v.Next = false, false, iterative.Work{}, iterative.Work{}
				if x := s.procs[q].xfer; x == tCur || x == tNext {
					s.procs[q].xfer = tNone
				}
			}
		}
	}
}

// compute runs one slot of the copy processor q computes, if it computes.
func (s *refSimulator) compute(t, q int, st []availability.State) {
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
func (s *refSimulator) progress(t, q int) {
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
func (s *refSimulator) begin(t, q, task int, free *int) bool {
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
	if in.TData > 0 && *free == 0 {
		return false
	}
	c := refTaskCopy{task: task, start: t}
	w := iterative.Work{DataLeft: in.TData, WorkLeft: in.W[q]}
	kind := int8(tCur)
	if !v.HasCur {
		v.HasCur, v.Cur, ps.cur = true, w, c
	} else {
		v.HasNext, v.Next, ps.next = true, w, c
		kind = tNext
	}
	if in.TData > 0 {
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
func (s *refSimulator) decideSticky(h iterative.Heuristic, t int, st, view []availability.State, rng *rand.Rand, remaining int, free *int) {
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
		s.begin(t, q, s.open[pk.Task], free)
	}
}

// decide runs the heuristic when its decision can have an effect (the
// acceptors, s.watch, were found by Run) and begins the transfers it asks
// for as channels allow.
func (s *refSimulator) decide(h iterative.Heuristic, t int, st, view []availability.State, rng *rand.Rand, remaining, acceptors int, free *int) {
	in := s.in
	// Only the first picks of acceptors can begin transfers: with FIFO
	// channels the decision can stop once min(free, acceptors) of them are
	// picked (with TData = 0 data needs no channel: no early stop).
	s.snap.Watch, s.snap.StopAfter = s.watch, 0
	if in.TData > 0 && in.TProg > 0 {
		if s.opt.Channels == iterative.ChannelFIFO {
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
	if s.opt.Channels == iterative.ChannelIndex {
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

// refDecider holds the scratch memory of Decide; its zero value is ready. It
// keeps nothing between calls: a decision depends only on its arguments.
type refDecider struct {
	nq      []int
	keys    []float64
	copies  []int
	eligibl []bool
	delay   []int
	weights []float64
	rank    []int
	acc     []int
}

// Decide runs heuristic h on the snapshot and returns its decisions in the
// order it made them, appended to out[:0]: first the m − m' unstarted tasks
// in task order, each on the UP processor h prefers (§6.2, §6.3), then, when
// more processors are UP than tasks remain (§6.1), replicas on UP processors
// that have nothing to do (no begun copy, nothing assigned in this round),
// first a second copy of every task in task order, then a third, ….
// Random heuristics draw from rng; the greedy ones break ties by the lowest
// processor index.
func (d *refDecider) Decide(h iterative.Heuristic, s *refSnapshot, rng *rand.Rand, out []iterative.Pick) []iterative.Pick {
	out = out[:0]
	p := len(s.Procs)
	d.nq = resize(d.nq, p)
	d.keys = resizeF(d.keys, p)
	d.delay = resize(d.delay, p)
	d.eligibl = resizeB(d.eligibl, p)
	d.copies = append(d.copies[:0], s.Copies...)
	up := 0
	queued := 0
	random := h.IsRandom()
	if random {
		d.weights = resizeF(d.weights, p)
	}
	for q := range s.Procs {
		v := &s.Procs[q]
		d.nq[q] = 0
		if s.Queued != nil && s.Queued[q] > 0 {
			d.nq[q] = s.Queued[q]
			queued++
		}
		e := v.State == availability.Up
		d.eligibl[q] = e
		if random { // the random heuristics need weights, not delays
			if e {
				up++
				d.weights[q] = h.Weight(&s.Crit[q], s.Procs[q].W)
			}
			continue
		}
		d.delay[q] = iterative.Delay(v)
		if e {
			up++
		}
	}
	if up == 0 {
		return out
	}
	if s.StopAfter > 0 && s.Watch != nil {
		switch {
		case h.IsRandom():
			return d.decideRandomWatched(s, rng, out, up)
		case !h.Contention() && (s.ExtraReplicas <= 0 || up <= len(s.Copies)):
			return d.decideByRank(h, s, out)
		}
	}
	nActive, watched := queued, 0
	factor := 1
	star := h.Contention()
	if star {
		factor = ceilDiv(nActive, s.NCom)
	}
	for q := range s.Procs {
		if d.eligibl[q] && !h.IsRandom() {
			d.keys[q] = d.key(h, s, q, factor)
		}
	}
	assign := func(task int, replica bool) bool {
		var q int
		if h.IsRandom() {
			q = d.pickRandom(h, s, rng)
		} else {
			q = d.pickMin()
		}
		if q < 0 {
			return false
		}
		out = append(out, iterative.Pick{Task: task, Proc: q, Replica: replica})
		d.copies[task]++
		if d.nq[q] == 0 {
			nActive++
			if s.StopAfter > 0 && s.Watch[q] {
				watched++
			}
		}
		d.nq[q]++
		if h.IsRandom() {
			return true
		}
		if star {
			if f := ceilDiv(nActive, s.NCom); f != factor {
				factor = f
				for r := range s.Procs {
					if d.eligibl[r] {
						d.keys[r] = d.key(h, s, r, factor)
					}
				}
				return true
			}
		}
		d.keys[q] = d.key(h, s, q, factor)
		return true
	}
	done := func() bool { return s.StopAfter > 0 && watched >= s.StopAfter }
	for task, c := range s.Copies {
		if c == 0 && (!assign(task, false) || done()) {
			return out
		}
	}
	if s.ExtraReplicas <= 0 || up <= len(s.Copies) {
		return out
	}
	// Replicas: only processors with nothing to do.
	n := 0
	for q := range s.Procs {
		d.eligibl[q] = d.eligibl[q] && d.nq[q] == 0 && s.Procs[q].Idle()
		if d.eligibl[q] {
			n++
		}
	}
	for level := 1; level <= s.ExtraReplicas && n > 0; level++ {
		for task := range d.copies {
			if n == 0 {
				break
			}
			if d.copies[task] != level {
				continue
			}
			before := len(out)
			if !assign(task, true) {
				return out
			}
			d.eligibl[out[before].Proc] = false
			n--
			if done() {
				return out
			}
		}
	}
	return out
}

// key is the quantity the greedy heuristic minimizes for processor q given
// its n_q tasks already assigned in this round: CT (MCT), E(CT) (EMCT),
// CT·(−ln P+) (LW maximizes P+^CT), −ln P_UD(E(CT)) (UD).
func (d *refDecider) key(h iterative.Heuristic, s *refSnapshot, q, factor int) float64 {
	return d.keyN(h, s, q, d.nq[q]+1, factor)
}

// keyN is the key of processor q for its n-th task of the round.
func (d *refDecider) keyN(h iterative.Heuristic, s *refSnapshot, q, n, factor int) float64 {
	ct := float64(iterative.CompletionTime(d.delay[q], s.TData, s.Procs[q].W, n, factor))
	return h.Key(&s.Snapshot, q, ct) // the keys are iterative's
}

func (d *refDecider) pickMin() int {
	best := -1
	for q, ok := range d.eligibl {
		if ok && (best < 0 || d.keys[q] < d.keys[best]) {
			best = q
		}
	}
	return best
}

func (d *refDecider) pickRandom(h iterative.Heuristic, s *refSnapshot, rng *rand.Rand) int {
	sum := 0.0
	last, n := -1, 0
	for q, ok := range d.eligibl {
		if ok {
			sum += d.weights[q]
			last = q
			n++
		}
	}
	if n == 0 {
		return -1
	}
	if sum <= 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		// Degenerate weights: uniform.
		k := rng.IntN(n)
		for q, ok := range d.eligibl {
			if ok {
				if k == 0 {
					return q
				}
				k--
			}
		}
	}
	x := rng.Float64() * sum
	for q, ok := range d.eligibl {
		if ok {
			x -= d.weights[q]
			if x < 0 {
				return q
			}
		}
	}
	return last
}

// decideByRank computes, for a greedy heuristic without the contention
// factor and with no replica to place, the same picks of the watched
// processors as the greedy loop, without running it. Each processor's keys
// for its 1st, 2nd, … task of the round do not decrease, so the greedy
// (repeatedly the smallest key, ties to the lowest index) visits the pairs
// (key, processor) in sorted order: a processor a with nothing assigned is
// first picked at rank = the number of pairs of other processors that sort
// before (K_a(1), a), and only if that rank is below the number of tasks.
// Counting costs at most (tasks + processors) key evaluations per watched
// processor instead of tasks × processors for the loop. The picks returned
// are those of the watched processors, in rank order, truncated to
// StopAfter: exactly the prefix of the full decision the driver uses.
func (d *refDecider) decideByRank(h iterative.Heuristic, s *refSnapshot, out []iterative.Pick) []iterative.Pick {
	k := 0
	for _, c := range s.Copies {
		if c == 0 {
			k++
		}
	}
	d.rank = resize(d.rank, len(s.Procs))
	d.acc = d.acc[:0]
	for a := range s.Procs {
		if !d.eligibl[a] || !s.Watch[a] {
			continue
		}
		ka := d.keyN(h, s, a, 1, 1)
		rank := 0
		for q := range s.Procs {
			if q == a || !d.eligibl[q] {
				continue
			}
			for n := 1; rank < k; n++ {
				kq := d.keyN(h, s, q, n, 1)
				if kq < ka || (kq == ka && q < a) {
					rank++
				} else {
					break
				}
			}
			if rank >= k {
				break
			}
		}
		if rank < k {
			d.rank[a] = rank
			d.acc = append(d.acc, a)
		}
	}
	// Sort the picked watched processors by rank (insertion sort: few).
	for i := 1; i < len(d.acc); i++ {
		for j := i; j > 0 && d.rank[d.acc[j]] < d.rank[d.acc[j-1]]; j-- {
			d.acc[j], d.acc[j-1] = d.acc[j-1], d.acc[j]
		}
	}
	if len(d.acc) > s.StopAfter {
		d.acc = d.acc[:s.StopAfter]
	}
	for _, a := range d.acc {
		// The rank-th pick takes the rank-th unstarted task.
		r := d.rank[a]
		for task, c := range s.Copies {
			if c == 0 {
				if r == 0 {
					out = append(out, iterative.Pick{Task: task, Proc: a})
					break
				}
				r--
			}
		}
	}
	return out
}

// decideRandomWatched samples, for a random heuristic, the part of the
// decision the driver uses with the distribution of the full decision,
// without drawing the picks nobody uses. In the full decision every
// unstarted task, in task order, independently goes to an UP processor q
// with probability π_q = weight_q / Σ weights; the driver uses each watched
// processor's first pick only, up to StopAfter of them; the replica phase
// (§6.1) needs to know only which idle processors got a task. So only the
// first picks of the tracked processors T (watched, or idle: no begun copy)
// are drawn: the number of tasks before the next first pick of a tracked
// processor not yet picked (set A) is geometric with success probability
// π_A, and that processor is a ∈ A with probability π_a / π_A. Each first
// pick costs two draws instead of one draw per task. The picks returned
// are the watched processors' first picks in task order, then their
// replicas as in the full loop (the replicas of other idle processors are
// drawn, not returned). The result is equal in distribution to the full
// loop, not draw for draw (TestRandomWatchedMatchesLoop).
func (d *refDecider) decideRandomWatched(s *refSnapshot, rng *rand.Rand, out []iterative.Pick, up int) []iterative.Pick {
	sum, n := 0.0, 0
	for q, ok := range d.eligibl {
		if ok {
			sum += d.weights[q]
			n++
		}
	}
	if sum <= 0 || math.IsNaN(sum) || math.IsInf(sum, 0) { // degenerate: uniform
		for q, ok := range d.eligibl {
			if ok {
				d.weights[q] = 1
			}
		}
		sum = float64(n)
	}
	replicas := s.ExtraReplicas > 0 && up > len(s.Copies)
	// d.acc: the tracked eligible processors not yet picked.
	d.acc = d.acc[:0]
	for q, ok := range d.eligibl {
		if ok && (s.Watch[q] || (replicas && s.Procs[q].Idle())) {
			d.acc = append(d.acc, q)
		}
	}
	watched := 0
	task := -1 // index in s.Copies of the last task considered
	for len(d.acc) > 0 {
		wA := 0.0
		for _, q := range d.acc {
			wA += d.weights[q]
		}
		pA := wA / sum
		if !(pA > 0) {
			break
		}
		// Failures before the next success: ⌊ln U / ln(1 − π_A)⌋, U ∈ (0, 1].
		skip := 0
		if pA < 1 {
			g := math.Log(1-rng.Float64()) / math.Log1p(-pA)
			if g >= float64(len(s.Copies)) {
				break
			}
			skip = int(g)
		}
		for ; skip >= 0 && task < len(s.Copies); skip-- {
			task++
			for task < len(s.Copies) && s.Copies[task] != 0 {
				task++
			}
		}
		if task >= len(s.Copies) {
			break
		}
		x := rng.Float64() * wA
		i := 0
		for ; i < len(d.acc)-1; i++ {
			x -= d.weights[d.acc[i]]
			if x < 0 {
				break
			}
		}
		q := d.acc[i]
		d.acc = append(d.acc[:i], d.acc[i+1:]...)
		d.nq[q] = 1
		if s.Watch[q] {
			out = append(out, iterative.Pick{Task: task, Proc: q})
			if watched++; watched >= s.StopAfter {
				return out
			}
		}
	}
	if !replicas {
		return out
	}
	// Every unstarted task now has one copy; replicas go to the idle UP
	// processors that got no task, as in the full loop.
	for i, c := range s.Copies {
		if c == 0 {
			d.copies[i] = 1
		}
	}
	n = 0
	for q := range s.Procs {
		d.eligibl[q] = d.eligibl[q] && d.nq[q] == 0 && s.Procs[q].Idle()
		if d.eligibl[q] {
			n++
		}
	}
	for level := 1; level <= s.ExtraReplicas && n > 0; level++ {
		for task := range d.copies {
			if n == 0 {
				break
			}
			if d.copies[task] != level {
				continue
			}
			q := d.pickRandom(iterative.Random, s, rng)
			if q < 0 {
				return out
			}
			d.copies[task]++
			d.eligibl[q] = false
			n--
			if s.Watch[q] {
				out = append(out, iterative.Pick{Task: task, Proc: q, Replica: true})
				if watched++; watched >= s.StopAfter {
					return out
				}
			}
		}
	}
	return out
}

func resizeB(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}

func resize(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
