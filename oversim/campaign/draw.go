package campaign

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/reproduction"
)

// Source is the paper as the figures' Source line (package reproduction
// names it).
var Source = reproduction.OverlayPaper.Source()

// Drawn is a figure this package made: its ID (the last part of its files'
// names, e.g. "fig9") and the figure. With a prefix, the figure functions
// write it as prefix+ID+".svg" and ".png".
type Drawn struct {
	ID     string
	Figure *figure.Figure
}

// writeDrawn writes d as base.svg and base.png.
func writeDrawn(d Drawn, base string) error {
	_, err := d.Figure.WriteFiles(base)
	return err
}

// seriesOf converts the series the figure functions gather.
func seriesOf(ss []experiment.Series) []figure.Series {
	out := make([]figure.Series, len(ss))
	for i, s := range ss {
		out[i] = figure.Series{Name: s.Name, X: s.X, Y: s.Y}
	}
	return out
}

// runsCaption describes what the runs rs of a figure share, for its
// caption: seed, link, simulated hours, network size, SF_max and update
// limit of the overlay runs by policy, workload.
func runsCaption(rs []*oversim.Result) string {
	var parts []string
	distinct := func(f func(r *oversim.Result) string) []string {
		var out []string
		for _, r := range rs {
			if v := f(r); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	join := func(v []string) string {
		switch len(v) {
		case 0:
			return ""
		case 1:
			return v[0]
		}
		return strings.Join(v[:len(v)-1], ", ") + " and " + v[len(v)-1]
	}
	seeds := distinct(func(r *oversim.Result) string { return strconv.FormatUint(r.Seed, 10) })
	parts = append(parts, "seed "+join(seeds))
	parts = append(parts, join(distinct(func(r *oversim.Result) string { return r.Link }))+" link")
	parts = append(parts, join(distinct(func(r *oversim.Result) string { return simulated(r.Hours) })))
	var nodes []int
	for _, r := range rs {
		if !slices.Contains(nodes, r.Nodes) {
			nodes = append(nodes, r.Nodes)
		}
	}
	slices.Sort(nodes)
	ns := make([]string, len(nodes))
	for i, n := range nodes {
		ns[i] = count(n)
	}
	parts = append(parts, join(ns)+" nodes")
	var sf, bw []string
	for _, p := range overlay.Policies() {
		var sfs []int
		var bws []float64
		for _, r := range rs {
			if r.Policy != p || r.Scheduler != "" {
				continue
			}
			if !slices.Contains(sfs, r.SFMax) {
				sfs = append(sfs, r.SFMax)
			}
			if !slices.Contains(bws, r.UpdateBandwidth) {
				bws = append(bws, r.UpdateBandwidth)
			}
		}
		slices.Sort(sfs)
		slices.Sort(bws)
		if len(sfs) > 0 {
			var a, b []string
			for _, v := range sfs {
				a = append(a, strconv.Itoa(v))
			}
			for _, v := range bws {
				b = append(b, strconv.FormatFloat(v, 'g', -1, 64))
			}
			sf = append(sf, fmt.Sprintf("%s %s", strings.ToUpper(p.String()), strings.Join(a, "/")))
			bw = append(bw, fmt.Sprintf("%s %s B/s", strings.ToUpper(p.String()), strings.Join(b, "/")))
		}
	}
	if len(sf) > 0 {
		parts = append(parts, "overlay SF_max "+strings.Join(sf, ", "), "update limit "+strings.Join(bw, ", "))
	}
	w := distinct(func(r *oversim.Result) string {
		if r.Workload == "" {
			return "the authors' empirical distributions or a trace"
		}
		return "the " + r.Workload + " (docs/workload-model.md)"
	})
	parts = append(parts, "workload: "+join(w))
	return "Runs of volsched overlay sim: " + strings.Join(parts, "; ") + "."
}

// results returns the non-nil results of rs.
func results(rs ...*oversim.Result) []*oversim.Result {
	var out []*oversim.Result
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// count writes n with thousands grouped by commas (4,306,204).
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// simulated writes a simulated length of h hours: "3 simulated hours",
// "20 simulated minutes".
func simulated(h float64) string {
	if m := h * 60; h < 1 && math.Abs(m-math.Round(m)) < 1e-6 {
		return strconv.FormatFloat(math.Round(m), 'g', -1, 64) + " simulated minutes"
	}
	return strconv.FormatFloat(h, 'g', 4, 64) + " simulated hours"
}
