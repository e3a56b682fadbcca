package slotsim

import (
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// Realization is one trial's availability: the state of every processor at
// every slot, drawn lazily from the processors' chains as far as a
// simulation needs it. Availability never depends on scheduling, so every
// heuristic of a trial replays the same Realization (common random
// numbers): the states of slot t are the same whichever simulation asks for
// them first. Besides the states it keeps, per slot, the list of the
// processors whose state changed, so that a simulation visits only those.
type Realization struct {
	chains []availability.Chain
	rng    *rand.Rand
	states []availability.State // slot-major: states[t*p+q], n slots
	p, n   int
	// chq[chOff[t]:chOff[t+1]] are the processors whose state changes at
	// slot t (none at slot 0).
	chq   []int32
	chOff []int
}

// NewRealization starts the realization of the given chains; the slot-0
// states follow init, and every draw comes from rng (one uniform per
// processor per slot, in processor order).
func NewRealization(chains []availability.Chain, init iterative.InitialState, rng *rand.Rand) *Realization {
	p := len(chains)
	r := &Realization{chains: chains, rng: rng, p: p, n: 1, states: make([]availability.State, p, 1024*p), chOff: []int{0, 0}}
	for q, c := range chains {
		if init == iterative.StartUp {
			r.states[q] = availability.Up
			continue
		}
		pi := c.Stationary()
		u := rng.Float64()
		switch {
		case u < pi[availability.Up]:
			r.states[q] = availability.Up
		case u < pi[availability.Up]+pi[availability.Reclaimed]:
			r.states[q] = availability.Reclaimed
		default:
			r.states[q] = availability.Down
		}
	}
	return r
}

// FromStates builds a realization from explicit state vectors (one per
// processor, none empty); a processor's slots beyond the end of its vector
// repeat its last state. It is meant for tests and hand-built examples.
func FromStates(s [][]availability.State) *Realization {
	p := len(s)
	n := 0
	for _, v := range s {
		n = max(n, len(v))
	}
	r := &Realization{p: p, n: 1, states: make([]availability.State, 0, n*p), chOff: []int{0, 0}}
	for q := 0; q < p; q++ {
		r.states = append(r.states, s[q][0])
	}
	for t := 1; t < n; t++ {
		for q := 0; q < p; q++ {
			a := s[q][min(t, len(s[q])-1)]
			if a != s[q][min(t-1, len(s[q])-1)] {
				r.chq = append(r.chq, int32(q))
			}
			r.states = append(r.states, a)
		}
		r.chOff = append(r.chOff, len(r.chq))
		r.n++
	}
	return r
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

// extend draws the slots up to t: one uniform per processor per slot, in
// processor order (FromStates: the last slot repeats).
func (r *Realization) extend(t int) {
	for ; r.n <= t; r.n++ {
		last := r.states[len(r.states)-r.p:]
		if r.rng == nil {
			r.states = append(r.states, last...)
		} else {
			for q := 0; q < r.p; q++ {
				a := r.chains[q].NextU(r.states[len(r.states)-r.p], r.rng.Float64())
				if a != r.states[len(r.states)-r.p] {
					r.chq = append(r.chq, int32(q))
				}
				r.states = append(r.states, a)
			}
		}
		r.chOff = append(r.chOff, len(r.chq))
	}
}
