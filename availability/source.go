package availability

import (
	"fmt"
	"math/rand/v2"
)

// Source is one processor's availability as a simulator consumes it: the
// first call to Next returns the processor's state at slot 0, each
// following call the state at the next slot. It is the one availability
// interface of the project: the slot simulators (iterative/slotsim's
// Realization, coupled/slotsim's Run), whatif's trials and the robustness
// study all draw through it. Sources never depend on scheduling, so a
// simulator may draw them ahead of time or share one realization among
// several runs (common random numbers).
//
// The sources of this package are the Markov chain (ChainSource,
// ChainSources), the semi-Markov process (SemiMarkovSource) and the replay
// of a trace (Replay), plus Sequence for hand-built tests. They are
// deterministic: given the same construction arguments (in particular the
// same random stream) they produce the same states.
type Source interface {
	Next() State
}

// Fill draws one slot from every source, in processor order: s[q] =
// srcs[q].Next(). s must have len(srcs) entries. Sources that share one
// stream (ChainSources with one rng) rely on that order.
func Fill(srcs []Source, s []State) {
	for q, src := range srcs {
		s[q] = src.Next()
	}
}

// Start says how a source chooses its state at slot 0: drawn from the
// process's equilibrium (StartStationary, the zero value) or a given state
// (StartUp, StartIn). It is the one initial-state type of every model and
// simulator: iterative.Options.Initial, whatif's "start", the sources here.
type Start uint8

const (
	// StartStationary starts the processor as if it had been running
	// forever: for a chain, the slot-0 state is drawn from the stationary
	// distribution; for a semi-Markov process, the state and the time
	// already spent in it are drawn from the process's equilibrium.
	StartStationary Start = iota
	// StartUp puts the processor UP at slot 0 (for a semi-Markov process,
	// at the beginning of a fresh UP sojourn). It is StartIn(Up).
	StartUp
	startReclaimed
	startDown
)

// StartIn puts the processor in state s at slot 0 (for a semi-Markov
// process, at the beginning of a fresh sojourn in s), drawing nothing for
// slot 0: a prediction from the states a master observes now.
func StartIn(s State) Start {
	switch s {
	case Up:
		return StartUp
	case Reclaimed:
		return startReclaimed
	case Down:
		return startDown
	}
	panic(fmt.Sprintf("availability.StartIn(%v): not a state", s))
}

// In returns the slot-0 state of a start in a given state; ok is false for
// StartStationary.
func (s Start) In() (st State, ok bool) {
	switch s {
	case StartUp:
		return Up, true
	case startReclaimed:
		return Reclaimed, true
	case startDown:
		return Down, true
	}
	return 0, false
}

// Validate checks that s is StartStationary or a start in a state.
func (s Start) Validate() error {
	if _, in := s.In(); in || s == StartStationary {
		return nil
	}
	return fmt.Errorf("initial state %s: want stationary or a start in a state (StartIn)", s)
}

// String names the choice ("stationary", "up", "reclaimed", "down").
func (s Start) String() string {
	if s == StartStationary {
		return "stationary"
	}
	if st, ok := s.In(); ok {
		return map[State]string{Up: "up", Reclaimed: "reclaimed", Down: "down"}[st]
	}
	return fmt.Sprintf("Start(%d)", uint8(s))
}

// ParseStart reads "stationary" or "up", the starts files and flags offer
// (a start in another state is for programs: StartIn).
func ParseStart(s string) (Start, error) {
	switch s {
	case "stationary":
		return StartStationary, nil
	case "up":
		return StartUp, nil
	}
	return 0, fmt.Errorf("start %q: want stationary or up", s)
}

// ChainSource is the availability of a 3-state Markov chain: one uniform
// draw from its stream per slot (the first one chooses the slot-0 state
// when the start is stationary; a start in a state draws nothing for slot
// 0). Drawing per processor from its own stream (seed, labels…, q) gives
// the same states as the seed-002 campaign; several sources sharing one
// stream and drawn in processor order slot after slot (ChainSources with
// one stream) give those of the seed-001 campaign.
type ChainSource struct {
	c     Chain
	r     *rand.Rand
	cur   State
	start Start
	begun bool
}

// NewChainSource returns the availability of c drawn from r. c must be
// valid (Chain.Validate).
func NewChainSource(c Chain, start Start, r *rand.Rand) *ChainSource {
	return &ChainSource{c: c, r: r, start: start}
}

// ChainSources returns the sources of processors following chains (one
// allocation for all). rngs is either one stream that they all draw from,
// in processor order slot after slot (as a Realization and Fill ask; the
// seed-001 campaign's order), or one stream per processor. Any other
// number of streams is a programming error: it panics.
func ChainSources(chains []Chain, start Start, rngs ...*rand.Rand) []Source {
	if len(rngs) != 1 && len(rngs) != len(chains) {
		panic(fmt.Sprintf("availability.ChainSources: %d streams for %d chains, want 1 or %d", len(rngs), len(chains), len(chains)))
	}
	cs := make([]ChainSource, len(chains))
	src := make([]Source, len(chains))
	for q, c := range chains {
		r := rngs[0]
		if len(rngs) > 1 {
			r = rngs[q]
		}
		cs[q] = ChainSource{c: c, r: r, start: start}
		src[q] = &cs[q]
	}
	return src
}

// Next implements Source.
func (s *ChainSource) Next() State {
	if !s.begun {
		s.begun = true
		if st, ok := s.start.In(); ok {
			s.cur = st
			return s.cur
		}
		pi := s.c.Stationary()
		u := s.r.Float64()
		switch {
		case u < pi[Up]:
			s.cur = Up
		case u < pi[Up]+pi[Reclaimed]:
			s.cur = Reclaimed
		default:
			s.cur = Down
		}
		return s.cur
	}
	s.cur = s.c.NextU(s.cur, s.r.Float64())
	return s.cur
}

// Sequence is a source replaying fixed states (at least one): slot t is
// states[t], and the slots beyond the end repeat the last one. It is meant
// for tests and hand-built examples.
func Sequence(states ...State) Source {
	if len(states) == 0 {
		panic("availability.Sequence: no state")
	}
	return &sequence{s: states}
}

type sequence struct {
	s []State
	t int
}

// Next implements Source.
func (q *sequence) Next() State {
	x := q.s[q.t]
	if q.t+1 < len(q.s) {
		q.t++
	}
	return x
}

// Take returns the next n states of src.
func Take(src Source, n int) []State {
	s := make([]State, max(n, 0))
	for t := range s {
		s[t] = src.Next()
	}
	return s
}

// Run is a maximal stretch of slots in one state.
type Run struct {
	State State
	N     int // slots, ≥ 1
}

// Runs splits a state sequence into its maximal runs.
func Runs(s []State) []Run {
	var out []Run
	for t, x := range s {
		if t > 0 && x == s[t-1] {
			out[len(out)-1].N++
			continue
		}
		out = append(out, Run{State: x, N: 1})
	}
	return out
}

// Sojourns returns, per state, the lengths (slots) of the complete
// sojourns in a sequence of runs: every run but the first and the last,
// which the observation window cuts (their true lengths are unknown).
func Sojourns(runs []Run) [3][]int {
	var out [3][]int
	for i := 1; i+1 < len(runs); i++ {
		out[runs[i].State] = append(out[runs[i].State], runs[i].N)
	}
	return out
}
