package iterative

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// TestPaperHeuristics: the 17 of §6 are registered in §6's order, their
// random streams labelled by that position (what the committed results
// were drawn with), with the properties the paper gives them.
func TestPaperHeuristics(t *testing.T) {
	want := []string{"RANDOM", "RANDOM1", "RANDOM2", "RANDOM3", "RANDOM4", "RANDOM1W", "RANDOM2W", "RANDOM3W", "RANDOM4W",
		"MCT", "MCT*", "EMCT", "EMCT*", "LW", "LW*", "UD", "UD*"}
	hs := Paper()
	if got := Names(hs); !slices.Equal(got, want) {
		t.Fatalf("Paper() = %v, want %v", got, want)
	}
	if got := Names(Heuristics()[:17]); !slices.Equal(got, want) {
		t.Errorf("Heuristics() begins with %v, want the paper's %v", got, want)
	}
	for i, h := range hs {
		random := strings.HasPrefix(h.String(), "RANDOM")
		star := strings.HasSuffix(h.String(), "*")
		kind := KindGreedy
		if random {
			kind = KindRandom
		}
		if h.Stream() != uint64(i) || h.IsRandom() != random || h.Contention() != star || h.Kind() != kind || !h.Paper() || !h.Valid() {
			t.Errorf("%v: stream %d, random %v, contention %v, kind %v, paper %v; want %d, %v, %v, %v, true",
				h, h.Stream(), h.IsRandom(), h.Contention(), h.Kind(), h.Paper(), i, random, star, kind)
		}
		if h.Description() == "" || h.Family() == "" || !strings.HasPrefix(h.String(), h.Family()) {
			t.Errorf("%v: family %q, description %q", h, h.Family(), h.Description())
		}
	}
	if (Heuristic{}).Valid() || (Heuristic{}).String() != "Heuristic(none)" {
		t.Error("the zero Heuristic is valid or has a name")
	}
}

// TestRegisterRefuses: every malformed spec and every name already taken
// (in any case) is refused with the name and what is wanted; nothing is
// registered.
func TestRegisterRefuses(t *testing.T) {
	key := func(_ *Snapshot, _ int, ct float64) float64 { return ct }
	weight := func(*Criteria, int) float64 { return 1 }
	decide := func(_ *Snapshot, _ *Hints, _ *rand.Rand, out []Pick) []Pick { return out }
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"empty name", Spec{Description: "d", Key: key}, "want 1 to 32"},
		{"long name", Spec{Name: strings.Repeat("A", 33), Description: "d", Key: key}, "want 1 to 32"},
		{"comma", Spec{Name: "A,B", Description: "d", Key: key}, "character ','"},
		{"space", Spec{Name: "A B", Description: "d", Key: key}, "character ' '"},
		{"no description", Spec{Name: "NODESC", Key: key}, "want one non-empty line"},
		{"two lines", Spec{Name: "TWOLINES", Description: "a\nb", Key: key}, "want one non-empty line"},
		{"no rule", Spec{Name: "NORULE", Description: "d"}, "0 of Key, Weight and Decide"},
		{"two rules", Spec{Name: "TWORULES", Description: "d", Key: key, Weight: weight}, "2 of Key, Weight and Decide"},
		{"contention of a weight", Spec{Name: "CW", Description: "d", Weight: weight, Contention: true}, "Contention without Key"},
		{"random key", Spec{Name: "RK", Description: "d", Key: key, Random: true}, "Random without Decide"},
		{"taken", Spec{Name: "EMCT*", Description: "d", Decide: decide}, "is taken"},
		{"taken in another case", Spec{Name: "emct*", Description: "d", Key: key}, "is taken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Register(c.spec)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "heuristic ") {
				t.Fatalf("Register(%+v) = %v, want an error with %q", c.spec, err, c.want)
			}
			if h, err := ParseHeuristic(c.spec.Name); err == nil && !h.Paper() {
				t.Errorf("%q registered after an error", c.spec.Name)
			}
		})
	}
	if _, err := ParseHeuristic("EMCT**"); err == nil || !strings.Contains(err.Error(), "EMCT*") {
		t.Errorf("ParseHeuristic(EMCT**) = %v, want an error listing the names", err)
	}
}

// randomSnapshot draws a snapshot with ties, busy and non-UP processors,
// tasks with and without copies, and replicas.
func randomSnapshot(rng *rand.Rand) *Snapshot {
	p := 1 + rng.IntN(8)
	s := &Snapshot{TData: rng.IntN(3), NCom: 1 + rng.IntN(3), ExtraReplicas: rng.IntN(3)}
	for q := 0; q < p; q++ {
		v := ProcView{ID: int64(q), State: availability.State(rng.IntN(3)), W: 1 + rng.IntN(4), ProgramLeft: rng.IntN(3)}
		if rng.IntN(2) == 0 {
			v.ProgramLeft = 0
			v.HasCur, v.Cur = true, Work{DataLeft: rng.IntN(2), WorkLeft: 1 + rng.IntN(4)}
		}
		s.Procs = append(s.Procs, v)
		s.Crit = append(s.Crit, NewCriteria(availability.Random(rng)))
	}
	for i := rng.IntN(8); i >= 0; i-- {
		s.Tasks = append(s.Tasks, OpenTask{ID: int64(i), Copies: rng.IntN(2)})
	}
	return s
}

// TestRegisteredLikeBuiltin: a heuristic registered with a built-in one's
// key or weight, written with the exported quantities only as another
// package would (UD's from analytic.PUDApprox), decides as the built-in
// one, draw for draw, through every path of the decision: the full loop,
// the rank shortcut and the random prefix of the simulator's hints. So
// what Decider does for the paper's heuristics (whose keys it calls
// directly, paperKey) it does for a user's (through Spec.Key).
func TestRegisteredLikeBuiltin(t *testing.T) {
	twins := map[Heuristic]Heuristic{
		EMCTStar: MustRegister(Spec{Name: "test-EMCT*", Family: "test", Description: "EMCT* again", Contention: true,
			Key: func(s *Snapshot, q int, ct float64) float64 { return s.Crit[q].ExpectedTime(ct) }}),
		MCT: MustRegister(Spec{Name: "test-MCT", Description: "MCT again",
			Key: func(_ *Snapshot, _ int, ct float64) float64 { return ct }}),
		LWStar: MustRegister(Spec{Name: "test-LW*", Description: "LW* again", Contention: true,
			Key: func(s *Snapshot, q int, ct float64) float64 { return ct * -math.Log(s.Crit[q].PPlus) }}),
		UD: MustRegister(Spec{Name: "test-UD", Description: "UD again",
			Key: func(s *Snapshot, q int, ct float64) float64 {
				return -math.Log(analytic.PUDApprox(s.Crit[q].Chain, s.Crit[q].ExpectedTime(ct)))
			}}),
		Random2W: MustRegister(Spec{Name: "test-RANDOM2W", Description: "RANDOM2W again",
			Weight: func(c *Criteria, w int) float64 { return c.PPlus / float64(w) }}),
	}
	rng := stream.New(51)
	var d Decider
	for it := 0; it < 400; it++ {
		s := randomSnapshot(rng)
		watch := make([]bool, len(s.Procs))
		for q := range watch {
			watch[q] = rng.IntN(2) == 0
		}
		hints := []*Hints{nil, {Want: watch, StopAfter: 1 + rng.IntN(3)}}
		for b, u := range twins {
			if u.Paper() || u.Family() == "" || u.Stream() < 1<<32 {
				t.Fatalf("%v: paper %v, family %q, stream %#x", u, u.Paper(), u.Family(), u.Stream())
			}
			for _, x := range hints {
				want := slices.Clone(d.DecideWith(b, s, x, stream.New(52, uint64(it)), nil))
				got := d.DecideWith(u, s, x, stream.New(52, uint64(it)), nil)
				if !slices.Equal(got, want) {
					t.Fatalf("it %d, hints %+v: %v picks %v, %v picks %v", it, x, u, got, b, want)
				}
			}
		}
	}
	if got := Heuristics(); !slices.IsSortedFunc(got[17:], func(a, b Heuristic) int { return strings.Compare(a.String(), b.String()) }) || len(got) < 17+len(twins) {
		t.Errorf("Heuristics() = %v, want the paper's, then the registered ones by name", Names(got))
	}
}

// TestWholeDecision: a heuristic that takes the whole decision gets the
// snapshot, the hints and its stream, and its picks are returned; a pick
// outside the snapshot or on a processor that is not UP panics with the
// heuristic's name.
func TestWholeDecision(t *testing.T) {
	// LAST: every unstarted task to the UP processor of highest index.
	last := MustRegister(Spec{Name: "test-LAST", Description: "every unstarted task to the last UP processor", Random: true,
		Decide: func(s *Snapshot, _ *Hints, rng *rand.Rand, out []Pick) []Pick {
			rng.Uint64() // it may draw
			for q := len(s.Procs) - 1; q >= 0; q-- {
				if s.Procs[q].State == availability.Up {
					for i, task := range s.Tasks {
						if task.Copies == 0 {
							out = append(out, Pick{Task: i, Proc: q})
						}
					}
					break
				}
			}
			return out
		}})
	if last.Kind() != KindDecision || !last.IsRandom() {
		t.Fatalf("kind %v, random %v", last.Kind(), last.IsRandom())
	}
	s := snapshot([]int{1, 2, 3}, []int{0, 0, 0}, nil, 1, 1, 2)
	s.Procs[2].State = availability.Reclaimed
	var d Decider
	got := d.Decide(last, s, stream.New(1), []Pick{{Task: 9}})
	if want := []Pick{{Task: 0, Proc: 1}, {Task: 1, Proc: 1}}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
	for i, bad := range []struct {
		pick Pick
		want string
	}{{Pick{Task: 2, Proc: 0}, "task 2 of a snapshot of 2"}, {Pick{Task: 0, Proc: 3}, "processor 3 of a snapshot of 3"}, {Pick{Task: 0, Proc: 2}, "state is r (not UP), want an UP one"}} {
		h := MustRegister(Spec{Name: fmt.Sprint("test-BAD", i), Description: "a wrong pick",
			Decide: func(_ *Snapshot, _ *Hints, _ *rand.Rand, out []Pick) []Pick { return append(out, bad.pick) }})
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, bad.want) || !strings.Contains(msg, h.String()) {
					t.Errorf("pick %+v: panic %q, want one naming %s and %q", bad.pick, msg, h, bad.want)
				}
			}()
			d.Decide(h, s, nil, nil)
		}()
	}
}

// TestHeuristicText: a Heuristic in a configuration file is its name,
// looked up when the file is decoded; an unknown name is an error there.
func TestHeuristicText(t *testing.T) {
	type config struct {
		Heuristic Heuristic `json:"heuristic"`
	}
	var c config
	if err := json.Unmarshal([]byte(`{"heuristic": "UD*"}`), &c); err != nil || c.Heuristic != UDStar {
		t.Fatalf("decoded %v, %v; want UD*", c.Heuristic, err)
	}
	if b, err := json.Marshal(c); err != nil || string(b) != `{"heuristic":"UD*"}` {
		t.Errorf("encoded %s, %v", b, err)
	}
	if err := json.Unmarshal([]byte(`{"heuristic": "UD**"}`), &c); err == nil || !strings.Contains(err.Error(), `heuristic "UD**": want one of`) {
		t.Errorf("unknown name decoded: %v", err)
	}
	if _, err := json.Marshal(config{}); err == nil {
		t.Error("the zero Heuristic encoded")
	}
}
