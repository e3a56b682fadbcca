package cli

import (
	"context"
	"fmt"
	"io"
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

// summarizers are the campaign kinds `volsched exp merge` (and
// runCampaign) can summarize.
var summarizers = experiment.Summarizers{}

// summaryFile is the file every summarizer writes into the campaign
// directory.
const summaryFile = experiment.SummaryFile

// registerSummarizer makes `volsched exp merge` (and runCampaign) call fn
// on a merged directory whose manifest has this kind. Call it from an init
// function of the file that defines the campaign. fn must write
// DIR/summaryFile when it succeeds: `exp status` calls a whole campaign
// complete only then.
func registerSummarizer(kind string, fn func(ctx context.Context, dir string, w io.Writer) error) {
	summarizers.Register(kind, fn)
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

// campaign is what runCampaign needs to run one (experiment.Campaign).
type campaign[R any] = experiment.Campaign[R]

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
	if err := c.Validate(); err != nil {
		return usageError{err}
	}
	m, err := c.Manifest(f.Seed, shard)
	if err != nil {
		return err
	}
	stopWatch := watchSecondSignal(ctx, stderr)
	err = c.Run(ctx, f.Out, m, f.Workers, nil)
	stopWatch()
	if err != nil {
		return err
	}
	if shard != experiment.Whole {
		fmt.Fprintf(stderr, "shard %s of campaign %s done in %s; when every shard is done: volsched exp merge --out MERGED %s ...\n",
			shard, c.Kind, f.Out, f.Out)
		return nil
	}
	return summarizers.Summarize(ctx, c.Kind, f.Out, w)
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
			m, tables, err := summarizers.Merge(cmd.Context(), out, dirs)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "merged %d shard directories of campaign %s (seed %d, %d units) into %s\n",
				len(dirs), m.Kind, m.Seed, m.Units, out)
			_, err = cmd.OutOrStdout().Write(tables)
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
				st, err := experiment.ReadStatus(d)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "volsched: %s: %v\n", d, err)
					failed = append(failed, d)
					continue
				}
				m := st.Manifest
				t.AddRow(d, m.Kind, strconv.FormatUint(m.Seed, 10), m.Shard.String(), strconv.Itoa(st.Done), strconv.Itoa(st.Units), st.State)
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
