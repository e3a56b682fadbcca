package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// reproduceOptions are the options every reproduction is run with.
type reproduceOptions = reproduction.Options

// sectionOf is the section of the result of a reproduction's run (for the
// packages whose Reproduce returns a result with a Section method), or
// its error.
func sectionOf[R interface{ Section() *reproduction.Section }](r R, err error) (*reproduction.Section, error) {
	if err != nil {
		return nil, err
	}
	return r.Section(), nil
}

// reproductions are the entries of `volsched reproduce`. Each area of the
// project registers its own in an init function (register order does not
// matter: entries run sorted by Order, then Name).
var reproductions []reproduction.Reproduction

func registerReproduction(r reproduction.Reproduction) { reproductions = append(reproductions, r) }

// interruptedReproduction is the error of a reproduce interrupted during r:
// what is kept and how to go on (the reproduction's own error may name a
// temporary directory that is already removed).
func interruptedReproduction(r reproduction.Reproduction, all []reproduction.Reproduction, opt reproduceOptions) error {
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

// rerunCommand is the command that runs reproduction name alone with opt.
func rerunCommand(name string, opt reproduceOptions) string {
	s := "volsched reproduce"
	if opt.Quick {
		s += " --quick"
	}
	return fmt.Sprintf("%s --seed %d --only %s", s, opt.Seed, name)
}

func init() {
	var opt reproduceOptions
	var only []string
	var list bool
	var reportDir string
	var png bool
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Run every reproduction the project has and print it next to the papers' numbers",
		Long: `reproduce runs, in order, every reproduction of the papers the project has
(analytic checks, simulation campaigns, laboratory studies) and prints each
table next to the published numbers, with the seed and parameters used.

--quick runs reduced versions (fewer scenarios and trials) that finish in a
few minutes on two cores; without it the full campaigns run, which can take
hours: prefer 'volsched exp ...' for those, which can resume and shard.

--report DIR also writes the reproduction report: DIR/index.html, one page
with, per paper, each table beside the published one (differences
highlighted, Kendall's tau where a ranking is compared), each figure, the
model choices that matter, the commands, seeds and run times; its images are
beside it in DIR. 'volsched report results/' makes the same page from the
committed full runs (docs/report.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if list {
				for _, r := range reproduction.Sort(reproductions) {
					fmt.Fprintf(w, "%-16s %s\n", r.Name, r.Title)
				}
				return nil
			}
			all := reproduction.Sort(reproductions)
			sel, err := reproduction.Select(all, only)
			if err != nil {
				return usagef("--only %v (see 'volsched reproduce --list')", err)
			}
			var entries []reproduction.Entry
			for _, r := range sel {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				fmt.Fprintf(w, "\n=== %s: %s\n", r.Name, r.Title)
				var printed bytes.Buffer
				out := w
				if reportDir != "" {
					out = io.MultiWriter(w, &printed)
				}
				start := time.Now()
				sec, err := r.Run(cmd.Context(), out, opt)
				took := time.Since(start)
				if err != nil {
					if cmd.Context().Err() != nil {
						return interruptedReproduction(r, all, opt)
					}
					return fmt.Errorf("reproduction %s: %w", r.Name, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "(%s took %s)\n", r.Name, took.Round(time.Millisecond))
				note := "full version"
				if opt.Quick {
					note = "reduced version (--quick)"
				}
				entries = append(entries, reproduction.Entry{Name: r.Name, Title: r.Title, Section: sec, Output: printed.String(),
					Run: report.Run{Command: rerunCommand(r.Name, opt), Seed: opt.Seed, Duration: took, Note: note + "; wall time of this page's run"}})
			}
			if reportDir == "" {
				return nil
			}
			file, err := reproduction.Write(reportDir, entries, reproducePageOptions(reportDir, opt, png))
			if err != nil {
				return fmt.Errorf("--report %s: %w", reportDir, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote the report %s\n", file)
			return nil
		},
	}
	cmd.Flags().BoolVar(&opt.Quick, "quick", false, "run the reduced versions (minutes, not hours)")
	cmd.Flags().Uint64Var(&opt.Seed, "seed", 1, "campaign seed; the same seed gives the same numbers")
	cmd.Flags().StringVar(&opt.OutDir, "out", "", "directory for CSV, SVG and JSON files (none written when empty)")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these reproductions (comma-separated names, see --list; former names are accepted)")
	cmd.Flags().BoolVar(&list, "list", false, "list the reproductions and exit")
	cmd.Flags().StringVar(&reportDir, "report", "", "write the reproduction report into this directory (index.html and its images)")
	cmd.Flags().BoolVar(&png, "png", false, "with --report: also write each figure as PNG beside its SVG")
	rootCmd.AddCommand(cmd)
}

// reproducePageOptions are the page options of reproduce --report dir.
func reproducePageOptions(dir string, opt reproduceOptions, png bool) reproduction.PageOptions {
	args := "--seed " + fmt.Sprint(opt.Seed)
	what := "full"
	if opt.Quick {
		args = "--quick " + args
		what = "reduced (--quick)"
	}
	return reproduction.PageOptions{
		Title: "volsched: reproduction report",
		Intro: fmt.Sprintf(`The %s reproductions of the papers volsched implements, run by 'volsched reproduce %s --report DIR'. Each table is shown beside the published one; each figure carries its seed and parameters in its caption.

docs/papers.md lists the papers and where each lives in the code; docs/report.md describes this page.`, what, args),
		Generated: fmt.Sprintf("Made by volsched %s on %s.", versionString(), time.Now().UTC().Format("2006-01-02 15:04 UTC")),
		PNG:       png,
		RepoRoot:  reproduction.RepoRootFrom(dir, "."),
	}
}
