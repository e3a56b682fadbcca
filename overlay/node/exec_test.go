package node

import (
	"math"
	"testing"

	"github.com/volsched/volsched/overlay"
)

// execLeaf is a leaf (vertex 1, father 0) over an MMP realExec of power
// 1000 MFLOPS and one slot, its first summary sent at time 0.
func execLeaf(t *testing.T) (*overlay.Config, *overlay.Leaf, *realExec) {
	t.Helper()
	rules, err := overlay.NewRules(overlay.DefaultOptions(overlay.PolicyMMP))
	if err != nil {
		t.Fatal(err)
	}
	e := newRealExec(rules.Options(), 1024, 10240, 1000, 1)
	l, err := overlay.NewLeaf(1, 0, e)
	if err != nil {
		t.Fatal(err)
	}
	c := &overlay.Config{Rules: rules}
	if out := l.Step(c, 0, overlay.Msg{Kind: overlay.KindTick, To: 1}, nil); updates(out) != 1 {
		t.Fatalf("first tick: %d updates, want 1", updates(out))
	}
	return c, &l, e
}

func updates(out []overlay.Msg) int {
	k := 0
	for _, m := range out {
		if m.Kind == overlay.KindUpdate {
			k++
		}
	}
	return k
}

// place requests n tasks of 100 MI (0.1 s here) at time now and starts
// the first; it returns the accepted tasks.
func place(t *testing.T, c *overlay.Config, l *overlay.Leaf, e *realExec, now float64, n int) []*execTask {
	t.Helper()
	m := overlay.Msg{Kind: overlay.KindRequest, From: 0, To: 1,
		Req: overlay.Request{App: overlay.App{ID: 7, Length: 100, Deadline: math.Inf(1)}, Submitter: 1, Src: overlay.NoAddr, N: n}}
	e.subNode = "sub"
	out := l.Step(c, now, m, nil)
	if updates(out) != 1 || len(e.accepted) != n {
		t.Fatalf("request of %d: %d accepted, %d updates: want %d and 1", n, len(e.accepted), updates(out), n)
	}
	ts := append([]*execTask(nil), e.accepted...)
	for _, x := range ts {
		x.state, x.ready = etWaiting, true
	}
	e.started(now, e.next())
	return ts
}

// tick steps the leaf at now and returns how many updates it sent.
func tick(c *overlay.Config, l *overlay.Leaf, now float64) int {
	return updates(l.Step(c, now, overlay.Msg{Kind: overlay.KindTick, To: 1}, nil))
}

// A task that ends a little after its expected end (within the grace) is
// not taken for overrunning, and when it leaves the node idle its end
// changes nothing the overlay decides with: no update either way (before,
// two: one at the expected end, one at the real end).
func TestTaskEndingSlightlyLateSendsNoUpdate(t *testing.T) {
	c, l, e := execLeaf(t)
	ts := place(t, c, l, e, 0, 1)
	if w := e.Wake(); w != 0.1+overrunGrace(100, 1000) {
		t.Fatalf("wake %g: want the expected end 0.1 plus the grace %g", w, overrunGrace(100, 1000))
	}
	if k := tick(c, l, 0.12); k != 0 {
		t.Errorf("tick 20 ms after the expected end, task running: %d updates, want 0", k)
	}
	e.finished(0.13, ts[0])
	if k := tick(c, l, 0.13); k != 0 {
		t.Errorf("task ended 30 ms late, node idle: %d updates, want 0", k)
	}
	// The node is taken for free from now on, as with the queue end the
	// overlay holds: a new task queues from now.
	place(t, c, l, e, 0.2, 1)
	if q := e.model.(*overlay.MMPExec).Q; math.Abs(q-0.3) > 1e-9 {
		t.Errorf("queue end after a task placed at 0.2: %g, want 0.3", q)
	}
}

// A task still running past the grace overruns: the queue end moves later
// and the father is told.
func TestTaskOverrunningSendsUpdate(t *testing.T) {
	c, l, e := execLeaf(t)
	place(t, c, l, e, 0, 1)
	late := 0.1 + overrunGrace(100, 1000)
	if k := tick(c, l, late); k != 1 {
		t.Fatalf("tick at the end of the grace, task running: %d updates, want 1", k)
	}
	if q := e.model.(*overlay.MMPExec).Q; !(q > late) {
		t.Errorf("queue end %g after the overrun: want later than %g", q, late)
	}
}

// A task that ends early frees the node sooner: the father is told. A task
// ending late with others queued moves the queue end: told too.
func TestTaskEndingEarlyOrDelayingQueueSendsUpdate(t *testing.T) {
	c, l, e := execLeaf(t)
	ts := place(t, c, l, e, 0, 1)
	e.finished(0.05, ts[0])
	if k := tick(c, l, 0.05); k != 1 {
		t.Errorf("task ended 50 ms early: %d updates, want 1", k)
	}
	if q := e.model.(*overlay.MMPExec).Q; q != 0.05 {
		t.Errorf("queue end %g: want 0.05", q)
	}
	ts = place(t, c, l, e, 1, 2)
	e.finished(1.12, ts[0])
	if k := tick(c, l, 1.12); k != 1 {
		t.Errorf("first of two tasks ended 20 ms late: %d updates, want 1", k)
	}
	if q := e.model.(*overlay.MMPExec).Q; math.Abs(q-1.22) > 1e-9 {
		t.Errorf("queue end %g: want 1.22 (the second task's 0.1 s from now)", q)
	}
}
