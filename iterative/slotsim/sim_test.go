package slotsim

import (
	"errors"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/stream"
)

const (
	u = availability.Up
	r = availability.Reclaimed
	d = availability.Down
)

func chain(uu, ur, ru, rr float64) availability.Chain {
	ud, rd := 1-uu-ur, 1-ru-rr
	return availability.Chain{P: [3][3]float64{{uu, ur, ud}, {ru, rr, rd}, {0.05, 0.05, 0.9}}}
}

func states(s string) []availability.State {
	out := make([]availability.State, len(s))
	for i, c := range s {
		switch c {
		case 'u':
			out[i] = u
		case 'r':
			out[i] = r
		case 'd':
			out[i] = d
		}
	}
	return out
}

func runLogged(t *testing.T, in *iterative.Instance, opt iterative.Options, h iterative.Heuristic, real *Realization, seed uint64) int {
	t.Helper()
	sim, err := New(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	var log []Event
	sim.Log = &log
	ms, err := sim.Run(h, real, stream.New(seed, 99))
	if err != nil {
		t.Fatalf("%v: %v", h, err)
	}
	if err := Check(in, opt.ExtraReplicas, real, ms, log); err != nil {
		t.Fatalf("%v: checker: %v", h, err)
	}
	return ms
}

// TestAlwaysUpByHand: one processor always UP, w = 3, T_prog = 2,
// T_data = 1, 2 tasks, 2 iterations. Program in slots 0–1, data of task A in
// 2, A computed in 3–5 while the data of B arrives in 3, B computed in 6–8:
// the first iteration ends with slot 8. The second: data A 9, compute
// 10–12, data B 10, compute 13–15: makespan 16.
func TestAlwaysUpByHand(t *testing.T) {
	in := &iterative.Instance{Chains: []availability.Chain{chain(0.95, 0.03, 0.05, 0.93)}, W: []int{3}, TProg: 2, TData: 1, NCom: 1, Tasks: 2, Iterations: 1}
	real := FromStates([][]availability.State{states("u")})
	for _, h := range iterative.Heuristics() {
		if got := runLogged(t, in, iterative.DefaultOptions(), h, real, 1); got != 9 {
			t.Errorf("%v: 1 iteration makespan %d, want 9", h, got)
		}
	}
	in.Iterations = 2
	if got := runLogged(t, in, iterative.DefaultOptions(), iterative.MCT, real, 1); got != 16 {
		t.Errorf("2 iterations makespan %d, want 16", got)
	}
}

// TestReclaimSuspends: a RECLAIMED slot suspends the transfer and the
// computation, which resume where they were; a DOWN slot loses the program
// and the task. One processor, w = 2, T_prog = 2, T_data = 1, 1 task.
func TestReclaimSuspends(t *testing.T) {
	in := &iterative.Instance{Chains: []availability.Chain{chain(0.95, 0.03, 0.05, 0.93)}, W: []int{2}, TProg: 2, TData: 1, NCom: 1, Tasks: 1, Iterations: 1}
	cases := []struct {
		s    string
		want int
	}{
		{"u", 5},       // prog 0–1, data 2, compute 3–4
		{"uruu", 6},    // prog 0, suspended 1, prog 2, data 3, compute 4–5
		{"uuurruu", 7}, // prog 0–1, data 2, suspended 3–4, compute 5–6
		{"uuuudu", 10}, // compute 3 (1 of 2), DOWN at 4 loses all: prog 5–6, data 7, compute 8–9
		{"uuduuu", 8},  // DOWN at 2 loses the program: prog 3–4, data 5, compute 6–7
	}
	for _, c := range cases {
		real := FromStates([][]availability.State{states(c.s)})
		if got := runLogged(t, in, iterative.DefaultOptions(), iterative.MCT, real, 1); got != c.want {
			t.Errorf("states %s: makespan %d, want %d", c.s, got, c.want)
		}
	}
}

// TestNComBound: four identical always-UP processors, n_com = 1, T_prog =
// 2, T_data = 1, w = 1, 4 tasks: the master serves one transfer at a time,
// so the four programs take 8 slots and the makespan is far more than with
// n_com = 4.
func TestNComBound(t *testing.T) {
	chains := make([]availability.Chain, 4)
	for i := range chains {
		chains[i] = chain(0.95, 0.03, 0.05, 0.93)
	}
	in := &iterative.Instance{Chains: chains, W: []int{1, 1, 1, 1}, TProg: 2, TData: 1, NCom: 4, Tasks: 4, Iterations: 1}
	s := states("u")
	real := FromStates([][]availability.State{s, s, s, s})
	// n_com = 4: each processor gets the program (0–1), data (2), computes
	// (3): makespan 4.
	if got := runLogged(t, in, iterative.DefaultOptions(), iterative.MCT, real, 1); got != 4 {
		t.Errorf("n_com = 4: makespan %d, want 4", got)
	}
	in.NCom = 1
	got := runLogged(t, in, iterative.DefaultOptions(), iterative.MCT, real, 1)
	// n_com = 1, one processor alone: prog 0–1, data of the 4 tasks in 2,
	// 3, 4, 5 (each one ahead), computes in 3, 4, 5, 6: makespan 7. MCT may
	// spread the tasks, but it cannot beat 7: 2 program slots + 4 data
	// slots + 1 computed slot on one channel.
	if got < 7 {
		t.Errorf("n_com = 1: makespan %d, below the bound 7", got)
	}
}

// TestSection4Example is the example of §4 showing MCT is not optimal with
// n_com = 1: T_prog = T_data = 2, m = 2, p = 2, w = 2,
// S1 = [u,u,u,u,u,u,r,r,r], S2 = [r,u,u,u,u,u,u,u]. The paper's optimal
// schedule waits one slot and sends the program and both tasks' data to P2,
// finishing at time 9. Our model must (a) accept that schedule (the checker
// validates its event log, makespan 9), (b) have MCT put the first task on
// P1 at slot 0, and (c) make MCT finish later than 9.
func TestSection4Example(t *testing.T) {
	chains := []availability.Chain{chain(0.95, 0.03, 0.05, 0.93), chain(0.95, 0.03, 0.05, 0.93)}
	in := &iterative.Instance{Chains: chains, W: []int{2, 2}, TProg: 2, TData: 2, NCom: 1, Tasks: 2, Iterations: 1}
	// P1 (index 0) is RECLAIMED after slot 5 until slot 14, then UP.
	real := FromStates([][]availability.State{
		states("uuuuuurrrrrrrrruuuuu"),
		states("ruuuuuuuuuuuuuuuuuuu"),
	})
	// (a) the optimal schedule, slots 0-based: P2 program 1–2, data A 3–4,
	// compute A 5–6 while data B 5–6, compute B 7–8.
	opt := []Event{
		{1, EvProgram, 1, -1}, {2, EvProgram, 1, -1},
		{3, EvBegin, 1, 0}, {3, EvData, 1, 0}, {4, EvData, 1, 0},
		{5, EvBegin, 1, 1}, {5, EvCompute, 1, 0}, {5, EvData, 1, 1},
		{6, EvCompute, 1, 0}, {6, EvData, 1, 1}, {6, EvDone, 1, 0},
		{7, EvCompute, 1, 1}, {8, EvCompute, 1, 1}, {8, EvDone, 1, 1}, {8, EvIterDone, -1, -1},
	}
	if err := Check(in, 2, real, 9, opt); err != nil {
		t.Fatalf("the paper's optimal schedule is rejected: %v", err)
	}
	// The checker must reject a schedule that overlaps two transfers with
	// n_com = 1.
	bad := append([]Event{{0, EvProgram, 0, -1}, {1, EvProgram, 0, -1}}, opt...)
	if err := Check(in, 2, real, 9, bad); err == nil {
		t.Error("checker accepts two simultaneous transfers with n_com = 1")
	}
	// (b) MCT's first decision.
	sim, _ := New(in, iterative.DefaultOptions())
	var d iterative.Decider
	snap := &iterative.Snapshot{Procs: []iterative.ProcView{{State: u, W: 2, ProgramLeft: 2}, {State: r, W: 2, ProgramLeft: 2}}, Crit: sim.crit, TData: 2, NCom: 1, Tasks: []iterative.OpenTask{{ID: 0}, {ID: 1}}, ExtraReplicas: 2}
	if got := d.Decide(iterative.MCT, snap, nil, nil); len(got) == 0 || got[0].Proc != 0 {
		t.Errorf("MCT's first pick at slot 0 is %v, want P1 (index 0)", got)
	}
	// (c) MCT does worse than 9.
	for _, h := range []iterative.Heuristic{iterative.MCT, iterative.MCTStar} {
		if got := runLogged(t, in, iterative.DefaultOptions(), h, real, 1); got <= 9 {
			t.Errorf("%v makespan %d, want more than the optimal 9", h, got)
		}
	}
}

// TestRandomInstancesChecked runs every heuristic on random instances under
// every model option and replays each log with the checker.
func TestRandomInstancesChecked(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	optsList := []iterative.Options{iterative.DefaultOptions()}
	o := iterative.DefaultOptions()
	o.Channels, o.Order, o.HoldWhileReclaimed = iterative.ChannelIndex, iterative.DecideThenObserve, true
	optsList = append(optsList, o)
	o = iterative.DefaultOptions()
	o.ExtraReplicas, o.Initial = 0, availability.StartUp
	optsList = append(optsList, o)
	o = iterative.DefaultOptions()
	o.Sticky = true
	optsList = append(optsList, o)
	o.Channels, o.HoldWhileReclaimed = iterative.ChannelIndex, true
	optsList = append(optsList, o)
	for i := 0; i < n; i++ {
		rng := stream.New(2024, uint64(i))
		p := 2 + rng.IntN(7)
		in := &iterative.Instance{TProg: rng.IntN(6), TData: rng.IntN(4), NCom: 1 + rng.IntN(4), Tasks: 1 + rng.IntN(12), Iterations: 1 + rng.IntN(3)}
		for q := 0; q < p; q++ {
			in.Chains = append(in.Chains, availability.Random(rng))
			in.W = append(in.W, 1+rng.IntN(8))
		}
		for oi, opt := range optsList {
			for _, h := range iterative.Heuristics() {
				real := Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(2024, uint64(i), 1)))
				runLogged(t, in, opt, h, real, uint64(i*100+oi))
			}
		}
	}
}

// TestCommonRandomNumbers: the realization is the same whatever order the
// heuristics ask for slots in, and a run is deterministic.
func TestCommonRandomNumbers(t *testing.T) {
	rng := stream.New(5)
	in := &iterative.Instance{TProg: 5, TData: 1, NCom: 2, Tasks: 10, Iterations: 3}
	for q := 0; q < 8; q++ {
		in.Chains = append(in.Chains, availability.Random(rng))
		in.W = append(in.W, 1+rng.IntN(10))
	}
	a := Realize(availability.ChainSources(in.Chains, availability.StartStationary, stream.New(5, 1)))
	b := Realize(availability.ChainSources(in.Chains, availability.StartStationary, stream.New(5, 1)))
	b.At(500) // draw far ahead first
	for t2 := 0; t2 <= 500; t2++ {
		sa, sb := a.At(t2), b.At(t2)
		for q := range sa {
			if sa[q] != sb[q] {
				t.Fatalf("slot %d processor %d: %v vs %v", t2, q, sa[q], sb[q])
			}
		}
	}
	sim, err := New(in, iterative.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range iterative.Heuristics() {
		m1, err1 := sim.Run(h, a, stream.New(5, 2))
		m2, err2 := sim.Run(h, b, stream.New(5, 2))
		if err1 != nil || err2 != nil || m1 != m2 {
			t.Errorf("%v: makespans %d (%v), %d (%v)", h, m1, err1, m2, err2)
		}
	}
}

func TestMaxSlots(t *testing.T) {
	in := &iterative.Instance{Chains: []availability.Chain{chain(0.95, 0.03, 0.05, 0.93)}, W: []int{2}, TProg: 1, TData: 1, NCom: 1, Tasks: 1, Iterations: 1}
	opt := iterative.DefaultOptions()
	opt.MaxSlots = 100
	sim, err := New(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(iterative.MCT, FromStates([][]availability.State{states("d")}), nil)
	if !errors.Is(err, ErrTooLong) {
		t.Errorf("error %v, want ErrTooLong", err)
	}
}

func TestValidate(t *testing.T) {
	good := iterative.Instance{Chains: []availability.Chain{chain(0.95, 0.03, 0.05, 0.93)}, W: []int{2}, TProg: 1, TData: 1, NCom: 1, Tasks: 1, Iterations: 1}
	bad := []func(*iterative.Instance){
		func(in *iterative.Instance) { in.W = []int{0} },
		func(in *iterative.Instance) { in.W = nil },
		func(in *iterative.Instance) { in.NCom = 0 },
		func(in *iterative.Instance) { in.Tasks = 0 },
		func(in *iterative.Instance) { in.TData = -1 },
		func(in *iterative.Instance) { in.Chains[0].P[0][0] = 2 },
	}
	for i, f := range bad {
		in := good
		in.Chains = append([]availability.Chain(nil), good.Chains...)
		f(&in)
		if _, err := New(&in, iterative.DefaultOptions()); err == nil {
			t.Errorf("bad instance %d accepted", i)
		}
	}
	if _, err := New(&good, iterative.Options{ExtraReplicas: -1}); err == nil {
		t.Error("negative replicas accepted")
	}
}

// TestStickyQueues: with Options.Sticky a task queued on a busy processor
// stays there when a faster processor comes UP. P0 (w = 5) is UP from slot
// 0, P1 (w = 1) is RECLAIMED at slot 0 then UP; T_prog = 0, T_data = 1,
// 2 tasks. Default: at slot 1 MCT moves task B to P1 (data 1, computed 2),
// then a replica of A goes to the idle P1 (data 3, computed 4): makespan 5.
// Sticky: both tasks stay queued on P0; A is computed 1–5; only then is P1
// given a replica of B (data 6, computed 7): makespan 8.
func TestStickyQueues(t *testing.T) {
	chains := []availability.Chain{chain(0.95, 0.03, 0.05, 0.93), chain(0.95, 0.03, 0.05, 0.93)}
	in := &iterative.Instance{Chains: chains, W: []int{5, 1}, TProg: 0, TData: 1, NCom: 2, Tasks: 2, Iterations: 1}
	real := FromStates([][]availability.State{states("u"), states("ru")})
	if got := runLogged(t, in, iterative.DefaultOptions(), iterative.MCT, real, 1); got != 5 {
		t.Errorf("default: makespan %d, want 5", got)
	}
	opt := iterative.DefaultOptions()
	opt.Sticky = true
	if got := runLogged(t, in, opt, iterative.MCT, real, 1); got != 8 {
		t.Errorf("sticky: makespan %d, want 8", got)
	}
}

// TestRealizationChanges: Changes(t) lists exactly the processors whose
// state differs between slots t − 1 and t, in index order, whatever order
// the slots are asked in, for drawn and hand-built realizations.
func TestRealizationChanges(t *testing.T) {
	rng := stream.New(9)
	var chains []availability.Chain
	for q := 0; q < 7; q++ {
		chains = append(chains, availability.Random(rng))
	}
	drawn := Realize(availability.ChainSources(chains, availability.StartStationary, stream.New(9, 1)))
	drawn.Changes(300) // far ahead first
	built := FromStates([][]availability.State{states("uurrdduu"), states("u"), states("dddru")})
	for _, real := range []*Realization{drawn, built} {
		total := 0
		for t2 := 0; t2 <= 400; t2++ {
			var want []int32
			if t2 > 0 {
				prev, cur := real.At(t2-1), real.At(t2)
				for q := range cur {
					if cur[q] != prev[q] {
						want = append(want, int32(q))
					}
				}
			}
			got := real.Changes(t2)
			if len(got) != len(want) {
				t.Fatalf("slot %d: changes %v, want %v", t2, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("slot %d: changes %v, want %v", t2, got, want)
				}
			}
			total += len(got)
		}
		if total == 0 {
			t.Error("no state change in 400 slots")
		}
	}
}
