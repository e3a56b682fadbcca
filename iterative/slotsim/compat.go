package slotsim

// This file keeps the realization's former availability API for
// live/master's prediction (live/master/decide.go), its only user, which is
// moving to whatif/simulate; delete the file then. Everything else draws
// through availability.Source and Realize.

import (
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

// Source is the former per-processor availability of a Realization:
// State(t) is the state at slot t, asked once per slot in increasing order
// from 0.
//
// Deprecated: use availability.Source (Next), which every source of the
// project implements.
type Source interface {
	State(t int) availability.State
}

// Markov returns availability.ChainSources(chains, init, rng) as former
// Sources.
//
// Deprecated: use availability.ChainSources and Realize.
func Markov(chains []availability.Chain, init availability.Start, rng *rand.Rand) []Source {
	src := availability.ChainSources(chains, init, rng)
	out := make([]Source, len(src))
	for q, s := range src {
		out[q] = former{s}
	}
	return out
}

// NewRealization is Realize of former Sources.
//
// Deprecated: use Realize.
func NewRealization(src []Source) *Realization {
	out := make([]availability.Source, len(src))
	for q, s := range src {
		if f, ok := s.(former); ok {
			out[q] = f.src
		} else {
			out[q] = &stateSource{src: s}
		}
	}
	return Realize(out)
}

// former is an availability.Source seen as a former Source.
type former struct{ src availability.Source }

func (f former) State(int) availability.State { return f.src.Next() }

// stateSource is a former Source seen as an availability.Source.
type stateSource struct {
	src Source
	t   int
}

func (s *stateSource) Next() availability.State {
	x := s.src.State(s.t)
	s.t++
	return x
}
