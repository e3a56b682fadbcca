package coupled

import (
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

// scenario, scenarioParams and randomScenario are the scenarios of §VII.A
// drawn as campaign.RandomScenario draws them (chains from
// availability.Random, w_q uniform among wmin…10·wmin, T_data = wmin,
// T_prog = 5·wmin, μ unbounded): the same draws, written again because
// the core's tests cannot import the campaign, which imports the core.
type scenario struct {
	Chains   []availability.Chain
	Platform Platform
	App      Application
}

type scenarioParams struct {
	P, M, NCom, WMin, Iterations int
}

func randomScenario(rng *rand.Rand, sp scenarioParams) (scenario, error) {
	if sp.P < 1 || sp.M < 1 || sp.NCom < 1 || sp.WMin < 1 || sp.Iterations < 1 {
		return scenario{}, fmt.Errorf("scenario %+v: want every parameter ≥ 1", sp)
	}
	s := scenario{
		Chains:   make([]availability.Chain, sp.P),
		Platform: Platform{W: make([]int, sp.P), NCom: sp.NCom, TProg: 5 * sp.WMin, TData: sp.WMin},
		App:      Application{Tasks: sp.M, Iterations: sp.Iterations},
	}
	for q := range sp.P {
		s.Chains[q] = availability.Random(rng)
		s.Platform.W[q] = sp.WMin + rng.IntN(9*sp.WMin+1)
	}
	return s, nil
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
func randomSetup(t *testing.T, sp scenarioParams, f analytic.Form, labels ...uint64) (scenario, *analytic.Table, *Evaluator) {
	t.Helper()
	scn, err := randomScenario(stream.New(labels[0], labels[1:]...), sp)
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

func TestHeuristicsList(t *testing.T) {
	hs := Paper()
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
		sp := scenarioParams{P: 12, M: 2 + sc%9, NCom: 1 + sc%5, WMin: 1 + sc%4, Iterations: 1}
		scn, err := randomScenario(stream.New(4, uint64(sc)), sp)
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
		sp := scenarioParams{P: 10, M: 4 + sc%7, NCom: 1 + sc%4, WMin: 1 + sc%3, Iterations: 1}
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
		sp := scenarioParams{P: 10 + sc%7, M: 2 + sc%9, NCom: 1 + sc%5, WMin: 1 + sc%3 + 20*(sc/16), Iterations: 1}
		scn, err := randomScenario(stream.New(22, uint64(sc)), sp)
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
		sp := scenarioParams{P: 12 + sc, M: 3 + sc, NCom: 1 + sc%3, WMin: 1 + sc%2, Iterations: 1}
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
		sp := scenarioParams{P: p, M: 6, NCom: 5, WMin: 1, Iterations: 1}
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

// Decide refuses what a caller outside the simulator may get wrong,
// naming the field: snapshot lengths and states, a running configuration
// that is not one of m tasks with its order, RANDOM without a stream.
// Processors are named by their IDs in the errors and in Members.
func TestDecideRefuses(t *testing.T) {
	c := chainOf(0.95, 0.03, 0.05, 0.9, 0.05)
	e := evaluator(t, []availability.Chain{c, c, c}, Platform{W: []int{2, 3, 4}, NCom: 2, TProg: 1, TData: 1, Mu: []int{2, 2, 2}}, 3)
	ok := func() *Snapshot {
		return &Snapshot{IDs: []string{"a", "b", "c"}, States: states(true, true, true), Prog: []int{1, 1, 0}, Data: make([]int, 3)}
	}
	ie, _ := ParseHeuristic("IE")
	rnd, _ := ParseHeuristic("RANDOM")
	run := Running{Config: Config{X: []int{1, 2, 0}, Order: []int{1, 0}}, Done: 1}
	for _, tc := range []struct {
		name string
		h    Heuristic
		edit func(s *Snapshot, r *Running)
		want string
	}{
		{"states length", ie, func(s *Snapshot, r *Running) { s.States = s.States[:2] }, "states has 2 entries, want 3"},
		{"prog length", ie, func(s *Snapshot, r *Running) { s.Prog = nil }, "prog has 0 entries, want 3"},
		{"ids length", ie, func(s *Snapshot, r *Running) { s.IDs = []string{"a"} }, "ids has 1 entries"},
		{"state", ie, func(s *Snapshot, r *Running) { s.States[2] = 7 }, "states[2] = 7"},
		{"negative data", ie, func(s *Snapshot, r *Running) { s.Data[1] = -1 }, "processor b holds prog 1, data -1"},
		{"elapsed", ie, func(s *Snapshot, r *Running) { s.Elapsed = -2 }, "elapsed = -2"},
		{"done", ie, func(s *Snapshot, r *Running) { r.Done = -1 }, "done = -1"},
		{"x length", ie, func(s *Snapshot, r *Running) { r.Config.X = []int{3} }, "1 entries in x, want 3"},
		{"above mu", ie, func(s *Snapshot, r *Running) { r.Config.X = []int{3, 0, 0}; r.Config.Order = []int{0} }, "gives processor a 3 tasks"},
		{"task count", ie, func(s *Snapshot, r *Running) { r.Config.X = []int{1, 1, 0} }, "holds 2 tasks, want m = 3"},
		{"order", ie, func(s *Snapshot, r *Running) { r.Config.Order = []int{1, 1} }, "want each processor with tasks exactly once"},
		{"order missing", ie, func(s *Snapshot, r *Running) { r.Config.Order = []int{1} }, "lists 1 processors, 2 have tasks"},
		{"random stream", rnd, func(s *Snapshot, r *Running) { r.Config = Config{} }, "needs a random stream"},
	} {
		s, r := ok(), run
		r.Config = Config{X: slices.Clone(run.Config.X), Order: slices.Clone(run.Config.Order)}
		tc.edit(s, &r)
		_, err := e.Decide(tc.h, s, r, nil, Readings{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// valid: a member DOWN ends the configuration; the new one is named by IDs
	s := ok()
	s.States[1] = availability.Down
	s.Prog[1] = 0
	d, err := e.Decide(ie, s, run, nil, Readings{})
	if err != nil || !d.Switch || d.Proactive || d.Config.X == nil || d.Config.X[1] != 0 {
		t.Fatalf("member b DOWN: %+v, %v; want a new configuration without b", d, err)
	}
	for _, m := range d.Config.Members(s) {
		if m.ID != []string{"a", "b", "c"}[m.Proc] || m.Tasks != d.Config.X[m.Proc] {
			t.Fatalf("members %+v of %v", d.Config.Members(s), d.Config)
		}
	}
	// nothing UP: a broken configuration is dropped, nothing replaces it
	s.States = states(false, false, false)
	s.States[1] = availability.Down
	if d, err := e.Decide(ie, s, run, nil, Readings{}); err != nil || !d.Switch || d.Config.X != nil {
		t.Fatalf("nobody UP after a DOWN member: %+v, %v; want switch to no configuration", d, err)
	}
}
