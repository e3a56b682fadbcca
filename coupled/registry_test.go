package coupled

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// TestPaperRegistered: the 17 of §VI are registered in its order, their
// random streams labelled by that position (what the what-if runs drew
// with), each with a description; only RANDOM draws.
func TestPaperRegistered(t *testing.T) {
	want := []string{"RANDOM", "IP", "IE", "IY", "IAY", "P-IP", "P-IE", "P-IY", "P-IAY", "E-IP", "E-IE", "E-IY", "E-IAY", "Y-IP", "Y-IE", "Y-IY", "Y-IAY"}
	hs := Paper()
	if got := Names(hs); !slices.Equal(got, want) {
		t.Fatalf("Paper() = %v, want %v", got, want)
	}
	for i, h := range hs {
		if h.Stream() != uint64(i) || !h.Paper() || h.Draws() != (h.Name == "RANDOM") || h.Greedy() == (h.Name == "RANDOM") || h.Proactive() != strings.Contains(h.Name, "-") {
			t.Errorf("%s: stream %d, paper %v, draws %v, greedy %v, proactive %v", h.Name, h.Stream(), h.Paper(), h.Draws(), h.Greedy(), h.Proactive())
		}
		if h.Validate() != nil || !strings.Contains(h.Description, "§VI") && h.Name != "RANDOM" {
			t.Errorf("%s: %v, description %q", h.Name, h.Validate(), h.Description)
		}
	}
}

// TestRegisterRefuses: malformed heuristics and names already taken (in
// any case) are refused with the name and what is wanted.
func TestRegisterRefuses(t *testing.T) {
	b := func(*Evaluator, *Snapshot, *rand.Rand) (Config, bool) { return Config{}, false }
	for _, c := range []struct {
		name string
		h    Heuristic
		want string
	}{
		{"empty name", Heuristic{Description: "d", Builder: b}, "want 1 to 32"},
		{"comma", Heuristic{Name: "A,B", Description: "d", Builder: b}, "character ','"},
		{"no description", Heuristic{Name: "NODESC", Builder: b}, "want one non-empty line"},
		{"no building block", Heuristic{Name: "NONE", Description: "d"}, "builds with criterion none"},
		{"switch by AY", Heuristic{Name: "AY-IE", Description: "d", Build: Time, Switch: ApparentYield}, "switches by criterion AY"},
		{"random greedy", Heuristic{Name: "RIE", Description: "d", Build: Time, Random: true}, "Random without a Builder"},
		{"taken", Heuristic{Name: "E-IAY", Description: "d", Builder: b}, "is taken"},
		{"taken in another case", Heuristic{Name: "random", Description: "d", Builder: b}, "is taken"},
	} {
		if _, err := Register(c.h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Register = %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := ParseHeuristic("NONE"); err == nil {
		t.Error("a refused heuristic was registered")
	}
}

// TestRegisteredDecides: a registered heuristic with IE's building block
// decides as IE; one with a builder of its own gets the evaluator, the
// snapshot and its stream, its configuration is switched to by its
// criterion, and Decide refuses it without a stream; the others come after
// the 17, by name, and their stream labels depend on their names only.
func TestRegisteredDecides(t *testing.T) {
	twin := MustRegister(Heuristic{Name: "test-IE", Description: "IE again", Build: Time})
	var got *Snapshot
	mine := MustRegister(Heuristic{Name: "test-LAST", Description: "all tasks on the last UP worker", Random: true, Switch: Time,
		Builder: func(e *Evaluator, s *Snapshot, rng *rand.Rand) (Config, bool) {
			got = s
			rng.Uint64()
			for q := len(s.States) - 1; q >= 0; q-- {
				if s.States[q] == availability.Up {
					x := make([]int, e.Platform().P())
					x[q] = e.Tasks()
					return Config{X: x, Order: []int{q}}, true
				}
			}
			return Config{}, false
		}})
	if names := HeuristicNames(); !slices.Equal(names[17:], []string{"test-IE", "test-LAST"}) || twin.Stream() == mine.Stream() || twin.Stream() < 1<<32 || twin.Paper() {
		t.Fatalf("names %v, streams %#x %#x", names, twin.Stream(), mine.Stream())
	}
	if h, err := ParseHeuristic("TEST-last"); err != nil || h.Name != "test-LAST" || h.Stream() != mine.Stream() {
		t.Fatalf("ParseHeuristic(TEST-last) = %v, %v", h.Name, err)
	}
	c := chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	e := evaluator(t, []availability.Chain{c, c, c}, Platform{W: []int{2, 3, 4}, NCom: 2, TProg: 1, TData: 1}, 3)
	s := &Snapshot{States: states(true, true, false), Prog: make([]int, 3), Data: make([]int, 3)}
	ie, _ := ParseHeuristic("IE")
	a, err1 := e.Decide(ie, s, Running{}, nil, Readings{})
	b, err2 := e.Decide(twin, s, Running{}, nil, Readings{})
	if err1 != nil || err2 != nil || !slices.Equal(a.Config.X, b.Config.X) || !slices.Equal(a.Config.Order, b.Config.Order) {
		t.Errorf("IE %+v (%v), its twin %+v (%v)", a, err1, b, err2)
	}
	if _, err := e.Decide(mine, s, Running{}, nil, Readings{}); err == nil || !strings.Contains(err.Error(), "needs a random stream") {
		t.Errorf("a drawing builder without a stream: %v", err)
	}
	d, err := e.Decide(mine, s, Running{}, stream.New(1), Readings{})
	if err != nil || got != s || !d.Switch || !slices.Equal(d.Config.X, []int{0, 3, 0}) {
		t.Fatalf("decision %+v, %v; want all 3 tasks on processor 1", d, err)
	}
	// Running on processor 1, processor 2 comes UP: the builder's new
	// configuration (on 2) replaces it only if its E is smaller.
	s.States[2] = availability.Up
	d2, err := e.Decide(mine, s, Running{Config: d.Config}, stream.New(1), Readings{})
	if err != nil || !d2.Compared || d2.Switch != (d2.New.E < d2.Now.E) {
		t.Errorf("proactive decision %+v, %v", d2, err)
	}
}
