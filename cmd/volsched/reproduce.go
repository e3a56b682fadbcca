package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// reproduction is one entry of `volsched reproduce`: a check or experiment
// that prints its results next to the papers' numbers. Each area of the
// project registers its own in an init function (register order does not
// matter: entries run sorted by Order, then Name).
type reproduction struct {
	Name  string // short name, usable with --only
	Order int    // position in the run
	Title string // one line for the listing
	// Run writes a human-readable report to w. quick asks for the reduced
	// version (seconds to a few minutes on 2 cores); seed makes it
	// reproducible; outDir, when not empty, is where files (CSV, SVG, JSON)
	// go.
	Run func(ctx context.Context, w io.Writer, opt reproduceOptions) error
	// Resumes says that, with --out DIR, Run keeps its finished work in DIR
	// as it goes and reuses it when run again (what an interrupted
	// reproduce tells the user).
	Resumes bool
}

type reproduceOptions struct {
	Quick  bool
	Seed   uint64
	OutDir string
}

var reproductions []reproduction

// interruptedReproduction is the error of a reproduce interrupted during r:
// what is kept and how to go on (the reproduction's own error may name a
// temporary directory that is already removed).
func interruptedReproduction(r reproduction, all []reproduction, opt reproduceOptions) error {
	var keep []string
	for _, x := range all {
		if x.Resumes {
			keep = append(keep, x.Name)
		}
	}
	if opt.OutDir == "" {
		return fmt.Errorf("reproduce interrupted during %s; nothing was kept (with --out DIR, %s keep their finished work in DIR and resume from it)", r.Name, strings.Join(keep, ", "))
	}
	return fmt.Errorf("reproduce interrupted during %s; run the same command again (same --out %s): %s resume from their finished work there, the others start over", r.Name, opt.OutDir, strings.Join(keep, ", "))
}

func registerReproduction(r reproduction) { reproductions = append(reproductions, r) }

func init() {
	var opt reproduceOptions
	var only []string
	var list bool
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Run every reproduction the project has and print it next to the papers' numbers",
		Long: `reproduce runs, in order, every reproduction of the papers the project has
(analytic checks, simulation campaigns, laboratory studies) and prints each
table next to the published numbers, with the seed and parameters used.

--quick runs reduced versions (fewer scenarios and trials) that finish in a
few minutes on two cores; without it the full campaigns run, which can take
hours: prefer 'volsched exp ...' for those, which can resume and shard.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sorted := append([]reproduction(nil), reproductions...)
			sort.SliceStable(sorted, func(i, j int) bool {
				if sorted[i].Order != sorted[j].Order {
					return sorted[i].Order < sorted[j].Order
				}
				return sorted[i].Name < sorted[j].Name
			})
			w := cmd.OutOrStdout()
			if list {
				for _, r := range sorted {
					fmt.Fprintf(w, "%-14s %s\n", r.Name, r.Title)
				}
				return nil
			}
			want := map[string]bool{}
			for _, n := range only {
				want[n] = true
			}
			for n := range want {
				found := false
				for _, r := range sorted {
					found = found || r.Name == n
				}
				if !found {
					return usagef("--only %q: no such reproduction (see 'volsched reproduce --list')", n)
				}
			}
			for _, r := range sorted {
				if len(want) > 0 && !want[r.Name] {
					continue
				}
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				fmt.Fprintf(w, "\n=== %s: %s\n", r.Name, r.Title)
				start := time.Now()
				if err := r.Run(cmd.Context(), w, opt); err != nil {
					if cmd.Context().Err() != nil {
						return interruptedReproduction(r, sorted, opt)
					}
					return fmt.Errorf("reproduction %s: %w", r.Name, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "(%s took %s)\n", r.Name, time.Since(start).Round(time.Millisecond))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opt.Quick, "quick", false, "run the reduced versions (minutes, not hours)")
	cmd.Flags().Uint64Var(&opt.Seed, "seed", 1, "campaign seed; the same seed gives the same numbers")
	cmd.Flags().StringVar(&opt.OutDir, "out", "", "directory for CSV, SVG and JSON files (none written when empty)")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these reproductions (comma-separated names, see --list)")
	cmd.Flags().BoolVar(&list, "list", false, "list the reproductions and exit")
	rootCmd.AddCommand(cmd)
}
