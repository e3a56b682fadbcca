package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/oversim"
)

// againstSFMax returns the series of a figure of metric against SF_max
// (Figs. 12–17): the overlay runs as one line over their SF_max, in
// increasing order, then each reference run (named by names[i], or its
// scheduler) as a flat line over [lo, hi] — a reference does not depend on
// SF_max.
func againstSFMax(runs []*oversim.Result, names []string, lo, hi float64, metric func(*oversim.Result) float64) []experiment.Series {
	ov := experiment.Series{Name: "overlay"}
	var refs []experiment.Series
	idx := make([]int, len(runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return runs[a].SFMax - runs[b].SFMax })
	for _, i := range idx {
		r := runs[i]
		if r.Scheduler == "" {
			ov.X, ov.Y = append(ov.X, float64(r.SFMax)), append(ov.Y, metric(r))
		}
	}
	for i, r := range runs {
		if r.Scheduler != "" {
			name := r.Scheduler
			if names != nil && names[i] != "" {
				name = names[i]
			}
			refs = append(refs, experiment.Series{Name: name, X: []float64{lo, hi}, Y: []float64{metric(r), metric(r)}})
		}
	}
	if len(ov.X) == 0 {
		return refs
	}
	return append([]experiment.Series{ov}, refs...)
}

// readRunSummary reads the summary.json of a run directory given as DIR or
// NAME=DIR (name is "" for DIR).
func readRunSummary(arg string) (name, dir string, r *oversim.Result, err error) {
	name, dir, ok := strings.Cut(arg, "=")
	if !ok {
		name, dir = "", arg
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return "", "", nil, usagef("run %q: %v (want a directory written by 'volsched overlay sim')", arg, err)
	}
	r = new(oversim.Result)
	if err := json.Unmarshal(b, r); err != nil {
		return "", "", nil, usagef("run %q: summary.json: %v (want the JSON 'volsched overlay sim' writes)", arg, err)
	}
	if r.Policy == "" || r.Nodes <= 0 || !(r.Hours > 0) {
		return "", "", nil, usagef("run %q: summary.json has policy %q, nodes %d, hours %g: not a 'volsched overlay sim' summary", arg, r.Policy, r.Nodes, r.Hours)
	}
	return name, dir, r, nil
}

// unfinished says why r (given as arg) did not simulate all its hours, or
// "". Hours is stored as seconds/3600, so the comparison allows rounding.
func unfinished(arg string, r *oversim.Result) error {
	if want := r.Hours * 3600; r.SimulatedSeconds < want*(1-1e-9) {
		return usagef("run %q: stopped at %.4g of its %g simulated hours (an interrupted run; resume it first)", arg, r.SimulatedSeconds/3600, r.Hours)
	}
	return nil
}

// setupDiff names the first setting, among those a figure keeps fixed, in
// which two runs differ ("" if none). vary lists the settings the figure
// varies: "nodes", "sfmax", "scheduler", "failure", and "policy" (which
// lets SF_max and the update limit, set per policy, differ too).
func setupDiff(a, b *oversim.Result, vary ...string) string {
	fixed := func(k string) bool { return !slices.Contains(vary, k) }
	samePolicy := fixed("policy")
	switch {
	case samePolicy && a.Policy != b.Policy:
		return fmt.Sprintf("policy %s against %s", a.Policy, b.Policy)
	case fixed("nodes") && a.Nodes != b.Nodes:
		return fmt.Sprintf("%d nodes against %d", a.Nodes, b.Nodes)
	case fixed("sfmax") && samePolicy && a.SFMax != b.SFMax:
		return fmt.Sprintf("SF_max %d against %d", a.SFMax, b.SFMax)
	case fixed("scheduler") && a.Scheduler != b.Scheduler:
		return fmt.Sprintf("scheduler %q against %q", a.Scheduler, b.Scheduler)
	case a.Hours != b.Hours:
		return fmt.Sprintf("%g h against %g h", a.Hours, b.Hours)
	case a.Link != b.Link:
		return fmt.Sprintf("the %s link against the %s link", a.Link, b.Link)
	case a.Seed != b.Seed:
		return fmt.Sprintf("seed %d against %d", a.Seed, b.Seed)
	case samePolicy && a.Scheduler == "" && b.Scheduler == "" && a.UpdateBandwidth != b.UpdateBandwidth:
		return fmt.Sprintf("update limit %g B/s against %g B/s", a.UpdateBandwidth, b.UpdateBandwidth)
	case fixed("failure") && (a.ChurnMedianMinutes != b.ChurnMedianMinutes || a.CatastropheFraction != b.CatastropheFraction ||
		a.CatastropheHours != b.CatastropheHours):
		return fmt.Sprintf("failures (churn %g min, catastrophe %g at %g h) against (churn %g min, catastrophe %g at %g h)",
			a.ChurnMedianMinutes, a.CatastropheFraction, a.CatastropheHours, b.ChurnMedianMinutes, b.CatastropheFraction, b.CatastropheHours)
	case !reflect.DeepEqual(a.WorkloadParams, b.WorkloadParams):
		return "workload parameters (--params)"
	case a.Workload != b.Workload:
		return fmt.Sprintf("workload %q against %q", workloadName(a.Workload), workloadName(b.Workload))
	}
	return ""
}

// sizeFigure reads the summary.json of overlay runs (any policies, one run
// per policy and size, the same simulated length and link) and prints and
// writes Figs. 9 and 11 (sizeFigures) as prefix-fig9 and prefix-fig11.
func sizeFigure(w io.Writer, prefix string, args []string) error {
	var runs []sizeRun
	var first *oversim.Result
	for _, a := range args {
		_, _, r, err := readRunSummary(a)
		if err != nil {
			return err
		}
		switch {
		case r.Scheduler != "":
			return usagef("run %q: the %s reference; Figs. 9 and 11 are the overlay's (runs without --scheduler)", a, r.Scheduler)
		case r.ChurnMedianMinutes > 0 || r.CatastropheFraction > 0:
			return usagef("run %q: a run with failures; Figs. 9 and 11 are runs without (see failure-figure)", a)
		}
		if err := unfinished(a, r); err != nil {
			return err
		}
		for i, x := range runs {
			if x.policy == r.Policy && x.nodes == r.Nodes {
				return usagef("run %q: a second %s run on %d nodes: one run per policy and size", a, r.Policy, r.Nodes)
			}
			// Any two runs share length, link, seed and workload; a policy's
			// runs also their SF_max and update limit: only the size varies.
			vary := []string{"nodes"}
			if x.policy != r.Policy {
				vary = append(vary, "policy")
			}
			if d := setupDiff(r, x.r, vary...); d != "" {
				return usagef("run %q differs from %q in %s: the figures vary the network size only", a, args[i], d)
			}
		}
		if first == nil {
			first = r
		}
		runs = append(runs, sizeRun{policy: r.Policy, nodes: r.Nodes, r: r})
	}
	if len(runs) == 0 {
		return usagef("no run directory given")
	}
	fmt.Fprintf(w, "Fig. 9: throughput (tasks finished per hour) against network size (%s link, %g h)\n", first.Link, first.Hours)
	return sizeFigures(w, prefix+"-", "", runs)
}

// failureFigure reads the summary.json of overlay runs with churn, with a
// catastrophic failure and without failures (each policy needs its run
// without failures; all of a policy's runs on the same network, length,
// link and SF_max; every catastrophe at the same time) and prints and
// writes Fig. 18 and the catastrophe figure (failureFigures).
func failureFigure(w io.Writer, prefix string, args []string) error {
	var runs []failRun
	base := map[string]*oversim.Result{}
	catAt := -1.0
	for _, a := range args {
		_, _, r, err := readRunSummary(a)
		if err != nil {
			return err
		}
		x := failRun{policy: r.Policy, r: r}
		if err := unfinished(a, r); err != nil {
			return err
		}
		switch {
		case r.Scheduler != "":
			return usagef("run %q: the %s reference; Fig. 18 is the overlay's (runs without --scheduler)", a, r.Scheduler)
		case r.ChurnMedianMinutes > 0 && r.CatastropheFraction > 0:
			return usagef("run %q: both churn and a catastrophic failure; the figures take one kind of failure per run", a)
		case r.ChurnMedianMinutes > 0:
			x.kind, x.param = "churn", r.ChurnMedianMinutes
		case r.CatastropheFraction > 0:
			x.kind, x.param = "catastrophe", r.CatastropheFraction
			if catAt >= 0 && r.CatastropheHours != catAt {
				return usagef("run %q: catastrophe at %g h, another at %g h: one time per figure", a, r.CatastropheHours, catAt)
			}
			catAt = r.CatastropheHours
		}
		for i, y := range runs {
			if y.policy != x.policy {
				continue
			}
			if y.kind == x.kind && y.param == x.param {
				return usagef("run %q: a second %s run with the same failure as %q: one run per policy and failure", a, r.Policy, args[i])
			}
			if d := setupDiff(r, y.r, "failure"); d != "" {
				return usagef("run %q differs from %q in %s: a policy's runs differ only in their failures", a, args[i], d)
			}
		}
		if x.kind == "" {
			if !(r.ComputationFinishedMI > 0) {
				return usagef("run %q: %g MI of computation finished without failures: nothing to normalize by", a, r.ComputationFinishedMI)
			}
			base[x.policy] = r
		}
		runs = append(runs, x)
	}
	if len(runs) == 0 {
		return usagef("no run directory given")
	}
	failures := 0
	for _, x := range runs {
		if base[x.policy] == nil {
			return usagef("no %s run without failures: it is what the figures normalize by", x.policy)
		}
		if x.kind != "" {
			failures++
		}
	}
	if failures == 0 {
		return usagef("no run with --churn or --fail: nothing to normalize")
	}
	fmt.Fprintln(w, "Fig. 18: finished computation with churn, normalized to the run without failures;")
	fmt.Fprintf(w, "catastrophic failure of a fraction of the nodes at %g h, same normalization\n", max(catAt, 0))
	for _, x := range runs {
		if r := x.r; x.kind == "" {
			fmt.Fprintf(w, "%s: %d nodes, %g h, %s link, SF_max %d\n", r.Policy, r.Nodes, r.Hours, r.Link, r.SFMax)
		}
	}
	return failureFigures(w, prefix+"-", "", fmt.Sprintf("%g h", max(catAt, 0)), runs)
}

// sfmaxFigure reads the summary.json of each run directory (arguments DIR or
// NAME=DIR) and writes prefix.csv, prefix-tasks.svg and
// prefix-computation.svg: tasks and computation finished against SF_max,
// the references as flat lines.
func sfmaxFigure(w io.Writer, prefix string, args []string) error {
	var runs []*oversim.Result
	var names, dirs []string
	for _, a := range args {
		name, dir, r, err := readRunSummary(a)
		if err != nil {
			return err
		}
		if len(runs) > 0 && (r.Policy != runs[0].Policy || r.Nodes != runs[0].Nodes) {
			return usagef("run %q: %s on %d nodes, but %q is %s on %d nodes: one figure compares one policy at one size",
				a, r.Policy, r.Nodes, args[0], runs[0].Policy, runs[0].Nodes)
		}
		if len(runs) > 0 {
			if d := setupDiff(r, runs[0], "sfmax", "scheduler"); d != "" {
				return usagef("run %q differs from %q in %s: the figures vary SF_max and the scheduler only", a, args[0], d)
			}
		}
		if err := unfinished(a, r); err != nil {
			return err
		}
		runs, names, dirs = append(runs, r), append(names, name), append(dirs, dir)
	}
	if len(runs) == 0 {
		return usagef("no run directory given")
	}
	lo, hi := 0.0, 0.0
	for _, r := range runs {
		if r.Scheduler == "" {
			if lo == 0 || float64(r.SFMax) < lo {
				lo = float64(r.SFMax)
			}
			hi = max(hi, float64(r.SFMax))
		}
	}
	if hi == 0 {
		lo, hi = 1, 1
	}
	var central *oversim.Result
	for i, r := range runs {
		if r.Scheduler == "centralized" && (central == nil || names[i] == "centralized") {
			central = r
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s, %d nodes\n", runs[0].Policy, runs[0].Nodes)
	fmt.Fprintln(tw, "run\tscheduler\tSF_max\tsimulated h\ttasks finished\tin time\tcomputation (MI)\ttasks / centralized\tcomputation / centralized\t")
	var rows [][]string
	for i, r := range runs {
		name, sch, sf := names[i], r.Scheduler, strconv.Itoa(r.SFMax)
		if sch == "" {
			sch = "overlay"
		} else {
			sf = "-"
		}
		if name == "" {
			name = sch
		}
		rt, rc := "-", "-"
		if central != nil && central.TasksFinished > 0 {
			rt = strconv.FormatFloat(float64(r.TasksFinished)/float64(central.TasksFinished), 'f', 3, 64)
			rc = strconv.FormatFloat(r.ComputationFinishedMI/central.ComputationFinishedMI, 'f', 3, 64)
		}
		h := r.SimulatedSeconds / 3600
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g\t%d\t%d\t%.4g\t%s\t%s\t\n", name, sch, sf, h, r.TasksFinished, r.TasksFinishedInTime, r.ComputationFinishedMI, rt, rc)
		rows = append(rows, []string{name, sch, sf, strconv.FormatFloat(h, 'g', -1, 64), strconv.FormatUint(r.TasksSubmitted, 10),
			strconv.FormatUint(r.TasksFinished, 10), strconv.FormatUint(r.TasksFinishedInTime, 10),
			strconv.FormatFloat(r.ComputationFinishedMI, 'g', -1, 64), strconv.FormatUint(r.TasksUnallocated, 10), rt, rc, dirs[i]})
	}
	tw.Flush()
	switch runs[0].Policy {
	case "ibp":
		fmt.Fprintln(w, "paper (Figs. 12-13, IBP, 10^6 nodes, 60 h, shapes only): the distributed version finishes more tasks than the centralized one,")
		fmt.Fprintln(w, "its computation is about 20 % behind the centralized one, little gain from SF_max 225 over 64 or 9, random far behind.")
	case "mmp":
		fmt.Fprintln(w, "paper (Fig. 15, MMP, 10^5 nodes, 60 h, shapes only): the maximum makespan over time; SF_max 81 performs like 256 with some")
		fmt.Fprintln(w, "wrong decisions, both very close to the centralized version; 16 omitted for its bad results (see PREFIX-makespan.svg).")
	case "dp":
		fmt.Fprintln(w, "paper (Figs. 16-17, DP, 10^5 nodes, 60 h): tasks finished SF_max 64: 4,306,204, 216: 4,321,049, centralized 4,245,745,")
		fmt.Fprintln(w, "random 1,078,555 (8 not labelled); 216 \"only 5% behind the centralized version\" (Fig. 17, computation).")
	}
	if err := experiment.WriteCSVFile(prefix+".csv", []string{"run", "scheduler", "sfmax", "simulated_hours", "tasks_submitted",
		"tasks_finished", "tasks_finished_in_time", "computation_mi", "tasks_unallocated", "tasks_vs_centralized", "computation_vs_centralized", "dir"}, rows); err != nil {
		return err
	}
	title := fmt.Sprintf("%s, %d nodes, %.3g h", runs[0].Policy, runs[0].Nodes, runs[0].Hours)
	if err := experiment.LinePlot(prefix+"-tasks.svg", title+": tasks finished", "SF_max", "tasks finished",
		againstSFMax(runs, names, lo, hi, func(r *oversim.Result) float64 { return float64(r.TasksFinished) })); err != nil {
		return err
	}
	if err := experiment.LinePlot(prefix+"-computation.svg", title+": computation finished", "SF_max", "computation finished (MI)",
		againstSFMax(runs, names, lo, hi, func(r *oversim.Result) float64 { return r.ComputationFinishedMI })); err != nil {
		return err
	}
	return makespanFigure(w, prefix, title, runs, names, dirs)
}

// makespanFigure writes Fig. 15 from the runs' timeline.csv: the largest
// makespan of the applications completed in each row's interval
// (row_makespan_max_s) against simulated time, one line per run, as
// prefix-makespan.csv (long form) and prefix-makespan.svg. Runs without
// such a timeline (none, empty, written before the column existed, no row)
// are named and left out; with none left, nothing is written.
func makespanFigure(w io.Writer, prefix, title string, runs []*oversim.Result, names, dirs []string) error {
	var series []experiment.Series
	var rows [][]string
	skipped := map[string][]string{} // by reason
	var reasons []string
	for i, r := range runs {
		name := names[i]
		if name == "" {
			name = r.Scheduler
			if name == "" {
				name = "overlay SF_max " + strconv.Itoa(r.SFMax)
			}
		}
		t, m, why, err := readMakespanTimeline(filepath.Join(dirs[i], "timeline.csv"))
		if err != nil {
			return err
		}
		if why != "" {
			if !slices.Contains(reasons, why) {
				reasons = append(reasons, why)
			}
			skipped[why] = append(skipped[why], dirs[i])
			continue
		}
		sr := experiment.Series{Name: name}
		for k := range t {
			sr.X, sr.Y = append(sr.X, t[k]/3600), append(sr.Y, m[k])
			rows = append(rows, []string{name, dirs[i], strconv.FormatFloat(t[k]/3600, 'g', -1, 64), strconv.FormatFloat(m[k], 'g', -1, 64)})
		}
		series = withPoints(series, sr)
	}
	for _, why := range reasons {
		fmt.Fprintf(w, "makespan figure (Fig. 15): left out (%s): %s\n", why, strings.Join(skipped[why], ", "))
	}
	if len(series) == 0 {
		return nil
	}
	if err := experiment.WriteCSVFile(prefix+"-makespan.csv", []string{"run", "dir", "time_h", "row_makespan_max_s"}, rows); err != nil {
		return err
	}
	return experiment.LinePlot(prefix+"-makespan.svg", title+": largest makespan of the applications completed in each interval",
		"simulated time (h)", "makespan (s)", series)
}

// readMakespanTimeline reads the time_s and row_makespan_max_s columns of
// a timeline.csv. why says why there is nothing to read (no file, an empty
// one, no row_makespan_max_s column: written by volsched before 2026-11-23,
// no row); a malformed row is an error naming the file and line.
func readMakespanTimeline(path string) (t, m []float64, why string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "no timeline.csv", nil
	}
	if err != nil {
		return nil, nil, "", usagef("run timeline: %v", err)
	}
	text := strings.TrimSpace(string(b))
	if text == "" {
		return nil, nil, "empty timeline.csv", nil
	}
	lines := strings.Split(text, "\n")
	head := strings.Split(lines[0], ",")
	ti, mi := slices.Index(head, "time_s"), slices.Index(head, "row_makespan_max_s")
	switch {
	case ti < 0 || mi < 0:
		return nil, nil, "timeline.csv without row_makespan_max_s: written by volsched before 2026-11-23", nil
	case len(lines) == 1:
		return nil, nil, "timeline.csv without rows", nil
	}
	for k, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(head) {
			return nil, nil, "", usagef("%s line %d: %d fields, the header has %d", path, k+2, len(f), len(head))
		}
		x, err1 := strconv.ParseFloat(f[ti], 64)
		y, err2 := strconv.ParseFloat(f[mi], 64)
		if err := cmp.Or(err1, err2); err != nil {
			return nil, nil, "", usagef("%s line %d: %v", path, k+2, err)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || y < 0 {
			return nil, nil, "", usagef("%s line %d: time_s %g, row_makespan_max_s %g (want finite values, the makespan >= 0)", path, k+2, x, y)
		}
		t, m = append(t, x), append(m, y)
	}
	return t, m, "", nil
}

// sizeRun is one run of Figs. 9 and 11: a policy at a network size, with
// its result, or (r nil) the table cell that says why there is none.
type sizeRun struct {
	policy string
	nodes  int
	r      *oversim.Result
	failed string
}

// sizeFigures prints Fig. 9 (throughput, tasks finished per simulated hour,
// against network size; with the ratio of the largest size's throughput
// per node to the smallest's over the sizes the policy was run at, 1 for
// linear growth) and Fig. 11 (the maximum
// link use over nodes in 1 s windows, same runs), one row per policy in the
// order of first appearance, one column per size. With a prefix it writes
// prefix+"fig9" and prefix+"fig11" as CSV and SVG; note ends the figures'
// titles. The caller prints Fig. 9's title line.
func sizeFigures(w io.Writer, prefix, note string, runs []sizeRun) error {
	var policies []string
	var sizes []int
	for _, x := range runs {
		if !slices.Contains(policies, x.policy) {
			policies = append(policies, x.policy)
		}
		if !slices.Contains(sizes, x.nodes) {
			sizes = append(sizes, x.nodes)
		}
	}
	slices.Sort(sizes)
	find := func(p string, n int) *sizeRun {
		for i := range runs {
			if runs[i].policy == p && runs[i].nodes == n {
				return &runs[i]
			}
		}
		return nil
	}
	head := func(tw io.Writer, last string) {
		fmt.Fprint(tw, "policy\t")
		for _, n := range sizes {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw, last)
	}
	var rows9, rows11 [][]string
	var fig9, fig11 []experiment.Series
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head(tw, "per node, largest/smallest\t")
	for _, p := range policies {
		fmt.Fprintf(tw, "%s\t", p)
		s9, s11 := experiment.Series{Name: p}, experiment.Series{Name: p}
		var first, last float64
		ok, have := true, false
		for _, n := range sizes {
			x := find(p, n)
			switch {
			case x == nil: // not run at this size: the ratio is over the sizes run
				fmt.Fprint(tw, "\t")
				continue
			case x.r == nil:
				fmt.Fprintf(tw, "%s\t", x.failed)
				ok = false
				continue
			}
			r := x.r
			fmt.Fprintf(tw, "%.0f\t", r.ThroughputTasksPerHour)
			s9.X, s9.Y = append(s9.X, float64(n)), append(s9.Y, r.ThroughputTasksPerHour)
			rows9 = append(rows9, []string{p, strconv.Itoa(n), strconv.FormatFloat(r.ThroughputTasksPerHour, 'g', -1, 64)})
			if f, has := peak1s(r); has {
				s11.X, s11.Y = append(s11.X, float64(n)), append(s11.Y, 100*f)
				rows11 = append(rows11, []string{p, strconv.Itoa(n), strconv.FormatFloat(f, 'g', -1, 64)})
			}
			if !have {
				first, have = r.ThroughputTasksPerHour/float64(n), true
			}
			last = r.ThroughputTasksPerHour / float64(n)
		}
		if ok && first > 0 {
			fmt.Fprintf(tw, "%.2f\t\n", last/first)
		} else {
			fmt.Fprintln(tw, "-\t")
		}
		fig9, fig11 = withPoints(fig9, s9), withPoints(fig11, s11)
	}
	tw.Flush()
	fmt.Fprintln(w, "paper: grows linearly with size for all three policies (absolute values not comparable: figure only)")
	fmt.Fprintf(w, "\nFig. 11: maximum link use over nodes, 1 s windows, same runs\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head(tw, "")
	for _, p := range policies {
		fmt.Fprintf(tw, "%s\t", p)
		for _, n := range sizes {
			if x := find(p, n); x != nil && x.r != nil {
				if f, has := peak1s(x.r); has {
					fmt.Fprintf(tw, "%s\t", pct(f))
					continue
				}
			}
			fmt.Fprint(tw, "-\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w, "paper (figure, fast link, 1 s, up to 10^5-10^6 nodes): low values that stabilize instead of growing linearly")
	if prefix == "" || len(fig9) == 0 {
		return nil
	}
	if err := experiment.WriteCSVFile(prefix+"fig9.csv", []string{"policy", "nodes", "tasks_per_hour"}, rows9); err != nil {
		return err
	}
	if err := experiment.LinePlot(prefix+"fig9.svg", "Throughput against network size"+note, "nodes", "tasks finished per hour", fig9); err != nil {
		return err
	}
	if len(fig11) == 0 {
		return nil
	}
	if err := experiment.WriteCSVFile(prefix+"fig11.csv", []string{"policy", "nodes", "peak_link_use_1s"}, rows11); err != nil {
		return err
	}
	return experiment.LinePlot(prefix+"fig11.svg", "Maximum link use against network size, 1 s windows"+note, "nodes", "maximum link use (%)", fig11)
}

// failRun is one run of Fig. 18 and the catastrophe figure: a policy's
// run without failures (kind ""), with churn (param: the median session in
// minutes) or with a catastrophic failure (param: the fraction of the
// nodes); r nil when it failed, failed saying why.
type failRun struct {
	policy string
	kind   string
	param  float64
	r      *oversim.Result
	failed string
}

// failureFigures prints Fig. 18 and the catastrophe figure: each policy's
// computation finished with churn (one column per median session, longest
// first) and after a catastrophic failure (one per fraction), normalized
// to its run without failures, and with a prefix writes prefix+"fig18.csv",
// prefix+"fig18.svg" and prefix+"catastrophe.svg". note ends the titles;
// catAt says when the catastrophe happened. The caller prints the title.
func failureFigures(w io.Writer, prefix, note, catAt string, runs []failRun) error {
	var policies []string
	var medians, fracs []float64
	for _, x := range runs {
		if !slices.Contains(policies, x.policy) {
			policies = append(policies, x.policy)
		}
		switch {
		case x.kind == "churn" && !slices.Contains(medians, x.param):
			medians = append(medians, x.param)
		case x.kind == "catastrophe" && !slices.Contains(fracs, x.param):
			fracs = append(fracs, x.param)
		}
	}
	slices.SortFunc(medians, func(a, b float64) int { return cmp.Compare(b, a) })
	slices.Sort(fracs)
	find := func(p, kind string, param float64) *failRun {
		for i := range runs {
			if x := &runs[i]; x.policy == p && x.kind == kind && (kind == "" || x.param == param) {
				return x
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\t")
	for _, m := range medians {
		fmt.Fprintf(tw, "churn %v\t", time.Duration(m*float64(time.Minute)))
	}
	for _, f := range fracs {
		fmt.Fprintf(tw, "fail %g%%\t", 100*f)
	}
	fmt.Fprintln(tw)
	var rows [][]string
	var churn, cat []experiment.Series
	for _, p := range policies {
		fmt.Fprintf(tw, "%s\t", p)
		r0 := find(p, "", 0)
		switch {
		case r0 == nil:
			fmt.Fprint(tw, "no run without failures\t\n")
			continue
		case r0.r == nil:
			fmt.Fprintf(tw, "%s\t\n", r0.failed)
			continue
		case !(r0.r.ComputationFinishedMI > 0):
			fmt.Fprint(tw, "no computation without failures\t\n")
			continue
		}
		cell := func(kind string, param float64, s *experiment.Series, x float64) {
			switch r := find(p, kind, param); {
			case r == nil:
				fmt.Fprint(tw, "-\t")
			case r.r == nil:
				fmt.Fprintf(tw, "%s\t", r.failed)
			default:
				v := r.r.ComputationFinishedMI / r0.r.ComputationFinishedMI
				fmt.Fprintf(tw, "%.3f\t", v)
				s.X, s.Y = append(s.X, x), append(s.Y, v)
				rows = append(rows, []string{p, kind, strconv.FormatFloat(param, 'g', -1, 64), strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
		s, cs := experiment.Series{Name: p}, experiment.Series{Name: p}
		for _, m := range medians {
			cell("churn", m, &s, m)
		}
		for _, f := range fracs {
			cell("catastrophe", f, &cs, 100*f)
		}
		fmt.Fprintln(tw)
		churn, cat = withPoints(churn, s), withPoints(cat, cs)
	}
	tw.Flush()
	fmt.Fprintln(w, "paper: degrades with shorter sessions, DP the most (figure only); catastrophic failures after 1 day: \"minimal\" impact")
	if prefix == "" || len(rows) == 0 {
		return nil
	}
	if err := experiment.WriteCSVFile(prefix+"fig18.csv", []string{"policy", "failure", "parameter", "normalized_computation"}, rows); err != nil {
		return err
	}
	if len(churn) > 0 {
		if err := experiment.LinePlot(prefix+"fig18.svg", "Finished computation under churn"+note, "median session (min)", "normalized finished computation", churn); err != nil {
			return err
		}
	}
	if len(cat) == 0 {
		return nil
	}
	return experiment.LinePlot(prefix+"catastrophe.svg", fmt.Sprintf("Finished computation after a catastrophic failure at %s%s", catAt, note),
		"nodes failed (%)", "normalized finished computation", cat)
}

// withPoints appends s to list if it has points (a figure's line for a
// policy with no run is left out).
func withPoints(list []experiment.Series, s experiment.Series) []experiment.Series {
	if len(s.X) == 0 {
		return list
	}
	return append(list, s)
}

// peak1s is a run's maximum link use in 1 s windows, if it was measured.
func peak1s(r *oversim.Result) (float64, bool) {
	for _, u := range r.PeakLinkUse {
		if u.Window == des.Second {
			return u.Fraction, true
		}
	}
	return 0, false
}

// figureCommand is an 'overlay' subcommand that makes figures from run
// directories: its required --out PREFIX and the run directories go to
// make, which prints to the command's output.
func figureCommand(use, short, long string, make func(w io.Writer, prefix string, args []string) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out: missing (want a path prefix for the CSV and SVG files)")
			}
			return make(cmd.OutOrStdout(), out, args)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "path prefix of the CSV and SVG files (required)")
	return cmd
}

func init() {
	overlayCmd.AddCommand(figureCommand("sfmax-figure --out PREFIX [NAME=]RUN_DIR...",
		"Figs. 12–17 from 'overlay sim' runs: tasks and computation finished against SF_max, references flat",
		`sfmax-figure reads the summary.json of each run directory written by
'volsched overlay sim' (one policy, one network size): overlay runs at
several --sfmax and reference runs (--scheduler centralized or random). It
prints the table with each run's ratio to the centralized reference and
writes PREFIX.csv, PREFIX-tasks.svg and PREFIX-computation.svg (the
references as flat lines over the overlay's SF_max range), and from each
run's timeline.csv PREFIX-makespan.csv and PREFIX-makespan.svg: the
largest makespan of the applications completed in each sample interval
over time (Fig. 15, MMP's figure). NAME=RUN_DIR
names a run's line (default: its scheduler).`, sfmaxFigure))
	overlayCmd.AddCommand(figureCommand("size-figure --out PREFIX RUN_DIR...",
		"Figs. 9 and 11 from 'overlay sim' runs: throughput and maximum link use against network size",
		`size-figure reads the summary.json of overlay runs written by 'volsched
overlay sim' at several network sizes (any of the policies; one run per
policy and size; all of the same --hours and --link, finished) and prints
Fig. 9 (tasks finished per simulated hour against size, with the ratio of
the largest size's throughput per node to the smallest's: 1 is linear
growth) and Fig. 11 (the maximum link use over nodes in 1 s windows), and
writes PREFIX-fig9.csv, PREFIX-fig9.svg, PREFIX-fig11.csv and
PREFIX-fig11.svg.`, sizeFigure))
	overlayCmd.AddCommand(figureCommand("failure-figure --out PREFIX RUN_DIR...",
		"Fig. 18 and the catastrophe figure from 'overlay sim' runs with --churn, --fail and without failures",
		`failure-figure reads the summary.json of overlay runs written by
'volsched overlay sim': for each policy, one run without failures and runs
with --churn MEDIAN or --fail FRACTION@TIME (one kind per run; a policy's
runs differ only in their failures; finished). It prints each run's
computation finished normalized to its policy's run without failures —
Fig. 18 (churn, by median session) and the catastrophic failure (by
fraction of the nodes) — and writes PREFIX-fig18.csv, PREFIX-fig18.svg
and PREFIX-catastrophe.svg.`, failureFigure))
}
