// Package simulate runs what-if simulations (issue 18, `volsched
// simulate`): every chosen heuristic of the application's model on the same
// availability realizations of a platform (common random numbers), the
// heuristics believing the chains their master's View estimates as the run
// goes; then the statistics of the makespans, the paired comparison with
// the best heuristic and a recommendation (Summarize), the model's
// estimate (Options.Predict), a text report, JSON and an SVG figure.
// docs/whatif.md documents it.
package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/whatif"
)

// Options of a what-if run.
type Options struct {
	// Heuristics to run, by the model's names ("EMCT*", "RANDOM2W"); empty:
	// all of them.
	Heuristics []string
	// Trials is the number of availability realizations (≥ 2), each run
	// by every heuristic.
	Trials int
	Seed   uint64
	// Workers is the number of goroutines running trials (0: one per
	// CPU). The results do not depend on it.
	Workers int
	// Predict adds the model's estimate of each heuristic's makespan.
	Predict bool
	// Progress, when not nil, is started once the run has lasted
	// ProgressAfter and told each finished trial.
	Progress *experiment.Progress
}

// ProgressAfter is how long a run goes before it shows its progress.
const ProgressAfter = 2 * time.Second

// MaxTrials bounds Options.Trials.
const MaxTrials = 1 << 20

// SlotLimit is the number of slots after which a run of p workers stops
// and counts as a failure (its makespan is then the limit): 2^24 slots,
// fewer for large platforms so that a trial's availability (one byte per
// worker and slot, shared by the heuristics) stays within 256 MiB, and at
// least 2^16.
func SlotLimit(p int) int { return min(1<<24, max(1<<16, (1<<28)/max(p, 1))) }

// Result is a what-if run: what was run, and its summary.
type Result struct {
	Platform    string  `json:"platform"`
	Application string  `json:"application"`
	Kind        string  `json:"kind"`
	Workers     int     `json:"workers"`
	Tasks       int     `json:"tasks"`
	Iterations  int     `json:"iterations"`
	SlotSeconds float64 `json:"slot_seconds"`
	Seed        uint64  `json:"seed"`
	// Predict names the estimate of Stats.Predicted (empty without
	// Options.Predict).
	Predict string `json:"predict,omitempty"`
	// Partial is set when the run was interrupted: the summary covers the
	// Trials that finished, of TrialsAsked.
	Partial     bool `json:"partial,omitempty"`
	TrialsAsked int  `json:"trials_asked"`
	Summary
}

// ErrInterrupted is wrapped by Run's error when its context was cancelled.
var ErrInterrupted = errors.New("what-if run interrupted")

// trialRunner runs every heuristic on one trial; one per goroutine.
type trialRunner interface {
	// trial runs trial k and fills makespans (and failed) per heuristic,
	// and predicted when predictions are asked for.
	trial(ctx context.Context, k int, makespans []int, failed []bool, predicted []float64) error
}

// model is what Run needs of an application's model.
type model struct {
	names     []string
	newRunner func() (trialRunner, error)
	predict   string
}

// Run simulates the application on the platform (traces loaded) under the
// chosen heuristics, Trials times, and summarizes. Trial k's availability
// is Platform.Trial(Seed, k) for every heuristic; a random heuristic draws
// from whatif.DecideStream(Seed, k, its stream label). The result depends only on
// the files, the heuristics, Trials and Seed, not on Workers. When ctx is
// cancelled it stops after the runs in flight (each one heuristic on one
// trial) and returns an error wrapping ErrInterrupted, with the summary of
// the trials that finished (Result.Partial) when at least 2 did.
func Run(ctx context.Context, p *whatif.Platform, a *whatif.Application, opt Options) (*Result, error) {
	if opt.Trials < 2 || opt.Trials > MaxTrials {
		return nil, fmt.Errorf("trials = %d, want 2..%d (a confidence interval needs at least 2)", opt.Trials, MaxTrials)
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("workers = %d, want ≥ 1, or 0 for one per CPU", opt.Workers)
	}
	var m model
	var err error
	switch a.Kind {
	case whatif.Independent:
		m, err = iterativeModel(p, a, opt)
	case whatif.Coupled:
		m, err = coupledModel(p, a, opt)
	default:
		err = fmt.Errorf("%s: kind %s: unknown", a.Source, a.Kind)
	}
	if err != nil {
		return nil, err
	}
	k := len(m.names)
	ms := make([][]int, opt.Trials)
	failed := make([][]bool, opt.Trials)
	var pred [][]float64
	if opt.Predict {
		pred = make([][]float64, opt.Trials)
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, opt.Trials)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next, done atomic.Int64
	var firstErr error
	var mu sync.Mutex
	start := time.Now()
	var started atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		r, err := m.newRunner()
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= opt.Trials || ctx.Err() != nil {
					return
				}
				ms[t], failed[t] = make([]int, k), make([]bool, k)
				var pt []float64
				if pred != nil {
					pt = make([]float64, k)
					pred[t] = pt
				}
				if err := r.trial(ctx, t, ms[t], failed[t], pt); err != nil {
					ms[t] = nil
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				n := int(done.Add(1))
				if opt.Progress != nil {
					if !started.Load() && time.Since(start) >= ProgressAfter && started.CompareAndSwap(false, true) {
						opt.Progress.Start(opt.Trials, n-1)
					}
					if started.Load() {
						opt.Progress.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	if started.Load() {
		opt.Progress.Finish()
	}
	if firstErr != nil && !errors.Is(firstErr, context.Canceled) {
		return nil, firstErr
	}
	// The trials that finished (all of them unless interrupted).
	var keep []int
	for t := range ms {
		if ms[t] != nil {
			keep = append(keep, t)
		}
	}
	var interrupted error
	if len(keep) < opt.Trials {
		interrupted = fmt.Errorf("%w after %d of %d trials (%v)", ErrInterrupted, len(keep), opt.Trials, context.Cause(ctx))
		if len(keep) < 2 {
			return nil, interrupted
		}
	}
	kms, kfailed := make([][]int, len(keep)), make([][]bool, len(keep))
	for i, t := range keep {
		kms[i], kfailed[i] = ms[t], failed[t]
	}
	sum, err := Summarize(m.names, kms, kfailed, p.SlotSeconds)
	if err != nil {
		return nil, err
	}
	if pred != nil {
		for i := range sum.Heuristics {
			h := slices.Index(m.names, sum.Heuristics[i].Name)
			v := 0.0
			for _, t := range keep {
				v += pred[t][h]
			}
			v /= float64(len(keep))
			if !math.IsInf(v, 0) && !math.IsNaN(v) { // a worker that never returns UP has no finite E(W)
				sum.Heuristics[i].Predicted = &v
			}
		}
	}
	res := &Result{
		Platform: p.Source, Application: a.Source, Kind: a.Kind.String(),
		Workers: len(p.Workers), Tasks: a.Tasks, Iterations: a.Iterations, SlotSeconds: p.SlotSeconds,
		Seed: opt.Seed, Partial: interrupted != nil, TrialsAsked: opt.Trials, Summary: sum,
	}
	if opt.Predict {
		res.Predict = m.predict
	}
	return res, interrupted
}

// iterativeModel prepares seed 001's model: the heuristics named (all the
// registered ones when none is: iterative.ParseHeuristics) on slotsim.
func iterativeModel(p *whatif.Platform, a *whatif.Application, opt Options) (model, error) {
	in, err := whatif.IterativeInstance(p, a)
	if err != nil {
		return model{}, err
	}
	hs, err := iterative.ParseHeuristics(opt.Heuristics)
	if err != nil {
		return model{}, err
	}
	m := model{predict: PredictIndependent, names: iterative.Names(hs)}
	iopt := iterative.DefaultOptions()
	iopt.MaxSlots = SlotLimit(len(p.Workers))
	m.newRunner = func() (trialRunner, error) {
		sim, err := slotsim.New(in, iopt)
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", p.Source, a.Source, err)
		}
		return &iterRunner{p: p, in: in, sim: sim, hs: hs, seed: opt.Seed}, nil
	}
	return m, nil
}

type iterRunner struct {
	p    *whatif.Platform
	in   *iterative.Instance
	sim  *slotsim.Simulator
	hs   []iterative.Heuristic
	seed uint64
	dec  iterative.Decider
}

func (r *iterRunner) trial(ctx context.Context, k int, ms []int, failed []bool, pred []float64) error {
	tr, err := r.p.Trial(r.seed, uint64(k))
	if err != nil {
		return err
	}
	if pred != nil {
		for i, h := range r.hs {
			pred[i] = predictIterative(&r.dec, r.in, tr.View.Chains(), h, whatif.DecideStream(r.seed, uint64(k), h.Stream()))
		}
	}
	real := slotsim.Realize(tr.Sources)
	if err := real.Believe(tr.View); err != nil {
		return err
	}
	for i, h := range r.hs {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, err := r.sim.Run(h, real, whatif.DecideStream(r.seed, uint64(k), h.Stream()))
		if errors.Is(err, slotsim.ErrTooLong) {
			v, failed[i] = SlotLimit(len(r.p.Workers)), true
		} else if err != nil {
			return fmt.Errorf("trial %d, %v: %w", k, h, err)
		}
		ms[i] = v
	}
	return nil
}
