package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
)

// DefaultForecastLevel is the level of a forecast's interval when none is
// asked.
const DefaultForecastLevel = 0.9

// ForecastIterative runs the slot simulator p.Runs times on independent
// realizations of the chains and returns the forecast of the makespan
// (Forecast's interval: the runs' empirical quantiles, Quantile). It
// is the live system's prediction (the one place that predicts a live
// run): the live master's of the time left in an iteration (`volsched
// status`, wired by the CLI: the live system imports no simulator) and
// `volsched demo`'s of the measured makespan. Run r draws the chains from
// the stream (Seed, r) and the heuristic's choices from (Seed, r + 2^32).
func ForecastIterative(p iterative.ForecastInput) (iterative.Forecast, error) {
	h := p.Heuristic
	if !h.Valid() {
		return iterative.Forecast{}, errors.New("forecast: no heuristic (the zero Heuristic)")
	}
	level := p.Level
	if level == 0 {
		level = DefaultForecastLevel
	}
	if !(level > 0 && level < 1) {
		return iterative.Forecast{}, fmt.Errorf("forecast level %v: want a fraction in (0, 1)", p.Level)
	}
	in := &p.Instance
	opt := iterative.DefaultOptions()
	opt.ExtraReplicas = p.ExtraReplicas
	opt.MaxSlots = 1 << 22
	opt.Initial = availability.StartStationary
	if p.AllUp {
		opt.Initial = availability.StartUp
	}
	sim, err := slotsim.New(in, opt)
	if err != nil {
		return iterative.Forecast{}, err
	}
	if p.Runs < 1 {
		return iterative.Forecast{}, fmt.Errorf("runs = %d, want ≥ 1", p.Runs)
	}
	if p.Start != nil && len(p.Start) != len(p.Chains) {
		return iterative.Forecast{}, fmt.Errorf("%d initial states for %d processors", len(p.Start), len(p.Chains))
	}
	for q, st := range p.Start {
		if st > availability.Down {
			return iterative.Forecast{}, fmt.Errorf("initial state of processor %d: %d, want UP, RECLAIMED or DOWN", q, st)
		}
	}
	makespans := make([]float64, p.Runs)
	var sum, sum2 float64
	for r := range p.Runs {
		rng := rand.New(rand.NewPCG(p.Seed, uint64(r)))
		var src []availability.Source
		if p.Start != nil {
			// Each processor from its state, no draw for slot 0; the
			// following slots from the one stream, in processor order.
			src = make([]availability.Source, len(p.Chains))
			for q, c := range p.Chains {
				src[q] = availability.NewChainSource(c, availability.StartIn(p.Start[q]), rng)
			}
		} else {
			src = availability.ChainSources(p.Chains, opt.Initial, rng)
		}
		ms, err := sim.Run(h, slotsim.Realize(src), rand.New(rand.NewPCG(p.Seed, uint64(r)+1<<32)))
		if err != nil {
			return iterative.Forecast{}, err
		}
		makespans[r] = float64(ms)
		sum += float64(ms)
		sum2 += float64(ms) * float64(ms)
	}
	n := float64(p.Runs)
	f := iterative.Forecast{Mean: sum / n, Level: level, Runs: p.Runs}
	if p.Runs > 1 {
		f.SD = math.Sqrt(math.Max(0, (sum2-n*f.Mean*f.Mean)/(n-1)))
	}
	slices.Sort(makespans)
	f.Lo, f.Hi = Quantile(makespans, (1-level)/2), Quantile(makespans, (1+level)/2)
	return f, nil
}
