package trace

import (
	"fmt"
	"math"
	"strings"

	"github.com/volsched/volsched/stream"
	"gonum.org/v1/gonum/stat/distuv"
)

// Preset describes a synthetic trace built from a published fit. The
// paper's fits (Table 1) are of availability-interval lengths measured in
// delivered operations; a synthetic trace needs seconds, so each preset
// fixes a delivery rate (operations per second) — this project's choice,
// made so that the median availability interval lasts one hour. The paper
// gives no model of unavailability intervals: they are exponential with
// mean DownMean seconds (also this project's choice).
type Preset struct {
	Name         string
	Hosts        int
	Seconds      float64 // trace length
	Mu, Sigma    float64 // log-normal fit of availability lengths, in operations (Table 1)
	OpsPerSecond float64
	DownMean     float64 // seconds
	TaskOps      float64 // task size t of Figure 4, operations
}

// Presets returns the UCB and Entropia presets of Table 1 (80 hosts for
// 46 days; 232 hosts for one month) with Figure 4's task sizes (1e9 and
// 1e8 operations).
func Presets() []Preset {
	const day = 86400.0
	mk := func(name string, hosts int, days, mu, sigma, task float64) Preset {
		return Preset{Name: name, Hosts: hosts, Seconds: days * day, Mu: mu, Sigma: sigma,
			OpsPerSecond: math.Exp(mu) / 3600, DownMean: 3600, TaskOps: task}
	}
	return []Preset{
		mk("ucb", 80, 46, 16.42, 2.419, 1e9),
		mk("entropia", 232, 30, 18.76, 2.188, 1e8),
	}
}

// PresetByName returns the named preset.
func PresetByName(name string) (Preset, error) {
	var names []string
	for _, p := range Presets() {
		if p.Name == strings.ToLower(name) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Preset{}, fmt.Errorf("preset %q: unknown, want one of %s", name, strings.Join(names, ", "))
}

// Epoch is the start time of synthetic traces (2003-10-01 00:00 UTC).
const Epoch = 1064966400.0

// Generate builds a synthetic trace from p: each host alternates
// availability intervals (log-normal in operations, converted to seconds at
// p.OpsPerSecond) and unavailability intervals (exponential), independently
// of the others, simulated from well before the trace start so that the
// first interval is cut as a real trace's would be, and cut at the end.
// Host k's intervals come from stream (seed, k).
func Generate(p Preset, seed uint64) *Trace {
	t := &Trace{Start: Epoch, End: Epoch + p.Seconds}
	for k := 0; k < p.Hosts; k++ {
		r := stream.New(seed, 0x7ace, uint64(k))
		up := distuv.LogNormal{Mu: p.Mu, Sigma: p.Sigma, Src: r}
		down := distuv.Exponential{Rate: 1 / p.DownMean, Src: r}
		n := Node{ID: fmt.Sprint(k + 1), Name: fmt.Sprintf("%s-%03d", p.Name, k+1)}
		// Warm up for a trace length before the start.
		x := Epoch - p.Seconds
		avail := r.IntN(2) == 0
		for x < t.End {
			var d float64
			if avail {
				d = up.Rand() / p.OpsPerSecond
			} else {
				d = down.Rand()
			}
			s, e := x, x+d
			x = e
			if e > t.Start {
				s = math.Max(s, t.Start)
				e = math.Min(e, t.End)
				if e > s {
					reason := "1"
					if e == t.End {
						reason = "0" // cut by the end of the trace
					}
					n.Events = append(n.Events, Event{EventID: "", NodeID: n.ID, NodeName: n.Name, Available: avail, Start: s, End: e, EndReason: reason})
				}
			}
			avail = !avail
		}
		t.Nodes = append(t.Nodes, n)
	}
	return t
}
