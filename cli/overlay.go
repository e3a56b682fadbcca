package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/reproduction"
)

// overlayCmd is the parent of the commands of Celaya & Arronategui's
// decentralized scheduling on a tree overlay. Other files add their subcommands to it
// (e.g. `overlay sim`).
var overlayCmd = &cobra.Command{
	Use:   "overlay",
	Short: "A Task Routing Approach to Large-Scale Scheduling (Celaya & Arronategui): tree overlay, summaries, aggregation, IBP/MMP/DP",
}

func init() {
	rootCmd.AddCommand(overlayCmd)
	var pol string
	var nodes, sfmax int
	var seed uint64
	var grid bool
	var distance, clustering, cells string
	acc := &cobra.Command{
		Use:   "accuracy",
		Short: "Aggregation accuracy of one policy (Celaya & Arronategui, §7.1): JSON on stdout",
		Long: `accuracy draws random node states (uniform, as in the paper's §7.1),
aggregates their summaries recursively up a balanced binary tree with at most
--sfmax sampled functions per summary, and prints, per attribute, the fraction
of the nodes' availability the root summary still represents:
(aggregated - minimum)/(total - minimum), see docs/reproduction-004.md.
Ctrl-C or SIGTERM stops it (exit status 1).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := overlay.ParsePolicy(pol)
			if err != nil {
				return usagef("--%v", err)
			}
			if err := overlay.ValidateTreeSize(nodes); err != nil {
				return usagef("--nodes: %v", err)
			}
			if !cmd.Flags().Changed("sfmax") {
				sfmax = p.DefaultSFMax()
			}
			cfg := accuracy.Config{Policy: p, Nodes: nodes, SFMax: sfmax, Seed: seed, NoGrid: !grid}
			if cfg.Distance, err = accuracy.ParseDistance(distance); err != nil {
				return usagef("--%v", err)
			}
			if cfg.Clustering, err = accuracy.ParseClustering(clustering); err != nil {
				return usagef("--%v", err)
			}
			if cfg.Cells, err = accuracy.ParseCells(cells); err != nil {
				return usagef("--%v", err)
			}
			if err := cfg.Validate(); err != nil {
				return usagef("--%v", err)
			}
			st := time.Now()
			r, err := accuracy.Run(cmd.Context(), cfg)
			if err != nil {
				return fmt.Errorf("overlay accuracy: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d aggregations in %v (%.1f µs each)\n", r.Aggregations,
				time.Since(st).Round(time.Millisecond), float64(time.Since(st).Microseconds())/float64(max(1, r.Aggregations)))
			enc := json.NewEncoder(cmd.OutOrStdout())
			return enc.Encode(r)
		},
	}
	acc.Flags().StringVar(&pol, "policy", "ibp", "policy: "+overlay.PolicyNames())
	acc.Flags().IntVar(&nodes, "nodes", 1024, "number of execution nodes")
	acc.Flags().IntVar(&sfmax, "sfmax", 0, "maximum number of sampled functions per summary (default: the policy's, for ibp, mmp, dp the paper's 225, 256, 216)")
	acc.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	acc.Flags().BoolVar(&grid, "grid", true, "merge within the cells of the SF_max^(1/d) grid first (the authors' choice); --grid=false for the plain distance")
	acc.Flags().StringVar(&clustering, "clustering", "exact", "exact (Fig. 3, what the overlay runs) or stars (the authors' approximate K-nearest clustering, to measure its effect)")
	acc.Flags().StringVar(&cells, "cells", "clamp", "grid cells: clamp (an attribute's maximum in the last of the SF_max^(1/d) intervals) or stars (the authors' floor((x - min)·b/Δ), which gives the maximum a cell of its own), to measure the effect")
	acc.Flags().StringVar(&distance, "distance", "mse", "distance of the clustering: mse (the authors': mean squared deviation of the nodes from the sum) loss (availability lost, this project's first reading) or stars (dp only: the authors' l distance and l cells, no sample reduction; docs/reproduction-004.md)")
	overlayCmd.AddCommand(acc)

	registerReproduction(reproduction.Reproduction{
		Name:    accuracy.ReproductionName,
		Aliases: []string{"overlay"},
		Order:   400,
		Title:   "A Task Routing Approach to Large-Scale Scheduling (Celaya & Arronategui) §7.1: Tables 2 and 3, aggregation accuracy of IBP, MMP and DP summaries",
		Run:     reproduceOverlay,
		Results: accuracy.ResultsSection,
	})
}

// reproduceOverlay prints Tables 2 and 3 next to the paper's numbers
// (accuracy.Reproduce), with progress on standard error when it is a
// terminal.
func reproduceOverlay(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
	var progress io.Writer
	if term.IsTerminal(int(os.Stderr.Fd())) {
		progress = os.Stderr
	}
	return sectionOf(accuracy.Reproduce(ctx, w, accuracy.ReproduceOptions{Seed: opt.Seed, Quick: opt.Quick, Progress: progress, OutDir: opt.OutDir}))
}
