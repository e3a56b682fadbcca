package campaign

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/overlay"
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

// SizeFigure reads the summary.json of overlay runs (any policies, one run
// per policy and size, the same simulated length and link) and prints and
// writes Figs. 9 and 11 (sizeFigures) as prefix-fig9 and prefix-fig11.
func SizeFigure(w io.Writer, prefix string, args []string) error {
	var runs []sizeRun
	var first *oversim.Result
	for _, a := range args {
		run, err := ReadRun(a)
		if err != nil {
			return err
		}
		r := run.Result
		switch {
		case r.Scheduler != "":
			return inputf("run %q: the %s reference; Figs. 9 and 11 are the overlay's (runs without --scheduler)", a, r.Scheduler)
		case r.ChurnMedianMinutes > 0 || r.CatastropheFraction > 0:
			return inputf("run %q: a run with failures; Figs. 9 and 11 are runs without (see failure-figure)", a)
		}
		if err := Unfinished(a, r); err != nil {
			return err
		}
		for i, x := range runs {
			if x.policy == r.Policy && x.nodes == r.Nodes {
				return inputf("run %q: a second %s run on %d nodes: one run per policy and size", a, r.Policy, r.Nodes)
			}
			// Any two runs share length, link, seed and workload; a policy's
			// runs also their SF_max and update limit: only the size varies.
			vary := []string{"nodes"}
			if x.policy != r.Policy {
				vary = append(vary, "policy")
			}
			if d := SetupDiff(r, x.r, vary...); d != "" {
				return inputf("run %q differs from %q in %s: the figures vary the network size only", a, args[i], d)
			}
		}
		if first == nil {
			first = r
		}
		runs = append(runs, sizeRun{policy: r.Policy, nodes: r.Nodes, r: r})
	}
	if len(runs) == 0 {
		return inputf("no run directory given")
	}
	fmt.Fprintf(w, "Fig. 9: throughput (tasks finished per hour) against network size (%s link, %g h)\n", first.Link, first.Hours)
	_, err := sizeFigures(w, prefix+"-", "", runs)
	return err
}

// FailureFigure reads the summary.json of overlay runs with churn, with a
// catastrophic failure and without failures (each policy needs its run
// without failures; all of a policy's runs on the same network, length,
// link and SF_max; every catastrophe at the same time) and prints and
// writes Fig. 18 and the catastrophe figure (failureFigures).
func FailureFigure(w io.Writer, prefix string, args []string) error {
	var runs []failRun
	base := map[overlay.Policy]*oversim.Result{}
	catAt := -1.0
	for _, a := range args {
		run, err := ReadRun(a)
		if err != nil {
			return err
		}
		r := run.Result
		x := failRun{policy: r.Policy, r: r}
		if err := Unfinished(a, r); err != nil {
			return err
		}
		switch {
		case r.Scheduler != "":
			return inputf("run %q: the %s reference; Fig. 18 is the overlay's (runs without --scheduler)", a, r.Scheduler)
		case r.ChurnMedianMinutes > 0 && r.CatastropheFraction > 0:
			return inputf("run %q: both churn and a catastrophic failure; the figures take one kind of failure per run", a)
		case r.ChurnMedianMinutes > 0:
			x.kind, x.param = "churn", r.ChurnMedianMinutes
		case r.CatastropheFraction > 0:
			x.kind, x.param = "catastrophe", r.CatastropheFraction
			if catAt >= 0 && r.CatastropheHours != catAt {
				return inputf("run %q: catastrophe at %g h, another at %g h: one time per figure", a, r.CatastropheHours, catAt)
			}
			catAt = r.CatastropheHours
		}
		for i, y := range runs {
			if y.policy != x.policy {
				continue
			}
			if y.kind == x.kind && y.param == x.param {
				return inputf("run %q: a second %s run with the same failure as %q: one run per policy and failure", a, r.Policy, args[i])
			}
			if d := SetupDiff(r, y.r, "failure"); d != "" {
				return inputf("run %q differs from %q in %s: a policy's runs differ only in their failures", a, args[i], d)
			}
		}
		if x.kind == "" {
			if !(r.ComputationFinishedMI > 0) {
				return inputf("run %q: %g MI of computation finished without failures: nothing to normalize by", a, r.ComputationFinishedMI)
			}
			base[x.policy] = r
		}
		runs = append(runs, x)
	}
	if len(runs) == 0 {
		return inputf("no run directory given")
	}
	failures := 0
	for _, x := range runs {
		if base[x.policy] == nil {
			return inputf("no %s run without failures: it is what the figures normalize by", x.policy)
		}
		if x.kind != "" {
			failures++
		}
	}
	if failures == 0 {
		return inputf("no run with --churn or --fail: nothing to normalize")
	}
	fmt.Fprintln(w, "Fig. 18: finished computation with churn, normalized to the run without failures;")
	fmt.Fprintf(w, "catastrophic failure of a fraction of the nodes at %g h, same normalization\n", max(catAt, 0))
	for _, x := range runs {
		if r := x.r; x.kind == "" {
			fmt.Fprintf(w, "%s: %d nodes, %g h, %s link, SF_max %d\n", r.Policy, r.Nodes, r.Hours, r.Link, r.SFMax)
		}
	}
	_, err := failureFigures(w, prefix+"-", "", fmt.Sprintf("%g h", max(catAt, 0)), runs)
	return err
}

// SFMaxFigure reads the summary.json of each run directory (arguments DIR or
// NAME=DIR) and writes prefix.csv, prefix-tasks.svg and
// prefix-computation.svg: tasks and computation finished against SF_max,
// the references as flat lines.
func SFMaxFigure(w io.Writer, prefix string, args []string) error {
	var runs []*oversim.Result
	var names, dirs []string
	for _, a := range args {
		run, err := ReadRun(a)
		if err != nil {
			return err
		}
		name, dir, r := run.Name, run.Dir, run.Result
		if len(runs) > 0 && (r.Policy != runs[0].Policy || r.Nodes != runs[0].Nodes) {
			return inputf("run %q: %s on %d nodes, but %q is %s on %d nodes: one figure compares one policy at one size",
				a, r.Policy, r.Nodes, args[0], runs[0].Policy, runs[0].Nodes)
		}
		if len(runs) > 0 {
			if d := SetupDiff(r, runs[0], "sfmax", "scheduler"); d != "" {
				return inputf("run %q differs from %q in %s: the figures vary SF_max and the scheduler only", a, args[0], d)
			}
		}
		if err := Unfinished(a, r); err != nil {
			return err
		}
		runs, names, dirs = append(runs, r), append(names, name), append(dirs, dir)
	}
	if len(runs) == 0 {
		return inputf("no run directory given")
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
	case overlay.PolicyIBP:
		fmt.Fprintln(w, "paper (Figs. 12-13, IBP, 10^6 nodes, 60 h, shapes only): the distributed version finishes more tasks than the centralized one,")
		fmt.Fprintln(w, "its computation is about 20 % behind the centralized one, little gain from SF_max 225 over 64 or 9, random far behind.")
	case overlay.PolicyMMP:
		fmt.Fprintln(w, "paper (Fig. 15, MMP, 10^5 nodes, 60 h, shapes only): the maximum makespan over time; SF_max 81 performs like 256 with some")
		fmt.Fprintln(w, "wrong decisions, both very close to the centralized version; 16 omitted for its bad results (see PREFIX-makespan.svg).")
	case overlay.PolicyDP:
		fmt.Fprintln(w, "paper (Figs. 16-17, DP, 10^5 nodes, 60 h): tasks finished SF_max 64: 4,306,204, 216: 4,321,049, centralized 4,245,745,")
		fmt.Fprintln(w, "random 1,078,555 (8 not labelled); 216 \"only 5% behind the centralized version\" (Fig. 17, computation).")
	}
	if err := experiment.WriteCSVFile(prefix+".csv", []string{"run", "scheduler", "sfmax", "simulated_hours", "tasks_submitted",
		"tasks_finished", "tasks_finished_in_time", "computation_mi", "tasks_unallocated", "tasks_vs_centralized", "computation_vs_centralized", "dir"}, rows); err != nil {
		return err
	}
	_, err := sfmaxFigures(prefix, runs, names, dirs, lo, hi)
	if err != nil {
		return err
	}
	return makespanFigure(w, prefix, runs, names, dirs)
}

// The paper's Fig. 16 (DP, 10^5 nodes, 60 h): tasks finished, as the text
// extracted from the figure's bar labels gives them (SF_max 8 is not
// labelled).
const (
	paperFig16Nodes       = 100000
	paperFig16Hours       = 60.0
	paperFig16Centralized = 4245745.0
	paperFig16Random      = 1078555.0
	paperFig16Text        = "SF_max 64: 4,306,204 tasks; 216: 4,321,049; centralized 4,245,745; random 1,078,555; SF_max 8 not labelled"
)

// paperFig16Overlay is the overlay's tasks finished by SF_max.
var paperFig16Overlay = map[int]float64{64: 4306204, 216: 4321049}

// fig16Row is the row label of run r in a Fig. 16 table and the paper's
// tasks finished for it (NaN when its bar is not labelled).
func fig16Row(r *oversim.Result) (string, float64) {
	switch r.Scheduler {
	case "centralized":
		return "centralized", paperFig16Centralized
	case "random":
		return "random", paperFig16Random
	}
	if v, ok := paperFig16Overlay[r.SFMax]; ok {
		return fmt.Sprintf("overlay, SF_max %d", r.SFMax), v
	}
	return fmt.Sprintf("overlay, SF_max %d", r.SFMax), math.NaN()
}

func tasksOf(r *oversim.Result) float64       { return float64(r.TasksFinished) }
func computationOf(r *oversim.Result) float64 { return r.ComputationFinishedMI }

// againstPaper says what these runs show beside a caption's quotation of
// the paper: the overlay at its best SF_max against the centralized
// version and random, in metric (what: "tasks", its less: "fewer", the
// unit with its space), and whether that agrees with
// the paper's statement, agrees(d) for the overlay's relative difference
// d to the centralized version (−0.2: 20 % behind). A figure must not
// quote the paper beside a drawing that shows the opposite without saying
// so.
func againstPaper(runs []*oversim.Result, what, less, unit string, metric func(*oversim.Result) float64, agrees func(float64) bool) string {
	best, bestSF := math.NaN(), 0
	central, random := math.NaN(), math.NaN()
	for _, r := range runs {
		v := metric(r)
		switch r.Scheduler {
		case "centralized":
			central = v
		case "random":
			random = v
		case "":
			if math.IsNaN(best) || v > best {
				best, bestSF = v, r.SFMax
			}
		}
	}
	if math.IsNaN(best) {
		return ""
	}
	pct := func(a, b float64) string { return fmt.Sprintf("%.1f %%", 100*math.Abs(a-b)/b) }
	more := "more " + what
	num := func(v float64) string { // as on the axis: 404.5×10^12 MI, not 404,485,854,090,000
		k := figure.ScaleOf([]float64{v})
		if k == 0 {
			return figure.FormatTick(v, 0) + unit
		}
		return fmt.Sprintf("%.1f×10^%d%s", v/math.Pow(10, float64(k)), k, unit)
	}
	var out []string
	switch {
	case math.IsNaN(central):
		out = append(out, "These runs have no centralized version to compare with.")
	case best >= central:
		out = append(out, fmt.Sprintf("Here the overlay at its best (SF_max %d) finishes %s than the centralized version (%s, %s against %s)",
			bestSF, more, pct(best, central), num(best), num(central)))
	default:
		out = append(out, fmt.Sprintf("Here the centralized version finishes %s than the overlay at its best (SF_max %d; %s, %s against %s)",
			more, bestSF, pct(central, best), num(central), num(best)))
	}
	if !math.IsNaN(central) {
		if agrees((best - central) / central) {
			out[0] += ", as the paper says."
		} else {
			out[0] += ": not what the paper says."
		}
	}
	if !math.IsNaN(random) {
		rel := less
		if random > best {
			rel = "more"
		}
		out = append(out, fmt.Sprintf("Random finishes %s %s %s than the overlay at its best.", pct(random, best), rel, what))
	}
	return strings.Join(out, " ")
}

// sfmaxFigures draws the tasks and computation finished against SF_max
// (Figs. 12-13 for IBP, 16-17 for DP; MMP's has no counterpart), the
// references flat over [lo, hi], and with a prefix writes them as
// prefix-tasks and prefix-computation (SVG, PNG).
func sfmaxFigures(prefix string, runs []*oversim.Result, names, dirs []string, lo, hi float64) ([]Drawn, error) {
	r0 := runs[0]
	setup := fmt.Sprintf("%s, %s nodes, %.3g h", strings.ToUpper(r0.Policy.String()), count(r0.Nodes), r0.Hours)
	caption := runsCaption(runs) + " The overlay at each SF_max as one line; the centralized and random references (which do not use SF_max) flat."
	tasks := &figure.Figure{
		Title:  "tasks finished against SF_max, " + setup,
		Source: Source,
		X:      figure.Axis{Label: "SF_max"},
		Y:      figure.Axis{Label: "tasks finished", Zero: true},
		Series: seriesOf(againstSFMax(runs, names, lo, hi, func(r *oversim.Result) float64 { return float64(r.TasksFinished) })),
		Paper:  figure.PaperNone,
	}
	comp := &figure.Figure{
		Title:  "finished computation against SF_max, " + setup,
		Source: Source,
		X:      figure.Axis{Label: "SF_max"},
		Y:      figure.Axis{Label: "finished computation", Unit: "MI", Zero: true},
		Series: seriesOf(againstSFMax(runs, names, lo, hi, func(r *oversim.Result) float64 { return r.ComputationFinishedMI })),
		Paper:  figure.PaperNone,
	}
	tasks.Caption, comp.Caption = caption, caption
	switch r0.Policy {
	case overlay.PolicyIBP:
		tasks.Title, comp.Title = "Figure 12: "+tasks.Title, "Figure 13: "+comp.Title
		tasks.Paper, comp.Paper = figure.PaperPicture, figure.PaperPicture
		tasks.Caption += " The paper's text on its Fig. 12 (10^6 nodes, 60 h): the distributed version finishes more tasks than the centralized one, random far behind. " +
			againstPaper(runs, "tasks", "fewer", "", tasksOf, func(overlay float64) bool { return overlay > 0 })
		comp.Caption += " The paper's text on its Fig. 13 (10^6 nodes, 60 h): the computation is about 20 % behind the centralized version, with little gain from SF_max 225 over 64 or 9. " +
			againstPaper(runs, "computation", "less", " MI", computationOf, func(overlay float64) bool { return overlay >= -0.30 && overlay <= -0.10 })
	case overlay.PolicyMMP:
		tasks.Caption += " The paper measures MMP by the makespan over time (its Fig. 15), not by tasks finished."
		comp.Caption += " The paper measures MMP by the makespan over time (its Fig. 15), not by the computation finished."
	case overlay.PolicyDP:
		tasks.Title, comp.Title = "Figure 16: "+tasks.Title, "Figure 17: "+comp.Title
		comp.Paper = figure.PaperPicture
		comp.Caption += " The paper's text on its Fig. 17 (10^5 nodes, 60 h): SF_max 216 is only 5 % behind the centralized version. " +
			againstPaper(runs, "computation", "less", " MI", computationOf, func(overlay float64) bool { return overlay >= -0.10 && overlay <= 0 })
		if r0.Nodes == paperFig16Nodes && r0.Hours == paperFig16Hours {
			tasks.Paper = figure.PaperValues
			tasks.Caption += " The paper's values are the bar labels of its Fig. 16 (" + paperFig16Text + "), drawn at their SF_max; the references' as flat lines."
			var ov figure.Series
			for _, sf := range []int{64, 216} {
				ov.X, ov.Y = append(ov.X, float64(sf)), append(ov.Y, paperFig16Overlay[sf])
			}
			ov.Name, ov.Paper = "overlay", true
			tasks.Series = append(tasks.Series, ov,
				figure.Series{Name: "centralized", X: []float64{lo, hi}, Y: []float64{paperFig16Centralized, paperFig16Centralized}, Paper: true},
				figure.Series{Name: "random", X: []float64{lo, hi}, Y: []float64{paperFig16Random, paperFig16Random}, Paper: true})
		} else {
			tasks.Caption += " The paper's values (Fig. 16, 10^5 nodes, 60 h: " + paperFig16Text + ") are for another network or length, so they are not drawn; at this size the paper has no counterpart."
		}
	}
	figs := []Drawn{{"tasks", tasks}, {"computation", comp}}
	if prefix == "" {
		return figs, nil
	}
	for _, d := range figs {
		if err := writeDrawn(d, prefix+"-"+d.ID); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// makespanFigure writes Fig. 15 from the runs' timeline.csv: the largest
// makespan of the applications completed in each row's interval
// (row_makespan_max_s) against simulated time, one line per run, as
// prefix-makespan.csv (long form) and prefix-makespan.svg. Runs without
// such a timeline (none, empty, written before the column existed, no row)
// are named and left out; with none left, nothing is written.
func makespanFigure(w io.Writer, prefix string, runs []*oversim.Result, names, dirs []string) error {
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
		t, m, why, err := ReadMakespanTimeline(filepath.Join(dirs[i], "timeline.csv"))
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
	r0 := runs[0]
	f := &figure.Figure{
		Title:  fmt.Sprintf("largest makespan over time, %s, %s nodes, %.3g h", strings.ToUpper(r0.Policy.String()), count(r0.Nodes), r0.Hours),
		Source: Source,
		X:      figure.Axis{Label: "simulated time", Unit: "h", Zero: true},
		Y:      figure.Axis{Label: "largest makespan", Unit: "s", Zero: true},
		Series: seriesOf(series),
		Caption: runsCaption(runs) + " The largest makespan of the applications completed in each sample interval of the timeline " +
			"(row_makespan_max_s; 0 where none completed), one line per run.",
		Paper: figure.PaperNone,
	}
	if r0.Policy == overlay.PolicyMMP {
		f.Title, f.Paper = "Figure 15: "+f.Title, figure.PaperPicture
		f.Caption += " The paper's text on its Fig. 15 (10^5 nodes, 60 h): SF_max 81 performs like 256 with some wrong " +
			"decisions, both very close to the centralized version; 16 omitted for its bad results."
	} else {
		f.Caption += " The paper plots the makespan for MMP only."
	}
	return writeDrawn(Drawn{"makespan", f}, prefix+"-makespan")
}

// sizeRun is one run of Figs. 9 and 11: a policy at a network size, with
// its result, or (r nil) the table cell that says why there is none.
type sizeRun struct {
	policy overlay.Policy
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
func sizeFigures(w io.Writer, prefix, note string, runs []sizeRun) ([]Drawn, error) {
	var policies []overlay.Policy
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
	find := func(p overlay.Policy, n int) *sizeRun {
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
		s9, s11 := experiment.Series{Name: p.String()}, experiment.Series{Name: p.String()}
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
			rows9 = append(rows9, []string{p.String(), strconv.Itoa(n), strconv.FormatFloat(r.ThroughputTasksPerHour, 'g', -1, 64)})
			if f, has := peak1s(r); has {
				s11.X, s11.Y = append(s11.X, float64(n)), append(s11.Y, 100*f)
				rows11 = append(rows11, []string{p.String(), strconv.Itoa(n), strconv.FormatFloat(f, 'g', -1, 64)})
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
	if len(fig9) == 0 {
		return nil, nil
	}
	var rs []*oversim.Result
	for _, x := range runs {
		rs = append(rs, results(x.r)...)
	}
	caption := runsCaption(rs)
	figs := []Drawn{{"fig9", &figure.Figure{
		Title:  "Figure 9: throughput against network size" + note,
		Source: Source,
		X:      figure.Axis{Label: "network size", Unit: "nodes", Zero: true},
		Y:      figure.Axis{Label: "throughput", Unit: "tasks/h", Zero: true},
		Series: seriesOf(fig9),
		Caption: caption + " Throughput: tasks finished per simulated hour. The paper's text on its Fig. 9: " +
			"the throughput grows linearly with the size for all three policies, without deceleration.",
		Paper: figure.PaperPicture,
	}}}
	if len(fig11) > 0 {
		figs = append(figs, Drawn{"fig11", &figure.Figure{
			Title:  "Figure 11: maximum link use against network size, 1 s windows" + note,
			Source: Source,
			X:      figure.Axis{Label: "network size", Unit: "nodes", Zero: true},
			Y:      figure.Axis{Label: "maximum link use", Unit: "%", Zero: true},
			Series: seriesOf(fig11),
			Caption: caption + " The largest share of a node's link capacity used in one direction in any 1 s window, over all nodes. " +
				"The paper's text on its Fig. 11 (fast link, largest SF_max): low values that stabilize instead " +
				"of growing linearly; its Table 4 gives the fast-link 1 s maxima at the largest SF_max, .12 % (IBP), .15 % (MMP) and .13 % (DP), " +
				"with an update limit of 100 kbit/s.",
			Paper: figure.PaperPicture,
		}})
	}
	if prefix == "" {
		return figs, nil
	}
	if err := experiment.WriteCSVFile(prefix+"fig9.csv", []string{"policy", "nodes", "tasks_per_hour"}, rows9); err != nil {
		return nil, err
	}
	if len(fig11) > 0 {
		if err := experiment.WriteCSVFile(prefix+"fig11.csv", []string{"policy", "nodes", "peak_link_use_1s"}, rows11); err != nil {
			return nil, err
		}
	}
	for _, d := range figs {
		if err := writeDrawn(d, prefix+d.ID); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// failRun is one run of Fig. 18 and the catastrophe figure: a policy's
// run without failures (kind ""), with churn (param: the median session in
// minutes) or with a catastrophic failure (param: the fraction of the
// nodes); r nil when it failed, failed saying why.
type failRun struct {
	policy overlay.Policy
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
func failureFigures(w io.Writer, prefix, note, catAt string, runs []failRun) ([]Drawn, error) {
	var policies []overlay.Policy
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
	find := func(p overlay.Policy, kind string, param float64) *failRun {
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
				rows = append(rows, []string{p.String(), kind, strconv.FormatFloat(param, 'g', -1, 64), strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
		s, cs := experiment.Series{Name: p.String()}, experiment.Series{Name: p.String()}
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
	if len(rows) == 0 {
		return nil, nil
	}
	var rs []*oversim.Result
	for _, x := range runs {
		if x.kind == "" {
			rs = append(rs, results(x.r)...)
		}
	}
	caption := runsCaption(rs)
	var figs []Drawn
	if len(churn) > 0 {
		figs = append(figs, Drawn{"fig18", &figure.Figure{
			Title:  "Figure 18: finished computation under churn" + note,
			Source: Source,
			X:      figure.Axis{Label: "median session", Unit: "min", Log: true},
			Y:      figure.Axis{Label: "finished computation, normalized", Zero: true},
			Series: seriesOf(churn),
			Caption: caption + " Each policy's finished computation with churn (exponential sessions of the given median; a failed node is " +
				"replaced at once), divided by the same policy's run without failures. The paper's text on its Fig. 18 (60 h, medians of 60, 30, 15 and " +
				"5 min): computation degrades with shorter sessions, DP the most.",
			Paper: figure.PaperPicture,
		}})
	}
	if len(cat) > 0 {
		figs = append(figs, Drawn{"catastrophe", &figure.Figure{
			Title:  "Finished computation after a catastrophic failure at " + catAt + note,
			Source: Source,
			X:      figure.Axis{Label: "nodes failed", Unit: "%", Zero: true},
			Y:      figure.Axis{Label: "finished computation, normalized", Zero: true},
			Series: seriesOf(cat),
			Caption: caption + " Each policy's finished computation when the given share of the nodes fails at once at " + catAt +
				" (replaced at once), divided by the same policy's run without failures. The paper reports its catastrophic failures " +
				"(5, 10, 20 and 40 % of the nodes after 1 day) in words only: the impact in global performance is minimal.",
			Paper: figure.PaperNone,
		}})
	}
	if prefix == "" {
		return figs, nil
	}
	if err := experiment.WriteCSVFile(prefix+"fig18.csv", []string{"policy", "failure", "parameter", "normalized_computation"}, rows); err != nil {
		return nil, err
	}
	for _, d := range figs {
		if err := writeDrawn(d, prefix+d.ID); err != nil {
			return nil, err
		}
	}
	return figs, nil
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
