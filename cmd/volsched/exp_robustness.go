package main

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/whatif/robustness"
)

func init() {
	var f campaignFlags
	p := robustness.DefaultIndependent()
	var variants []string
	var traceFile, traceUnavailable string
	traceSlot := float64(robustness.TraceSlotSeconds)
	var names []string
	for _, v := range p.Variants {
		names = append(names, v.Name)
	}
	cmd := &cobra.Command{
		Use:   "robustness --out DIR",
		Short: "Robustness study (issue 18, beyond the papers): the §7 grid under semi-Markov and trace availability, heuristics believing a Markov chain",
		Long: `robustness re-runs the grid of §7 of "Scheduling Parallel Iterative
Applications on Volatile Resources" (the 17 heuristics; the same scenarios
as 'exp independent' for the same seed) under several availability models
while the heuristics believe a Markov chain (docs/robustness.md):

  markov            the papers' chains, drawn as 'exp independent' draws them
                    (this variant's results are that campaign's)
  markov-est        the same chains, the heuristics estimating them
  weibull*          semi-Markov with the chains' mean sojourns and jumps,
                    Weibull sojourns of shape 0.413 (seed 003 Table 1)
  lognormal*        the same with log-normal sojourns of σ = 2.419
  trace-ucb*        hosts of the synthetic UCB trace (seed 003's fit),
                    10-minute slots
  …-est, …-win100   the heuristics estimate the chains from 1000 slots of
                    history and the run (all of it, or the last 100
                    transitions; …-prior20: a prior 10 times stronger)

--trace FILE adds the hosts of a Failure Trace Archive event_trace.tab
(variants trace-user-est and trace-user-win100; its SHA-256 is recorded).
A unit is one scenario with all its trials and variants. When every unit is
done it writes DIR/summary.json and DIR/report.md (average dfb and rank of
every heuristic per variant, Kendall's τ against the markov variant and
Table 2, the change against markov, the paired change of the mean makespan
between beliefs on the same states) and prints them.

Variants: ` + strings.Join(names, ", "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			params := p
			if len(variants) > 0 {
				var vs []robustness.Variant
				for _, n := range variants {
					i := slices.IndexFunc(p.Variants, func(v robustness.Variant) bool { return v.Name == n })
					if i < 0 {
						return usagef("--variants: %q is not a variant (want some of %s)", n, strings.Join(names, ", "))
					}
					vs = append(vs, p.Variants[i])
				}
				params.Variants = vs
			}
			if traceFile != "" {
				a, err := robustness.TraceAvailability("trace-user", traceFile, traceSlot, traceUnavailable)
				if err != nil {
					return usagef("--trace: %v", err)
				}
				params.Availabilities = append(slices.Clone(params.Availabilities), a)
				params.Variants = append(slices.Clone(params.Variants),
					robustness.Variant{Name: "trace-user-est", Availability: a.Name, Beliefs: robustness.Beliefs{Refresh: robustness.DefaultRefresh}},
					robustness.Variant{Name: "trace-user-win100", Availability: a.Name, Beliefs: robustness.Beliefs{Window: 100, Refresh: robustness.DefaultRefresh}})
			}
			// Keep only the availabilities the variants use.
			var av []robustness.Availability
			for _, a := range params.Availabilities {
				if slices.ContainsFunc(params.Variants, func(v robustness.Variant) bool { return v.Availability == a.Name }) {
					av = append(av, a)
				}
			}
			params.Availabilities = av
			if err := params.Validate(); err != nil {
				return usageError{err}
			}
			if err := params.CheckTraces(); err != nil {
				return usageError{err}
			}
			return runCampaign(cmd.Context(), f, campaign[robustness.UnitResult]{
				Kind: robustness.KindIndependent, Units: params.Units(), Params: params,
				Work: func(ctx context.Context, unit int) (robustness.UnitResult, error) {
					return params.RunUnit(ctx, f.Seed, unit)
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	g := &p.Grid
	fl.IntVar(&g.Scenarios, "scenarios", g.Scenarios, "random scenarios per (n, n_com, w_min)")
	fl.IntVar(&g.Trials, "trials", g.Trials, "trials (availability realizations) per scenario and variant")
	fl.IntVar(&g.Iterations, "iterations", g.Iterations, "iterations per run")
	fl.IntVar(&g.P, "p", g.P, "processors")
	fl.IntSliceVar(&g.N, "n", g.N, "tasks per iteration (list)")
	fl.IntSliceVar(&g.NCom, "ncom", g.NCom, "simultaneous transfers of the master (list)")
	fl.IntSliceVar(&g.WMin, "wmin", g.WMin, "w_min values (list)")
	fl.StringSliceVar(&variants, "variants", nil, "run only these variants (comma-separated; the first is the reference of the τ columns)")
	fl.StringVar(&traceFile, "trace", "", "an FTA event_trace.tab whose hosts the workers replay (adds variants trace-user-est, trace-user-win100)")
	fl.Float64Var(&traceSlot, "trace-slot", traceSlot, "slot length (seconds) to cut --trace into")
	fl.StringVar(&traceUnavailable, "trace-unavailable", "down", "state of --trace's unavailable intervals: down or reclaimed")
	expCmd.AddCommand(cmd)
	registerSummarizer(robustness.KindIndependent, robustness.SummarizeIndependentDir)
	registerReproduction(reproduction{
		Name:  robustness.ReproductionName,
		Order: 500,
		Title: "issue 18 robustness study (beyond the papers): the §7 heuristics under semi-Markov and trace availability",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) error {
			return robustness.Reproduce(ctx, w, opt.Quick, opt.Seed, opt.OutDir)
		},
	})
}
