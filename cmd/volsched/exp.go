package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/experiment"
)

// expCmd is `volsched exp`, the parent of the campaign commands
// (`exp independent`, `exp coupled`, ...) and of `exp merge`. Campaign
// commands attach themselves in init functions of their own files:
//
//	func init() { expCmd.AddCommand(myCmd) }
var expCmd = &cobra.Command{
	Use:   "exp",
	Short: "Run experiment campaigns (resumable, shardable) and merge shards",
	Long: `exp runs the papers' simulation campaigns. Every campaign command takes

  --out DIR       where the campaign writes manifest.json and its results,
                  one JSON line per finished unit, as it goes
  --seed S        the campaign seed: the same seed gives the same numbers
  --workers K     worker goroutines (default: one per CPU); results do not
                  depend on K
  --shard i/n     run only shard i of n (1 ≤ i ≤ n; unit u belongs to shard
                  (u mod n)+1), one directory per shard

An interrupted run (Ctrl-C, SIGTERM, a crash) resumes where it stopped when
the same command is run again with the same --out; a second Ctrl-C stops at
once (finished units are kept either way). Shards run in separate
directories, possibly on separate machines; 'volsched exp merge' combines
them and writes the same summary an unsharded run would, and
'volsched exp status' shows how far directories are.

As a Slurm array job (sbatch --array=1-8):
  volsched exp independent --shard ${SLURM_ARRAY_TASK_ID}/8 --out run-${SLURM_ARRAY_TASK_ID}
As HTCondor jobs (queue 8; $(Process) counts from 0):
  shard     = $(Process) + 1
  arguments = exp independent --shard $INT(shard)/8 --out run-$INT(shard)
then:
  volsched exp merge --out run run-1 run-2 ... run-8`,
}

// summarizer computes and writes the summary of a complete campaign
// directory of its kind (summary.json, CSV, SVG files in dir; the
// human-readable tables to w).
type summarizer func(ctx context.Context, dir string, w io.Writer) error

var summarizers = map[string]summarizer{}

// summaryFile is the file every summarizer writes into the campaign
// directory.
const summaryFile = "summary.json"

// registerSummarizer makes `volsched exp merge` (and runCampaign) call fn
// on a merged directory whose manifest has this kind. Call it from an init
// function of the file that defines the campaign. fn must write
// DIR/summaryFile when it succeeds: `exp status` calls a whole campaign
// complete only then.
func registerSummarizer(kind string, fn func(ctx context.Context, dir string, w io.Writer) error) {
	if _, dup := summarizers[kind]; dup {
		panic(fmt.Sprintf("registerSummarizer: kind %q registered twice", kind)) // programming error, at init
	}
	summarizers[kind] = fn
}

// summarize runs the summarizer registered for kind on dir.
func summarize(ctx context.Context, kind, dir string, w io.Writer) error {
	fn, ok := summarizers[kind]
	if !ok {
		kinds := make([]string, 0, len(summarizers))
		for k := range summarizers {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		return fmt.Errorf("no summary for campaigns of kind %q (known kinds: %s)", kind, strings.Join(kinds, ", "))
	}
	if err := fn(ctx, dir, w); err != nil {
		return fmt.Errorf("summary of %s: %w", dir, err)
	}
	return nil
}

// campaignFlags are the flags every campaign command shares. Add them with
// addCampaignFlags; the kind-specific flags (--scenarios, --trials, ...)
// are the command's own.
type campaignFlags struct {
	Seed    uint64
	Workers int
	Shard   string
	Out     string
}

func addCampaignFlags(cmd *cobra.Command, f *campaignFlags) {
	cmd.Flags().Uint64Var(&f.Seed, "seed", 1, "campaign seed: the same seed gives the same numbers")
	cmd.Flags().IntVar(&f.Workers, "workers", 0, "worker goroutines (0: one per CPU); results do not depend on it")
	cmd.Flags().StringVar(&f.Shard, "shard", "1/1", "run only shard i of n (1 ≤ i ≤ n), e.g. --shard ${SLURM_ARRAY_TASK_ID}/8")
	cmd.Flags().StringVar(&f.Out, "out", "", "campaign directory (required): manifest, results as they finish, summary")
}

// campaign is what runCampaign needs to run one: Kind and Units of the
// manifest, and Params, the kind-specific parameters that determine the
// results (any JSON-encodable value; compared on resume and merge).
type campaign[R any] struct {
	Kind   string
	Units  int
	Params any
	Work   func(ctx context.Context, unit int) (R, error)
}

// runCampaign validates the shared flags, runs c in f.Out (resuming what is
// there), and, when the shard is the whole campaign (1/1) and every unit is
// done, calls the summarizer registered for c.Kind with w. A sharded run
// only says how to merge. Usage errors exit 2; an interruption returns an
// error that says how to resume.
func runCampaign[R any](ctx context.Context, f campaignFlags, c campaign[R], w, stderr io.Writer) error {
	if f.Out == "" {
		return usagef("--out is required: the directory where the campaign writes its results")
	}
	if f.Workers < 0 || f.Workers > experiment.MaxWorkers {
		return usagef("--workers %d: want 1 to %d, or 0 for one per CPU", f.Workers, experiment.MaxWorkers)
	}
	shard, err := experiment.ParseShard("--shard", f.Shard)
	if err != nil {
		return usageError{err}
	}
	if err := experiment.ValidateParams(c.Params); err != nil {
		return usageError{err}
	}
	if c.Units > experiment.MaxUnits || c.Units < 0 {
		return usagef("campaign %s: %d units, want at most %d (fewer scenarios or a smaller grid)", c.Kind, c.Units, experiment.MaxUnits)
	}
	params, err := experiment.CanonicalJSON(c.Params)
	if err != nil {
		return fmt.Errorf("campaign %s parameters: %w", c.Kind, err)
	}
	m := experiment.Manifest{Kind: c.Kind, Seed: f.Seed, Units: c.Units, Params: params, Shard: shard}
	stopWatch := watchSecondSignal(ctx, stderr)
	err = experiment.Run(ctx, f.Out, m, f.Workers, c.Work, experiment.NewProgress(c.Kind+" "+shard.String()))
	stopWatch()
	if err != nil {
		return err
	}
	if shard != experiment.Whole {
		fmt.Fprintf(stderr, "shard %s of campaign %s done in %s; when every shard is done: volsched exp merge --out MERGED %s ...\n",
			shard, c.Kind, f.Out, f.Out)
		return nil
	}
	return summarize(ctx, c.Kind, f.Out, w)
}

// watchSecondSignal: once ctx is cancelled (the first Ctrl-C or SIGTERM,
// caught by main), say that the units in flight are being finished; main
// exits at once with status 130 on a second signal, saying how to resume.
// Nothing is lost by that: every finished unit is already written, and a
// line cut in the middle is discarded on resume. The returned function
// stops watching.
func watchSecondSignal(ctx context.Context, stderr io.Writer) (stop func()) {
	secondSignalNote.Store("run the same command again to resume")
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		fmt.Fprintln(stderr, "volsched: interrupted: finishing the units in flight (interrupt again to stop at once; finished units are kept either way)")
	}()
	return func() { close(done); <-finished }
}

func init() {
	var out string
	merge := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Combine the shard directories of one campaign and write its summary",
		Long: `merge checks that the shard directories belong to one campaign (same kind,
seed, units and parameters), that a unit found in several of them has the
same result everywhere, and writes into --out (which must not exist or be
empty) a manifest and one results file, exactly as an unsharded run would
have left them. It then computes the campaign's summary there.

If units are missing, the merged directory is still written (running the
campaign with --shard 1/1 --out DIR computes just the missing ones) and
merge exits non-zero listing them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				return usagef("--out is required: the directory for the merged campaign")
			}
			// The summary's tables are printed only once it succeeded; if it
			// fails, merge leaves nothing behind.
			var tables bytes.Buffer
			m, err := experiment.MergeSummarized(out, dirs, func(m experiment.Manifest, dir string) error {
				fn, ok := summarizers[m.Kind]
				if !ok {
					return summarize(cmd.Context(), m.Kind, dir, &tables) // the error naming the known kinds
				}
				return fn(cmd.Context(), dir, &tables)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d shard directories of campaign %s (seed %d, %d units) into %s\n",
				len(dirs), m.Kind, m.Seed, m.Units, out)
			_, err = cmd.OutOrStdout().Write(tables.Bytes())
			return err
		},
	}
	merge.Flags().StringVar(&out, "out", "", "directory for the merged campaign (must not exist or be empty)")
	expCmd.AddCommand(merge)

	status := &cobra.Command{
		Use:   "status DIR...",
		Short: "Show how far campaign directories are (units done per shard)",
		Long: `status prints, for each campaign directory, its kind, seed and shard, how
many of the shard's units have a result, and its state:

  incomplete   units are missing
  complete     every unit is done (and, for a whole campaign, its summary
               was written)
  no summary   every unit of the whole campaign is done but its summary was
               not written (run the campaign command again: it shows why)

It only reads the directories, so it can watch a running campaign. It exits
1 if a directory cannot be read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			t := experiment.NewTable("directory", "kind", "seed", "shard", "done", "units", "state")
			var failed []string
			for _, d := range dirs {
				m, _, present, err := experiment.Load[json.RawMessage](d)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "volsched: %s: %v\n", d, err)
					failed = append(failed, d)
					continue
				}
				units := m.Shard.Units(m.Units)
				done := 0
				for _, u := range units {
					if present[u] {
						done++
					}
				}
				state := "complete"
				switch {
				case done < len(units):
					state = "incomplete"
				case m.Shard == experiment.Whole:
					if _, err := os.Stat(filepath.Join(d, summaryFile)); err != nil {
						state = "no summary"
					}
				}
				t.AddRow(d, m.Kind, strconv.FormatUint(m.Seed, 10), m.Shard.String(), strconv.Itoa(done), strconv.Itoa(len(units)), state)
			}
			if t.Len() > 0 {
				if err := t.WriteText(cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			if len(failed) > 0 {
				return fmt.Errorf("cannot read %d of %d directories: %s", len(failed), len(dirs), strings.Join(failed, ", "))
			}
			return nil
		},
	}
	expCmd.AddCommand(stopsAtOnce(status))
	rootCmd.AddCommand(expCmd)
}
