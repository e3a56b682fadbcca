package slotsim

import (
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// Realization is one trial's availability: the state of every processor at
// every slot, drawn lazily from the processors' sources (availability.Source:
// Markov chains, semi-Markov sojourns, trace replay) as far as a simulation
// needs it. Availability never depends on scheduling, so every heuristic of
// a trial replays the same Realization (common random numbers): the states
// of slot t are the same whichever simulation asks for them first. Besides
// the states it keeps, per slot, the list of the processors whose state
// changed, so that a simulation visits only those.
type Realization struct {
	src    []availability.Source
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

// Realize starts the realization of processors whose states come from src
// (one source per processor). It asks every source for one slot at a time,
// slots in increasing order from 0 and, within a slot, processors in index
// order (sources sharing one random stream, as the seed-001 campaign's
// availability.ChainSources do, rely on that order); slot 0 is asked at
// once.
func Realize(src []availability.Source) *Realization {
	p := len(src)
	r := &Realization{src: src, p: p, n: 1, states: make([]availability.State, p, 1024*p), chOff: []int{0, 0}}
	availability.Fill(src, r.states)
	return r
}

// FromStates builds a realization from explicit state vectors (one per
// processor, none empty) with availability.Sequence sources: slot t is
// s[q][t], the last state repeated beyond the end. It is meant for tests
// and hand-built examples.
func FromStates(s [][]availability.State) *Realization {
	src := make([]availability.Source, len(s))
	for q, v := range s {
		src[q] = availability.Sequence(v...)
	}
	return Realize(src)
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
			a := s.Next()
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
