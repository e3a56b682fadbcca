package slotsim

import (
	"fmt"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// belief is one processor's new criteria from a slot on.
type belief struct {
	q    int32
	crit iterative.Criteria
}

// Believe makes the heuristics of every simulation on r believe the chains
// that v estimates from the states of r seen so far, instead of the
// instance's chains: the criteria in force at slot t are those of
// v.Chains() after v has observed slots 0 … t−1 of r (and whatever v had
// observed before, e.g. a history). The master sees a slot's states only
// once the slot has happened, so a decision never uses a state of its own
// slot or a later one, in either slot order (ObserveThenDecide could use
// slot t's states; this is the conservative reading, and the same for both
// orders).
//
// The view is r's own from then on: r feeds it each slot as it draws the
// slot (availability does not depend on scheduling, so the view's chains at
// each slot are the same for every heuristic of the trial) and recomputes
// the criteria only of the processors whose chain changed at a
// re-estimation (View.Epoch), once per trial for all heuristics. A view
// whose chains are all fixed (View.Fix) leaves the criteria as they are at
// slot 0.
//
// Believe must be called before the realization draws its slot 1 (right
// after Realize) with a view of as many processors as r has.
func (r *Realization) Believe(v *availability.View) error {
	if r.n != 1 || r.view != nil {
		return fmt.Errorf("slotsim: Believe after the realization drew %d slots, want it right after Realize", r.n)
	}
	if len(v.Chains()) != r.p {
		return fmt.Errorf("slotsim: view of %d processors for a realization of %d", len(v.Chains()), r.p)
	}
	r.view = v
	r.chains = append([]availability.Chain(nil), v.Chains()...)
	r.crit0 = make([]iterative.Criteria, r.p)
	for q, c := range r.chains {
		r.crit0[q] = iterative.NewCriteria(c)
	}
	r.belOff = []int{0, 0} // no update at slot 0; slot 1's follow
	r.observe(0)
	return nil
}

// Believing reports whether r has a view (Believe).
func (r *Realization) Believing() bool { return r.view != nil }

// observe feeds slot t (drawn) to the view and records the criteria that
// change from slot t+1 on.
func (r *Realization) observe(t int) {
	ep := r.view.Epoch()
	r.view.Observe(r.states[t*r.p : (t+1)*r.p])
	if r.view.Epoch() != ep {
		for q, c := range r.view.Chains() {
			if c != r.chains[q] {
				r.chains[q] = c
				r.bel = append(r.bel, belief{q: int32(q), crit: iterative.NewCriteria(c)})
				r.Recomputed++
			}
		}
	}
	r.belOff = append(r.belOff, len(r.bel))
}

// beliefsAt returns the criteria that change at slot t (t ≥ 1, slot t−1
// drawn).
func (r *Realization) beliefsAt(t int) []belief {
	return r.bel[r.belOff[t]:r.belOff[t+1]]
}
