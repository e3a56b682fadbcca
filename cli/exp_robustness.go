package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/whatif/robustness"
)

func init() {
	var f campaignFlags
	pi, pc := robustness.DefaultIndependent(), robustness.DefaultCoupled()
	var variants []string
	var model, traceFile, traceUnavailable string
	traceSlot := float64(robustness.TraceSlotSeconds)
	var g struct {
		p, scenarios, trials, iterations, capV int
		n, m, ncom, wmin                       []int
		heuristics                             []string
	}
	var names []string
	for _, v := range pi.Variants {
		names = append(names, v.Name)
	}
	cmd := &cobra.Command{
		Use:   "robustness --out DIR",
		Short: "Robustness study (issue 18, beyond the papers): the §7 / §VII.A grids under semi-Markov and trace availability, heuristics believing a Markov chain",
		Long: `robustness re-runs the grid of §7 of "Scheduling Parallel Iterative
Applications on Volatile Resources" (--model independent, the default: the
17 heuristics of seed 001, the same scenarios as 'exp independent' for the
same seed) or of §VII.A of "Mapping Tightly-Coupled Applications on Volatile
Resources" (--model coupled: seed 002's 17 heuristics, the scenarios of 'exp
coupled') under several availability models while the heuristics believe a
Markov chain (docs/robustness.md):

  markov            the papers' chains, drawn as the campaign draws them
                    (this variant's results are the campaign's)
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
done it writes DIR/summary.json and DIR/report.md (the score of every
heuristic per variant — seed 001's average dfb, seed 002's %diff against
IE — with its rank, Kendall's τ against the markov variant and the paper's
table, the change against markov, the paired change of the mean makespan
between beliefs on the same states) and prints them.

Grid flags left unset keep the paper's grid of the model.

Variants: ` + strings.Join(names, ", "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			var av []robustness.Availability
			var vs []robustness.Variant
			switch model {
			case "independent":
				gr := &pi.Grid
				setInt(fl, "p", &gr.P, g.p)
				setInt(fl, "scenarios", &gr.Scenarios, g.scenarios)
				setInt(fl, "trials", &gr.Trials, g.trials)
				setInt(fl, "iterations", &gr.Iterations, g.iterations)
				setInts(fl, "n", &gr.N, g.n)
				setInts(fl, "ncom", &gr.NCom, g.ncom)
				setInts(fl, "wmin", &gr.WMin, g.wmin)
				gr.Heuristics = g.heuristics
				if fl.Changed("m") || fl.Changed("cap") {
					return usagef("--m and --cap are for --model coupled (independent tasks: --n)")
				}
				av, vs = pi.Availabilities, pi.Variants
			case "coupled":
				gr := &pc.Grid
				setInt(fl, "p", &gr.P, g.p)
				setInt(fl, "scenarios", &gr.Scenarios, g.scenarios)
				setInt(fl, "trials", &gr.Trials, g.trials)
				setInt(fl, "iterations", &gr.Iterations, g.iterations)
				setInt(fl, "cap", &gr.Cap, g.capV)
				setInts(fl, "m", &gr.Tasks, g.m)
				setInts(fl, "ncom", &gr.NCom, g.ncom)
				setInts(fl, "wmin", &gr.WMin, g.wmin)
				gr.Heuristics = g.heuristics
				if fl.Changed("n") {
					return usagef("--n is for --model independent (tightly-coupled tasks: --m)")
				}
				av, vs = pc.Availabilities, pc.Variants
			default:
				return usagef("--model %q: want independent or coupled", model)
			}
			if len(variants) > 0 {
				var sel []robustness.Variant
				for _, n := range variants {
					i := slices.IndexFunc(vs, func(v robustness.Variant) bool { return v.Name == n })
					if i < 0 {
						return usagef("--variants: %q is not a variant (want some of %s)", n, strings.Join(names, ", "))
					}
					sel = append(sel, vs[i])
				}
				vs = sel
			}
			if traceFile != "" {
				a, err := robustness.TraceAvailability("trace-user", traceFile, traceSlot, traceUnavailable)
				if err != nil {
					return usagef("--trace: %v", err)
				}
				av = append(slices.Clone(av), a)
				vs = append(slices.Clone(vs),
					robustness.Variant{Name: "trace-user-est", Availability: a.Name, Beliefs: robustness.Beliefs{Refresh: robustness.DefaultRefresh}},
					robustness.Variant{Name: "trace-user-win100", Availability: a.Name, Beliefs: robustness.Beliefs{Window: 100, Refresh: robustness.DefaultRefresh}})
			}
			// Keep only the availabilities the variants use.
			var used []robustness.Availability
			for _, a := range av {
				if slices.ContainsFunc(vs, func(v robustness.Variant) bool { return v.Availability == a.Name }) {
					used = append(used, a)
				}
			}
			if model == "coupled" {
				params := pc
				params.Availabilities, params.Variants = used, vs
				params.Grid.Normalize()
				return runRobustness(cmd, f, robustness.KindCoupled, &params)
			}
			params := pi
			params.Availabilities, params.Variants = used, vs
			return runRobustness(cmd, f, robustness.KindIndependent, &params)
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	fl.StringVar(&model, "model", "independent", "independent (seed 001 §7) or coupled (seed 002 §VII.A)")
	fl.IntVar(&g.scenarios, "scenarios", 0, "random scenarios per grid point (default: the paper's)")
	fl.IntVar(&g.trials, "trials", 0, "trials (availability realizations) per scenario and variant (default: the paper's)")
	fl.IntVar(&g.iterations, "iterations", 0, "iterations per run (default: 10)")
	fl.IntVar(&g.p, "p", 0, "processors (default: 20)")
	fl.IntSliceVar(&g.n, "n", nil, "independent: tasks per iteration (list; default 5,10,20,40)")
	fl.IntSliceVar(&g.m, "m", nil, "coupled: tasks per iteration (list; default 5,10)")
	fl.IntVar(&g.capV, "cap", 0, "coupled: makespan limit in slots, reaching it is a failure (default 1,000,000)")
	fl.IntSliceVar(&g.ncom, "ncom", nil, "simultaneous transfers of the master (list; default 5,10,20)")
	fl.IntSliceVar(&g.wmin, "wmin", nil, "w_min values (list; default 1..10)")
	fl.StringSliceVar(&g.heuristics, "heuristics", nil, "run these heuristics of the model (comma-separated names, any registered: 'volsched simulate --list-heuristics'; coupled: IE among them) instead of its paper's 17")
	fl.StringSliceVar(&variants, "variants", nil, "run only these variants (comma-separated; the first is the reference of the τ columns)")
	fl.StringVar(&traceFile, "trace", "", "an FTA event_trace.tab whose hosts the workers replay (adds variants trace-user-est, trace-user-win100)")
	fl.Float64Var(&traceSlot, "trace-slot", traceSlot, "slot length (seconds) to cut --trace into")
	fl.StringVar(&traceUnavailable, "trace-unavailable", "down", "state of --trace's unavailable intervals: down or reclaimed")
	expCmd.AddCommand(cmd)
	registerSummarizer(robustness.KindIndependent, robustness.SummarizeIndependentDir)
	registerSummarizer(robustness.KindCoupled, robustness.SummarizeCoupledDir)
	registerReproduction(reproduction.Reproduction{
		Name:    robustness.ReproductionName,
		Resumes: true,
		Order:   500,
		Title:   "Robustness study (beyond the papers): the heuristics of Scheduling Parallel Iterative Applications on Volatile Resources §7 and Mapping Tightly-Coupled Applications on Volatile Resources §VII.A under semi-Markov and trace availability",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
			return sectionOf(robustness.Reproduce(ctx, w, opt.Quick, opt.Seed, opt.OutDir))
		},
		Results: robustness.ResultsSection,
	})
}

// flagChanged reports whether a flag was given (cobra's FlagSet.Changed).
type flagChanged interface{ Changed(string) bool }

// setInt sets *dst to v when the flag was given.
func setInt(fl flagChanged, name string, dst *int, v int) {
	if fl.Changed(name) {
		*dst = v
	}
}

// setInts sets *dst to v when the flag was given.
func setInts(fl flagChanged, name string, dst *[]int, v []int) {
	if fl.Changed(name) {
		*dst = v
	}
}

// robustnessParams are the parameters of either model's robustness
// campaign (IndependentParams, CoupledParams) with unit results R.
type robustnessParams[R any] interface {
	Validate() error
	CheckTraces() error
	Units() int
	RunUnit(ctx context.Context, seed uint64, u int) (R, error)
}

// runRobustness checks params (usage errors) and runs their campaign of
// kind in f.Out.
func runRobustness[R any](cmd *cobra.Command, f campaignFlags, kind string, params robustnessParams[R]) error {
	if err := params.Validate(); err != nil {
		return usageError{err}
	}
	if err := params.CheckTraces(); err != nil {
		return usageError{err}
	}
	return runCampaign(cmd.Context(), f, campaign[R]{
		Kind: kind, Units: params.Units(), Params: params,
		Work: func(ctx context.Context, unit int) (R, error) {
			return params.RunUnit(ctx, f.Seed, unit)
		},
	}, cmd.OutOrStdout(), cmd.ErrOrStderr())
}
