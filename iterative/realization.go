package iterative

import (
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

// Realization is one trial's availability: the state of every processor at
// every slot, drawn lazily from the processors' chains as far as a
// simulation needs it. Availability never depends on scheduling, so every
// heuristic of a trial replays the same Realization (common random
// numbers): the states of slot t are the same whichever simulation asks for
// them first.
type Realization struct {
	chains []availability.Chain
	rng    *rand.Rand
	states []availability.State // slot-major: states[t*p+q]
	p      int
}

// NewRealization starts the realization of the given chains; the slot-0
// states follow init, and every draw comes from rng (one uniform per
// processor per slot, in processor order).
func NewRealization(chains []availability.Chain, init InitialState, rng *rand.Rand) *Realization {
	p := len(chains)
	r := &Realization{chains: chains, rng: rng, p: p, states: make([]availability.State, p, 1024*p)}
	for q, c := range chains {
		if init == StartUp {
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
	r := &Realization{p: p, states: make([]availability.State, 0, n*p)}
	for t := 0; t < n; t++ {
		for q := 0; q < p; q++ {
			r.states = append(r.states, s[q][min(t, len(s[q])-1)])
		}
	}
	return r
}

// Len is the number of slots drawn so far.
func (r *Realization) Len() int { return len(r.states) / r.p }

// At returns the states of slot t (t ≥ 0), drawing slots as needed. The
// slice must not be modified.
func (r *Realization) At(t int) []availability.State {
	for (t+1)*r.p > len(r.states) {
		last := r.states[len(r.states)-r.p:]
		if r.rng == nil { // FromStates: repeat the last slot
			r.states = append(r.states, last...)
			continue
		}
		for q := 0; q < r.p; q++ {
			r.states = append(r.states, r.chains[q].NextU(r.states[len(r.states)-r.p], r.rng.Float64()))
		}
	}
	return r.states[t*r.p : (t+1)*r.p]
}
