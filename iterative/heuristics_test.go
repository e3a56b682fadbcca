package iterative

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

func chain(uu, ur, ru, rr float64) availability.Chain {
	ud, rd := 1-uu-ur, 1-ru-rr
	return availability.Chain{P: [3][3]float64{{uu, ur, ud}, {ru, rr, rd}, {0.05, 0.05, 0.9}}}
}

func TestDelay(t *testing.T) {
	cases := []struct {
		name string
		v    ProcView
		want int
	}{
		{"needs whole program", ProcView{ProgramLeft: 3}, 3},
		{"holds program, idle", ProcView{}, 0},
		{"receiving data", ProcView{HasCur: true, Cur: Work{DataLeft: 2, WorkLeft: 5}}, 7},
		{"computing, next receiving (data is the bottleneck)", ProcView{HasCur: true, Cur: Work{WorkLeft: 3}, HasNext: true, Next: Work{DataLeft: 5, WorkLeft: 5}}, 10},
		{"receiving data, next begun", ProcView{HasCur: true, Cur: Work{DataLeft: 2, WorkLeft: 5}, HasNext: true, Next: Work{DataLeft: 4, WorkLeft: 5}}, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Delay(&c.v); got != c.want {
				t.Errorf("Delay = %d, want %d", got, c.want)
			}
		})
	}
}

func TestCompletionTime(t *testing.T) {
	cases := []struct{ delay, tdata, w, n, f, want int }{
		{2, 3, 5, 1, 1, 10}, // 2+3+5
		{2, 3, 5, 3, 1, 20}, // 2+3+2·5+5
		{2, 3, 5, 3, 2, 25}, // 2+6+2·6+5
		{2, 3, 5, 1, 0, 7},  // ⌈0/n_com⌉ = 0: no data term
		{2, 3, 5, 2, 0, 12}, // 2+0+5+5
		{0, 4, 1, 3, 1, 13}, // 0+4+2·4+1: communication-bound
		{0, 0, 1, 0, 1, 1},  // n = 0 counts as no extra task
	}
	for _, c := range cases {
		if got := CompletionTime(c.delay, c.tdata, c.w, c.n, c.f); got != c.want {
			t.Errorf("CompletionTime(%d,%d,%d,%d,%d) = %d, want %d", c.delay, c.tdata, c.w, c.n, c.f, got, c.want)
		}
	}
}

// snapshot builds a snapshot of UP processors holding the program with the
// given speeds and program still to receive, and n unstarted tasks.
func snapshot(w, progLeft []int, chains []availability.Chain, tdata, ncom, n int) *Snapshot {
	s := &Snapshot{TData: tdata, NCom: ncom, ExtraReplicas: 2}
	for q := range w {
		s.Procs = append(s.Procs, ProcView{State: availability.Up, W: w[q], ProgramLeft: progLeft[q]})
		c := chain(0.95, 0.03, 0.05, 0.93)
		if chains != nil {
			c = chains[q]
		}
		s.Crit = append(s.Crit, NewCriteria(c))
	}
	s.Tasks = tasks(make([]int, n)...)
	return s
}

// tasks builds open tasks with the given copies, IDs 100, 101, ….
func tasks(copies ...int) []OpenTask {
	out := make([]OpenTask, len(copies))
	for i, c := range copies {
		out[i] = OpenTask{ID: int64(100 + i), Copies: c}
	}
	return out
}

func procsOf(picks []Pick) []int {
	var out []int
	for _, p := range picks {
		out = append(out, p.Proc)
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMCTByHand checks MCT and MCT* on a state worked out by hand.
//
// Three UP processors, w = 1, 1, 1, program left 0, 0, 3; T_data = 2;
// n_com = 1; 4 tasks.
//
// MCT (Eq. 1): task 1: CT = 3, 3, 6 → P0; task 2: P0 2+2+1 = 5, P1 3 → P1;
// task 3: 5, 5, 6 → P0 (tie, lowest index); task 4: P0 2+2·2+1 = 7, P1 5,
// P2 6 → P1.
//
// MCT* (Eq. 2, factor ⌈n_active/n_com⌉): task 1: factor 0: CT = 1, 1, 4 →
// P0, n_active = 1; task 2: P0 5, P1 3, P2 6 → P1, n_active = 2 (factor
// 2, T_data counts 4); task 3: P0 4+4+1 = 9, P1 9, P2 3+4+1 = 8 → P2,
// n_active = 3 (T_data counts 6); task 4: P0 6+6+1 = 13, P1 13, P2
// 3+6+6+1 = 16 → P0.
func TestMCTByHand(t *testing.T) {
	var d Decider
	s := snapshot([]int{1, 1, 1}, []int{0, 0, 3}, nil, 2, 1, 4)
	if got := procsOf(d.Decide(MCT, s, nil, nil)); !equalInts(got, []int{0, 1, 0, 1}) {
		t.Errorf("MCT picks %v, want [0 1 0 1]", got)
	}
	if got := procsOf(d.Decide(MCTStar, s, nil, nil)); !equalInts(got, []int{0, 1, 2, 0}) {
		t.Errorf("MCT* picks %v, want [0 1 2 0]", got)
	}
}

// TestBusyProcessorDelay: a processor computing with 6 slots of work left
// (Delay 6) against an idle one needing the whole program (T_prog = 4):
// w = 2 and 3, T_data = 1. MCT: task 1: P0 6+1+2 = 9, P1 4+1+3 = 8 → P1;
// task 2: P0 9, P1 4+1+3+3 = 11 → P0; task 3: P0 6+1+2+2 = 11, P1 11 → P0.
func TestBusyProcessorDelay(t *testing.T) {
	var d Decider
	s := snapshot([]int{2, 3}, []int{0, 4}, nil, 1, 5, 3)
	s.Procs[0].HasCur, s.Procs[0].Cur = true, Work{WorkLeft: 6}
	if got := procsOf(d.Decide(MCT, s, nil, nil)); !equalInts(got, []int{1, 0, 0}) {
		t.Errorf("MCT picks %v, want [1 0 0]", got)
	}
}

// TestOnlyUpProcessors: tasks go only to UP processors, and nothing is
// assigned when none is UP.
func TestOnlyUpProcessors(t *testing.T) {
	var d Decider
	rng := stream.New(1)
	for _, h := range Heuristics() {
		s := snapshot([]int{1, 5, 9}, []int{0, 0, 0}, nil, 1, 2, 6)
		s.Procs[0].State = availability.Reclaimed
		s.Procs[2].State = availability.Down
		for _, p := range d.Decide(h, s, rng, nil) {
			if p.Proc != 1 {
				t.Errorf("%v assigns to processor %d which is not UP", h, p.Proc)
			}
		}
		s.Procs[1].State = availability.Reclaimed
		if got := d.Decide(h, s, rng, nil); len(got) != 0 {
			t.Errorf("%v assigns %v with no UP processor", h, got)
		}
	}
}

// TestKeysMatchAnalytic: the quantities the greedy heuristics compare are
// the paper's criteria computed by package analytic.
func TestKeysMatchAnalytic(t *testing.T) {
	rng := stream.New(7)
	for i := 0; i < 200; i++ {
		c := availability.Random(rng)
		cr := NewCriteria(c)
		for _, w := range []float64{1, 1.5, 2, 3, 17, 250} {
			if got, want := cr.ExpectedTime(w), analytic.ExpectedTime(c, w); math.Abs(got-want) > 1e-9*want {
				t.Fatalf("E(%g) = %g, analytic %g", w, got, want)
			}
			k := analytic.ExpectedTime(c, w)
			if got, want := math.Exp(cr.lnPUD(k)), analytic.PUDApprox(c, k); math.Abs(got-want) > 1e-9*math.Max(want, 1e-300) {
				t.Fatalf("P_UD(%g) = %g, analytic %g", k, got, want)
			}
			if got, want := math.Exp(-w*cr.negLogPPlus), math.Pow(analytic.PPlus(c), w); math.Abs(got-want) > 1e-9*want {
				t.Fatalf("P+^%g = %g, want %g", w, got, want)
			}
		}
	}
}

// TestFailureAwareChoices: two processors alike for MCT (same speed, same
// delay: MCT takes the lowest index), P0 often RECLAIMED and more likely to
// crash. EMCT, LW and UD must prefer P1.
func TestFailureAwareChoices(t *testing.T) {
	var d Decider
	shaky := chain(0.80, 0.15, 0.10, 0.85) // P_ud = 0.05
	solid := chain(0.98, 0.01, 0.50, 0.49) // P_ud = 0.01
	s := snapshot([]int{5, 5}, []int{0, 0}, []availability.Chain{shaky, solid}, 1, 5, 1)
	s.ExtraReplicas = 0 // 2 UP > 1 task would add a replica
	if got := procsOf(d.Decide(MCT, s, nil, nil)); !equalInts(got, []int{0}) {
		t.Errorf("MCT picks %v, want [0] (tie, lowest index)", got)
	}
	for _, h := range []Heuristic{EMCT, EMCTStar, LW, LWStar, UD, UDStar} {
		if got := procsOf(d.Decide(h, s, nil, nil)); !equalInts(got, []int{1}) {
			t.Errorf("%v picks %v, want [1]", h, got)
		}
	}
}

// TestEMCTTradesSpeedForReliability: P0 is faster (w = 4 vs 5) but often
// RECLAIMED: E(5) for P0 exceeds E(6) for P1 (computed with analytic), so
// EMCT picks P1 where MCT picks P0.
func TestEMCTTradesSpeedForReliability(t *testing.T) {
	var d Decider
	shaky := chain(0.70, 0.25, 0.10, 0.85)
	solid := chain(0.98, 0.01, 0.50, 0.49)
	if e0, e1 := analytic.ExpectedTime(shaky, 5), analytic.ExpectedTime(solid, 6); !(e0 > e1) {
		t.Fatalf("test premise: E0(5) = %g should exceed E1(6) = %g", e0, e1)
	}
	s := snapshot([]int{4, 5}, []int{0, 0}, []availability.Chain{shaky, solid}, 1, 5, 1)
	s.ExtraReplicas = 0
	if got := procsOf(d.Decide(MCT, s, nil, nil)); !equalInts(got, []int{0}) {
		t.Errorf("MCT picks %v, want [0]", got)
	}
	if got := procsOf(d.Decide(EMCT, s, nil, nil)); !equalInts(got, []int{1}) {
		t.Errorf("EMCT picks %v, want [1]", got)
	}
}

// TestReplicas: one task left, begun elsewhere, three idle UP processors:
// two replicas (§6.1), by MCT on the fastest idle processors; none when
// replication is off or when no more processors are UP than tasks remain.
func TestReplicas(t *testing.T) {
	var d Decider
	s := snapshot([]int{5, 3, 4}, []int{0, 0, 0}, nil, 1, 5, 0)
	s.Tasks = tasks(1)
	got := d.Decide(MCT, s, nil, nil)
	want := []Pick{{Task: 0, Proc: 1, Replica: true}, {Task: 0, Proc: 2, Replica: true}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("replicas %v, want %v", got, want)
	}
	s.ExtraReplicas = 0
	if got := d.Decide(MCT, s, nil, nil); len(got) != 0 {
		t.Errorf("replicas %v with replication off", got)
	}
	s.ExtraReplicas = 2
	s.Tasks = tasks(1, 1, 1)
	if got := d.Decide(MCT, s, nil, nil); len(got) != 0 {
		t.Errorf("replicas %v with 3 UP processors and 3 tasks remaining", got)
	}
	// A processor with a begun copy is not idle: no replica on it.
	s.Tasks = tasks(1)
	s.Procs[1].HasCur, s.Procs[1].Cur = true, Work{WorkLeft: 1}
	got = d.Decide(MCT, s, nil, nil)
	if len(got) != 2 || got[0].Proc != 2 || got[1].Proc != 0 {
		t.Errorf("replicas %v, want on processors 2 then 0", got)
	}
	// Originals come first: one unstarted task and one begun.
	s.Procs[1].HasCur = false
	s.Tasks = tasks(1, 0)
	got = d.Decide(MCT, s, nil, nil)
	if len(got) < 1 || got[0].Replica || got[0].Task != 1 {
		t.Errorf("first pick %v, want the unstarted task 1 as an original", got)
	}
	for _, p := range got[1:] {
		if !p.Replica {
			t.Errorf("pick %v after the original should be a replica", p)
		}
	}
}

// TestRandomWeights: RANDOM1W picks processors in proportion to P_uu/w_q.
func TestRandomWeights(t *testing.T) {
	var d Decider
	chains := []availability.Chain{chain(0.95, 0.03, 0.05, 0.93), chain(0.90, 0.05, 0.05, 0.93)}
	s := snapshot([]int{1, 3}, []int{0, 0}, chains, 1, 5, 1)
	w0, w1 := 0.95/1, 0.90/3
	p0 := w0 / (w0 + w1)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	hits := 0
	for i := 0; i < n; i++ {
		if d.Decide(Random1W, s, rng, nil)[0].Proc == 0 {
			hits++
		}
	}
	se := math.Sqrt(p0 * (1 - p0) / n)
	if got := float64(hits) / n; math.Abs(got-p0) > 4*se {
		t.Errorf("RANDOM1W picks P0 with frequency %.4f, want %.4f ± %.4f", got, p0, 4*se)
	}
}

func TestParseHeuristic(t *testing.T) {
	for _, h := range Heuristics() {
		got, err := ParseHeuristic(h.String())
		if err != nil || got != h {
			t.Errorf("ParseHeuristic(%q) = %v, %v", h.String(), got, err)
		}
	}
	if _, err := ParseHeuristic("EMCT**"); err == nil {
		t.Error("ParseHeuristic(EMCT**) succeeded")
	}
	if n := len(Paper()); n != 17 {
		t.Errorf("%d heuristics of §6, want 17", n)
	}
}

// TestRankShortcutMatchesGreedy: the picks of watched processors computed
// by decideByRank, and by the starred heuristics' loop stopped after
// StopAfter of them, are those of the full greedy loop, on random snapshots
// built to have many ties (small integer speeds and delays).
func TestRankShortcutMatchesGreedy(t *testing.T) {
	rng := stream.New(31)
	var d Decider
	for it := 0; it < 3000; it++ {
		p := 1 + rng.IntN(8)
		s := &Snapshot{TData: rng.IntN(4), NCom: 1 + rng.IntN(8)}
		var watch []bool
		for q := 0; q < p; q++ {
			v := ProcView{State: availability.State(rng.IntN(3)), W: 1 + rng.IntN(4), ProgramLeft: rng.IntN(3)}
			if rng.IntN(2) == 0 {
				v.ProgramLeft = 0
				v.HasCur, v.Cur = true, Work{DataLeft: rng.IntN(2), WorkLeft: 1 + rng.IntN(4)}
			}
			s.Procs = append(s.Procs, v)
			c := availability.Random(rng)
			if it%2 == 0 && q > 0 { // identical chains: exact ties
				c = s.Crit[0].Chain
			}
			s.Crit = append(s.Crit, NewCriteria(c))
			watch = append(watch, rng.IntN(2) == 0)
		}
		for i := rng.IntN(12); i >= 0; i-- {
			s.Tasks = append(s.Tasks, OpenTask{ID: int64(100 + i), Copies: rng.IntN(2) * rng.IntN(3)})
		}
		nw := 0
		for _, w := range watch {
			if w {
				nw++
			}
		}
		if nw == 0 {
			continue
		}
		stop := 1 + rng.IntN(nw)
		for _, h := range []Heuristic{MCT, EMCT, LW, UD, MCTStar, EMCTStar, LWStar, UDStar} {
			full := d.Decide(h, s, nil, nil)
			// What the driver uses: the watched processors' first picks.
			used := func(picks []Pick) []Pick {
				var u []Pick
				seen := map[int]bool{}
				for _, pk := range picks {
					if watch[pk.Proc] && !seen[pk.Proc] && len(u) < stop {
						seen[pk.Proc] = true
						u = append(u, pk)
					}
				}
				return u
			}
			want := used(full)
			// Every way the shortcut may go: chosen by cost, the rank, the
			// loop, the loop giving way to the rank after one task.
			for force := 0; force <= 3; force++ {
				d.forceRank = force
				got := used(d.DecideWith(h, s, &Hints{Want: watch, StopAfter: stop}, nil, nil))
				d.forceRank = 0
				if len(got) != len(want) {
					t.Fatalf("it %d %v force %d: shortcut %v, greedy %v (full %v)", it, h, force, got, want, full)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("it %d %v force %d: shortcut %v, greedy %v (full %v)", it, h, force, got, want, full)
					}
				}
			}
		}
	}
}

// TestRandomPrefixMatchesLoop: for the random heuristics, the part of the
// decision the driver uses (the watched processors' first picks, replicas
// included) sampled by decideRandomPrefix has the distribution of that of
// the full per-task loop. On random snapshots (some with replicas to
// place), 20,000 decisions each way; the counts of every (rank, task,
// processor, replica) outcome and of the number of picks must agree within
// 5 standard errors of their difference.
func TestRandomPrefixMatchesLoop(t *testing.T) {
	rng := stream.New(37)
	var d Decider
	const n = 20000
	tested, withReplicas := 0, 0
	for it := 0; it < 40; it++ {
		p := 2 + rng.IntN(7)
		s := &Snapshot{TData: 1 + rng.IntN(3), NCom: 1 + rng.IntN(4), ExtraReplicas: rng.IntN(3)}
		var watch []bool
		if it == 0 {
			// Hand-built: an idle unwatched processor that may take the task
			// decides who can get its replica.
			p, s.ExtraReplicas = 3, 1
		}
		for q := 0; q < p; q++ {
			st := availability.Up
			if it > 0 && rng.IntN(4) == 0 {
				st = availability.State(1 + rng.IntN(2))
			}
			v := ProcView{State: st, W: 1 + rng.IntN(10)}
			if it > 0 && rng.IntN(2) == 0 {
				v.HasCur, v.Cur = true, Work{DataLeft: rng.IntN(2), WorkLeft: 1 + rng.IntN(4)}
			}
			s.Procs = append(s.Procs, v)
			s.Crit = append(s.Crit, NewCriteria(availability.Random(rng)))
			watch = append(watch, q > 0 && (it == 0 || rng.IntN(2) == 0))
		}
		for i := 1 + rng.IntN(p+2); i > 0 && it > 0; i-- {
			s.Tasks = append(s.Tasks, OpenTask{ID: int64(7 * i), Copies: rng.IntN(3) * rng.IntN(2)})
		}
		if it == 0 {
			s.Tasks = tasks(0)
		}
		s.Tasks[rng.IntN(len(s.Tasks))].Copies = 0
		nw, up := 0, 0
		for q, w := range watch {
			if s.Procs[q].State == availability.Up {
				up++
				if w {
					nw++
				}
			}
		}
		if nw == 0 {
			continue
		}
		tested++
		if s.ExtraReplicas > 0 && up > len(s.Tasks) {
			withReplicas++
		}
		stop := 1 + rng.IntN(nw)
		h := Paper()[rng.IntN(9)] // RANDOM … RANDOM4W
		type key struct {
			rank, task, proc int
			replica          bool
		}
		loop, short := map[key]int{}, map[key]int{}
		r1, r2 := stream.New(38, uint64(it)), stream.New(39, uint64(it))
		for i := 0; i < n; i++ {
			seen := map[int]bool{}
			for _, pk := range d.Decide(h, s, r1, nil) {
				if watch[pk.Proc] && !seen[pk.Proc] && len(seen) < stop {
					loop[key{len(seen), pk.Task, pk.Proc, pk.Replica}]++
					seen[pk.Proc] = true
				}
			}
			loop[key{-1, len(seen), 0, false}]++
			got := d.DecideWith(h, s, &Hints{Want: watch, StopAfter: stop}, r2, nil)
			for j, pk := range got {
				if !watch[pk.Proc] {
					t.Fatalf("it %d %v: pick %v is not on a watched processor", it, h, pk)
				}
				short[key{j, pk.Task, pk.Proc, pk.Replica}]++
			}
			short[key{-1, len(got), 0, false}]++
		}
		for _, m := range []map[key]int{loop, short} {
			for k := range m {
				a, b := float64(loop[k]), float64(short[k])
				if math.Abs(a-b) > 5*math.Sqrt(a+b)+1 {
					t.Errorf("it %d %v stop %d: outcome %+v: loop %v, shortcut %v of %d", it, h, stop, k, a, b, n)
				}
			}
		}
	}
	if tested < 10 || withReplicas < 3 {
		t.Fatalf("only %d snapshots tested, %d with replicas: the generator needs fixing", tested, withReplicas)
	}
}
