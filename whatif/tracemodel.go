package whatif

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

func init() {
	RegisterModel(Model{
		Key:        "trace",
		Fields:     []string{"host", "hosts"},
		Parse:      parseTraceAvail,
		Check:      checkTraceHosts,
		BeginTrial: drawTraceHosts,
	})
}

// TraceAvail is a worker replaying a host of a trace of the platform's
// "traces" (cut into slots when loaded, Platform.LoadTraces):
// "availability": {"trace": name, "host": …} (or "hosts", or neither:
// the host is drawn at each trial).
type TraceAvail struct {
	Trace     int    // index in Platform.Traces
	Host      string // host ID or name; "" = drawn at each trial
	HostIndex int    // Host's index in the trace (set by LoadTraces), −1 when drawn
}

// Source implements Avail: the host the trial gives worker q
// (Trial.Hosts), from the trace's offset of the trial.
func (a TraceAvail) Source(p *Platform, tr *Trial, q int, _ *rand.Rand) availability.Source {
	return p.Traces[a.Trace].Slots.Source(tr.Hosts[q], tr.Offsets[a.Trace])
}

// KnownChain implements Avail: a trace has no chain (its chain is always
// estimated).
func (a TraceAvail) KnownChain() (availability.Chain, bool) { return availability.Chain{}, false }

// parseTraceAvail reads {"trace": name} with "host", "hosts" or neither.
func parseTraceAvail(c *ParseContext, fields map[string]json.RawMessage, count int) ([]Avail, error) {
	var name, host *string
	var hosts []string
	for _, f := range []struct {
		key, want string
		dst       any
	}{{"trace", "the name of an entry of \"traces\"", &name}, {"host", "a host ID or name", &host}, {"hosts", "an array of host IDs or names", &hosts}} {
		if err := decodeField(c.Where, f.key, fields, f.dst, f.want); err != nil {
			return nil, err
		}
	}
	if name == nil {
		return nil, fmt.Errorf("%s: trace is null, want the name of an entry of \"traces\"", c.Where)
	}
	p := c.Platform
	t := slices.IndexFunc(p.Traces, func(t Trace) bool { return t.Name == *name })
	if t < 0 {
		var names []string
		for _, t := range p.Traces {
			names = append(names, t.Name)
		}
		return nil, fmt.Errorf("%s: trace = %q, want the name of an entry of \"traces\" (%s)", c.Where, *name, strings.Join(names, ", "))
	}
	switch {
	case host != nil && hosts != nil:
		return nil, fmt.Errorf("%s: both host and hosts given, want one (or neither: hosts drawn at each trial)", c.Where)
	case host != nil:
		if *host == "" {
			return nil, fmt.Errorf("%s: host is empty, want a host ID or name of the trace", c.Where)
		}
		if count > 1 {
			return nil, fmt.Errorf("%s: host %q with count = %d, want count 1 (use hosts for several)", c.Where, *host, count)
		}
		return []Avail{TraceAvail{Trace: t, Host: *host}}, nil
	case hosts != nil:
		if len(hosts) == 0 {
			return nil, fmt.Errorf("%s: hosts is empty, want host IDs or names (or no hosts: drawn at each trial)", c.Where)
		}
		if count > 0 && count != len(hosts) {
			return nil, fmt.Errorf("%s: count = %d but %d hosts, want equal (or no count)", c.Worker, count, len(hosts))
		}
		out := make([]Avail, len(hosts))
		for k, h := range hosts {
			if h == "" {
				return nil, fmt.Errorf("%s: hosts[%d] is empty, want a host ID or name", c.Where, k)
			}
			if slices.Contains(hosts[:k], h) {
				return nil, fmt.Errorf("%s: hosts[%d] = %q appears twice", c.Where, k, h)
			}
			out[k] = TraceAvail{Trace: t, Host: h}
		}
		return out, nil
	}
	return []Avail{TraceAvail{Trace: t}}, nil
}

// checkTraceHosts checks that each host of a trace is replayed by one
// worker only and that every trace is used.
func checkTraceHosts(p *Platform) error {
	fixed := map[[2]string]int{} // (trace, host) → entry
	used := make([]bool, len(p.Traces))
	for _, w := range p.Workers {
		a, ok := w.Avail.(TraceAvail)
		if !ok {
			continue
		}
		used[a.Trace] = true
		if a.Host == "" {
			continue
		}
		k := [2]string{p.Traces[a.Trace].Name, a.Host}
		if j, ok := fixed[k]; ok && j != w.Entry {
			return fmt.Errorf("%s: workers[%d]: host %q of trace %q is already replayed by workers[%d], want each host once", p.Source, w.Entry, a.Host, k[0], j)
		}
		fixed[k] = w.Entry
	}
	for t, u := range used {
		if !u {
			return fmt.Errorf("%s: traces.%s is not used by any worker", p.Source, p.Traces[t].Name)
		}
	}
	return nil
}

// drawTraceHosts draws each trace's offset of the trial, then the hosts of
// its workers that draw theirs (distinct, and not a fixed one), from the
// trace's stream (seed, labelWhatif, trial, labelTrace, t).
func drawTraceHosts(p *Platform, seed, trial uint64, tr *Trial) error {
	for t, trc := range p.Traces {
		if trc.Slots == nil {
			return fmt.Errorf("%s: traces.%s: not loaded (call LoadTraces)", p.Source, trc.Name)
		}
		r := stream.New(seed, labelWhatif, trial, labelTrace, uint64(t))
		tr.Offsets[t] = trc.Slots.Offset(r)
		var drawing []int
		taken := make([]bool, trc.Slots.Hosts())
		for q, w := range p.Workers {
			a, ok := w.Avail.(TraceAvail)
			if !ok || a.Trace != t {
				continue
			}
			if a.HostIndex >= 0 {
				tr.Hosts[q] = a.HostIndex
				taken[a.HostIndex] = true
			} else {
				drawing = append(drawing, q)
			}
		}
		var pool []int
		for h, tk := range taken {
			if !tk {
				pool = append(pool, h)
			}
		}
		idx, err := availability.DrawHosts(r, len(pool), len(drawing))
		if err != nil {
			return fmt.Errorf("%s: traces.%s: %w", p.Source, trc.Name, err)
		}
		for k, q := range drawing {
			tr.Hosts[q] = pool[idx[k]]
		}
	}
	return nil
}
