package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	itercampaign "github.com/volsched/volsched/iterative/campaign"
	"github.com/volsched/volsched/reproduction"
)

func init() {
	var f campaignFlags
	p := itercampaign.PaperParams()
	cmd := &cobra.Command{
		Use:   "independent --out DIR",
		Short: "Scheduling Parallel Iterative Applications on Volatile Resources §7: the 17 heuristics on the Table 1 grid (Table 2, Figure 2)",
		Long: `independent runs the campaign of §7 of "Scheduling Parallel Iterative
Applications on Volatile Resources" (Casanova, Dufossé, Robert, Vivien): p
processors with random 3-state Markov availability, for every (n, n_com,
w_min) of Table 1 a number of random scenarios (w_q uniform in
w_min..10·w_min, T_data = w_min, T_prog = 5·w_min) and of trials
(availability realizations, shared by the 17 heuristics), 10 iterations
each; the makespan of every heuristic on every instance. A unit is one
scenario with all its trials.

When every unit is done it writes DIR/summary.json (average dfb and wins per
heuristic as §7 defines them), DIR/makespans.csv (one row per instance),
DIR/figure2.csv and DIR/figure2.svg (average dfb versus w_min), and prints
the table next to the paper's Table 2.

The model choices the paper leaves open are flags (docs/model-001.md).
--heuristics runs other heuristics than the 17 of §6, a program's own
included (docs/extending.md); results are keyed by the heuristics' names.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := p.Validate(); err != nil {
				return usageError{err}
			}
			params := p
			return runCampaign(cmd.Context(), f, campaign[itercampaign.UnitResult]{
				Kind: itercampaign.Kind, Units: params.Units(), Params: params,
				Work: func(ctx context.Context, unit int) (itercampaign.UnitResult, error) {
					return params.RunUnit(ctx, f.Seed, unit)
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	fl.IntVar(&p.Scenarios, "scenarios", p.Scenarios, "random scenarios per (n, n_com, w_min)")
	fl.IntVar(&p.Trials, "trials", p.Trials, "trials (availability realizations) per scenario")
	fl.IntVar(&p.Iterations, "iterations", p.Iterations, "iterations per run")
	fl.IntVar(&p.P, "p", p.P, "processors")
	fl.IntSliceVar(&p.N, "n", p.N, "tasks per iteration (list)")
	fl.IntSliceVar(&p.NCom, "ncom", p.NCom, "simultaneous transfers of the master (list)")
	fl.IntSliceVar(&p.WMin, "wmin", p.WMin, "w_min values (list)")
	fl.StringVar(&p.Channels, "channels", p.Channels, "which waiting transfer gets a free channel: fifo or index")
	fl.StringVar(&p.Order, "order", p.Order, "order of events in a slot: observe-decide or decide-observe")
	fl.BoolVar(&p.HoldReclaimed, "hold-reclaimed", p.HoldReclaimed, "a suspended transfer keeps its channel while its receiver is RECLAIMED")
	fl.IntVar(&p.ExtraReplicas, "replicas", p.ExtraReplicas, "maximum additional replicas of a task")
	fl.StringVar(&p.Initial, "initial", p.Initial, "initial processor states: stationary or up")
	fl.BoolVar(&p.Sticky, "sticky", p.Sticky, "queued tasks stay on their processor instead of being reassigned at every slot (not the paper's reading)")
	fl.StringSliceVar(&p.Heuristics, "heuristics", nil, "run these heuristics (comma-separated names, at least 2, any registered: 'volsched simulate --list-heuristics'; quote names with *) instead of the 17 of §6")
	expCmd.AddCommand(cmd)
	registerSummarizer(itercampaign.Kind, itercampaign.SummarizeDir)
	registerReproduction(reproduction.Reproduction{
		Name:    itercampaign.ReproductionName,
		Aliases: []string{"table2-001"},
		Resumes: true,
		Order:   30,
		Title:   "Scheduling Parallel Iterative Applications on Volatile Resources §7: Table 2 (average dfb and wins of the 17 heuristics) and Figure 2",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
			return itercampaign.Reproduce(ctx, w, opt.Quick, opt.Seed, opt.OutDir)
		},
		Results: itercampaign.ResultsSection,
	})
}
