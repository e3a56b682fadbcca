package master

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
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
	span  [][2]int64 // ns since the start: each interval of ev, start and end
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

// record takes a log record of worker name into the trace.
func (f *ftaRecorder) record(name string, r LogRecord) {
	if name == "" {
		return
	}
	var st availability.State
	switch r.Kind {
	case LogBackfill:
		// The current state began at r.Since, not when the master learnt it.
		n := f.ensure(name)
		if !n.known || r.Since >= n.since {
			return
		}
		// Shorten the interval before it when it touches (not beyond its
		// start, which removes it); an interval that does not touch (a
		// zero-length state between) is not overlapped.
		since := r.Since
		if k := len(n.span); k > 0 {
			if last := n.span[k-1]; last[1] == n.since {
				since = max(since, last[0])
				if since == last[0] {
					n.ev, n.span = n.ev[:k-1], n.span[:k-1]
				} else {
					n.ev[k-1].End, n.span[k-1][1] = f.at(since), since
				}
			} else {
				since = max(since, last[1])
			}
		}
		if since >= n.since {
			return
		}
		n.since = since
		return
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
	n := f.ensure(name)
	if n.known && n.state == st {
		return
	}
	t := r.T
	if n.known && t < n.since { // (a back-fill moved since past it)
		t = n.since
	}
	f.close(n, t)
	n.state, n.since, n.known = st, t, true
}

// replay takes into the trace what the earlier master processes of the
// state directory saw, from their event log: each process's records from
// its start record (which gives its start time) to its last one; between
// two processes the workers' availability is unknown (no interval). A log
// without start times (older) gives nothing.
func (f *ftaRecorder) replay(path string) error {
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	var names map[int]string // the segment's workers by index
	var offset, last int64   // the segment's start relative to f.start; its last record
	inSeg := false
	end := func() {
		if !inSeg {
			return
		}
		for _, n := range f.nodes {
			if n.known {
				f.close(n, offset+last)
				n.known = false
			}
		}
		inSeg = false
	}
	for sc.Scan() {
		var r LogRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		if r.Kind == LogStart {
			end()
			ns, err := strconv.ParseInt(r.Info, 10, 64)
			if err != nil {
				continue // no start time: skipped
			}
			names, offset, last, inSeg = map[int]string{}, ns-f.start.UnixNano(), r.T, true
			continue
		}
		if !inSeg {
			continue
		}
		last = r.T
		if r.Kind == LogRegister {
			names[r.Worker] = r.Name
		}
		r.T += offset
		if r.Since != 0 {
			r.Since += offset
		}
		f.record(names[r.Worker], r)
	}
	end()
	return sc.Err()
}

// at is the FTA time (Unix seconds) of t ns since the start.
func (f *ftaRecorder) at(t int64) float64 {
	return float64(f.start.UnixNano())/1e9 + float64(t)/1e9
}

func (f *ftaRecorder) close(n *ftaNode, t int64) {
	if !n.known || t <= n.since {
		return
	}
	e := trace.Event{Available: n.state == availability.Up, Start: f.at(n.since), End: f.at(t)}
	switch n.state {
	case availability.Reclaimed:
		e.EndReason = "reclaimed"
	case availability.Down:
		e.EndReason = "down"
	}
	// Merge with the previous interval when it is the same kind and touches.
	if k := len(n.ev); k > 0 && n.ev[k-1].Available == e.Available && n.ev[k-1].EndReason == e.EndReason && n.span[k-1][1] == n.since {
		n.ev[k-1].End, n.span[k-1][1] = e.End, t
		return
	}
	n.ev = append(n.ev, e)
	n.span = append(n.span, [2]int64{n.since, t})
}

// write writes the trace up to now (ns since start) to path, atomically.
func (f *ftaRecorder) write(path string, now int64) error {
	return writeFTAFile(path, f.snapshot(now))
}

// snapshot is the trace as seen at now, nil if it has no event: copies
// only, so that it can be written by another goroutine while the loop
// records more.
func (f *ftaRecorder) snapshot(now int64) *trace.Trace {
	t := &trace.Trace{}
	for _, name := range f.order {
		n := f.nodes[name]
		evs := append([]trace.Event(nil), n.ev...)
		if n.known && now > n.since {
			cp := *n
			cp.ev, cp.span = nil, nil
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
	return t
}

// writeFTAFile replaces path by t in the FTA format (a temporary file
// renamed: a reader never sees half a trace); nothing for a nil t.
func writeFTAFile(path string, t *trace.Trace) error {
	if t == nil {
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
