package slotsim

import (
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// Source is one processor's availability, slot by slot: State(t) is its
// state at slot t. A Realization calls State exactly once per slot, in
// increasing slot order from t = 0, and within a slot calls the sources in
// processor order; sources sharing one random stream (as Markov's do) rely
// on that order for their draws. A source must not depend on the schedule:
// every heuristic of a trial replays the same states.
//
// Markov draws from 3-state chains (§3); Sequence replays a fixed vector.
// Trace replay and semi-Markov sojourns are other sources.
type Source interface {
	State(t int) availability.State
}

// Realization is one trial's availability: the state of every processor at
// every slot, drawn lazily from the processors' sources as far as a
// simulation needs it. Availability never depends on scheduling, so every
// heuristic of a trial replays the same Realization (common random
// numbers): the states of slot t are the same whichever simulation asks for
// them first. Besides the states it keeps, per slot, the list of the
// processors whose state changed, so that a simulation visits only those.
type Realization struct {
	src    []Source
	states []availability.State // slot-major: states[t*p+q], n slots
	p, n   int
	// chq[chOff[t]:chOff[t+1]] are the processors whose state changes at
	// slot t (none at slot 0).
	chq   []int32
	chOff []int

	// Believe's view and the criteria it gives: crit0 at slot 0, then
	// bel[belOff[t]:belOff[t+1]] change at slot t; chains are the view's
	// chains as last recorded.
	view   *availability.View
	chains []availability.Chain
	crit0  []iterative.Criteria
	bel    []belief
	belOff []int
	// Recomputed counts the processors' criteria recomputed after a
	// re-estimation changed their chain (for measurements).
	Recomputed int
}

// NewRealization starts the realization of processors whose states come
// from src (one source per processor); it asks every source for slot 0 at
// once, in processor order.
func NewRealization(src []Source) *Realization {
	p := len(src)
	r := &Realization{src: src, p: p, n: 1, states: make([]availability.State, p, 1024*p), chOff: []int{0, 0}}
	for q, s := range src {
		r.states[q] = s.State(0)
	}
	return r
}

// markov is a processor following a 3-state chain; the processors of a
// realization share rng.
type markov struct {
	chain availability.Chain
	init  iterative.InitialState
	rng   *rand.Rand
	cur   availability.State
}

// Markov returns the sources of processors following the given chains, all
// drawing from rng: the slot-0 states follow init (StartStationary: one
// uniform per processor, in processor order, against the chain's
// stationary distribution; StartUp: UP, no draw), then one uniform per
// processor per slot, in processor order (availability.Chain.NextU).
func Markov(chains []availability.Chain, init iterative.InitialState, rng *rand.Rand) []Source {
	src := make([]Source, len(chains))
	ms := make([]markov, len(chains)) // one allocation for all
	for q, c := range chains {
		ms[q] = markov{chain: c, init: init, rng: rng}
		src[q] = &ms[q]
	}
	return src
}

// State draws the state of slot t from the state of slot t − 1.
func (m *markov) State(t int) availability.State {
	if t > 0 {
		m.cur = m.chain.NextU(m.cur, m.rng.Float64())
		return m.cur
	}
	if m.init == iterative.StartUp {
		m.cur = availability.Up
		return m.cur
	}
	pi := m.chain.Stationary()
	u := m.rng.Float64()
	switch {
	case u < pi[availability.Up]:
		m.cur = availability.Up
	case u < pi[availability.Up]+pi[availability.Reclaimed]:
		m.cur = availability.Reclaimed
	default:
		m.cur = availability.Down
	}
	return m.cur
}

// sequence replays a fixed vector of states.
type sequence []availability.State

// Sequence is a source that replays states (not empty): slot t is
// states[t], and the slots beyond its end repeat its last state.
func Sequence(states []availability.State) Source { return sequence(states) }

func (s sequence) State(t int) availability.State { return s[min(t, len(s)-1)] }

// FromStates builds a realization from explicit state vectors (one per
// processor, none empty) with Sequence sources. It is meant for tests and
// hand-built examples.
func FromStates(s [][]availability.State) *Realization {
	src := make([]Source, len(s))
	for q, v := range s {
		src[q] = Sequence(v)
	}
	return NewRealization(src)
}

// Len is the number of slots drawn so far.
func (r *Realization) Len() int { return r.n }

// At returns the states of slot t (t ≥ 0), drawing slots as needed. The
// slice must not be modified.
func (r *Realization) At(t int) []availability.State {
	if t >= r.n {
		r.extend(t)
	}
	return r.states[t*r.p : (t+1)*r.p]
}

// Changes returns the processors whose state at slot t differs from their
// state at slot t − 1, in increasing index order (none for t = 0), drawing
// slots as needed. The slice must not be modified.
func (r *Realization) Changes(t int) []int32 {
	if t >= r.n {
		r.extend(t)
	}
	return r.chq[r.chOff[t]:r.chOff[t+1]]
}

// extend draws the slots up to t: each source's state of the slot, in
// processor order.
func (r *Realization) extend(t int) {
	for ; r.n <= t; r.n++ {
		for q, s := range r.src {
			prev := r.states[len(r.states)-r.p]
			a := s.State(r.n)
			if a != prev {
				r.chq = append(r.chq, int32(q))
			}
			r.states = append(r.states, a)
		}
		r.chOff = append(r.chOff, len(r.chq))
		if r.view != nil {
			r.observe(r.n)
		}
	}
}
