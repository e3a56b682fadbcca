package slotsim

import (
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// TestMarkovDrawForDraw: the Markov sources draw exactly what the
// realization drew before sources existed (every campaign result depends
// on it): the slot-0 states against the stationary distributions, one
// uniform per processor in processor order (none with StartUp), then one
// uniform per processor per slot in processor order, each through
// Chain.NextU. The expected states are computed here from the stream
// directly.
func TestMarkovDrawForDraw(t *testing.T) {
	rng := stream.New(41)
	var chains []availability.Chain
	for q := 0; q < 9; q++ {
		chains = append(chains, availability.Random(rng))
	}
	const slots = 300
	for _, init := range []availability.Start{availability.StartStationary, availability.StartUp} {
		u := stream.New(41, 1)
		want := make([][]availability.State, slots)
		want[0] = make([]availability.State, len(chains))
		for q, c := range chains {
			if init == availability.StartUp {
				want[0][q] = availability.Up
				continue
			}
			pi := c.Stationary()
			x := u.Float64()
			switch {
			case x < pi[availability.Up]:
				want[0][q] = availability.Up
			case x < pi[availability.Up]+pi[availability.Reclaimed]:
				want[0][q] = availability.Reclaimed
			default:
				want[0][q] = availability.Down
			}
		}
		for s := 1; s < slots; s++ {
			want[s] = make([]availability.State, len(chains))
			for q, c := range chains {
				want[s][q] = c.NextU(want[s-1][q], u.Float64())
			}
		}
		real := Realize(availability.ChainSources(chains, init, stream.New(41, 1)))
		for s := slots - 1; s >= 0; s -= 7 { // ask out of order: drawing is lazy
			got := real.At(s)
			for q := range chains {
				if got[q] != want[s][q] {
					t.Fatalf("%v: slot %d processor %d: %v, want %v", init, s, q, got[q], want[s][q])
				}
			}
		}
	}
}

// callOrder is a source that records the calls its realization makes.
type callOrder struct {
	q, t  int
	calls *[][2]int // (slot, processor) in call order
}

func (c *callOrder) Next() availability.State {
	*c.calls = append(*c.calls, [2]int{c.t, c.q})
	c.t++
	return availability.State((c.t - 1 + c.q) % 3)
}

// TestSourceCallOrder: a realization asks each source once per slot, slots
// in increasing order from 0, processors in index order within a slot,
// whatever order the slots are asked for; and it returns their states.
func TestSourceCallOrder(t *testing.T) {
	var calls [][2]int
	src := []availability.Source{&callOrder{q: 0, calls: &calls}, &callOrder{q: 1, calls: &calls}, &callOrder{q: 2, calls: &calls}}
	real := Realize(src)
	real.At(5)
	real.Changes(2)
	real.At(8)
	if len(calls) != 9*3 {
		t.Fatalf("%d calls for 9 slots of 3 processors", len(calls))
	}
	for i, c := range calls {
		if c != [2]int{i / 3, i % 3} {
			t.Fatalf("call %d is (slot %d, processor %d), want (%d, %d)", i, c[0], c[1], i/3, i%3)
		}
	}
	for s := 0; s <= 8; s++ {
		for q, a := range real.At(s) {
			if want := availability.State((s + q) % 3); a != want {
				t.Errorf("slot %d processor %d: %v, want %v", s, q, a, want)
			}
		}
	}
	if len(calls) != 27 {
		t.Errorf("states asked again: %d calls", len(calls))
	}
}
