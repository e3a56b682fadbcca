package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

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

// sfmaxFigure reads the summary.json of each run directory (arguments DIR or
// NAME=DIR) and writes prefix.csv, prefix-tasks.svg and
// prefix-computation.svg: tasks and computation finished against SF_max,
// the references as flat lines.
func sfmaxFigure(w io.Writer, prefix string, args []string) error {
	var runs []*oversim.Result
	var names, dirs []string
	for _, a := range args {
		name, dir, ok := strings.Cut(a, "=")
		if !ok {
			name, dir = "", a
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			return usagef("run %q: %v (want a directory written by 'volsched overlay sim')", a, err)
		}
		var r oversim.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("run %q: summary.json: %w", a, err)
		}
		if r.Policy == "" || r.Nodes == 0 {
			return fmt.Errorf("run %q: summary.json has no policy or nodes: not a 'volsched overlay sim' summary", a)
		}
		if len(runs) > 0 && (r.Policy != runs[0].Policy || r.Nodes != runs[0].Nodes) {
			return usagef("run %q: %s on %d nodes, but %q is %s on %d nodes: one figure compares one policy at one size",
				a, r.Policy, r.Nodes, args[0], runs[0].Policy, runs[0].Nodes)
		}
		runs, names, dirs = append(runs, &r), append(names, name), append(dirs, dir)
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
	if runs[0].Policy == "ibp" {
		fmt.Fprintln(w, "paper (Figs. 12-13, IBP, 10^6 nodes, 60 h, shapes only): the distributed version finishes more tasks than the centralized one,")
		fmt.Fprintln(w, "its computation is about 20 % behind the centralized one, little gain from SF_max 225 over 64 or 9, random far behind.")
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
	return experiment.LinePlot(prefix+"-computation.svg", title+": computation finished", "SF_max", "computation finished (MI)",
		againstSFMax(runs, names, lo, hi, func(r *oversim.Result) float64 { return r.ComputationFinishedMI }))
}

func init() {
	var out string
	cmd := &cobra.Command{
		Use:   "sfmax-figure --out PREFIX [NAME=]RUN_DIR...",
		Short: "Figs. 12–17 from 'overlay sim' runs: tasks and computation finished against SF_max, references flat",
		Long: `sfmax-figure reads the summary.json of each run directory written by
'volsched overlay sim' (one policy, one network size): overlay runs at
several --sfmax and reference runs (--scheduler centralized or random). It
prints the table with each run's ratio to the centralized reference and
writes PREFIX.csv, PREFIX-tasks.svg and PREFIX-computation.svg (the
references as flat lines over the overlay's SF_max range). NAME=RUN_DIR
names a run's line (default: its scheduler).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out: missing (want a path prefix for PREFIX.csv and the SVG files)")
			}
			return sfmaxFigure(cmd.OutOrStdout(), out, args)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "path prefix of the CSV and SVG files (required)")
	overlayCmd.AddCommand(cmd)
}
