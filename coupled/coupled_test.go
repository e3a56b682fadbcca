package coupled

import (
	"context"
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

// pattern is an availability given slot by slot, one string per processor
// ('u', 'r', 'd'); past the end the last state repeats.
type pattern []string

func (pt pattern) States(t int, s []availability.State) {
	for q, row := range pt {
		c := row[min(t, len(row)-1)]
		switch c {
		case 'u':
			s[q] = availability.Up
		case 'r':
			s[q] = availability.Reclaimed
		default:
			s[q] = availability.Down
		}
	}
}

// states gives the states of processors UP (true) or not: a processor
// that is not UP is RECLAIMED when its index is even, DOWN when odd.
func states(up ...bool) []availability.State {
	s := make([]availability.State, len(up))
	for q, u := range up {
		s[q] = stateOf(q, u)
	}
	return s
}

// stateOf is processor q's state in states.
func stateOf(q int, up bool) availability.State {
	switch {
	case up:
		return availability.Up
	case q%2 == 0:
		return availability.Reclaimed
	}
	return availability.Down
}

// downs gives the states of p processors all DOWN.
func downs(p int) []availability.State {
	s := make([]availability.State, p)
	for q := range s {
		s[q] = availability.Down
	}
	return s
}

func chainOf(uu, ur, ru, rr, du float64) availability.Chain {
	return availability.Chain{P: [3][3]float64{
		{uu, ur, 1 - uu - ur},
		{ru, rr, 1 - ru - rr},
		{du, 0.5 * (1 - du), 0.5 * (1 - du)},
	}}
}

func evaluator(t *testing.T, chains []availability.Chain, plat Platform, m int) *Evaluator {
	t.Helper()
	tab, err := analytic.NewTable(chains, analytic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(tab, plat, m, analytic.Published)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// randomSetup draws a scenario of parameters sp from stream (labels…) and
// builds its table and an evaluator with form f.
func randomSetup(t *testing.T, sp ScenarioParams, f analytic.Form, labels ...uint64) (Scenario, *analytic.Table, *Evaluator) {
	t.Helper()
	scn, err := RandomScenario(stream.New(labels[0], labels[1:]...), sp)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := analytic.NewTable(scn.Chains, analytic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(tab, scn.Platform, sp.M, f)
	if err != nil {
		t.Fatal(err)
	}
	return scn, tab, e
}

// TestFigure1 replays the example of §III.C / Figure 1: m = 5, p = 5,
// w_i = i, n_com = 2, T_prog = 2, T_data = 1, two tasks on P2 and P3, one
// on P4, configuration selected at time 1. The availability pattern is the
// one the text determines (P1, P5 not UP at time 1; P3 RECLAIMED after
// receiving the program; P2 RECLAIMED at 10–11; P3 RECLAIMED at 12), with
// communications served in enrolment order (docs/model-002.md).
func TestFigure1(t *testing.T) {
	plat := Platform{W: []int{1, 2, 3, 4, 5}, NCom: 2, TProg: 2, TData: 1}
	app := Application{Tasks: 5, Iterations: 1}
	av := pattern{
		"rdddddddddddddddd",
		"ruuuuuuuuurruuuuu",
		"ruuuruuuuuuuruuuu",
		"ruuuuuuuuuuuuuuuu",
		"rrrrrrrrrrrrrrrrr",
	}
	chains := make([]availability.Chain, 5)
	for i := range chains {
		chains[i] = chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	}
	e := evaluator(t, chains, plat, 5)
	fig := Heuristic{Name: "figure1", Scripted: func(s *Snapshot) (Config, bool) {
		if !s.up(1) || !s.up(2) || !s.up(3) {
			return Config{}, false
		}
		return Config{X: []int{0, 2, 2, 1, 0}, Order: []int{1, 2, 3}}, true
	}}
	res, err := Simulate(context.Background(), e, app, fig, av, nil, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan != 16 || res.Iterations != 1 || res.Failed {
		t.Fatalf("makespan %d iterations %d failed %v, want 16, 1, false", res.Makespan, res.Iterations, res.Failed)
	}
	// P2, P3, P4 receive in enrolment order; P4 waits for a channel during
	// slots 1–3; compute 7–9, suspended 10–12 (P2 then P3 RECLAIMED), resumed
	// 13–15; the next iteration could begin at time 16.
	want := []string{
		"----------------",
		"-PPDDIICCCIIICCC",
		"-PPDIDICCCIIICCC",
		"-IIIPPDCCCIIICCC",
		"----------------",
	}
	for q := range 5 {
		var b strings.Builder
		for _, s := range res.Trace {
			b.WriteByte(byte(s.Act[q]))
		}
		if got := b.String(); got != want[q] {
			t.Errorf("P%d: got %s, want %s", q+1, got, want[q])
		}
	}
	it, mk, err := Check(plat, app, res.Trace, CheckOptions{Passive: true})
	if err != nil || it != 1 || mk != 16 {
		t.Fatalf("check: %d iterations, makespan %d, err %v; want 1, 16, nil", it, mk, err)
	}

	// A DOWN at time 14 loses the computation and restarts communications.
	av2 := append(pattern(nil), av...)
	av2[3] = "ruuuuuuuuuuuuudddd"
	av2[0] = "rdddddddddddddduuuuuu"
	res2, err := Simulate(context.Background(), e, app, Heuristic{Name: "fig", Scripted: func(s *Snapshot) (Config, bool) {
		var up []int
		for q := range s.States {
			if s.up(q) {
				up = append(up, q)
			}
		}
		if len(up) < 3 {
			return Config{}, false
		}
		x := make([]int, 5)
		x[up[0]], x[up[1]], x[up[2]] = 2, 2, 1
		return Config{X: x, Order: up[:3]}, true
	}}, av2, nil, Options{Trace: true, Cap: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Configs < 2 || res2.Makespan <= 16 {
		t.Fatalf("after a DOWN at 14: %d configurations, makespan %d; want a restart", res2.Configs, res2.Makespan)
	}
	if _, _, err := Check(plat, app, res2.Trace, CheckOptions{Passive: true}); err != nil {
		t.Fatalf("check after DOWN: %v", err)
	}
}

// TestCheckRejects mutates a valid trace and expects the checker to object.
func TestCheckRejects(t *testing.T) {
	plat := Platform{W: []int{1, 2, 3, 4, 5}, NCom: 2, TProg: 2, TData: 1}
	app := Application{Tasks: 5, Iterations: 1}
	base := func() []Slot {
		av := pattern{"rd", "ruuuuuuuuurruuuuu", "ruuuruuuuuuuruuuu", "ru", "r"}
		chains := make([]availability.Chain, 5)
		for i := range chains {
			chains[i] = chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
		}
		e := evaluator(t, chains, plat, 5)
		res, err := Simulate(context.Background(), e, app, Heuristic{Name: "f", Scripted: func(s *Snapshot) (Config, bool) {
			if !s.up(1) {
				return Config{}, false
			}
			return Config{X: []int{0, 2, 2, 1, 0}, Order: []int{1, 2, 3}}, true
		}}, av, nil, Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		return res.Trace
	}
	cases := map[string]func(tr []Slot){
		"three communications": func(tr []Slot) { tr[1].Act[3] = RecvProg },
		"compute while reclaimed": func(tr []Slot) {
			tr[10].Act[1], tr[10].Act[2], tr[10].Act[3] = Compute, Compute, Compute
		},
		"partial compute":       func(tr []Slot) { tr[7].Act[1] = Idle },
		"data before program":   func(tr []Slot) { tr[1].Act[1] = RecvData },
		"early completion":      func(tr []Slot) { tr[14].Completed = true },
		"act without enrolment": func(tr []Slot) { tr[3].Act[4] = RecvProg },
		"wrong task count":      func(tr []Slot) { tr[5].X = []int{0, 2, 2, 2, 0} },
	}
	if _, _, err := Check(plat, app, base(), CheckOptions{}); err != nil {
		t.Fatalf("valid trace rejected: %v", err)
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			tr := base()
			mutate(tr)
			if _, _, err := Check(plat, app, tr, CheckOptions{}); err == nil {
				t.Fatal("checker accepted an invalid trace")
			}
		})
	}
}

func TestHeuristicsList(t *testing.T) {
	hs := Heuristics()
	if len(hs) != 17 {
		t.Fatalf("%d heuristics, want 17", len(hs))
	}
	seen := map[string]bool{}
	for _, h := range hs {
		if seen[h.Name] {
			t.Fatalf("duplicate %s", h.Name)
		}
		seen[h.Name] = true
		got, err := ParseHeuristic(strings.ToLower(h.Name))
		if err != nil || got.Name != h.Name {
			t.Fatalf("ParseHeuristic(%s) = %v, %v", h.Name, got.Name, err)
		}
	}
	for _, n := range []string{"Y-IE", "P-IE", "E-IAY", "IE", "RANDOM", "P-IP"} {
		if !seen[n] {
			t.Errorf("missing %s", n)
		}
	}
	if _, err := ParseHeuristic("Z-IE"); err == nil || !strings.Contains(err.Error(), "Z-IE") {
		t.Fatalf("unknown name: err %v", err)
	}
}

// Hand-built states: processor 0 is fast but unreliable, processor 1 slow
// and reliable, processor 2 is not UP.
func TestChooseHandBuilt(t *testing.T) {
	chains := []availability.Chain{
		chainOf(0.90, 0.02, 0.5, 0.45, 0.1),      // DOWN with prob 0.08 per slot
		chainOf(0.999, 0.0005, 0.5, 0.4995, 0.1), // almost never DOWN
		chainOf(0.95, 0.03, 0.05, 0.9, 0.05),
	}
	plat := Platform{W: []int{2, 20, 1}, NCom: 3, TProg: 0, TData: 0}
	e := evaluator(t, chains, plat, 2)
	s := &Snapshot{States: states(true, true, false), Prog: make([]int, 3), Data: make([]int, 3)}
	ie, _ := e.Choose(Time, s, nil)
	if ie.X[0] != 2 || ie.X[2] != 0 {
		t.Fatalf("IE chose %v, want both tasks on the fast processor 0", ie.X)
	}
	ip, _ := e.Choose(Prob, s, nil)
	if ip.X[1] != 2 {
		t.Fatalf("IP chose %v, want both tasks on the reliable processor 1", ip.X)
	}
	// Greedy respects μ.
	plat.Mu = []int{1, 0, 0}
	e = evaluator(t, chains, plat, 2)
	ie, _ = e.Choose(Time, s, nil)
	if ie.X[0] != 1 || ie.X[1] != 1 {
		t.Fatalf("IE with mu_0 = 1 chose %v, want [1 1 0]", ie.X)
	}
	// Nobody UP: no configuration.
	none := &Snapshot{States: downs(3), Prog: make([]int, 3), Data: make([]int, 3)}
	for _, b := range []Criterion{Prob, Time, Yield, ApparentYield, Random} {
		if _, ok := e.Choose(b, none, stream.New(1)); ok {
			t.Fatalf("criterion %d built a configuration with nobody UP", b)
		}
	}
	// RANDOM only uses UP processors.
	rng := stream.New(7)
	for range 200 {
		c, ok := e.Choose(Random, s, rng)
		if !ok || c.X[2] != 0 || c.X[0]+c.X[1] != 2 || c.X[0] > 1 {
			t.Fatalf("RANDOM chose %v", c.X)
		}
	}
}

// A processor that already holds the program (and data) is cheaper: IE
// prefers it over an identical one that does not.
func TestChooseReusesHoldings(t *testing.T) {
	c := chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	chains := []availability.Chain{c, c}
	plat := Platform{W: []int{3, 3}, NCom: 2, TProg: 10, TData: 2}
	e := evaluator(t, chains, plat, 1)
	s := &Snapshot{States: states(true, true), Prog: []int{0, 10}, Data: []int{0, 0}}
	got, _ := e.Choose(Time, s, nil)
	if got.X[1] != 1 {
		t.Fatalf("IE chose %v, want the processor holding the program", got.X)
	}
	v0 := e.Value(Config{X: []int{1, 0}, Order: []int{0}}, s, 0)
	v1 := e.Value(Config{X: []int{0, 1}, Order: []int{1}}, s, 0)
	if !(v1.E < v0.E && v1.P > v0.P) {
		t.Fatalf("values %+v vs %+v: holding the program should be faster and safer", v1, v0)
	}
	// progress improves every criterion (non-divergence, §VI.B)
	cfg := Config{X: []int{0, 1}, Order: []int{1}}
	prev := e.Value(cfg, s, 0)
	for done := 1; done < 3; done++ {
		v := e.Value(cfg, s, done)
		for _, cr := range []Criterion{Prob, Time, Yield} {
			if Score(cr, v, 5) <= Score(cr, prev, 5) {
				t.Fatalf("criterion %d did not improve with progress: %+v then %+v", cr, prev, v)
			}
		}
		prev = v
	}
}

func TestScore(t *testing.T) {
	v := Value{P: 0.5, E: 10}
	if Score(Prob, v, 0) != 0.5 || Score(Time, v, 0) != -10 || Score(Yield, v, 10) != 0.025 || Score(ApparentYield, v, 3) != 0.05 {
		t.Fatal("scores")
	}
	if s := Score(Yield, Value{P: 0, E: math.Inf(1)}, 0); s != 0 {
		t.Fatalf("zero over infinite = %v", s)
	}
	if s := Score(ApparentYield, Value{P: math.Inf(1), E: math.Inf(1)}, 0); !math.IsInf(s, -1) {
		t.Fatalf("NaN score = %v, want -Inf", s)
	}
}

// Every heuristic on random small scenarios: traces pass the checker,
// the checker's makespan agrees, passive heuristics never reconfigure
// alive configurations, every heuristic of a trial sees the same
// availability, and the caches do not change decisions.
func TestSimulateRandomScenarios(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 2
	}
	for sc := range n {
		sp := ScenarioParams{P: 8, M: 3 + sc%3, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
		scn, err := RandomScenario(stream.New(11, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := analytic.NewTable(scn.Chains, analytic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var states0 [][]availability.State
		for _, h := range Heuristics() {
			e, err := NewEvaluator(tab, scn.Platform, sp.M, analytic.Published)
			if err != nil {
				t.Fatal(err)
			}
			av := NewMarkov(scn.Chains, 5, uint64(sc))
			res, err := Simulate(context.Background(), e, scn.App, h, av, stream.New(5, uint64(sc), 99), Options{Trace: true, Cap: 20000})
			if err != nil {
				t.Fatal(err)
			}
			it, mk, err := Check(scn.Platform, scn.App, res.Trace, CheckOptions{Passive: !h.Proactive()})
			if err != nil {
				t.Fatalf("scenario %d %s: %v", sc, h.Name, err)
			}
			if !res.Failed && (it != scn.App.Iterations || mk != res.Makespan) {
				t.Fatalf("scenario %d %s: checker %d iterations makespan %d, simulator %+v", sc, h.Name, it, mk, res)
			}
			if !h.Proactive() && res.Proactive != 0 {
				t.Fatalf("%s: passive heuristic made %d proactive changes", h.Name, res.Proactive)
			}
			if states0 == nil {
				for _, s := range res.Trace {
					states0 = append(states0, s.States)
				}
			}
			for i := 0; i < len(res.Trace) && i < len(states0); i++ {
				for q := range states0[i] {
					if res.Trace[i].States[q] != states0[i][q] {
						t.Fatalf("%s sees another availability at slot %d", h.Name, i)
					}
				}
			}
			// same run again with a fresh evaluator reusing nothing, and with
			// the warmed evaluator: identical results
			res2, err := Simulate(context.Background(), e, scn.App, h, NewMarkov(scn.Chains, 5, uint64(sc)), stream.New(5, uint64(sc), 99), Options{Cap: 20000})
			if err != nil || res2.Makespan != res.Makespan || res2.Configs != res.Configs {
				t.Fatalf("%s: rerun with warm caches %+v, first %+v (%v)", h.Name, res2, res, err)
			}
		}
	}
}

func TestValidation(t *testing.T) {
	bad := []struct {
		p    Platform
		m    int
		want string
	}{
		{Platform{}, 1, "w has no processors"},
		{Platform{W: []int{0}, NCom: 1}, 1, "w[0] = 0"},
		{Platform{W: []int{1}, NCom: 0}, 1, "ncom = 0"},
		{Platform{W: []int{1}, NCom: 1, Mu: []int{1}}, 2, "Σ mu = 1 < m = 2"},
		{Platform{W: []int{1}, NCom: 1, TProg: -1}, 1, "tprog = -1"},
	}
	for _, b := range bad {
		err := b.p.Validate(b.m)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Validate(%+v) = %v, want %q", b.p, err, b.want)
		}
	}
	if err := (ScenarioParams{P: 20, M: 5, NCom: 5, WMin: 0, Iterations: 10}).Validate(); err == nil || !strings.Contains(err.Error(), "wmin = 0") {
		t.Errorf("wmin 0: %v", err)
	}
	if err := (Application{Tasks: 0, Iterations: 1}).Validate(); err == nil {
		t.Error("m = 0 accepted")
	}
}

// refScores are the scores, by the reference (value written on
// analytic.Table.EComm and PComm and the Stats methods, valueRef), of
// every candidate of one greedy step: the allocation x with one more task
// on q; cand is false for processors that are not candidates (not UP, or
// at μ).
func refScores(e *Evaluator, b Criterion, s *Snapshot, x []int) (sc []float64, cand []bool) {
	sc, cand = make([]float64, len(s.States)), make([]bool, len(s.States))
	for q := range s.States {
		if !s.up(q) || x[q] >= e.plat.MaxTasks(q) {
			continue
		}
		x[q]++
		v := e.valueRef(x, s, 0)
		x[q]--
		sc[q], cand[q] = Score(b, v, s.Elapsed), true
	}
	return sc, cand
}

// representable reports whether a step's best score is a normal number
// for criterion b: P at least the smallest normal double (IP, IY, IAY), E
// at most its inverse (IE). Below that the two computations of P part: the
// greedy computes P as exp(ln P), which is 0 under e^−745; the reference as
// a product of P_ND values taken from matrix powers, which lose their
// precision in the subnormal range. There the two disagree about which
// scores are equal (scenario 16 of TestIncrementalGreedy: the greedy's P
// is 0 for every candidate from the fourth step on, the reference's is
// 1.1e−316 for one of them) and the comparison says nothing about the
// greedy.
func representable(b Criterion, best float64) bool {
	if b == Time {
		return best >= -0x1p1022
	}
	return best >= 0x1p-1022
}

// checkConstruction verifies the last construction in of building block b
// on snapshot s step by step against the reference: with the tasks of the
// earlier steps placed as the construction placed them, each step's choice
// must be a candidate whose reference score is the step's best (within
// 10⁻⁹, relative) where that best is representable; and the construction
// must stop exactly where the reference finds no candidate. Where the best
// is not representable any candidate is accepted: the comparison does not
// depend on how ties between underflowed scores fall. Ties at
// representable scores go to the lowest index (TestTieBreak).
func checkConstruction(e *Evaluator, b Criterion, s *Snapshot, in *Construction) error {
	x := make([]int, len(s.States))
	for k := range e.m {
		sc, cand := refScores(e, b, s, x)
		best, bq := math.Inf(-1), -1 // the largest score, independently of better
		for q := range sc {
			if cand[q] && (bq < 0 || sc[q] > best) {
				best, bq = sc[q], q
			}
		}
		if k == in.n {
			if in.ok || bq >= 0 {
				return fmt.Errorf("step %d: construction stopped (ok %v) but the reference has candidate %d", k, in.ok, bq)
			}
			return nil
		}
		if bq < 0 {
			return fmt.Errorf("step %d: construction chose %d, the reference has no candidate", k, in.path[k])
		}
		q := in.path[k]
		if !cand[q] {
			return fmt.Errorf("step %d: construction chose %d, not a candidate", k, q)
		}
		if representable(b, best) && sc[q] < best-1e-9*math.Abs(best) {
			return fmt.Errorf("step %d: construction chose %d scoring %g, the reference's best is %d scoring %g", k, q, sc[q], bq, best)
		}
		x[q]++
	}
	if !in.ok || in.n != e.m {
		return fmt.Errorf("construction stopped at step %d (ok %v), the reference placed all %d tasks", in.n, in.ok, e.m)
	}
	return nil
}

func TestGreedyMatchesValue(t *testing.T) {
	rng := stream.New(3)
	for sc := range 40 {
		sp := ScenarioParams{P: 12, M: 2 + sc%9, NCom: 1 + sc%5, WMin: 1 + sc%4, Iterations: 1}
		scn, err := RandomScenario(stream.New(4, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		if sc%2 == 1 {
			scn.Platform.Mu = make([]int, sp.P)
			for q := range scn.Platform.Mu {
				scn.Platform.Mu[q] = 1 + rng.IntN(3)
			}
		}
		for _, f := range []analytic.Form{analytic.Published, analytic.Conditional} {
			tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
			e, err := NewEvaluator(tab, scn.Platform, sp.M, f)
			if err != nil {
				t.Fatal(err)
			}
			s := &Snapshot{States: downs(sp.P), Prog: make([]int, sp.P), Data: make([]int, sp.P), Elapsed: rng.IntN(50)}
			for q := range sp.P {
				s.States[q] = stateOf(q, rng.IntN(4) != 0)
				s.Prog[q] = rng.IntN(scn.Platform.TProg + 1)
				if rng.IntN(2) == 0 {
					s.Data[q] = rng.IntN(3 * scn.Platform.TData)
				}
			}
			for _, b := range []Criterion{Prob, Time, Yield, ApparentYield, Yield} {
				got, ok := e.Choose(b, s, nil)
				if err := checkConstruction(e, b, s, e.inc[b]); err != nil {
					t.Fatalf("scenario %d form %v criterion %d: %v", sc, f, b, err)
				}
				if b == Yield {
					s.Elapsed += 37 // second pass: through the step cache, another t
				}
				if !ok {
					continue
				}
				ms := slices.Sorted(slices.Values(got.Order))
				for done := 0; done < 3; done++ {
					a, r := e.value(got.X, ms, s, done), e.valueRef(got.X, s, done)
					if !approxEqual(a.P, r.P) || !approxEqual(a.E, r.E) {
						t.Fatalf("scenario %d: fast value %+v, reference %+v", sc, a, r)
					}
				}
			}
		}
	}
}

func approxEqual(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// The yield's greedy path changes with the elapsed time while the kept
// construction's candidate values do not: many elapsed times on the same
// states must all give the reference choice.
func TestYieldStepCache(t *testing.T) {
	rng := stream.New(9)
	for sc := range 30 {
		sp := ScenarioParams{P: 10, M: 4 + sc%7, NCom: 1 + sc%4, WMin: 1 + sc%3, Iterations: 1}
		scn, _, e := randomSetup(t, sp, analytic.Published, 10, uint64(sc))
		s := &Snapshot{States: downs(sp.P), Prog: make([]int, sp.P), Data: make([]int, sp.P)}
		for q := range sp.P {
			s.States[q] = stateOf(q, rng.IntN(5) != 0)
			s.Prog[q] = rng.IntN(scn.Platform.TProg + 1)
		}
		for el := 0; el < 3000; el += 1 + el/4 {
			s.Elapsed = el
			e.Choose(Yield, s, nil)
			if err := checkConstruction(e, Yield, s, e.inc[Yield]); err != nil {
				t.Fatalf("scenario %d elapsed %d: %v", sc, el, err)
			}
		}
	}
}

// The greedy kept across calls re-evaluates only the processors whose
// state or holdings changed, and skips P for candidates the bound puts
// below the step's best: along random walks of snapshots (a few processors
// change per step, as in a simulation, with occasional large changes and
// elapsed-time jumps), every choice must equal a construction from scratch
// that evaluates every candidate, order included, and the reference
// greedy's allocation.
func TestIncrementalGreedy(t *testing.T) {
	rng := stream.New(21)
	steps := 400
	if testing.Short() {
		steps = 120
	}
	pruned := 0
	for sc := range 20 {
		// the last scenarios have long tasks: probabilities of success
		// down to the subnormal range, where the bound must not prune
		sp := ScenarioParams{P: 10 + sc%7, M: 2 + sc%9, NCom: 1 + sc%5, WMin: 1 + sc%3 + 20*(sc/16), Iterations: 1}
		scn, err := RandomScenario(stream.New(22, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		if sc%3 == 2 {
			scn.Platform.Mu = make([]int, sp.P)
			for q := range scn.Platform.Mu {
				scn.Platform.Mu[q] = 1 + rng.IntN(2)
			}
		}
		f := analytic.Published
		if sc%2 == 1 {
			f = analytic.Conditional
		}
		tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
		inc, err := NewEvaluator(tab, scn.Platform, sp.M, f)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := NewEvaluator(tab, scn.Platform, sp.M, f)
		fresh.prune = false // the reference evaluates every candidate
		s := &Snapshot{States: downs(sp.P), Prog: make([]int, sp.P), Data: make([]int, sp.P)}
		for q := range sp.P {
			s.States[q] = stateOf(q, rng.IntN(3) != 0)
		}
		tp, td := scn.Platform.TProg, scn.Platform.TData
		for step := range steps {
			changes := rng.IntN(3)
			if rng.IntN(20) == 0 {
				changes = sp.P
			}
			for range changes {
				q := rng.IntN(sp.P)
				switch rng.IntN(4) {
				case 0:
					s.States[q] = stateOf(q, !s.up(q))
				case 1:
					s.Prog[q] = min(tp, s.Prog[q]+1)
				case 2:
					s.Data[q] = min(2*td, s.Data[q]+1)
				default:
					s.States[q], s.Prog[q], s.Data[q] = availability.Down, 0, 0
				}
			}
			s.Elapsed += rng.IntN(3)
			if rng.IntN(10) == 0 {
				s.Elapsed = rng.IntN(2000)
			}
			for _, b := range []Criterion{Prob, Time, Yield, ApparentYield} {
				got, ok := inc.greedy(inc.inc[b], b, s)
				fresh.forget()
				want, wok := fresh.Choose(b, s, nil)
				if ok != wok || !slices.Equal(got.X, want.X) || !slices.Equal(got.Order, want.Order) {
					t.Fatalf("scenario %d step %d criterion %d: incremental %v %v (%v), from scratch %v %v (%v)", sc, step, b, got.X, got.Order, ok, want.X, want.Order, wok)
				}
				if step%10 == 0 {
					if err := checkConstruction(inc, b, s, inc.inc[b]); err != nil {
						t.Fatalf("scenario %d step %d criterion %d: %v", sc, step, b, err)
					}
				}
			}
		}
		if inc.Evals >= fresh.Evals {
			t.Errorf("scenario %d: incremental evaluated %d candidates, from scratch %d: want fewer", sc, inc.Evals, fresh.Evals)
		}
		pruned += inc.Pruned
	}
	if pruned == 0 {
		t.Error("the bound pruned no candidate: the comparison does not test it")
	}
}

// A recording replays exactly the source's states, to replays that read it
// at different paces.
func TestRecording(t *testing.T) {
	scn, err := RandomScenario(stream.New(31), ScenarioParams{P: 7, M: 3, NCom: 2, WMin: 1, Iterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	direct := NewMarkov(scn.Chains, 8, 1, 2)
	rec := NewRecording(NewMarkov(scn.Chains, 8, 1, 2), 7)
	a, b := rec.Replay(), rec.Replay()
	want := make([]availability.State, 7)
	got := make([]availability.State, 7)
	var hist [][]availability.State
	for tt := range 500 {
		direct.States(tt, want)
		hist = append(hist, slices.Clone(want))
		a.States(tt, got)
		if !slices.Equal(got, want) {
			t.Fatalf("slot %d: replay %v, source %v", tt, got, want)
		}
		if tt%3 == 2 { // b lags behind, reading three slots at a time
			for u := tt - 2; u <= tt; u++ {
				b.States(u, got)
				if !slices.Equal(got, hist[u]) {
					t.Fatalf("slot %d: lagging replay %v, source %v", u, got, hist[u])
				}
			}
		}
	}
}

// The other readings of §VI.B and of a RECLAIMED member's value (fresh:
// new configurations built and measured without task data; scratch: and a
// switch re-sends all task data; wait and replace for the running
// configuration with a RECLAIMED member): traces stay valid lock-step
// schedules, passive heuristics are unaffected, and each reading changes
// some proactive run.
func TestReadings(t *testing.T) {
	readings := []struct {
		name string
		opt  Options
	}{
		{"fresh", Options{Readings: Readings{FreshRebuild: true}}},
		{"scratch", Options{Readings: Readings{FreshRebuild: true, ResendData: true}}},
		{"wait", Options{Readings: Readings{Reclaimed: Wait}}},
		{"replace", Options{Readings: Readings{Reclaimed: Replace}}},
	}
	resendCaught, keptCaught := false, false
	for _, rd := range readings {
		differs := false
		for sc := range 4 {
			sp := ScenarioParams{P: 8, M: 3 + sc%3, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
			scn, _, e := randomSetup(t, sp, analytic.Published, 41, uint64(sc))
			for _, h := range Heuristics() {
				var res [2]Result
				for i, opt := range []Options{{}, rd.opt} {
					opt.Trace, opt.Cap = true, 20000
					r, err := Simulate(context.Background(), e, scn.App, h, NewMarkov(scn.Chains, 6, uint64(sc)), stream.New(6, uint64(sc), 1), opt)
					if err != nil {
						t.Fatal(err)
					}
					if _, _, err := Check(scn.Platform, scn.App, r.Trace, CheckOptions{Passive: !h.Proactive(), ResendData: opt.ResendData}); err != nil {
						t.Fatalf("%s: scenario %d %s: %v", rd.name, sc, h.Name, err)
					}
					res[i] = r
				}
				if res[0].Makespan != res[1].Makespan || res[0].Configs != res[1].Configs {
					if !h.Proactive() {
						t.Fatalf("%s: scenario %d: passive %s changed", rd.name, sc, h.Name)
					}
					differs = true
				}
				if rd.opt.ResendData {
					// the checker's rule has teeth: a trace of one reading
					// checked with the other's rule is rejected somewhere
					if _, _, err := Check(scn.Platform, scn.App, res[1].Trace, CheckOptions{}); err != nil {
						resendCaught = true
					}
					if _, _, err := Check(scn.Platform, scn.App, res[0].Trace, CheckOptions{ResendData: true}); err != nil {
						keptCaught = true
					}
				}
			}
		}
		if !differs {
			t.Errorf("%s: the reading changed no run", rd.name)
		}
	}
	if !resendCaught || !keptCaught {
		t.Errorf("checker: scratch traces rejected without ResendData %v, default traces rejected with it %v; want both", resendCaught, keptCaught)
	}
}

// reclaimedValue: Replace leaves no estimate, Wait lowers P by the return
// probability and adds the expected return time, and a configuration whose
// members are all UP keeps its estimate.
func TestReclaimedValue(t *testing.T) {
	chains := []availability.Chain{chainOf(0.9, 0.05, 0.1, 0.8, 0.3), chainOf(0.95, 0.03, 0.2, 0.7, 0.3)}
	e := evaluator(t, chains, Platform{W: []int{2, 3}, NCom: 2, TProg: 1, TData: 1}, 2)
	c := Config{X: []int{1, 1}, Order: []int{0, 1}}
	s := &Snapshot{States: states(true, true), Prog: []int{1, 1}, Data: []int{1, 1}}
	v := e.Value(c, s, 0)
	for _, rv := range []ReclaimedValue{Wait, Replace} {
		if got := e.reclaimedValue(v, c, s, rv); got != v {
			t.Errorf("%v with all members UP: %+v, want %+v", rv, got, v)
		}
	}
	s.States[1] = availability.Reclaimed
	if got := e.reclaimedValue(v, c, s, Replace); got.P != 0 || !math.IsInf(got.E, 1) {
		t.Errorf("replace: %+v, want P 0, E +Inf", got)
	}
	// processor 1: P_ru = 0.2, P_rd = 0.1, P_rr = 0.7
	got := e.reclaimedValue(v, c, s, Wait)
	if !approxEqual(got.P, v.P*0.2/0.3) || !approxEqual(got.E, v.E+1/0.3) {
		t.Errorf("wait: %+v, want P %v, E %v", got, v.P*0.2/0.3, v.E+1/0.3)
	}
}

// The heuristics simulated together (runs shared while their states are
// equal, forked when their decisions differ, merged when their states meet
// again, choices reused between runs with the same holdings) give each
// heuristic exactly what it gets simulated alone, for both E(S)(W) forms,
// the rebuild readings and the valuations of a running configuration with a
// RECLAIMED member; with traces (no merging) every
// heuristic's trace passes the checker and equals its trace alone.
func TestSimulateAllMatchesSimulate(t *testing.T) {
	forks, merges, reused := 0, 0, 0
	n := 16
	if testing.Short() {
		n = 6
	}
	hs := Heuristics()
	for sc := range n {
		sp := ScenarioParams{P: 8 + sc%5, M: 3 + sc%4, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 3}
		scn, err := RandomScenario(stream.New(51, uint64(sc)), sp)
		if err != nil {
			t.Fatal(err)
		}
		tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
		form := []analytic.Form{analytic.Published, analytic.Conditional}[sc%2]
		opt := Options{Cap: 20000, Readings: Readings{FreshRebuild: sc%4 == 3, ResendData: sc%8 == 7, Reclaimed: ReclaimedValue(sc % 3)}, Trace: sc%3 == 1}
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = stream.New(7, uint64(sc))
		e, err := NewEvaluator(tab, scn.Platform, sp.M, form)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := newSimulation(e, scn.App, hs, rngs, opt)
		if err != nil {
			t.Fatal(err)
		}
		all, err := sim.run(context.Background(), NewMarkov(scn.Chains, 8, uint64(sc)))
		if err != nil {
			t.Fatal(err)
		}
		forks += sim.forks
		merges += sim.merges
		reused += sim.reused
		for i, h := range hs {
			alone, _ := NewEvaluator(tab, scn.Platform, sp.M, form)
			r, err := Simulate(context.Background(), alone, scn.App, h, NewMarkov(scn.Chains, 8, uint64(sc)), stream.New(7, uint64(sc)), opt)
			if err != nil {
				t.Fatal(err)
			}
			a := all[i]
			if a.Makespan != r.Makespan || a.Failed != r.Failed || a.Iterations != r.Iterations || a.Configs != r.Configs || a.Proactive != r.Proactive {
				t.Fatalf("scenario %d %s: together %+v, alone %+v", sc, h.Name, a, r)
			}
			if opt.Trace {
				if len(a.Trace) != len(r.Trace) {
					t.Fatalf("scenario %d %s: trace of %d slots together, %d alone", sc, h.Name, len(a.Trace), len(r.Trace))
				}
				for k := range a.Trace {
					if !slices.Equal(a.Trace[k].Act, r.Trace[k].Act) || !slices.Equal(a.Trace[k].X, r.Trace[k].X) {
						t.Fatalf("scenario %d %s: slot %d differs together and alone", sc, h.Name, k)
					}
				}
				if _, _, err := Check(scn.Platform, scn.App, a.Trace, CheckOptions{Passive: !h.Proactive()}); err != nil {
					t.Fatalf("scenario %d %s: %v", sc, h.Name, err)
				}
			}
		}
	}
	if forks == 0 || merges == 0 || reused == 0 {
		t.Errorf("%d forks, %d merges, %d choices reused: the test does not exercise sharing", forks, merges, reused)
	}
	t.Logf("%d forks, %d merges, %d choices reused", forks, merges, reused)
}

// RANDOM with distinct draws gives its tasks to different UP processors
// while some UP processor has none (each UP processor equally likely), and
// stacks tasks only when fewer than m processors are UP.
func TestRandomDistinct(t *testing.T) {
	chains := make([]availability.Chain, 8)
	for q := range chains {
		chains[q] = chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	}
	e := evaluator(t, chains, Platform{W: []int{1, 1, 1, 1, 1, 1, 1, 1}, NCom: 2, TProg: 1, TData: 1}, 3)
	s := &Snapshot{States: states(true, false, true, true, false, true, true, true), Prog: make([]int, 8), Data: make([]int, 8)}
	rng := stream.New(3)
	count := make([]int, 8)
	const n = 6000
	for range n {
		c, ok := e.chooseRandom(s, rng, true)
		if !ok || len(c.Order) != 3 {
			t.Fatalf("distinct draw %v %v, want 3 processors", c, ok)
		}
		for q, x := range c.X {
			if x > 1 || (x > 0 && !s.up(q)) {
				t.Fatalf("distinct draw %v on states %v", c.X, s.States)
			}
			count[q] += x
		}
	}
	// each of the 6 UP processors is in a configuration with probability 1/2
	for q, k := range count {
		if s.up(q) && (k < n/2-250 || k > n/2+250) {
			t.Errorf("processor %d drawn %d times of %d, want about %d", q, k, n, n/2)
		}
	}
	s.States = states(false, true, false, false, true, false, false, false)
	c, ok := e.chooseRandom(s, rng, true)
	if !ok || c.X[1]+c.X[4] != 3 || c.X[1] == 0 || c.X[4] == 0 {
		t.Errorf("two UP processors, m = 3: %v %v, want both used, one with two tasks", c.X, ok)
	}
}

// Ties between equal scores go to the lowest index, in a construction
// from scratch and in an incremental one where only a processor with a
// lower index than the kept winner changed (identical processors: every
// candidate of a step scores exactly the same).
func TestTieBreak(t *testing.T) {
	c := chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	chains := []availability.Chain{c, c, c, c}
	plat := Platform{W: []int{3, 3, 3, 3}, NCom: 2, TProg: 2, TData: 1}
	e := evaluator(t, chains, plat, 1)
	s := &Snapshot{States: states(false, true, true, true), Prog: make([]int, 4), Data: make([]int, 4)}
	for _, b := range []Criterion{Prob, Time, Yield, ApparentYield} {
		s.States[0] = availability.Reclaimed
		got, ok := e.Choose(b, s, nil)
		if !ok || got.X[1] != 1 {
			t.Fatalf("criterion %d from scratch: %v, want the task on processor 1", b, got.X)
		}
		s.States[0] = availability.Up
		calls, evals := e.Calls, e.Evals
		got, ok = e.Choose(b, s, nil)
		if !ok || got.X[0] != 1 {
			t.Fatalf("criterion %d after processor 0 came UP: %v, want the task on processor 0", b, got.X)
		}
		if b != Yield && e.Evals-evals != 1 {
			t.Fatalf("criterion %d: %d candidates evaluated in %d calls, want 1: the incremental step was not taken", b, e.Evals-evals, e.Calls-calls)
		}
	}
}

// withKeys makes e know its sets by the keys key(q) as an evaluator of
// more than 64 processors does (keys that may collide, members checked).
func withKeys(e *Evaluator, key func(q int) uint64) {
	e.exact, e.pages = false, nil
	e.members = make(map[uint64][]int)
	clear(e.stats)
	for q := range e.bit {
		e.bit[q] = key(q)
	}
}

// Sets known by keys that are not bitmasks (processors beyond 64) give
// exactly the choices and values of bitmask keys, even when every key
// collides: along random walks of snapshots, three evaluators of the same
// scenario — bitmask keys, the pseudo-random keys used beyond 64
// processors, and keys that all collide (the XOR of equal words: only the
// parity of the set's size) — choose the same configurations and value
// them bit for bit the same.
func TestSetKeys(t *testing.T) {
	rng := stream.New(61)
	for sc := range 6 {
		sp := ScenarioParams{P: 12 + sc, M: 3 + sc, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 1}
		scn, tab, exact := randomSetup(t, sp, []analytic.Form{analytic.Published, analytic.Conditional}[sc%2], 62, uint64(sc))
		_, _, mixed := randomSetup(t, sp, exact.form, 62, uint64(sc))
		_, _, clash := randomSetup(t, sp, exact.form, 62, uint64(sc))
		withKeys(mixed, func(q int) uint64 { return splitmix64(uint64(q)) })
		withKeys(clash, func(int) uint64 { return 1 })
		_ = tab
		s := &Snapshot{States: downs(sp.P), Prog: make([]int, sp.P), Data: make([]int, sp.P)}
		for step := range 60 {
			for range 1 + rng.IntN(3) {
				q := rng.IntN(sp.P)
				s.States[q] = availability.State(rng.IntN(3))
				s.Prog[q] = rng.IntN(scn.Platform.TProg + 1)
				s.Data[q] = rng.IntN(2*scn.Platform.TData + 1)
				if s.States[q] == availability.Down {
					s.Prog[q], s.Data[q] = 0, 0
				}
			}
			s.Elapsed = rng.IntN(100)
			for _, b := range []Criterion{Prob, Time, Yield, ApparentYield} {
				want, wok := exact.Choose(b, s, nil)
				for name, e := range map[string]*Evaluator{"pseudo-random keys": mixed, "colliding keys": clash} {
					got, ok := e.Choose(b, s, nil)
					if ok != wok || !slices.Equal(got.X, want.X) || !slices.Equal(got.Order, want.Order) {
						t.Fatalf("scenario %d step %d criterion %v, %s: %v %v (%v), bitmask keys %v %v (%v)", sc, step, b, name, got.X, got.Order, ok, want.X, want.Order, wok)
					}
					if !ok {
						continue
					}
					for done := range 3 {
						if a, r := e.Value(got, s, done), exact.Value(want, s, done); a != r && !(math.IsNaN(a.P) && math.IsNaN(r.P)) {
							t.Fatalf("scenario %d step %d criterion %v, %s: value %+v, bitmask keys %+v", sc, step, b, name, a, r)
						}
					}
				}
			}
		}
		if len(clash.stats) > 2 {
			t.Fatalf("colliding keys: %d entries in the set cache, want at most 2 (every key is 0 or 1)", len(clash.stats))
		}
	}
}

// Beyond 64 processors: constructions checked step by step against the
// reference, on 100 and 300 processors with a few tasks.
func TestManyProcessors(t *testing.T) {
	rng := stream.New(71)
	for _, p := range []int{100, 300} {
		sp := ScenarioParams{P: p, M: 6, NCom: 5, WMin: 1, Iterations: 1}
		_, _, e := randomSetup(t, sp, analytic.Published, 72, uint64(p))
		if e.exact || e.pages != nil {
			t.Fatalf("p = %d: exact keys %v, pages %v; want keys checked by members", p, e.exact, e.pages != nil)
		}
		s := &Snapshot{States: downs(p), Prog: make([]int, p), Data: make([]int, p)}
		for q := range p {
			s.States[q] = stateOf(q, rng.IntN(3) == 0)
		}
		beyond := 0
		for step := range 8 {
			for range 5 {
				q := rng.IntN(p)
				s.States[q] = stateOf(q, !s.up(q))
				s.Prog[q] = rng.IntN(6)
			}
			for _, b := range []Criterion{Prob, Time, Yield, ApparentYield} {
				c, ok := e.Choose(b, s, nil)
				if !ok {
					t.Fatalf("p = %d step %d: no configuration with %d processors", p, step, p)
				}
				if err := checkConstruction(e, b, s, e.inc[b]); err != nil {
					t.Fatalf("p = %d step %d criterion %v: %v", p, step, b, err)
				}
				if slices.Max(c.Order) >= 64 {
					beyond++
				}
			}
		}
		if beyond == 0 {
			t.Errorf("p = %d: no configuration used a processor beyond the 64th: the test does not exercise them", p)
		}
	}
}

// 100 and 300 processors through the simulator and the checker: every
// heuristic, simulated together with the others, completes the
// application; its trace is a valid lock-step schedule whose makespan the
// checker finds too, and equals its run alone (common random numbers).
func TestManyProcessorsSimulated(t *testing.T) {
	hs := Heuristics()
	for _, p := range []int{100, 300} {
		sp := ScenarioParams{P: p, M: 8, NCom: 4, WMin: 1, Iterations: 2}
		scn, tab, e := randomSetup(t, sp, analytic.Published, 81, uint64(p))
		rngs := make([]*rand.Rand, len(hs))
		rngs[0] = stream.New(82, uint64(p))
		opt := Options{Cap: 50000, Trace: true}
		all, err := SimulateAll(context.Background(), e, scn.App, hs, NewMarkov(scn.Chains, 83, uint64(p)), rngs, opt)
		if err != nil {
			t.Fatal(err)
		}
		beyond := 0
		for i, h := range hs {
			r := all[i]
			if r.Failed {
				t.Fatalf("p = %d %s: failed (cap %d)", p, h.Name, opt.Cap)
			}
			it, mk, err := Check(scn.Platform, scn.App, r.Trace, CheckOptions{Passive: !h.Proactive()})
			if err != nil || it != sp.Iterations || mk != r.Makespan {
				t.Fatalf("p = %d %s: checker %d iterations, makespan %d, %v; simulator %d", p, h.Name, it, mk, err, r.Makespan)
			}
			for _, s := range r.Trace {
				for q := 64; q < p; q++ {
					if s.Act[q] == Compute {
						beyond++
						break
					}
				}
			}
			if h.Name == "RANDOM" || h.Name == "IE" || h.Name == "Y-IE" {
				alone, _ := NewEvaluator(tab, scn.Platform, sp.M, analytic.Published)
				a, err := Simulate(context.Background(), alone, scn.App, h, NewMarkov(scn.Chains, 83, uint64(p)), stream.New(82, uint64(p)), opt)
				if err != nil || a.Makespan != r.Makespan || a.Configs != r.Configs {
					t.Fatalf("p = %d %s: alone makespan %d configs %d (%v), together %d %d", p, h.Name, a.Makespan, a.Configs, err, r.Makespan, r.Configs)
				}
			}
		}
		if beyond == 0 {
			t.Errorf("p = %d: no processor beyond the 64th ever computed: the test does not exercise them", p)
		}
	}
}
