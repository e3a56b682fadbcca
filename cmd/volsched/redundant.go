package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/reproduction"
)

// labOptions are the options of the seed-003 laboratory figures.
type labOptions struct {
	figure  int
	out     string
	reps    int
	seed    uint64
	workers int
	quick   bool
	algos   []string
	moves   int
	step    float64 // figures 1, 2: sweep step (0: the default grid)
	ms      []int   // figure 3: host counts (nil: the default grid)
}

// runLabFigure computes a laboratory figure, writes DIR/figN.csv and
// DIR/figN.svg when out is set, and prints the table and the paper's claims
// to w.
func runLabFigure(ctx context.Context, w io.Writer, o labOptions) error {
	grid := redundant.PaperGrid(o.figure, o.quick)
	if o.step > 0 || len(o.ms) > 0 {
		def := redundant.PaperGrid(o.figure, o.quick)
		step := o.step
		if step <= 0 {
			step = 0.05
			if o.quick {
				step = 0.2
			}
		}
		ms := o.ms
		if len(ms) == 0 {
			ms = def.Ms
		}
		grid = redundant.Grid(o.figure, step, ms)
	}
	cfg := redundant.LabConfig{Algos: o.algos, Reps: o.reps, Seed: o.seed, Workers: o.workers,
		Anneal: redundant.AnnealOptions{MovesPerHost: o.moves}}
	if o.out != "" {
		pts, err := openLabPoints(o.out, labPointsHeader{Figure: o.figure, Seed: o.seed, Reps: o.reps,
			Algos: o.algos, MovesPerHost: o.moves})
		if err != nil {
			return err
		}
		defer pts.Close()
		cfg.Points = pts
	}
	prog := experiment.NewProgress(fmt.Sprintf("seed 003 figure %d", o.figure))
	reps, work := redundant.LabWork(o.figure, grid, o.reps)
	prog.StartWork(reps, 0, work, 0)
	cfg.Progress = func(n int, w float64) { prog.AddWork(n, w) }
	f, err := redundant.LabFigure(ctx, o.figure, grid, cfg)
	prog.Finish()
	if err != nil {
		return err
	}
	return reportFigure(w, f, o.out)
}

// reportFigure prints a figure's table and claims and writes its files.
func reportFigure(w io.Writer, f redundant.Figure, out string) error {
	fmt.Fprintf(w, "%s\nparameters: %s\n", f.Title, f.Params)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{f.XLabel}
	for _, s := range f.Series {
		head = append(head, s.Name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i, x := range f.X {
		row := []string{strconv.FormatFloat(x, 'g', 4, 64)}
		for _, s := range f.Series {
			row = append(row, fmt.Sprintf("%.4f", s.Y[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	if claims := redundant.PaperClaims(f); len(claims) > 0 {
		fmt.Fprintln(w, "\nthe paper's claims next to this run:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "claim\tpaper\tthis run")
		for _, c := range claims {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.What, c.Paper, c.Ours)
		}
		tw.Flush()
	}
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	header := []string{"x"}
	for _, s := range f.Series {
		header = append(header, s.Name, s.Name+" se")
	}
	var rows [][]string
	for i, x := range f.X {
		row := []string{strconv.FormatFloat(x, 'g', -1, 64)}
		for _, s := range f.Series {
			row = append(row, strconv.FormatFloat(s.Y[i], 'g', 8, 64), strconv.FormatFloat(s.SE[i], 'g', 4, 64))
		}
		rows = append(rows, row)
	}
	csvPath := filepath.Join(out, f.Name+".csv")
	if err := experiment.WriteCSVFile(csvPath, header, rows); err != nil {
		return err
	}
	var series []experiment.Series
	for _, s := range f.Series {
		series = append(series, experiment.Series{Name: s.Name, X: f.X, Y: s.Y})
	}
	svgPath := filepath.Join(out, f.Name+".svg")
	if err := experiment.LinePlot(svgPath, f.Title, f.XLabel, f.YLabel, series); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s\n", csvPath, svgPath)
	return nil
}

func parseAlgos(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.ToLower(strings.TrimSpace(a))
		ok := false
		for _, k := range redundant.Algorithms {
			ok = ok || k == a
		}
		if !ok {
			return nil, usagef("--algos: %q is not one of %s", a, strings.Join(redundant.Algorithms, ", "))
		}
		out = append(out, a)
	}
	return out, nil
}

func init() {
	var o labOptions
	var algos string
	var tr traceFigOptions
	cmd := &cobra.Command{
		Use:   "redundant",
		Short: "Seed 003 studies: laboratory Figures 1-3 (GDFN) and trace-driven Figure 4",
		Long: `redundant runs the studies of seed 003 (Wingstrom & Casanova) and prints
each figure's table next to the paper's claims; with --out DIR it writes
DIR/figN.csv (mean and standard error of each curve) and DIR/figN.svg.

  --figure 1   success probability vs σ, 9 tasks on 24 hosts, µ ∈ {0.151, 0.556}
  --figure 2   success probability vs µ, 9 tasks on 37 hosts, σ = 0.3
  --figure 3   n/m reachable at R0 ∈ {0.4, 0.8} vs m, µ = 0.5, σ = 0.3
  --figure 4   trace-driven success vs grid size, n/m ≈ 0.6, on synthetic
               UCB and Entropia traces (or --trace FILE, FTA event_trace.tab)

Each point of Figures 1-3 averages --reps instances (the paper: 2,000).
With --out DIR, Figures 1-3 write each finished point to DIR/figN-points.jsonl
as soon as it is computed; an interrupted run started again with the same
--out and the same --seed, --reps, --algos and --moves-per-host skips the
points already there (another configuration is refused, naming the field).
Figure 4 is recomputed from the start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.figure < 1 || o.figure > 4 {
				return usagef("--figure %d: want 1, 2, 3 or 4", o.figure)
			}
			if o.reps < 1 || o.reps > redundant.MaxReps {
				return usagef("--reps %d: want 1 to %d", o.reps, redundant.MaxReps)
			}
			if cmd.Flags().Changed("step") && !(o.step >= redundant.MinStep && o.step <= 1) {
				return usagef("--step %v: want a step in [%g, 1] (at most %d points per curve)", o.step, redundant.MinStep, int(1/redundant.MinStep)+1)
			}
			for _, m := range o.ms {
				if m < 2 || m > redundant.MaxHosts {
					return usagef("--ms: %d hosts, want 2 to %d", m, redundant.MaxHosts)
				}
			}
			if o.moves < 0 || o.moves > redundant.MaxMovesPerHost {
				return usagef("--moves-per-host %d: want a number from 0 (the default, 300) to %d", o.moves, redundant.MaxMovesPerHost)
			}
			if o.workers < 1 || o.workers > redundant.MaxWorkers {
				return usagef("--workers %d: want 1 to %d", o.workers, redundant.MaxWorkers)
			}
			var err error
			if o.algos, err = parseAlgos(algos); err != nil {
				return err
			}
			if !(tr.sabC >= 0) || math.IsInf(tr.sabC, 0) {
				return usagef("--sab-c %v: want a finite number >= 0", tr.sabC)
			}
			if o.figure == 4 {
				tr.lab = o
				return runTraceFigure(cmd.Context(), cmd.OutOrStdout(), tr)
			}
			return runLabFigure(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.figure, "figure", 0, "figure to reproduce: 1, 2, 3 or 4")
	f.StringVar(&o.out, "out", "", "directory for figN.csv and figN.svg")
	f.IntVar(&o.reps, "reps", 2000, "repetitions per point (figure 4: allocation times per point)")
	f.Uint64Var(&o.seed, "seed", 1, "seed; the same seed gives the same numbers")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "worker goroutines (results do not depend on it)")
	f.BoolVar(&o.quick, "quick", false, "coarser grid")
	f.StringVar(&algos, "algos", "ea,epb,ppb,gls", "algorithms (figure 4 adds sab)")
	f.IntVar(&o.moves, "moves-per-host", 0, "annealing proposals per host (default 300)")
	f.Float64Var(&o.step, "step", 0, "figures 1 and 2: step of the σ or µ sweep over [0, 1] (default 0.05, 0.2 with --quick)")
	f.IntSliceVar(&o.ms, "ms", nil, "figure 3: host counts m (default 10,20,...,100; 10,40 with --quick)")
	f.StringVar(&tr.traceFile, "trace", "", "figure 4: an FTA event_trace.tab to use instead of the synthetic traces")
	f.Float64Var(&tr.taskSize, "task-size", 0, "figure 4 with --trace: task size in seconds of availability (required with --trace)")
	f.Float64Var(&tr.sabC, "sab-c", 0, "figure 4: SAB's constant C of Eq. 7, in operations (default: the longest availability interval of the trace)")
	expCmd.AddCommand(cmd)

	registerReproduction(reproduction.Reproduction{
		Name:    "redundant",
		Resumes: true,
		Order:   300,
		Title:   "seed 003: laboratory Figures 1-3 (reduced: 200 reps, coarse grids) and trace-driven Figure 4 on synthetic traces",
		Run: printsOnly(func(ctx context.Context, w io.Writer, opt reproduceOptions) error {
			reps := 2000
			if opt.Quick {
				reps = 200
			}
			for fig := 1; fig <= 3; fig++ {
				o := labOptions{figure: fig, reps: reps, seed: opt.Seed, workers: runtime.NumCPU(), quick: opt.Quick,
					algos: []string{"ea", "epb", "ppb", "gls"}, out: opt.OutDir}
				if fig == 3 && opt.Quick {
					o.reps = 50
				}
				fmt.Fprintln(w)
				if err := runLabFigure(ctx, w, o); err != nil {
					return err
				}
			}
			fmt.Fprintln(w)
			tr := traceFigOptions{lab: labOptions{figure: 4, reps: reps, seed: opt.Seed, workers: runtime.NumCPU(), quick: opt.Quick,
				algos: []string{"ea", "epb", "ppb", "gls"}, out: opt.OutDir}}
			return runTraceFigure(ctx, w, tr)
		}),
	})
}
