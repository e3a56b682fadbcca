package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// ErrInterrupted is wrapped by the error Run returns when its context was
// cancelled before every unit of the shard was done. The results written so
// far are kept; running the same command again resumes.
var ErrInterrupted = errors.New("campaign interrupted")

// syncInterval is how often Run fsyncs the results file. Every line is
// written with one write call as soon as its unit finishes, so a killed
// process loses nothing already written; fsync only matters for a crash of
// the machine, and once per unit would cost more than small units do.
const syncInterval = time.Second

// MaxWorkers bounds the worker goroutines of a campaign (and of the
// laboratory studies): more would only cost memory on any machine this
// runs on.
const MaxWorkers = 1024

// Run runs the units of shard m.Shard of campaign m in directory dir (created
// if needed), on workers goroutines (0 means runtime.GOMAXPROCS(0)).
//
// It writes dir/manifest.json, or, if the directory already has one, checks
// that it describes the same campaign and shard (the error names the field
// that differs). It then reads dir/results-<i>-of-<n>.jsonl, skips the
// units already there (a torn last line, left by a crash during a write, is
// discarded and truncated away), and calls work for each remaining unit of
// the shard. Units are dispatched in a pseudo-random order, the same for
// every run of the campaign (dispatchOrder): the units done after any time
// are a sample of the whole grid, so the rate of completed units gives a
// fair ETA (in grid order the cheap units came first and the first ETAs
// were several times too short) and a partial summary covers every part of
// the grid. Each finished unit is appended as one line {"unit": u,
// "result": R} as soon as it finishes, so lines are in completion order,
// which depends on timing: read them back with Load, which orders by unit.
//
// work must be deterministic given its unit (derive every random stream
// from stream.New(m.Seed, unit, ...)), so that results do not depend on
// workers or shards. It is called concurrently and should return promptly
// with ctx.Err() when ctx is cancelled.
//
// When ctx is cancelled Run stops dispatching, waits for the units in
// flight, writes those that completed (a unit whose work returns an error
// after the cancellation is abandoned) and returns an error wrapping
// ErrInterrupted and ctx.Err() that says how many units are done and how to
// resume. When work returns an error for a unit (without cancellation), Run
// stops the same way and returns an error naming that unit; results already
// written are kept. A panic in work is reported as that unit's error (with
// the stack).
//
// progress, if not nil, is told the shard's total and each finished unit.
func Run[R any](ctx context.Context, dir string, m Manifest, workers int,
	work func(ctx context.Context, unit int) (R, error), progress *Progress) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if workers < 0 || workers > MaxWorkers {
		return fmt.Errorf("workers %d, want 1 to %d (or 0 for one per CPU)", workers, MaxWorkers)
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	m, err := m.canonical()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("campaign directory: %w", err)
	}
	if err := checkOrWriteManifest(dir, m); err != nil {
		return err
	}

	// What is already done. The results file is opened and locked first,
	// so that no other process appends to it while it is read.
	path := filepath.Join(dir, ResultsFileName(m.Shard))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open results: %w", err)
	}
	defer f.Close()
	if err := lockResults(f); err != nil {
		return err
	}
	fl, err := readResultsFile(path, m.Shard, m.Units)
	if err != nil {
		return err
	}
	done := make(map[int]bool, len(fl.lines))
	for _, l := range fl.lines {
		var r R
		if err := json.Unmarshal(l.Result, &r); err != nil {
			return fmt.Errorf("%s: unit %d: result does not decode (%v); was it written by another version of the program? Use a new directory", path, l.Unit, err)
		}
		done[l.Unit] = true
	}
	if fl.torn {
		if err := f.Truncate(fl.good); err != nil {
			return fmt.Errorf("discard torn last line of %s: %w", path, err)
		}
	}
	all := m.Shard.Units(m.Units)
	var todo []int
	for _, u := range dispatchOrder(all, m) {
		if !done[u] {
			todo = append(todo, u)
		}
	}
	progress.Start(len(all), len(all)-len(todo))
	defer progress.Finish()
	if len(todo) == 0 {
		return nil
	}

	// Workers take units from jobs and send outcomes to the writer (this
	// goroutine). runCtx is cancelled on the first unit error.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		unit int
		res  R
		err  error
	}
	jobs := make(chan int)
	outs := make(chan outcome, workers)
	var wg sync.WaitGroup
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				r, err := callUnit(runCtx, work, u)
				outs <- outcome{u, r, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, u := range todo {
			if runCtx.Err() != nil { // select picks at random among ready cases
				return
			}
			select {
			case <-runCtx.Done():
				return
			case jobs <- u:
			}
		}
	}()
	go func() { wg.Wait(); close(outs) }()

	var (
		unitErr  error
		errUnit  = -1
		writeErr error
		written  int
		lastSync = time.Now()
		buf      []byte
	)
	for o := range outs {
		if o.err != nil {
			if ctx.Err() != nil || runCtx.Err() != nil && errors.Is(o.err, context.Canceled) {
				continue // abandoned because of the cancellation; recomputed on resume
			}
			if errUnit < 0 || o.unit < errUnit {
				unitErr, errUnit = o.err, o.unit
			}
			cancel()
			continue
		}
		if writeErr != nil {
			continue
		}
		rb, err := json.Marshal(o.res)
		if err != nil {
			writeErr = fmt.Errorf("unit %d: encode result: %w", o.unit, err)
			cancel()
			continue
		}
		buf = append(buf[:0], `{"unit":`...)
		buf = fmt.Appendf(buf, "%d", o.unit)
		buf = append(buf, `,"result":`...)
		buf = append(buf, rb...)
		buf = append(buf, "}\n"...)
		if _, err := f.Write(buf); err != nil {
			writeErr = fmt.Errorf("write results: %w", err)
			cancel()
			continue
		}
		written++
		progress.Add(1)
		if time.Since(lastSync) >= syncInterval {
			if err := f.Sync(); err != nil {
				writeErr = fmt.Errorf("sync results: %w", err)
				cancel()
			}
			lastSync = time.Now()
		}
	}
	if err := f.Sync(); err != nil && writeErr == nil {
		writeErr = fmt.Errorf("sync results: %w", err)
	}
	if err := f.Close(); err != nil && writeErr == nil {
		writeErr = fmt.Errorf("close results: %w", err)
	}
	switch {
	case writeErr != nil:
		return writeErr
	case unitErr != nil:
		return fmt.Errorf("unit %d of campaign %s (seed %d): %w (the %d results written before are kept in %s)",
			errUnit, m.Kind, m.Seed, unitErr, len(all)-len(todo)+written, path)
	case ctx.Err() != nil && written < len(todo):
		return fmt.Errorf("%w: %d of %d units of shard %s done (%d in this run), results in %s; run the same command again to resume: %w",
			ErrInterrupted, len(all)-len(todo)+written, len(all), m.Shard, written, path, ctx.Err())
	}
	return nil
}

// dispatchOrder returns the units in the order Run dispatches them: a
// permutation drawn from the campaign's kind and seed (results do not
// depend on it; only which units are done first does).
func dispatchOrder(units []int, m Manifest) []int {
	out := append([]int(nil), units...)
	h := fnv.New64a()
	h.Write([]byte(m.Kind))
	rng := rand.New(rand.NewPCG(h.Sum64(), m.Seed))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// checkOrWriteManifest writes m to dir/manifest.json, or checks that the
// existing one is the same campaign and shard.
func checkOrWriteManifest(dir string, m Manifest) error {
	old, err := ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return writeManifest(dir, m)
	}
	if err != nil {
		return err
	}
	where := filepath.Join(dir, ManifestFile)
	if err := SameCampaign(old, m, where, "this run"); err != nil {
		return fmt.Errorf("%s belongs to another campaign: %w; use another --out directory", dir, err)
	}
	if old.Shard != m.Shard {
		return fmt.Errorf("%s belongs to another shard: shard differs: %s in %s, %s in this run; use one directory per shard and combine them with 'volsched exp merge'",
			dir, old.Shard, where, m.Shard)
	}
	return nil
}

// callUnit calls work, turning a panic into an error with its stack, so
// that a bug hit by one unit is reported with the unit's number and the
// results already written are closed cleanly.
func callUnit[R any](ctx context.Context, work func(context.Context, int) (R, error), u int) (r R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return work(ctx, u)
}
