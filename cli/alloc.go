package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/stream"
)

// phaseProgress shows a long allocation's progress on standard error
// (experiment.Progress: a redrawn line on a terminal, a line every 30 s in
// a log), one phase after the other.
type phaseProgress struct {
	label string
	phase string
	total int64
	p     *experiment.Progress
	done  int64
}

func newPhaseProgress(label string) *phaseProgress { return &phaseProgress{label: label} }

func (pp *phaseProgress) report(phase string, done, total int64) {
	if pp.p == nil || phase != pp.phase || total != pp.total {
		pp.p.Finish()
		pp.phase, pp.total, pp.done = phase, total, 0
		pp.p = experiment.NewProgress(pp.label + " " + phase)
		pp.p.Start(int(total), 0)
	}
	pp.p.Add(int(done - pp.done))
	pp.done = done
}

func (pp *phaseProgress) finish() { pp.p.Finish() }

// parseFloats parses "a,b" into exactly k numbers for flag name.
func parseFloats(flag, s string, k int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != k {
		return nil, usagef("--%s %q: want %d comma-separated numbers", flag, s, k)
	}
	v := make([]float64, k)
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, usagef("--%s %q: %q is not a number", flag, s, p)
		}
		v[i] = x
	}
	return v, nil
}

func init() {
	var algo, probs, gdfn string
	var tasks, hosts int
	var seed uint64
	var moves int
	var maxNodes int64
	cmd := &cobra.Command{
		Use:   "alloc",
		Short: "Allocate replicas of n identical tasks to volatile hosts (seed 003: EA, PPB, EPB, SAB, GLS, exact)",
		Long: `alloc solves REDUNDANTTASKALLOC (seed 003): give each host one task so that
the probability R_sys that every task has a replica that completes is as
large as possible (Eq. 2).

The hosts' failure probabilities come from --probs FILE (JSON; '-' reads
standard input):
  {"p": [p_1, ..., p_m]}                                  given directly
  {"ages": [...], "size": t, "dist": {"name": "lognormal", "params": [mu, sigma]}}
                                                          Eq. 3 (exponential [rate],
                                                          weibull [shape, scale], lognormal [mu, sigma])
  {"ages": [...], "size": t, "C": c}                      for --algo sab (Eq. 7)
or are drawn from a GDFN with --gdfn mu,sigma --hosts m (stream of --seed).

Algorithms: ea (k or k+1 hosts per task, round robin), ppb (simulated
annealing), epb (annealing keeping EA's host counts), sab (ppb on Eq. 7's
probabilities), gls (greedy + local search, this project's), exact (branch
and bound; "optimal": false if --max-nodes stopped it).

Prints {"allocation": [task of each host], "r_sys": ..., "algo": ..., ...}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := redundant.ParseAlgorithm(algo)
			if err != nil {
				return usagef("--algo: %v", err)
			}
			algo = a
			if tasks < 1 {
				return usagef("--tasks %d: want at least 1", tasks)
			}
			if moves < 0 || moves > redundant.MaxMovesPerHost {
				return usagef("--moves-per-host %d: want a number from 0 (the default, 300) to %d", moves, redundant.MaxMovesPerHost)
			}
			var p []float64
			switch {
			case probs != "" && gdfn != "":
				return usagef("--probs and --gdfn: give one, not both")
			case probs != "":
				data, source, err := readInput(probs, cmd.InOrStdin())
				if err != nil {
					return err
				}
				if p, err = redundant.ParseAllocInput(data, source, algo); err != nil {
					return err
				}
			case gdfn != "":
				if algo == redundant.SAB {
					return usagef("--algo sab needs --probs FILE with ages, size and C")
				}
				v, err := parseFloats("gdfn", gdfn, 2)
				if err != nil {
					return err
				}
				g := redundant.GDFN{Mu: v[0], Sigma: v[1]}
				if err := g.Validate(); err != nil {
					return usagef("--gdfn: %v", err)
				}
				if hosts < 1 || hosts > redundant.MaxHosts {
					return usagef("--hosts %d: want 1 to %d with --gdfn", hosts, redundant.MaxHosts)
				}
				p = g.SampleN(stream.New(seed, 0x3003, 0x9d), hosts)
			default:
				return usagef("give --probs FILE or --gdfn mu,sigma --hosts m")
			}
			if tasks > len(p) {
				return usagef("--tasks %d with %d hosts: want at most as many tasks as hosts", tasks, len(p))
			}
			prog := newPhaseProgress("alloc " + algo)
			res, err := redundant.Allocate(cmd.Context(), redundant.Allocator(algo), p, tasks, redundant.Options{Seed: seed,
				Anneal:   redundant.AnnealOptions{MovesPerHost: moves},
				Exact:    redundant.ExactOptions{MaxNodes: maxNodes},
				Progress: prog.report})
			prog.finish()
			if err != nil {
				return err
			}
			if algo == "exact" && !res.Optimal {
				fmt.Fprintf(cmd.ErrOrStderr(), "volsched alloc: exact search stopped after %d nodes: the allocation is the best found, not proven optimal\n", maxNodes)
			}
			out := redundant.NewAllocReport(algo, tasks, seed, p, res, gdfn != "" || algo == redundant.SAB)
			enc := json.NewEncoder(cmd.OutOrStdout())
			return enc.Encode(out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&algo, "algo", "ppb", "algorithm: ea, ppb, epb, sab, gls, exact")
	f.IntVar(&tasks, "tasks", 0, "number of tasks n")
	f.StringVar(&probs, "probs", "", "JSON file of failure probabilities, or ages (see above); - for stdin")
	f.StringVar(&gdfn, "gdfn", "", "draw the failure probabilities from GDFN(mu,sigma)")
	f.IntVar(&hosts, "hosts", 0, "number of hosts m (with --gdfn)")
	f.Uint64Var(&seed, "seed", 1, "seed of the random streams (annealing, --gdfn)")
	f.IntVar(&moves, "moves-per-host", 0, "annealing proposals per host (default 300)")
	f.Int64Var(&maxNodes, "max-nodes", 50_000_000, "exact: node limit of the search (negative: none)")
	rootCmd.AddCommand(stopsAtOnce(cmd))
}
