package slotsim_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/campaign"
	"github.com/volsched/volsched/coupled/slotsim"
	"github.com/volsched/volsched/stream"
)

func rngsFor(hs []coupled.Heuristic, labels ...uint64) []*rand.Rand {
	out := make([]*rand.Rand, len(hs))
	for i, h := range hs {
		if h.Build == coupled.Random {
			out[i] = stream.New(labels[0], append(labels[1:], uint64(i))...)
		}
	}
	return out
}

func builder(plat coupled.Platform, m int) func([]availability.Chain) (*coupled.Evaluator, error) {
	return func(cs []availability.Chain) (*coupled.Evaluator, error) {
		tab, err := analytic.NewTable(cs, analytic.Options{})
		if err != nil {
			return nil, err
		}
		return coupled.NewEvaluator(tab, plat, m, analytic.Published)
	}
}

// TestRunSeesSources: every heuristic of a Run sees the sources' states
// slot after slot (the trace's states are those of the same sources drawn
// directly); a Run with a source missing is refused.
func TestRunSeesSources(t *testing.T) {
	sp := campaign.ScenarioParams{P: 6, Tasks: 3, NCom: 2, WMin: 1, Iterations: 4}
	scn, _, e := randomSetup(t, sp, analytic.Published, 3, 1)
	hs := coupled.Heuristics()
	sim, err := slotsim.New(e, scn.App, hs, slotsim.Options{Cap: 3000, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	mk := func() []availability.Source {
		var src []availability.Source
		for q, c := range scn.Chains {
			src = append(src, availability.NewChainSource(c, availability.StartStationary, stream.New(3, 1, uint64(q))))
		}
		return src
	}
	res, err := sim.Run(context.Background(), mk(), rngsFor(hs, 3))
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for i := range res {
		longest = max(longest, len(res[i].Trace))
	}
	want := make([][]availability.State, longest)
	direct := mk()
	for k := range want {
		want[k] = make([]availability.State, sp.P)
		availability.Fill(direct, want[k])
	}
	for i, r := range res {
		if len(r.Trace) == 0 {
			t.Fatalf("%s: no trace", hs[i].Name)
		}
		for k, sl := range r.Trace {
			if !slices.Equal(sl.States, want[k]) {
				t.Fatalf("%s: slot %d: states %v, the sources give %v", hs[i].Name, k, sl.States, want[k])
			}
		}
	}
	if _, err := sim.Run(context.Background(), mk()[1:], rngsFor(hs, 3)); err == nil {
		t.Fatal("a Run with 5 sources for 6 processors was accepted")
	}
}

// TestBelieveKnownChains: with a view whose chains are all fixed to the
// scenario's, every heuristic's result equals the plain run's (the same
// availability, the same random streams); with estimated chains some
// differ; a plain run after believing runs is unchanged.
func TestBelieveKnownChains(t *testing.T) {
	n := 4
	if testing.Short() {
		n = 2
	}
	hs := coupled.Heuristics()
	differ := 0
	for sc := range n {
		sp := campaign.ScenarioParams{P: 10, Tasks: 3 + sc%3, NCom: 2 + sc%2, WMin: 1, Iterations: 3}
		scn, _, e := randomSetup(t, sp, analytic.Published, 21, uint64(sc))
		sim, err := slotsim.New(e, scn.App, hs, slotsim.Options{Cap: 50000})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := sim.Run(context.Background(), markov(scn.Chains, 21, uint64(sc)), rngsFor(hs, 21, uint64(sc)))
		if err != nil {
			t.Fatal(err)
		}
		fixed, _ := availability.NewView(sp.P, availability.ViewConfig{Prior: availability.DefaultPrior()})
		for q, c := range scn.Chains {
			fixed.Fix(q, c)
		}
		known, err := sim.RunBelieving(context.Background(), markov(scn.Chains, 21, uint64(sc)), slotsim.Beliefs{View: fixed, Evaluator: builder(scn.Platform, sp.Tasks)}, rngsFor(hs, 21, uint64(sc)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range hs {
			if known[i].Makespan != plain[i].Makespan || known[i].Configs != plain[i].Configs || known[i].Failed != plain[i].Failed {
				t.Errorf("scenario %d %s: known chains through a view %+v, plain %+v", sc, hs[i].Name, known[i], plain[i])
			}
		}
		est, _ := availability.NewView(sp.P, availability.ViewConfig{Prior: availability.DefaultPrior(), Refresh: 5})
		estimated, err := sim.RunBelieving(context.Background(), markov(scn.Chains, 21, uint64(sc)), slotsim.Beliefs{View: est, Evaluator: builder(scn.Platform, sp.Tasks)}, rngsFor(hs, 21, uint64(sc)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range hs {
			if estimated[i].Makespan != plain[i].Makespan {
				differ++
			}
		}
		again, err := sim.Run(context.Background(), markov(scn.Chains, 21, uint64(sc)), rngsFor(hs, 21, uint64(sc)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range hs {
			if again[i].Makespan != plain[i].Makespan || again[i].Configs != plain[i].Configs {
				t.Errorf("scenario %d %s: plain run after believing runs %+v, before %+v", sc, hs[i].Name, again[i], plain[i])
			}
		}
	}
	if differ == 0 {
		t.Error("estimated chains change no makespan: the test has no power")
	}
}

// TestCoupledBeliefsNeverSeeTheFuture: two availabilities equal up to
// slot T − 1 and different afterwards. Every evaluator is built, at the
// start of a slot t, from the chains of a view that observed exactly slots
// 0 … t − 1 (checked against a reference view), the builds up to slot T
// are the same for both, and every heuristic's trace is the same before
// slot T, while the runs differ after.
func TestCoupledBeliefsNeverSeeTheFuture(t *testing.T) {
	const T = 60
	sp := campaign.ScenarioParams{P: 6, Tasks: 3, NCom: 2, WMin: 1, Iterations: 8}
	scn, _, e := randomSetup(t, sp, analytic.Published, 23)
	mk := func(alt uint64) [][]availability.State {
		var out [][]availability.State
		for q, c := range scn.Chains {
			pre := availability.Take(availability.NewChainSource(c, availability.StartUp, stream.New(23, 1, uint64(q))), T)
			d := c
			if alt == 1 {
				d = chainOf(0.6, 0.1, 0.3, 0.4, 0.2)
			}
			post := availability.Take(availability.NewChainSource(d, availability.StartStationary, stream.New(23, 2, uint64(q), alt)), 4000)
			out = append(out, append(append(pre, post...), availability.Up))
		}
		return out
	}
	hs := coupled.Heuristics()
	for _, refresh := range []int{1, 7} {
		type build struct {
			slot   int
			chains []availability.Chain
		}
		var traces [2][]slotsim.Result
		var builds [2][]build
		var avs [2][][]availability.State
		for k := range 2 {
			avs[k] = mk(uint64(k))
			v, _ := availability.NewView(sp.P, availability.ViewConfig{Prior: availability.DefaultPrior(), Refresh: refresh})
			b := builder(scn.Platform, sp.Tasks)
			rec := func(cs []availability.Chain) (*coupled.Evaluator, error) {
				builds[k] = append(builds[k], build{v.Slots(), slices.Clone(cs)})
				return b(cs)
			}
			sim, err := slotsim.New(e, scn.App, hs, slotsim.Options{Cap: 5000, Trace: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.RunBelieving(context.Background(), statesSources(avs[k]), slotsim.Beliefs{View: v, Evaluator: rec}, rngsFor(hs, 23))
			if err != nil {
				t.Fatal(err)
			}
			traces[k] = res
			// every build's chains: those of a view fed the slots before it
			ref, _ := availability.NewView(sp.P, availability.ViewConfig{Prior: availability.DefaultPrior(), Refresh: refresh})
			s := make([]availability.State, sp.P)
			for _, bd := range builds[k] { // in slot order
				for ref.Slots() < bd.slot {
					for q, row := range avs[k] {
						s[q] = row[min(ref.Slots(), len(row)-1)]
					}
					ref.Observe(s)
				}
				if !slices.Equal(ref.Chains(), bd.chains) {
					t.Fatalf("refresh %d: evaluator built at slot %d with chains other than the view's of slots 0..%d", refresh, bd.slot, bd.slot-1)
				}
			}
		}
		upTo := func(bs []build) []build {
			var out []build
			for _, b := range bs {
				if b.slot <= T {
					out = append(out, b)
				}
			}
			return out
		}
		a, b := upTo(builds[0]), upTo(builds[1])
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("refresh %d: %d and %d builds up to slot %d", refresh, len(a), len(b), T)
		}
		for i := range a {
			if a[i].slot != b[i].slot || !slices.Equal(a[i].chains, b[i].chains) {
				t.Fatalf("refresh %d: build %d differs before the futures diverge", refresh, i)
			}
		}
		differ := 0
		for i := range hs {
			ta, tb := traces[0][i].Trace, traces[1][i].Trace
			for x := 0; x < T && x < len(ta) && x < len(tb); x++ {
				if !slices.Equal(ta[x].X, tb[x].X) || !slices.Equal(ta[x].Act, tb[x].Act) {
					t.Errorf("refresh %d %s: slot %d differs before the futures diverge", refresh, hs[i].Name, x)
					break
				}
			}
			if traces[0][i].Makespan != traces[1][i].Makespan {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("refresh %d: no run differs between the two futures: the test has no power", refresh)
		}
	}
}

// statesSources replays explicit states (one row per processor; the last
// state repeats).
func statesSources(rows [][]availability.State) []availability.Source {
	src := make([]availability.Source, len(rows))
	for q, row := range rows {
		src[q] = availability.Sequence(row...)
	}
	return src
}
