package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

func init() {
	var chainFile, setFile, commList string
	var work, ncom int
	var eps float64
	cmd := &cobra.Command{
		Use:   "analyze (--chain FILE | --set FILE) --work W",
		Short: "Evaluate the Markov-model formulas of seeds 001 and 002 for one chain or a set of chains",
		Long: `analyze prints one JSON object with the analytic quantities of the 3-state
Markov availability model (UP, RECLAIMED, DOWN).

With --chain FILE (one chain, {"P": [[puu,pur,pud],[pru,prr,prd],[pdu,pdr,pdd]]}):
  stationary     the stationary distribution (up, reclaimed, down), πP = π
  stationary_unique  false when the chain has several closed classes (an
                 absorbing UP and an absorbing DOWN, say): every mixture of
                 their distributions is then stationary, "stationary" is the
                 long-run law from UP, "closed_classes" lists each class with
                 its distribution, and a warning on standard error says so
  p_plus         P+ of Lemma 1 (seed 001): UP again before DOWN
  expected_time  E(W) of Theorem 2 (seed 001): expected slots to be UP during
                 W slots, conditioned on not going DOWN first
  p_ud_exact     P_UD(W): probability of not going DOWN during W slots, exact
                 (matrix form of seed 001 §6.3.3, with the printed vectors
                 transposed as docs/analytic.md explains)
  p_ud_approx    the paper's approximation of P_UD(W)

With --set FILE (several processors, {"chains": [{"P": ...}, ...]}), all UP now:
  p_plus                     P+(S) of Theorem 5.1 (seed 002)
  p_success                  (P+(S))^(W-1), the probability that W slots of
                             simultaneous computation complete
  expected_time_published    E(S)(W) as printed in Theorem 5.1
  expected_time_conditional  E(S)(W) conditioned on success, 1+(W-1)E_c/P+
  e_u, a, e_c, terms         the sums of the appendix and how many terms
  With --ncom N --comm n1,n2,...  (slots of communication per processor):
  e_comm, p_comm             E_comm(S) and P_comm(S) of §V.B using the
                             published single-processor expectation
  e_comm_conditional, p_comm_conditional   the same with the conditional one

FILE "-" reads standard input. Malformed input exits non-zero with a
message naming the problem.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (chainFile == "") == (setFile == "") {
				return usagef("analyze: give exactly one of --chain FILE or --set FILE")
			}
			if !cmd.Flags().Changed("work") {
				return usagef("analyze: --work W is required (W ≥ 1 slots)")
			}
			if work < 1 {
				return usagef("analyze: --work = %d, want an integer ≥ 1 (slots of work)", work)
			}
			if !(eps > 0 && eps < 1) {
				return usagef("analyze: --epsilon = %g, want a precision in (0, 1)", eps)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if chainFile != "" {
				if cmd.Flags().Changed("ncom") || cmd.Flags().Changed("comm") {
					return usagef("analyze: --ncom and --comm go with --set, not --chain")
				}
				data, name, err := readInput(chainFile, cmd.InOrStdin())
				if err != nil {
					return err
				}
				c, err := availability.ParseChain(data, name)
				if err != nil {
					return err
				}
				res := analytic.AnalyzeChain(c, work)
				if !res.StationaryUnique {
					fmt.Fprintf(cmd.ErrOrStderr(), "volsched: analyze: warning: %s: %s\n", name, severalStationary(c))
				}
				return enc.Encode(res)
			}
			data, name, err := readInput(setFile, cmd.InOrStdin())
			if err != nil {
				return err
			}
			chains, err := availability.ParseChainSet(data, name)
			if err != nil {
				return err
			}
			var comm []float64
			if cmd.Flags().Changed("comm") || cmd.Flags().Changed("ncom") {
				if !cmd.Flags().Changed("comm") || !cmd.Flags().Changed("ncom") {
					return usagef("analyze: --ncom and --comm go together")
				}
				if ncom < 1 {
					return usagef("analyze: --ncom = %d, want an integer ≥ 1 (simultaneous transfers)", ncom)
				}
				comm, err = parseComm(commList, len(chains))
				if err != nil {
					return err
				}
			}
			res, err := analytic.AnalyzeSet(chains, work, eps, ncom, comm)
			if errors.Is(err, analytic.ErrDegenerate) {
				return fmt.Errorf("analyze: %w", err)
			}
			if err != nil {
				return err
			}
			return enc.Encode(res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&chainFile, "chain", "", "JSON file with one chain ({\"P\": 3x3 matrix}); - for standard input")
	f.StringVar(&setFile, "set", "", "JSON file with a set of chains ({\"chains\": [...]}); - for standard input")
	f.IntVar(&work, "work", 0, "workload W in slots of UP time (required, ≥ 1)")
	f.IntVar(&ncom, "ncom", 0, "with --set: n_com, the number of simultaneous transfers of the master")
	f.StringVar(&commList, "comm", "", "with --set: slots of communication needed by each processor, comma-separated (one per chain)")
	f.Float64Var(&eps, "epsilon", 1e-9, "precision ε of the truncated sums of seed 002's appendix")
	rootCmd.AddCommand(stopsAtOnce(cmd))
}

// severalStationary says why a chain with several closed classes has
// several stationary distributions and which one "stationary" is.
func severalStationary(c availability.Chain) string {
	var names []string
	for _, cl := range c.ClosedClasses() {
		names = append(names, cl.String())
	}
	return fmt.Sprintf("the chain has %d closed classes, %s, so several stationary distributions (each class's, listed in \"closed_classes\", and their mixtures); \"stationary\" is the long-run law from UP",
		len(names), strings.Join(names, " and "))
}

func parseComm(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, usagef("analyze: --comm has %d values, want %d (one per chain in the set)", len(parts), n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, usagef("analyze: --comm value %d is %q, want a number of slots ≥ 0", i+1, p)
		}
		out[i] = v
	}
	return out, nil
}
