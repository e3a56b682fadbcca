package cli

import (
	"io"

	"github.com/spf13/cobra"

	simcampaign "github.com/volsched/volsched/oversim/campaign"
)

// figureCommand is an 'overlay' subcommand that makes figures from run
// directories: its required --out PREFIX and the run directories go to
// make, which prints to the command's output.
func figureCommand(use, short, long string, make func(w io.Writer, prefix string, args []string) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out: missing (want a path prefix for the CSV, SVG and PNG files)")
			}
			return inputErr(make(cmd.OutOrStdout(), out, simcampaign.ExpandRunDirs(args, cmd.ErrOrStderr())))
		},
	}
	cmd.Long += `

A RUN_DIR without a summary.json that holds run directories (e.g.
results/004/paper-ibp/) stands for them, in name order; among those, runs
that stopped before their last simulated hour are left out with a note (a
run named on its own must be finished).`
	cmd.Flags().StringVar(&out, "out", "", "path prefix of the CSV, SVG and PNG files (required)")
	return cmd
}

func init() {
	overlayCmd.AddCommand(stopsAtOnce(figureCommand("sfmax-figure --out PREFIX [NAME=]RUN_DIR...",
		"Figs. 12–17 from 'overlay sim' runs: tasks and computation finished against SF_max, references flat",
		`sfmax-figure reads the summary.json of each run directory written by
'volsched overlay sim' (one policy, one network size): overlay runs at
several --sfmax and reference runs (--scheduler centralized or random). It
prints the table with each run's ratio to the centralized reference and
writes PREFIX.csv, PREFIX-tasks.svg and PREFIX-computation.svg (the
references as flat lines over the overlay's SF_max range; for DP runs of
the paper's 10^5 nodes and 60 h, the tasks beside the paper's Fig. 16
values), and from each run's timeline.csv PREFIX-makespan.csv and
PREFIX-makespan.svg: the largest makespan of the applications completed
in each sample interval over time (Fig. 15, MMP's figure). Each figure
is also written as PNG. NAME=RUN_DIR names a run's line (default: its
scheduler).`, simcampaign.SFMaxFigure)))
	overlayCmd.AddCommand(stopsAtOnce(figureCommand("size-figure --out PREFIX RUN_DIR...",
		"Figs. 9 and 11 from 'overlay sim' runs: throughput and maximum link use against network size",
		`size-figure reads the summary.json of overlay runs written by 'volsched
overlay sim' at several network sizes (any of the policies; one run per
policy and size; all of the same --hours and --link, finished) and prints
Fig. 9 (tasks finished per simulated hour against size, with the ratio of
the largest size's throughput per node to the smallest's: 1 is linear
growth) and Fig. 11 (the maximum link use over nodes in 1 s windows), and
writes PREFIX-fig9.csv, PREFIX-fig9.svg, PREFIX-fig11.csv and
PREFIX-fig11.svg (and each figure as PNG).`, simcampaign.SizeFigure)))
	overlayCmd.AddCommand(stopsAtOnce(figureCommand("failure-figure --out PREFIX RUN_DIR...",
		"Fig. 18 and the catastrophe figure from 'overlay sim' runs with --churn, --fail and without failures",
		`failure-figure reads the summary.json of overlay runs written by
'volsched overlay sim': for each policy, one run without failures and runs
with --churn MEDIAN or --fail FRACTION@TIME (one kind per run; a policy's
runs differ only in their failures; finished). It prints each run's
computation finished normalized to its policy's run without failures —
Fig. 18 (churn, by median session) and the catastrophic failure (by
fraction of the nodes) — and writes PREFIX-fig18.csv, PREFIX-fig18.svg
and PREFIX-catastrophe.svg (and each figure as PNG).`, simcampaign.FailureFigure)))
}
