package availability

import (
	"fmt"
	"math/rand/v2"
)

// Source is one processor's availability as a simulator consumes it: the
// first call to Next returns the processor's state at slot 0, each
// following call the state at the next slot. Sources never depend on
// scheduling, so a simulator may draw them ahead of time or share one
// realization among several runs (common random numbers).
//
// The implementations of this package (ChainSource, SemiMarkovSource,
// Replay) are deterministic: given the same construction arguments (in
// particular the same random stream) they produce the same states.
type Source interface {
	Next() State
}

// Fill draws one slot from every source: s[q] = srcs[q].Next(). s must have
// len(srcs) entries.
func Fill(srcs []Source, s []State) {
	for q, src := range srcs {
		s[q] = src.Next()
	}
}

// Start says how a source chooses its state at slot 0.
type Start uint8

const (
	// StartStationary starts the processor as if it had been running
	// forever: for a chain, the slot-0 state is drawn from the stationary
	// distribution; for a semi-Markov process, the state and the time
	// already spent in it are drawn from the process's equilibrium.
	StartStationary Start = iota
	// StartUp puts the processor UP at slot 0 (for a semi-Markov process,
	// at the beginning of a fresh UP sojourn).
	StartUp
)

// String names the choice ("stationary", "up").
func (s Start) String() string {
	switch s {
	case StartStationary:
		return "stationary"
	case StartUp:
		return "up"
	}
	return fmt.Sprintf("Start(%d)", uint8(s))
}

// ParseStart reads "stationary" or "up".
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
// when the start is stationary; with StartUp, slot 0 draws nothing).
// Drawing per processor from its own stream (seed, labels…, q) gives the
// same states as coupled.Markov.
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

// Next implements Source.
func (s *ChainSource) Next() State {
	if !s.begun {
		s.begun = true
		if s.start == StartUp {
			s.cur = Up
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
