package overlay

import (
	"testing"
)

// net is a minimal synchronous driver, the pattern part 2's event-driven
// simulator follows: messages are delivered in FIFO order at one instant.
type net struct {
	t       *Tree
	c       *Config
	routers []Router
	leaves  []Leaf // indexed by vertex; only leaves used
	now     float64
	// results
	returned, done int
	acked          int // tasks acknowledged by execution nodes (KindAccepted)
	leafReturns    int
	badReturns     int // returns not addressed to the request's submitter
	steps          []stepRecord
}

type stepRecord struct {
	at       Addr
	in       Request
	f        Fork
	out      []Msg
	fromLeaf bool
}

func newNet(t *Tree, c *Config, execs []Exec) *net {
	n := &net{t: t, c: c, routers: make([]Router, t.Vertices()), leaves: make([]Leaf, t.Vertices())}
	for v := 0; v < t.Vertices(); v++ {
		if !t.IsLeaf(Addr(v)) {
			n.routers[v] = t.Router(Addr(v))
		}
	}
	var q []Msg
	for i, e := range execs {
		v := t.Leaf(i)
		l, err := t.NewLeaf(i, e)
		if err != nil {
			panic(err)
		}
		n.leaves[v] = l
		q = append(q, Msg{Kind: KindTick, To: v})
	}
	n.run(q)
	return n
}

func (n *net) run(q []Msg) {
	for len(q) > 0 {
		m := q[0]
		q = q[1:]
		if m.Kind == KindReturn {
			n.returned += m.Req.N
			if n.t.IsLeaf(m.From) {
				n.leafReturns += m.Req.N
			}
			if m.To != m.Req.Submitter {
				n.badReturns++
			}
			continue
		}
		if m.Kind == KindDone {
			n.done += m.Req.N
			continue
		}
		if m.Kind == KindAccepted {
			n.acked += m.Req.N
			if m.To != m.Req.Submitter || !n.t.IsLeaf(m.From) {
				n.badReturns++
			}
			continue
		}
		var out []Msg
		if n.t.IsLeaf(m.To) {
			out = n.leaves[m.To].Step(n.c, n.now, m, nil)
		} else {
			r := &n.routers[m.To]
			f := r.Fork
			out = r.Step(n.c, n.now, m, nil)
			if m.Kind == KindRequest {
				n.steps = append(n.steps, stepRecord{at: m.To, in: m.Req, f: f, out: out})
			}
		}
		q = append(q, out...)
	}
}

func TestDriverIBPSmall(t *testing.T) {
	tr := NewTree(4)
	p, _ := newIBP(4)
	execs := []Exec{
		&IBPExec{Mem: 100, Disk: 100, Power: 1},
		&IBPExec{Mem: 200, Disk: 200, Power: 1},
		&IBPExec{Mem: 300, Disk: 300, Power: 1},
		&IBPExec{Mem: 400, Disk: 400, Power: 1},
	}
	n := newNet(tr, &Config{Rules: p}, execs)
	if got := n.routers[0].Summary().Nodes(); got != 4 {
		t.Fatalf("root covers %d nodes, want 4", got)
	}
	// 3 tasks needing 150 MB from leaf 0: nodes 1, 2, 3 qualify.
	n.run([]Msg{NewRequest(tr, tr.Leaf(0), App{ID: 1, Length: 10, Mem: 150, Disk: 150}, 3)})
	if n.returned != 0 {
		t.Fatalf("%d tasks returned, want 0", n.returned)
	}
	for i, e := range execs {
		busy := e.(*IBPExec).busy
		if busy != (i > 0) {
			t.Errorf("node %d busy=%v", i, busy)
		}
	}
	// One more: nobody idle fits, returned by the root.
	n.run([]Msg{NewRequest(tr, tr.Leaf(3), App{ID: 2, Length: 10, Mem: 150, Disk: 150}, 1)})
	if n.returned != 1 {
		t.Fatalf("%d tasks returned, want 1", n.returned)
	}
	// Finish tasks: all three done after time 10.
	n.now = 10
	var q []Msg
	for i := range execs {
		q = append(q, Msg{Kind: KindTick, To: tr.Leaf(i)})
	}
	n.run(q)
	if n.done != 3 || n.routers[0].Summary().Nodes() != 4 {
		t.Fatalf("done %d (want 3), root covers %d (want 4)", n.done, n.routers[0].Summary().Nodes())
	}
}
