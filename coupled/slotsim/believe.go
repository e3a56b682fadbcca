package slotsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// Beliefs make the heuristics of a run believe the chains that View
// estimates from what the master has seen, instead of the evaluator's
// chains: at slot t the evaluator is the one of View.Chains() after View
// has observed slots 0 … t − 1 of the run (and whatever it had observed
// before, e.g. a history). The run feeds View each slot's states once the
// slot is simulated; it builds a new evaluator with Evaluator (the
// caller's form and platform) only when View re-estimated (View.Epoch) and
// some chain changed, and then starts every heuristic's incremental
// construction afresh (its values were the old chains'). A decision never
// uses a state of its own slot's future.
type Beliefs struct {
	View      *availability.View
	Evaluator func(chains []availability.Chain) (*coupled.Evaluator, error)
}

// RunBelieving is Run with the heuristics believing b's chains. With a
// view whose chains never change (every chain fixed, View.Fix), the
// results are Run's with an evaluator of those chains.
func (sm *Simulator) RunBelieving(ctx context.Context, av []availability.Source, b Beliefs, rngs []*rand.Rand) ([]Result, error) {
	if b.View == nil || b.Evaluator == nil {
		return nil, fmt.Errorf("simulate: beliefs need a view and an evaluator builder")
	}
	if n := len(b.View.Chains()); n != sm.e.Platform().P() {
		return nil, fmt.Errorf("simulate: view of %d processors for a platform of %d", n, sm.e.Platform().P())
	}
	sm.beliefs = &b
	defer func() { sm.beliefs = nil }()
	return sm.Run(ctx, av, rngs)
}

// Rebuilds counts the evaluators built for beliefs (for measurements).
func (sm *Simulator) Rebuilds() int { return sm.rebuilds }

// believe installs the evaluator of the view's chains at the start of
// slot t, when they changed.
func (sim *simulation) believe(t int) error {
	sm, v := sim.sm, sim.sm.beliefs.View
	if t > 0 && v.Epoch() == sim.epoch {
		return nil
	}
	sim.epoch = v.Epoch()
	cs := v.Chains()
	if slices.Equal(cs, sm.believed) {
		if sim.e != sm.believedEval {
			sim.setEvaluator(sm.believedEval)
		}
		return nil
	}
	e, err := sm.beliefs.Evaluator(cs)
	if err != nil {
		return fmt.Errorf("simulate: slot %d: evaluator of the estimated chains: %w", t, err)
	}
	sm.rebuilds++
	sm.believed, sm.believedEval = append(sm.believed[:0], cs...), e
	sim.setEvaluator(e)
	return nil
}

// setEvaluator makes e the simulation's evaluator; the runs' incremental
// constructions and remembered choices were the old one's.
func (sim *simulation) setEvaluator(e *coupled.Evaluator) {
	sim.e = e
	for _, rs := range [][]*run{sim.runs, sim.free} {
		for _, r := range rs {
			if r.inc != nil {
				r.inc = e.NewConstruction()
			}
			r.memo.t = -1
		}
	}
}
