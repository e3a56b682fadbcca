package master

import (
	"os"
	"path/filepath"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/trace"
)

// ftaRecorder keeps each worker's availability as the master saw it, to
// write it in the Failure Trace Archive format (package trace): UP is
// available; RECLAIMED and DOWN are unavailable, told apart by the
// interval's event_end_reason, "reclaimed" or "down".
type ftaRecorder struct {
	start time.Time
	nodes map[string]*ftaNode
	order []string
}

type ftaNode struct {
	state availability.State
	since int64
	known bool
	ev    []trace.Event
}

func newFTARecorder(start time.Time) *ftaRecorder {
	return &ftaRecorder{start: start, nodes: map[string]*ftaNode{}}
}

func (f *ftaRecorder) ensure(name string) *ftaNode {
	n := f.nodes[name]
	if n == nil {
		n = &ftaNode{}
		f.nodes[name] = n
		f.order = append(f.order, name)
	}
	return n
}

func (f *ftaRecorder) record(m *Machine, r LogRecord) {
	var st availability.State
	switch r.Kind {
	case LogRegister:
		st = availability.Up
	case LogDown:
		st = availability.Down
	case LogState:
		s, err := availability.ParseState(r.Info)
		if err != nil {
			return
		}
		st = s
	default:
		return
	}
	n := f.ensure(m.workers[r.Worker].name)
	if n.known && n.state == st {
		return
	}
	f.close(n, r.T)
	n.state, n.since, n.known = st, r.T, true
}

func (f *ftaRecorder) close(n *ftaNode, t int64) {
	if !n.known || t <= n.since {
		return
	}
	base := float64(f.start.UnixNano()) / 1e9
	e := trace.Event{Available: n.state == availability.Up, Start: base + float64(n.since)/1e9, End: base + float64(t)/1e9}
	switch n.state {
	case availability.Reclaimed:
		e.EndReason = "reclaimed"
	case availability.Down:
		e.EndReason = "down"
	}
	// Merge with the previous interval when it is the same kind and touches.
	if k := len(n.ev); k > 0 && n.ev[k-1].Available == e.Available && n.ev[k-1].EndReason == e.EndReason && n.ev[k-1].End == e.Start {
		n.ev[k-1].End = e.End
		return
	}
	n.ev = append(n.ev, e)
}

// write writes the trace up to now (ns since start) to path, atomically.
func (f *ftaRecorder) write(path string, now int64) error {
	t := &trace.Trace{}
	for _, name := range f.order {
		n := f.nodes[name]
		evs := append([]trace.Event(nil), n.ev...)
		if n.known && now > n.since {
			cp := *n
			cp.ev = nil
			f.close(&cp, now)
			evs = append(evs, cp.ev...)
		}
		if len(evs) == 0 {
			continue
		}
		t.Nodes = append(t.Nodes, trace.Node{ID: name, Name: name, Events: evs})
	}
	if len(t.Nodes) == 0 {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fta-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := trace.WriteFTA(tmp, t, "volsched master: workers' availability as the master saw it (available = UP; end reason reclaimed/down for the others)"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
