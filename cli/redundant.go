package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/redundant"
	rcampaign "github.com/volsched/volsched/redundant/campaign"
	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/trace"
)

// parseAlgos parses --algos, a comma-separated list of the names
// redundant.ParseAlgorithm accepts (the paper's EA, PPB, EPB, SAB, in any
// case, and GLS, exact).
func parseAlgos(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		p, err := redundant.ParseAlgorithm(a)
		if err != nil {
			return nil, usagef("--algos: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// runTraceFigure checks the options, reads the user's trace, if any, and
// runs Figure 4.
func runTraceFigure(ctx context.Context, w io.Writer, o rcampaign.TraceOptions, traceFile string) error {
	if traceFile != "" && o.TaskSize == 0 {
		return usagef("--task-size: required with --trace (a finite task size > 0, in seconds of availability)")
	}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	if traceFile != "" {
		data, source, err := readInput(traceFile, os.Stdin)
		if err != nil {
			return err
		}
		tr, err := trace.ReadFTA(bytes.NewReader(data), source)
		if err != nil {
			return err
		}
		o.Trace, o.TraceSource = tr, source
	}
	_, err := rcampaign.RunTrace(ctx, w, o)
	return err
}

func init() {
	var o rcampaign.LabOptions
	var algos, traceFile string
	var tr rcampaign.TraceOptions
	cmd := &cobra.Command{
		Use:   "redundant",
		Short: "Seed 003 studies: laboratory Figures 1-3 (GDFN) and trace-driven Figure 4",
		Long: `redundant runs the studies of seed 003 (Wingstrom & Casanova) and prints
each figure's table next to the paper's claims; with --out DIR it writes
DIR/figN.csv (mean and standard error of each curve) and the figure as
DIR/figN.svg and DIR/figN.png.

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
			if o.Figure < 1 || o.Figure > 4 {
				return usagef("--figure %d: want 1, 2, 3 or 4", o.Figure)
			}
			var err error
			if o.Algos, err = parseAlgos(algos); err != nil {
				return err
			}
			if o.Figure == 4 {
				tr.Lab = o
				return runTraceFigure(cmd.Context(), cmd.OutOrStdout(), tr, traceFile)
			}
			if err := o.Validate(); err != nil {
				return usageError{err}
			}
			_, err = rcampaign.RunLab(cmd.Context(), cmd.OutOrStdout(), o)
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Figure, "figure", 0, "figure to reproduce: 1, 2, 3 or 4")
	f.StringVar(&o.Out, "out", "", "directory for figN.csv, figN.svg and figN.png")
	f.IntVar(&o.Reps, "reps", 2000, "repetitions per point (figure 4: allocation times per point)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed; the same seed gives the same numbers")
	f.IntVar(&o.Workers, "workers", runtime.NumCPU(), "worker goroutines, 0 for one per CPU (results do not depend on it)")
	f.BoolVar(&o.Quick, "quick", false, "coarser grid")
	f.StringVar(&algos, "algos", "ea,epb,ppb,gls", "algorithms, as the paper names them (EA, PPB, EPB, SAB) or GLS, exact; SAB needs hosts' ages: figure 4 only, which adds it anyway")
	f.IntVar(&o.MovesPerHost, "moves-per-host", 0, "annealing proposals per host (default 300)")
	f.Float64Var(&o.Step, "step", 0, "figures 1 and 2: step of the σ or µ sweep over [0, 1] (default 0.05, 0.2 with --quick)")
	f.IntSliceVar(&o.Ms, "ms", nil, "figure 3: host counts m (default 10,20,...,100; 10,40 with --quick)")
	f.StringVar(&traceFile, "trace", "", "figure 4: an FTA event_trace.tab to use instead of the synthetic traces")
	f.Float64Var(&tr.TaskSize, "task-size", 0, "figure 4 with --trace: task size in seconds of availability (required with --trace)")
	f.Float64Var(&tr.SABC, "sab-c", 0, "figure 4: SAB's constant C of Eq. 7, in operations (default: the longest availability interval of the trace)")
	expCmd.AddCommand(cmd)

	registerReproduction(reproduction.Reproduction{
		Name:    "exp-redundant",
		Aliases: []string{"redundant"},
		Resumes: true,
		Order:   300,
		Title:   "Probabilistic Allocation of Tasks on Desktop Grids §3-4: laboratory Figures 1-3 (reduced: 200 reps, coarse grids) and trace-driven Figure 4 on synthetic traces",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
			return sectionOf(rcampaign.Reproduce(ctx, w, opt.Seed, opt.Quick, opt.OutDir))
		},
		Results: rcampaign.ResultsSection,
	})
}
