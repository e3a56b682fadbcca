package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	coupledcampaign "github.com/volsched/volsched/coupled/campaign"
	"github.com/volsched/volsched/reproduction"
)

func init() {
	var f campaignFlags
	var partial bool
	c := coupledcampaign.PaperCampaign()
	cmd := &cobra.Command{
		Use:   "coupled --out DIR",
		Short: "Mapping Tightly-Coupled Applications on Volatile Resources §VII.A: the 17 heuristics (Tables I and II, Figure 2)",
		Long: `coupled runs the campaign of §VII.A of "Mapping Tightly-Coupled Applications
on Volatile Resources" (Casanova, Dufossé, Robert, Vivien): p processors with
chains from the papers' generator, w_q uniform in w_min…10·w_min, T_data = w_min,
T_prog = 5·w_min; for every (m, n_com, w_min), --scenarios scenarios of
--trials trials; each trial runs the 17 heuristics on the same availability
realization until --iterations iterations complete or the makespan reaches
--cap slots (a failure). One unit is one scenario.

DIR/summary.json holds the metrics of §VII.A per heuristic (#fails, %diff
against IE, %wins, %wins30, stdv) pooled and per m, and the points of
Figure 2; DIR/figure2.csv and DIR/figure2-m<M>.svg plot %diff against w_min.
The tables are printed next to the paper's Tables I (m = 5) and II (m = 10).

--form conditional uses the expectation conditioned on success for E(S)(W)
instead of Theorem 5.1 as published (docs/reproduction-002.md).

--heuristics runs other heuristics than the 17 of §VI, a program's own
included (docs/extending.md); results are keyed by the heuristics' names.

The paper's campaign is the default: 6,000 instances × 17 heuristics, about
7,000 CPU-seconds (an hour on two idle cores; docs/benchmarks.md).

A quick look, about 2 CPU-seconds (both tables, every n_com, w_min 1 and 2,
48 instances):
  volsched exp coupled --wmin 1,2 --scenarios 2 --trials 2 --out /tmp/y
The whole grid with one scenario of two trials (--scenarios 1 --trials 2,
120 instances) takes 110 to 230 CPU-seconds: a minute and a half on two idle
cores, 3 to 8 minutes when they are shared with other work.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if partial {
				if f.Out == "" {
					return usagef("--partial-summary needs --out DIR, the campaign directory")
				}
				return coupledcampaign.SummarizePartial(append([]string{f.Out}, args...), cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if len(args) > 0 {
				return usagef("exp coupled: unexpected arguments %q (directories are only read with --partial-summary)", args)
			}
			c.Normalize() // a default spelled out: the same manifest as without the flag
			if err := c.Validate(); err != nil {
				return usagef("exp coupled: %v", err)
			}
			params := c
			seed := f.Seed
			return runCampaign(cmd.Context(), f, campaign[coupledcampaign.UnitResult]{
				Kind:   coupledcampaign.Kind,
				Units:  params.Units(),
				Params: params,
				Work: func(ctx context.Context, u int) (coupledcampaign.UnitResult, error) {
					return params.RunUnit(ctx, seed, u)
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	fl.IntVar(&c.P, "p", c.P, fmt.Sprintf("number of processors (2..%d)", coupledcampaign.MaxProcessors))
	fl.IntSliceVar(&c.Tasks, "m", c.Tasks, "tasks per iteration (list)")
	fl.IntSliceVar(&c.NCom, "ncom", c.NCom, "master's simultaneous communications (list)")
	fl.IntSliceVar(&c.WMin, "wmin", c.WMin, "w_min values (list)")
	fl.IntVar(&c.Scenarios, "scenarios", c.Scenarios, "scenarios per (m, ncom, wmin)")
	fl.IntVar(&c.Trials, "trials", c.Trials, "trials per scenario")
	fl.IntVar(&c.Iterations, "iterations", c.Iterations, "iterations to complete")
	fl.IntVar(&c.Cap, "cap", c.Cap, "makespan limit in slots; reaching it is a failure")
	fl.StringVar(&c.Form, "form", c.Form, "E(S)(W): published (Theorem 5.1) or conditional")
	fl.StringVar(&c.Rebuild, "rebuild", "", "how a proactive heuristic builds and measures a new configuration: holdings (default: with the data held), fresh (as at the iteration start, no task data) or scratch (fresh, and a switch re-sends every member's task data); docs/model-002.md")
	fl.IntVar(&c.Mu, "mu", 0, "bound μ on the tasks of every processor (0: unbounded, the default; §III.C)")
	fl.StringVar(&c.Reclaimed, "reclaimed", "", "how a proactive heuristic values a running configuration with a RECLAIMED member: asup (default: §V's all-UP estimates), wait (chance and time of the member's return), replace (no estimate: replaced), together (chance and time of all members UP together again before any goes DOWN); docs/model-002.md")
	fl.StringVar(&c.Random, "random", "", "RANDOM's draw: tasks (default: each task to a uniformly drawn UP processor) or distinct (to different processors while possible)")
	fl.StringSliceVar(&c.Heuristics, "heuristics", nil, "run these heuristics (comma-separated names, IE among them, any registered: 'volsched simulate --list-heuristics') instead of the 17 of §VI")
	fl.BoolVar(&partial, "partial-summary", false, "summarize the finished units of the (unfinished) campaign in --out, and of the campaign directories given as arguments, into --out's partial-summary.json, partial-figure2.*; print the tables; runs nothing")
	expCmd.AddCommand(cmd)
	registerSummarizer(coupledcampaign.Kind, func(ctx context.Context, dir string, w io.Writer) error {
		return coupledcampaign.SummarizeDir(dir, w, os.Stderr)
	})
	registerReproduction(reproduction.Reproduction{
		Name:    coupledcampaign.ReproductionName,
		Aliases: []string{"tables-002"},
		Order:   40,
		Title:   "Mapping Tightly-Coupled Applications on Volatile Resources §VII.A: Tables I and II (17 heuristics) and Figure 2",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
			return coupledcampaign.Reproduce(ctx, w, opt.Seed, opt.Quick, opt.OutDir)
		},
		Results: coupledcampaign.ResultsSection,
	})
}
