// Package trace reads and writes host availability traces in the Failure
// Trace Archive (FTA) format, fits availability-interval distributions
// (maximum likelihood, Kolmogorov–Smirnov statistic) and generates
// synthetic traces from published fits (seed 003, Table 1).
package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Event is one line of an FTA event_trace.tab: node NodeID was available
// (Available) or unavailable from Start to End (epoch seconds).
type Event struct {
	EventID, ComponentID, NodeID, PlatformID, NodeName string
	Available                                          bool
	Start, End                                         float64
	EndReason                                          string
	Line                                               int // line in the source (1-based), 0 if generated
}

// Node is one host's events, sorted by start time and non-overlapping.
type Node struct {
	ID     string
	Name   string
	Events []Event
}

// Trace is a set of hosts' availability histories.
type Trace struct {
	Nodes      []Node
	Start, End float64 // earliest start and latest end of any event
}

// ReadFTA parses an FTA event_trace.tab: tab-separated lines
//
//	event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason
//
// ('#' starts a comment line; blank lines are skipped; event_end_reason may
// be missing or empty). event_type is 1 (available) or 0 (unavailable);
// times are epoch seconds (decimal numbers), with start <= stop. Events of
// one node must not overlap. Errors name the source, the line, the field
// and the value.
func ReadFTA(r io.Reader, source string) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	byNode := map[string]*Node{}
	var order []string
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 8 || len(f) > 9 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 8 or 9 (event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time [event_end_reason])", source, line, len(f))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		e := Event{EventID: f[0], ComponentID: f[1], NodeID: f[2], PlatformID: f[3], NodeName: f[4], Line: line}
		if len(f) == 9 {
			e.EndReason = f[8]
		}
		if e.NodeID == "" {
			return nil, fmt.Errorf("%s:%d: node_id is empty, want an identifier", source, line)
		}
		switch f[5] {
		case "1":
			e.Available = true
		case "0":
		default:
			return nil, fmt.Errorf("%s:%d: event_type = %q, want 1 (available) or 0 (unavailable)", source, line, f[5])
		}
		var err error
		if e.Start, err = parseTime(f[6]); err != nil {
			return nil, fmt.Errorf("%s:%d: event_start_time = %q: %v", source, line, f[6], err)
		}
		if e.End, err = parseTime(f[7]); err != nil {
			return nil, fmt.Errorf("%s:%d: event_stop_time = %q: %v", source, line, f[7], err)
		}
		if e.End < e.Start {
			return nil, fmt.Errorf("%s:%d: event_stop_time %v is before event_start_time %v", source, line, f[7], f[6])
		}
		n, ok := byNode[e.NodeID]
		if !ok {
			n = &Node{ID: e.NodeID, Name: e.NodeName}
			byNode[e.NodeID] = n
			order = append(order, e.NodeID)
		}
		n.Events = append(n.Events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", source, line+1, err)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no events", source)
	}
	t := &Trace{Start: math.Inf(1), End: math.Inf(-1)}
	for _, id := range order {
		n := byNode[id]
		sort.SliceStable(n.Events, func(a, b int) bool { return n.Events[a].Start < n.Events[b].Start })
		for k := 1; k < len(n.Events); k++ {
			if p, e := n.Events[k-1], n.Events[k]; e.Start < p.End {
				return nil, fmt.Errorf("%s:%d: node %s: event [%v, %v] overlaps the event of line %d [%v, %v]", source, e.Line, id, e.Start, e.End, p.Line, p.Start, p.End)
			}
		}
		t.Start = math.Min(t.Start, n.Events[0].Start)
		t.End = math.Max(t.End, n.Events[len(n.Events)-1].End)
		t.Nodes = append(t.Nodes, *n)
	}
	return t, nil
}

func parseTime(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("want a finite time >= 0 in epoch seconds")
	}
	return v, nil
}

// WriteFTA writes t in the FTA format read by ReadFTA, with a header
// comment.
func WriteFTA(w io.Writer, t *Trace, comment string) error {
	bw := bufio.NewWriter(w)
	for _, l := range strings.Split(comment, "\n") {
		fmt.Fprintf(bw, "# %s\n", l)
	}
	fmt.Fprintln(bw, "# event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_stop_time\tevent_end_reason")
	id := 0
	for _, n := range t.Nodes {
		for _, e := range n.Events {
			id++
			typ := 0
			if e.Available {
				typ = 1
			}
			fmt.Fprintf(bw, "%d\t0\t%s\t0\t%s\t%d\t%s\t%s\t%s\n", id, n.ID, n.Name, typ,
				strconv.FormatFloat(e.Start, 'f', -1, 64), strconv.FormatFloat(e.End, 'f', -1, 64), e.EndReason)
		}
	}
	return bw.Flush()
}

// AvailabilityDurations returns the durations of all availability events
// (seconds), including those cut by the ends of the trace.
func (t *Trace) AvailabilityDurations() []float64 {
	var d []float64
	for _, n := range t.Nodes {
		for _, e := range n.Events {
			if e.Available && e.End > e.Start {
				d = append(d, e.End-e.Start)
			}
		}
	}
	return d
}

// AvailableAt reports whether node k is available at time x and, if so,
// since when and until when (the bounds of its availability event).
func (t *Trace) AvailableAt(k int, x float64) (ok bool, since, until float64) {
	ev := t.Nodes[k].Events
	i := sort.Search(len(ev), func(i int) bool { return ev[i].End > x })
	if i < len(ev) && ev[i].Start <= x && ev[i].Available {
		since, until = ev[i].Start, ev[i].End
		// Merge availability events that touch (a trace may split one
		// interval in several records).
		for j := i - 1; j >= 0 && ev[j].Available && ev[j].End == since; j-- {
			since = ev[j].Start
		}
		for j := i + 1; j < len(ev) && ev[j].Available && ev[j].Start == until; j++ {
			until = ev[j].End
		}
		return true, since, until
	}
	return false, 0, 0
}
