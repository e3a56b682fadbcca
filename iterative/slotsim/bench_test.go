package slotsim_test

import (
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/stream"
)

// BenchmarkRealize20 draws the realization of a 20-processor platform of
// the papers' chains (availability.ChainSources sharing one stream, as the
// §7 campaign does) over 10,000 slots, with its per-slot change lists:
// ns/op / 10,000 is the cost of one slot of the platform.
func BenchmarkRealize20(b *testing.B) {
	rng := stream.New(1)
	chains := make([]availability.Chain, 20)
	for q := range chains {
		chains[q] = availability.Random(rng)
	}
	for b.Loop() {
		real := slotsim.Realize(availability.ChainSources(chains, availability.StartStationary, stream.New(1, 2)))
		real.At(9999)
	}
}
