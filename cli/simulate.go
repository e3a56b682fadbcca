package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/whatif"
	"github.com/volsched/volsched/whatif/simulate"
)

func init() {
	var platform, app, heuristics, out string
	var list bool
	opt := simulate.Options{Trials: 100, Seed: 1}
	cmd := &cobra.Command{
		Use:   "simulate --platform P --app A | --list-heuristics",
		Short: "What-if: every heuristic on your platform and application, with confidence intervals and a recommendation",
		Long: `simulate runs the heuristics of the application's model (seed 001's 17 for
independent tasks) on the platform described by --platform, for the
application described by --app (file formats: docs/whatif.md; examples in
examples/whatif/). Every heuristic runs on the same --trials availability
realizations (common random numbers); the heuristics believe the chains their
master estimates from what it has seen (the platform's "estimator").

It prints, per heuristic, the makespan's mean with a 95 % confidence
interval, median and 90th percentile, the paired difference to the best
heuristic with its 95 % interval (paired t over the trials) and whether it is
significant, and a recommendation that says when differences are not
significant. --predict adds the model's E(W)-based estimate of each
heuristic's makespan (docs/whatif.md gives its formula). --out DIR writes
DIR/simulate.json and DIR/makespans.svg (each heuristic's mean makespan with
its 95 % interval, the recommendation marked).

--list-heuristics prints every heuristic of both models (the papers' and any
this program registered) with its family, how it decides and what it does:
what EMCT*, RANDOM3W, P-IE or E-IAY in the output mean (docs/whatif.md has
the same tables for the built-in ones).

The results depend only on the files, --heuristics, --trials and --seed, not
on --workers. Ctrl-C stops after the runs in flight and prints the trials
done so far (exit status 1); a second Ctrl-C stops at once.

Example (from the repository's root):
  volsched simulate --platform examples/whatif/platform.json --app examples/whatif/independent.json --trials 100 --out whatif-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if list {
				if platform != "" || app != "" {
					return usagef("--list-heuristics lists the heuristics and runs nothing: no --platform or --app with it")
				}
				return simulate.WriteHeuristics(cmd.OutOrStdout(), simulate.IterativeInfo(iterative.Heuristics()), simulate.CoupledInfo(coupled.Heuristics()), false)
			}
			if platform == "" || app == "" {
				return usagef("--platform and --app are required: the platform and application files (docs/whatif.md)")
			}
			if opt.Trials < 2 || opt.Trials > simulate.MaxTrials {
				return usagef("--trials %d: want 2..%d (a confidence interval needs at least 2)", opt.Trials, simulate.MaxTrials)
			}
			if opt.Workers < 0 {
				return usagef("--workers %d: want ≥ 1, or 0 for one per CPU", opt.Workers)
			}
			opt.Heuristics = nil
			if h := strings.TrimSpace(heuristics); h != "all" {
				for _, n := range strings.Split(h, ",") {
					if n = strings.TrimSpace(n); n == "" {
						return usagef("--heuristics %q: an empty name; want all or a comma-separated list such as EMCT,EMCT*,UD*", heuristics)
					}
					opt.Heuristics = append(opt.Heuristics, n)
				}
			}
			p, a, err := loadWhatif(platform, app)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			opt.Progress = experiment.NewProgress("simulate")
			stop := watchSecondSignal(cmd.Context(), stderr)
			res, err := simulate.Run(cmd.Context(), p, a, opt)
			stop()
			if err != nil && !(errors.Is(err, simulate.ErrInterrupted) && res != nil) {
				if strings.HasPrefix(err.Error(), "heuristic ") {
					return usageError{fmt.Errorf("--heuristics: %w", err)}
				}
				return err
			}
			w := cmd.OutOrStdout()
			if res.Partial {
				fmt.Fprintf(w, "INTERRUPTED: the summary covers the %d trials that finished, of %d asked.\n", res.Trials, res.TrialsAsked)
			}
			if werr := res.WriteText(w); werr != nil {
				return werr
			}
			if out != "" {
				files, werr := res.WriteFiles(out)
				if werr != nil {
					return werr
				}
				fmt.Fprintf(stderr, "wrote %s\n", strings.Join(files, ", "))
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&platform, "platform", "", "platform file (JSON, docs/whatif.md); trace files are read relative to it")
	fl.StringVar(&app, "app", "", "application file (JSON, docs/whatif.md)")
	fl.StringVar(&heuristics, "heuristics", "all", "all, or a comma-separated list of the model's heuristic names (quote names with *: 'EMCT,EMCT*'; --list-heuristics says what each does)")
	fl.BoolVar(&list, "list-heuristics", false, "print every heuristic of both models (name, family, how it decides, what it does) and exit")
	fl.IntVar(&opt.Trials, "trials", opt.Trials, "availability realizations, each run by every heuristic (≥ 2)")
	fl.Uint64Var(&opt.Seed, "seed", opt.Seed, "seed: the same seed gives the same numbers")
	fl.IntVar(&opt.Workers, "workers", 0, "goroutines running trials (0: one per CPU); the results do not depend on it")
	fl.BoolVar(&opt.Predict, "predict", false, "also print the model's E(W)-based estimate of each heuristic's makespan")
	fl.StringVar(&out, "out", "", "directory for simulate.json and makespans.svg (none written when empty)")
	rootCmd.AddCommand(cmd)
}

// loadWhatif reads and checks a platform file (with its traces, read
// relative to it) and an application file.
func loadWhatif(platform, app string) (*whatif.Platform, *whatif.Application, error) {
	data, err := os.ReadFile(platform)
	if err != nil {
		return nil, nil, fmt.Errorf("--platform: %w", err)
	}
	p, err := whatif.ParsePlatform(data, platform)
	if err != nil {
		return nil, nil, err
	}
	if err := p.LoadTraces(whatif.DirReader(filepath.Dir(platform))); err != nil {
		return nil, nil, err
	}
	data, err = os.ReadFile(app)
	if err != nil {
		return nil, nil, fmt.Errorf("--app: %w", err)
	}
	a, err := whatif.ParseApplication(data, app)
	if err != nil {
		return nil, nil, err
	}
	return p, a, nil
}
