package slotsim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/stream"
)

// TestRealizeSources: a realization gives what its sources give, slot
// after slot, with one stream per processor or one shared stream (drawn in
// processor order: the seed-001 campaign's order).
func TestRealizeSources(t *testing.T) {
	rng := stream.New(5)
	var chains []availability.Chain
	for q := 0; q < 4; q++ {
		chains = append(chains, availability.Random(rng))
	}
	own := func() []availability.Source {
		var src []availability.Source
		for q, c := range chains {
			src = append(src, availability.NewChainSource(c, availability.StartStationary, stream.New(5, 1, uint64(q))))
		}
		return src
	}
	shared := func() []availability.Source {
		var src []availability.Source
		r := stream.New(5, 2)
		for _, c := range chains {
			src = append(src, availability.NewChainSource(c, availability.StartStationary, r))
		}
		return src
	}
	for name, c := range map[string]struct{ mk, built func() []availability.Source }{
		"own streams": {own, func() []availability.Source {
			var rngs []*rand.Rand
			for q := range chains {
				rngs = append(rngs, stream.New(5, 1, uint64(q)))
			}
			return availability.ChainSources(chains, availability.StartStationary, rngs...)
		}},
		"shared stream": {shared, func() []availability.Source {
			return availability.ChainSources(chains, availability.StartStationary, stream.New(5, 2))
		}},
	} {
		want := c.mk()
		real := Realize(c.built())
		for s := 0; s < 500; s++ {
			got := real.At(s)
			for q := range chains {
				if w := want[q].Next(); got[q] != w {
					t.Fatalf("%s: slot %d processor %d: %v, want %v", name, s, q, got[q], w)
				}
			}
		}
	}
}

func fixedView(t *testing.T, chains []availability.Chain) *availability.View {
	t.Helper()
	v, err := availability.NewView(len(chains), availability.ViewConfig{Prior: availability.DefaultPrior()})
	if err != nil {
		t.Fatal(err)
	}
	for q, c := range chains {
		v.Fix(q, c)
	}
	return v
}

// TestBelieveKnownChains: with every chain known (a view whose chains are
// all fixed: the papers' setting), a believing realization gives every
// heuristic exactly the makespans of the plain one on paper instances
// (common random numbers: one realization per trial shared by the 17); and
// a simulator that ran on a believing realization with estimated chains
// returns to the instance's chains on the next plain run.
func TestBelieveKnownChains(t *testing.T) {
	opt := iterative.DefaultOptions()
	units := []int{3, 47, 88, 111}
	if testing.Short() {
		units = units[:2]
	}
	for _, u := range units {
		in := paperInstance(7, u, 3)
		sim, err := New(in, opt)
		if err != nil {
			t.Fatal(err)
		}
		for trial := uint64(0); trial < 2; trial++ {
			plain := Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(7, uint64(u), trial)))
			known := Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(7, uint64(u), trial)))
			if err := known.Believe(fixedView(t, in.Chains)); err != nil {
				t.Fatal(err)
			}
			estimated := Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(7, uint64(u), trial)))
			v, _ := availability.NewView(len(in.Chains), availability.ViewConfig{Prior: availability.DefaultPrior()})
			if err := estimated.Believe(v); err != nil {
				t.Fatal(err)
			}
			differ := 0
			for _, h := range iterative.Heuristics() {
				a, err := sim.Run(h, plain, stream.New(7, uint64(u), trial, h.Stream()))
				if err != nil {
					t.Fatal(err)
				}
				b, err := sim.Run(h, known, stream.New(7, uint64(u), trial, h.Stream()))
				if err != nil {
					t.Fatal(err)
				}
				if a != b {
					t.Errorf("unit %d trial %d %v: makespan %d with known chains through a view, %d without", u, trial, h, b, a)
				}
				e, err := sim.Run(h, estimated, stream.New(7, uint64(u), trial, h.Stream()))
				if err != nil {
					t.Fatal(err)
				}
				if e != a {
					differ++
				}
				a2, err := sim.Run(h, plain, stream.New(7, uint64(u), trial, h.Stream()))
				if err != nil {
					t.Fatal(err)
				}
				if a2 != a {
					t.Errorf("unit %d trial %d %v: plain makespan %d after a run with estimated chains, %d before", u, trial, h, a2, a)
				}
			}
			if known.Recomputed != 0 {
				t.Errorf("unit %d: %d criteria recomputed with every chain fixed, want 0", u, known.Recomputed)
			}
			t.Logf("unit %d trial %d: %d of 17 heuristics differ with estimated chains", u, trial, differ)
		}
	}
}

// futureStates gives 5 processors' states: a common prefix of T slots drawn
// from chains, then a suffix drawn from other chains (alt = true: chains
// that go DOWN often), different between the two.
func futureStates(T, n int, alt bool) [][]availability.State {
	rng := stream.New(11)
	out := make([][]availability.State, 5)
	for q := range out {
		c := availability.Random(rng)
		out[q] = availability.Take(availability.NewChainSource(c, availability.StartUp, stream.New(11, 1, uint64(q))), T)
		if alt {
			c = availability.Chain{P: [3][3]float64{{0.6, 0.1, 0.3}, {0.3, 0.4, 0.3}, {0.2, 0.1, 0.7}}}
		}
		alts := uint64(0)
		if alt {
			alts = 1
		}
		suffix := availability.Take(availability.NewChainSource(c, availability.StartStationary, stream.New(11, 2, uint64(q), alts)), n)
		// UP for ever after the suffix (Sequence repeats the last state),
		// so that every run ends.
		out[q] = append(append(out[q], suffix...), availability.Up)
	}
	return out
}

// TestBeliefsNeverSeeTheFuture: two realizations equal up to slot T − 1
// and different afterwards (then UP for ever). (1) The criteria in force at every slot t ≤ T
// are the same for both and are those of a view that has observed exactly
// slots 0 … t − 1 (with refreshes every slot and every 7 slots, and a
// window). (2) Every heuristic's event log is the same on both up to slot
// T − 1, while the runs differ afterwards (the futures do matter).
func TestBeliefsNeverSeeTheFuture(t *testing.T) {
	const T = 150
	a, b := futureStates(T, 3000, false), futureStates(T, 3000, true)
	in := &iterative.Instance{W: []int{2, 3, 4, 2, 5}, TProg: 3, TData: 1, NCom: 2, Tasks: 6, Iterations: 40}
	for range a {
		in.Chains = append(in.Chains, availability.Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.85, 0.05}, {0.05, 0.05, 0.9}}})
	}
	cfgs := []availability.ViewConfig{
		{Prior: availability.DefaultPrior()},
		{Prior: availability.DefaultPrior(), Refresh: 7},
		{Prior: availability.DefaultPrior(), Window: 20, Refresh: 3},
	}
	for _, cfg := range cfgs {
		mk := func(s [][]availability.State) *Realization {
			r := FromStates(s)
			v, err := availability.NewView(5, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Believe(v); err != nil {
				t.Fatal(err)
			}
			return r
		}
		ra, rb := mk(a), mk(b)
		ra.At(T + 10)
		rb.At(T + 10)
		ref, _ := availability.NewView(5, cfg)
		ca, cb := slices.Clone(ra.crit0), slices.Clone(rb.crit0)
		for s := 0; s <= T; s++ {
			if s > 0 {
				for _, x := range ra.beliefsAt(s) {
					ca[x.q] = x.crit
				}
				for _, x := range rb.beliefsAt(s) {
					cb[x.q] = x.crit
				}
				ref.Observe(ra.At(s - 1))
			}
			for q := range ca {
				want := iterative.NewCriteria(ref.Chains()[q])
				if ca[q] != want || cb[q] != want {
					t.Fatalf("%+v: slot %d processor %d: criteria of chains %v / %v, want those of %v (slots 0..%d)", cfg, s, q, ca[q].Chain, cb[q].Chain, want.Chain, s-1)
				}
			}
		}
		sim, err := New(in, iterative.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		differ := 0
		for _, h := range iterative.Heuristics() {
			var la, lb []Event
			sim.Log = &la
			ma, err := sim.Run(h, ra, stream.New(3, h.Stream()))
			if err != nil {
				t.Fatal(err)
			}
			sim.Log = &lb
			mb, err := sim.Run(h, rb, stream.New(3, h.Stream()))
			if err != nil {
				t.Fatal(err)
			}
			cut := func(l []Event) []Event {
				i := slices.IndexFunc(l, func(e Event) bool { return e.Slot >= T })
				if i < 0 {
					return l
				}
				return l[:i]
			}
			if !slices.Equal(cut(la), cut(lb)) {
				t.Errorf("%+v %v: the event logs differ before slot %d, where the availability is the same", cfg, h, T)
			}
			if ma != mb || !slices.Equal(la, lb) {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("%+v: no heuristic's run differs between the two futures: the test has no power", cfg)
		}
	}
}
