package campaign

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/oversim"
)

// The files of a run directory (docs/overlay-sim.md, "Metrics" and
// "Checkpoint and resume"); the checkpoint is oversim.CheckpointFile.
const (
	// SummaryFile is the run's oversim.Result as indented JSON, written
	// when the run ends (also when it is interrupted: a partial summary).
	SummaryFile = "summary.json"
	// TimelineFile has one row per Config.Sample of simulated time
	// (TimelineHeader), flushed as the run goes.
	TimelineFile = "timeline.csv"
)

// TimelineHeader is the first line of a timeline: the counters of
// oversim.Sample, then wall_s (seconds of the run's wall time over all its
// sittings), the only column that is not reproducible.
const TimelineHeader = "time_s,jobs_submitted,tasks_submitted,tasks_finished,tasks_finished_in_time,computation_finished_mi,tasks_unallocated,tasks_aborted,events,pending_events,jobs_completed,makespan_max_s,row_makespan_max_s,wall_s"

// InputError is an error in what the caller gave: a directory that holds
// another run or no checkpoint to resume, a checkpoint of another run, a
// directory that is not a run, runs that a figure cannot combine. The
// command line exits with status 2 for it (a usage error).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputf returns an *InputError with a formatted message.
func inputf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// ProgressMode is how RunDir reports a run's progress on RunOptions.Log.
type ProgressMode int

const (
	NoProgress       ProgressMode = iota
	TerminalProgress              // a line redrawn on a terminal
	LogProgress                   // a line every experiment.LogInterval in a log
)

// RunOptions are how RunDir runs: progress, checkpoints and interruptions.
type RunOptions struct {
	// Log receives the progress and the checkpoint messages (standard
	// error); nil discards them.
	Log      io.Writer
	Progress ProgressMode
	// CheckpointEvery is the interval of wall time between checkpoints (0:
	// only when interrupted).
	CheckpointEvery time.Duration
	// Resume continues the run from the checkpoint in the directory.
	Resume bool
	// InterruptAt > 0 stops the run after this many events as if it were
	// interrupted (tests: the hidden flag --interrupt-at-events).
	InterruptAt uint64
}

// errInjected is the interruption of RunOptions.InterruptAt.
var errInjected = errors.New("interrupted at the requested event count (--interrupt-at-events)")

// RunDir runs one simulation in directory dir, writing dir/timeline.csv as
// it goes and dir/summary.json at the end. It writes dir/checkpoint.bin
// every o.CheckpointEvery of wall time and when ctx is cancelled (or at
// o.InterruptAt), resumes from it with o.Resume, and removes it when the
// run ends. It refuses a directory holding another run's files (a finished
// run's summary is never overwritten) and, when it refuses or fails before
// simulating, leaves no directory it created behind. The refusals are
// *InputError and name the command line's flags (--out, --resume).
//
// An interrupted run writes its checkpoint and a partial summary and
// returns that summary with an error.
func RunDir(ctx context.Context, c *oversim.Config, dir string, o RunOptions) (res *oversim.Result, err error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	ckptPath := filepath.Join(dir, oversim.CheckpointFile)
	_, statErr := os.Stat(ckptPath)
	switch {
	case o.Resume && statErr != nil:
		return nil, inputf("--resume: no checkpoint to resume from in --out %s (%v)", dir, statErr)
	case !o.Resume && statErr == nil:
		return nil, inputf("--out %s holds the checkpoint of an unfinished run (%s): pass --resume to continue it, or choose another --out", dir, ckptPath)
	case !o.Resume:
		for _, name := range []string{SummaryFile, TimelineFile} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return nil, inputf("--out %s holds the %s of another run: choose another --out (or remove that directory)", dir, name)
			}
		}
	}
	// A directory created here is removed again if the run fails before
	// it starts simulating (nothing of value is in it).
	_, outErr := os.Stat(dir)
	created, started := errors.Is(outErr, fs.ErrNotExist), false
	defer func() {
		if created && !started && err != nil {
			os.RemoveAll(dir)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	s, err := oversim.New(c)
	if err != nil {
		return nil, err
	}
	tlPath := filepath.Join(dir, TimelineFile)
	var tl *os.File
	if o.Resume {
		if err := s.LoadCheckpoint(ckptPath); err != nil {
			var me *oversim.MismatchError
			if errors.As(err, &me) {
				return nil, inputf("--resume: %w", err)
			}
			return nil, err
		}
		if tl, err = reopenTimeline(tlPath, s.TimelineRows()); err != nil {
			return nil, err
		}
	} else {
		if tl, err = os.Create(tlPath); err != nil {
			return nil, fmt.Errorf("timeline: %w", err)
		}
		fmt.Fprintln(tl, TimelineHeader)
	}
	defer tl.Close()
	var werr error
	_, wall0 := s.Spent()
	wallStart := time.Now()
	s.OnSample(func(x oversim.Sample) {
		_, e := fmt.Fprintf(tl, "%g,%d,%d,%d,%d,%s,%d,%d,%d,%d,%d,%s,%s,%.1f\n", x.Time.Seconds(), x.JobsSubmitted, x.TasksSubmitted,
			x.TasksFinished, x.TasksFinishedInTime, strconv.FormatFloat(x.ComputationFinishedMI, 'g', -1, 64),
			x.TasksUnallocated, x.TasksAborted, x.Events, x.Pending, x.JobsCompleted,
			strconv.FormatFloat(x.MakespanMax, 'g', -1, 64), strconv.FormatFloat(x.RowMakespanMax, 'g', -1, 64),
			wall0+time.Since(wallStart).Seconds())
		if e == nil {
			e = tl.Sync()
		}
		if e != nil && werr == nil {
			werr = e
		}
	})
	drawn := false
	if o.Progress != NoProgress {
		start, events0, now0 := time.Now(), s.Events(), s.Now()
		last := start
		s.OnProgress(func(now des.Time, events uint64) {
			t := time.Now()
			if o.Progress == LogProgress && t.Sub(last) < experiment.LogInterval {
				return
			}
			last, drawn = t, true
			line := progressLine(now, now0, c.Length, events, events0, t.Sub(start))
			if o.Progress == LogProgress {
				fmt.Fprintf(log, "overlay sim: %s [%s elapsed]\n", line, t.Sub(start).Round(time.Second))
			} else {
				fmt.Fprintf(log, "\r\033[K%s", line)
			}
		})
	}
	saved := func(n int64, took time.Duration) string {
		return fmt.Sprintf("checkpoint written at %v simulated, %d events (%s, %.1f MB in %.1f s)",
			s.Now().Duration().Round(time.Millisecond), s.Events(), ckptPath, float64(n)/1e6, took.Seconds())
	}
	if o.CheckpointEvery > 0 {
		last := time.Now()
		s.OnCheckpoint(func() bool { return time.Since(last) >= o.CheckpointEvery }, func() error {
			t0 := time.Now()
			n, err := s.SaveCheckpoint(ckptPath)
			if err != nil {
				return err
			}
			last = time.Now()
			fmt.Fprintf(log, "\r%s\n", saved(n, last.Sub(t0)))
			return nil
		})
	}
	if o.InterruptAt > 0 {
		s.StopAt(o.InterruptAt)
	}
	started = true
	r, runErr := s.Run(ctx)
	if o.Progress == TerminalProgress && drawn {
		fmt.Fprintln(log)
	}
	if errors.Is(runErr, oversim.ErrStopped) {
		runErr = errInjected
	}
	interrupted := runErr != nil && (ctx.Err() != nil || runErr == errInjected)
	if interrupted {
		// Save the state first: nothing already computed is lost.
		t0 := time.Now()
		n, err := s.SaveCheckpoint(ckptPath)
		if err != nil {
			fmt.Fprintf(log, "interrupted; the checkpoint could not be written: %v\n", err)
		} else {
			fmt.Fprintf(log, "interrupted; %s: run the same command with --resume to continue\n", saved(n, time.Since(t0)))
		}
	}
	if werr != nil {
		return nil, fmt.Errorf("timeline: %w", werr)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if runErr != nil {
		return r, fmt.Errorf("simulation stopped at %v simulated (partial summary written): %w", des.Time(r.SimulatedSeconds*1e9), runErr)
	}
	// The run is complete: its checkpoint is of no further use.
	if err := os.Remove(ckptPath); err != nil && !os.IsNotExist(err) {
		return r, fmt.Errorf("checkpoint: %w", err)
	}
	if !r.Conserved() {
		return r, fmt.Errorf("internal error: task accounting does not balance (see summary.json)")
	}
	return r, nil
}

// progressLine describes a run at simulated time now of length, from now0
// and events0 at the start of this sitting, elapsed ago; the ETA is the
// simulated time left at the simulated rate of this sitting.
func progressLine(now, now0, length des.Time, events, events0 uint64, elapsed time.Duration) string {
	s := fmt.Sprintf("%s simulated of %s (%.1f%%), %d events", now.Duration().Round(time.Second), length.Duration(),
		100*float64(now)/float64(length), events)
	if el := elapsed.Seconds(); el > 0 {
		s += fmt.Sprintf(", %.0f events/s", float64(events-events0)/el)
		if rate := float64(now-now0) / el; rate > 0 && now < length {
			s += fmt.Sprintf(", ETA %s", time.Duration(float64(length-now)/rate).Round(time.Second))
		}
	}
	return s
}

// reopenTimeline opens the timeline of a resumed run for appending, after
// its header and its first rows rows (those written before the
// checkpoint; the rows after them, written past it, will be written again
// identically).
func reopenTimeline(path string, rows uint64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("timeline of the resumed run: %w", err)
	}
	br := bufio.NewReader(f)
	var off int64
	for k := uint64(0); k <= rows; k++ { // the header, then rows rows
		line, err := br.ReadString('\n')
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("timeline of the resumed run %s: %d rows, the checkpoint was taken after %d", path, max(int64(k)-1, 0), rows)
		}
		if k == 0 && strings.TrimSuffix(line, "\n") != TimelineHeader {
			f.Close()
			return nil, fmt.Errorf("timeline of the resumed run %s: unexpected header %q", path, line)
		}
		off += int64(len(line))
	}
	if err := f.Truncate(off); err == nil {
		_, err = f.Seek(off, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("timeline of the resumed run: %w", err)
	}
	return f, nil
}
