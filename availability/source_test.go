package availability_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/stream"
)

// TestStartIn: a chain started in a state is that state at slot 0 with no
// draw, then follows the chain from the same stream (Chain.Sample); a
// semi-Markov process started in a state begins a sojourn there.
func TestStartIn(t *testing.T) {
	c := availability.Random(stream.New(1, 1))
	for _, s := range []availability.State{availability.Up, availability.Reclaimed, availability.Down} {
		got := availability.Take(availability.NewChainSource(c, availability.StartIn(s), stream.New(2, uint64(s))), 3000)
		if want := c.Sample(s, 3000, stream.New(2, uint64(s))); !slices.Equal(got, want) {
			t.Errorf("chain from %v differs from Chain.Sample with the same stream", s)
		}
		m := availability.SemiMarkov{
			Sojourn: [3]availability.Sojourn{sojourn.ExponentialMean(5), sojourn.ExponentialMean(5), sojourn.ExponentialMean(5)},
			Jump:    [3][3]float64{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}},
		}
		if got := availability.Take(m.NewSource(availability.StartIn(s), stream.New(3)), 1); got[0] != s {
			t.Errorf("semi-Markov from %v starts in %v", s, got[0])
		}
		if st, ok := availability.StartIn(s).In(); !ok || st != s {
			t.Errorf("StartIn(%v).In() = %v, %v", s, st, ok)
		}
	}
	if availability.StartIn(availability.Up) != availability.StartUp {
		t.Error("StartIn(Up) is not StartUp")
	}
	if _, ok := availability.StartStationary.In(); ok {
		t.Error("the stationary start has a given state")
	}
}

func TestStartNames(t *testing.T) {
	for _, s := range []availability.Start{availability.StartStationary, availability.StartUp} {
		got, err := availability.ParseStart(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStart(%q) = %v, %v", s.String(), got, err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	if got := availability.StartIn(availability.Down).String(); got != "down" {
		t.Errorf("StartIn(Down) is %q, want down", got)
	}
	if _, err := availability.ParseStart("down"); err == nil || !strings.Contains(err.Error(), `start "down": want stationary or up`) {
		t.Errorf("ParseStart(down): %v", err)
	}
	if err := availability.Start(9).Validate(); err == nil || !strings.Contains(err.Error(), "Start(9)") {
		t.Errorf("Start(9).Validate() = %v", err)
	}
}

func TestSequence(t *testing.T) {
	u, r, d := availability.Up, availability.Reclaimed, availability.Down
	got := availability.Take(availability.Sequence(u, r, d), 6)
	if want := []availability.State{u, r, d, d, d, d}; !slices.Equal(got, want) {
		t.Errorf("Sequence(u, r, d): %v, want %v", got, want)
	}
}

// TestChainSources: one stream per processor gives the processors' own
// sources; one shared stream gives sources drawing from it in processor
// order, slot after slot; any other number of streams panics.
func TestChainSources(t *testing.T) {
	g := stream.New(4)
	var chains []availability.Chain
	for q := 0; q < 3; q++ {
		chains = append(chains, availability.Random(g))
	}
	var own, manual []availability.Source
	shared := stream.New(5, 1)
	for q, c := range chains {
		own = append(own, availability.NewChainSource(c, availability.StartStationary, stream.New(5, 2, uint64(q))))
		manual = append(manual, availability.NewChainSource(c, availability.StartStationary, shared))
	}
	each := availability.ChainSources(chains, availability.StartStationary, stream.New(5, 2, 0), stream.New(5, 2, 1), stream.New(5, 2, 2))
	all := availability.ChainSources(chains, availability.StartStationary, stream.New(5, 1))
	a, b := make([]availability.State, 3), make([]availability.State, 3)
	for s := 0; s < 500; s++ {
		availability.Fill(own, a)
		availability.Fill(each, b)
		if !slices.Equal(a, b) {
			t.Fatalf("own streams, slot %d: %v, want %v", s, b, a)
		}
		availability.Fill(manual, a)
		availability.Fill(all, b)
		if !slices.Equal(a, b) {
			t.Fatalf("shared stream, slot %d: %v, want %v", s, b, a)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ChainSources with 2 streams for 3 chains did not panic")
		}
	}()
	availability.ChainSources(chains, availability.StartStationary, stream.New(1), stream.New(2))
}
