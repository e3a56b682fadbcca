package node

import (
	"cmp"
	"math"
	"slices"

	"github.com/volsched/volsched/overlay"
)

// Task states at an execution node.
const (
	etClaimed = iota // accepted through the overlay, not yet assigned by the submission node
	etWaiting        // assigned: waiting for its program or input, or for a slot
	etRunning        // its process runs
)

// execTask is one task in an execution node's real queue.
type execTask struct {
	bag      uint64
	sub      overlay.Addr // submitter's leaf (for the overlay's reports)
	subNode  string       // submitter's node address
	index    int          // task index in the bag (-1 while claimed)
	length   float64      // MFLOP
	deadline float64      // absolute (DP)
	seq      uint64       // acceptance order
	state    int
	claimed  float64 // when the overlay placed it here (node clock)
	start    float64 // when its process started
	expEnd   float64 // expected end (start + length/power, extended on overrun)
	lateAt   float64 // when, still running, it is taken for overrunning (expEnd + overrunGrace, then expEnd)
	input    string  // input digest ("" none)
	program  string  // program digest
	ready    bool    // program and input are present
	cancel   func()  // kills the running process
}

// realExec is the local scheduler of a daemon (overlay.Exec): a real
// queue of tasks whose processes the node runs, up to slots at a time.
// Its availability is computed from that queue:
//
//   - IBP: the number of free slots (one sampled function of v = free
//     slots, none when all are taken);
//   - MMP: the queue end Q = now + (remaining work)/slots, with the
//     running tasks' remaining time taken from their expected end;
//   - DP, and any other registered policy: its executor (Policy.NewExec)
//     holding the running tasks' remaining work and the waiting tasks
//     (for DP the l function of an EDF queue).
//
// Except for IBP the accounting of the policy's own executor (the
// simulator's, Policy.NewExec: MMPExec, DPExec, ...) is used: tasks are
// admitted by the model's Accept, and as long as the node's tasks end when
// expected the model is the simulator's executor step for step (which
// makes placements comparable with oversim's). When reality departs from
// it — a task ends, earlier or later than expected, or a claimed task is
// not assigned after all — the model is rebuilt from the real queue.
type realExec struct {
	policy           overlay.Policy
	opts             overlay.Options // the policy's, with their defaults
	mem, disk, power float64         // MB, MB, MFLOPS per slot
	slots            int
	model            overlay.Exec // all but IBP
	infeasible       bool         // the rebuilt queue is not the model's (DP: a deadline missed)
	tasks            []*execTask
	seq              uint64
	done             []overlay.Request
	// subNode is the submitter node of the request being stepped (set by
	// the node before it steps its leaf with a request).
	subNode  string
	accepted []*execTask // tasks admitted by the last Accept
	nowFn    func() float64
}

// newRealExec is the real queue of a node with the policy of o (its
// options with their defaults).
func newRealExec(o overlay.Options, mem, disk, power float64, slots int) *realExec {
	e := &realExec{policy: o.Policy, opts: o, mem: mem, disk: disk, power: power, slots: slots}
	e.model = e.freshModel()
	return e
}

// freshModel is the policy's executor, idle, with the node's power times
// its slots.
func (e *realExec) freshModel() overlay.Exec {
	return e.policy.NewExec(overlay.Hardware{Mem: e.mem, Disk: e.disk, Power: e.power * float64(e.slots)}, e.opts)
}

func (e *realExec) Summary(now float64) overlay.Summary {
	switch {
	case e.policy == overlay.PolicyIBP:
		free := e.slots - len(e.tasks)
		if free <= 0 {
			return nil
		}
		s := (&overlay.IBPExec{Mem: e.mem, Disk: e.disk}).Summary(now).(overlay.IBPSummary)
		s[0].V = int32(free)
		return s
	case e.infeasible && e.policy == overlay.PolicyDP:
		s := e.policy.NewExec(overlay.Hardware{Mem: e.mem, Disk: e.disk, Power: e.power}, e.opts).Summary(now).(overlay.DPSummary)
		s[0].L = overlay.LFunc{}
		return s
	case e.infeasible:
		return nil
	}
	return e.model.Summary(now)
}

func (e *realExec) Accept(now float64, app overlay.App, n int, sub overlay.Addr) int {
	var k int
	switch {
	case e.policy == overlay.PolicyIBP:
		if n >= 1 && e.mem >= app.Mem && e.disk >= app.Disk {
			k = min(n, e.slots-len(e.tasks))
		}
	case e.infeasible:
		return 0
	default:
		k = e.model.Accept(now, app, n, sub)
	}
	e.accepted = e.accepted[:0]
	for i := 0; i < k; i++ {
		e.seq++
		t := &execTask{bag: app.ID, sub: sub, subNode: e.subNode, index: -1, length: app.Length,
			deadline: app.Deadline, seq: e.seq, state: etClaimed, claimed: now}
		e.tasks = append(e.tasks, t)
		e.accepted = append(e.accepted, t)
	}
	return k
}

// overrunGrace is how long past its expected end a running task may
// still be ending on time: the task's end reaches the node's loop after
// its process exits, its output is read and its directory removed, and
// on a loaded machine after the goroutines doing that were scheduled —
// milliseconds to tens of milliseconds after the model's end. A tenth of
// the task's length, at least 50 ms. Without it every task overran: the
// node's summary moved at the expected end and moved back at the real end
// a few milliseconds later, two updates per task travelling up the tree
// that the simulator (whose tasks end exactly when expected) never sends.
func overrunGrace(length, power float64) float64 { return max(0.1*length/power, 0.05) }

// started records that t's process started at now.
func (e *realExec) started(now float64, t *execTask) {
	t.state = etRunning
	t.start = now
	t.expEnd = now + t.length/e.power
	t.lateAt = t.expEnd + overrunGrace(t.length, e.power)
}

// Advance reports the tasks whose processes ended since the last call
// (the node records them with finished). The model's own clock only
// drops its bookkeeping of past tasks.
func (e *realExec) Advance(now float64, done []overlay.Request) []overlay.Request {
	if m, ok := e.model.(*overlay.MMPExec); ok {
		m.Advance(now, nil)
	}
	// Overrun: a running task past its expected end by more than the
	// grace gets a new estimate, and the model is rebuilt with it (its
	// queue end moves); then again at each new expected end.
	over := false
	for _, t := range e.tasks {
		if t.state == etRunning && now >= t.lateAt {
			t.expEnd = now + max(0.25*t.length/e.power, 0.05)
			t.lateAt = t.expEnd
			over = true
		}
	}
	if over {
		e.rebuild(now)
	}
	done = append(done, e.done...)
	e.done = e.done[:0]
	return done
}

// Wake is the earliest time a running task would be taken for
// overrunning: the leaf is stepped then, to notice it.
func (e *realExec) Wake() float64 {
	w := math.Inf(1)
	for _, t := range e.tasks {
		if t.state == etRunning {
			w = min(w, t.lateAt)
		}
	}
	return w
}

// finished removes a task whose process ended and rebuilds the model.
func (e *realExec) finished(now float64, t *execTask) {
	e.remove(t)
	e.done = append(e.done, overlay.Request{App: overlay.App{ID: t.bag}, Submitter: t.sub, Src: overlay.NoAddr, N: 1})
	e.rebuild(now)
}

// drop removes tasks that will not run here (a claim answered with fewer
// tasks, a claim that timed out) and rebuilds the model.
func (e *realExec) drop(now float64, ts []*execTask) {
	if len(ts) == 0 {
		return
	}
	for _, t := range ts {
		e.remove(t)
	}
	e.rebuild(now)
}

func (e *realExec) remove(t *execTask) {
	if i := slices.Index(e.tasks, t); i >= 0 {
		e.tasks = slices.Delete(e.tasks, i, i+1)
	}
}

// rebuild makes the model hold the real queue at time now.
func (e *realExec) rebuild(now float64) {
	switch e.policy {
	case overlay.PolicyIBP:
		// The summary is the free slots: no model.
	case overlay.PolicyMMP:
		m := e.model.(*overlay.MMPExec)
		w := 0.0
		for _, t := range e.tasks {
			if t.state == etRunning {
				w += max(t.expEnd-now, 0)
			} else {
				w += t.length / e.power
			}
		}
		if w == 0 && m.Q <= now {
			// Idle, and the model's queue end is already past: it says
			// what now would (a past queue end counts as now: AF takes
			// max(Q, now)), and it is the simulator's (whose queue end
			// does not move when a task ends on time). Kept, so that a
			// task ending a little late sends no update.
			break
		}
		m.Q = now + w/float64(e.slots)
	default:
		// A fresh executor given the running work, then the waiting
		// tasks in the queue's order (EDF for a policy that schedules by
		// deadline, DP's; acceptance otherwise).
		m := e.freshModel()
		e.infeasible = false
		run := 0.0
		for _, t := range e.tasks {
			if t.state == etRunning {
				run += max(t.expEnd-now, 0) * e.power
			}
		}
		if run > 0 {
			// The running work, non-preemptible: first, whatever its
			// deadline (the model never reorders a running task, and
			// reads no deadline of it). A finite far deadline: the
			// model's admission divides l(δ) by the length.
			m.Accept(now, overlay.App{Length: run, Deadline: now + 1e9}, 1, overlay.NoAddr)
		}
		var wait []*execTask
		for _, t := range e.tasks {
			if t.state != etRunning {
				wait = append(wait, t)
			}
		}
		slices.SortStableFunc(wait, e.order)
		for _, t := range wait {
			if m.Accept(now, overlay.App{ID: t.bag, Length: t.length, Deadline: t.deadline}, 1, t.sub) != 1 {
				e.infeasible = true
			}
		}
		e.model = m
	}
}

// order is the queue's order: by deadline for a policy that schedules by
// deadline (DP: EDF), then by acceptance (FCFS).
func (e *realExec) order(a, b *execTask) int {
	if e.policy.Deadlines() {
		if c := cmp.Compare(a.deadline, b.deadline); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.seq, b.seq)
}

// next returns the task to start when a slot is free (nil if none is
// ready): the first ready task in the queue's order (order).
func (e *realExec) next() *execTask {
	running := 0
	var best *execTask
	for _, t := range e.tasks {
		switch {
		case t.state == etRunning:
			running++
		case t.state == etWaiting && t.ready:
			if best == nil || e.order(t, best) < 0 {
				best = t
			}
		}
	}
	if running >= e.slots {
		return nil
	}
	return best
}

// counts returns the tasks claimed, waiting and running.
func (e *realExec) counts() (claimed, waiting, running int) {
	for _, t := range e.tasks {
		switch t.state {
		case etClaimed:
			claimed++
		case etWaiting:
			waiting++
		case etRunning:
			running++
		}
	}
	return
}
