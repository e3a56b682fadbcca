package master

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

const progDigest = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// heuristic looks a heuristic up by name (the tests name them).
func heuristic(t testing.TB, name string) Heuristic {
	t.Helper()
	h, err := iterative.ParseHeuristic(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func testConfig() Config {
	return Config{Heuristic: DefaultHeuristic, NCom: 2, Slot: 10 * time.Millisecond, ExtraReplicas: 2, DownAfter: 30 * time.Millisecond,
		MaxAttempts: 3, Seed: 1, Prior: availability.DefaultPrior(), ProgramDigest: progDigest, ProgramSize: 100}
}

func specs(iter, n int) []TaskSpec {
	var s []TaskSpec
	for i := 0; i < n; i++ {
		s = append(s, TaskSpec{Name: fmt.Sprintf("t%03d", i), Digest: fmt.Sprintf("%064x", iter*1000+i+1), Size: 10})
	}
	return s
}

// emu is an emulated platform driving a Machine with simulated time, no
// sockets: workers follow their chains one draw per slot, transfers take
// tprog/tdata slots of UP time holding a granted channel, tasks take w
// slots of UP time. It checks the machine's invariants after every call.
type emu struct {
	t          *testing.T
	m          *Machine
	rng        *rand.Rand
	chains     []availability.Chain
	w          []int // slots of computation per task
	tprog      int   // slots
	tdata      int
	sub        int // steps per slot
	ws         []*emuWorker
	iters      int // iterations to run
	tasks      int
	accepted   map[string]int
	step       int64
	maxHeld    int
	tampered   bool
	failTask   string // a task whose program always fails
	iterations int
	onLog      func([]LogRecord) // given the machine's log records
}

type emuCopy struct {
	iter, task int
	attempt    uint32
	input      string
	haveInput  bool
	granted    bool
	xferLeft   int // steps
	xferDone   int // steps of active transfer
	workLeft   int // steps
	work       int
}

type emuWorker struct {
	name      string
	state     availability.State
	session   uint64
	hasProg   bool
	progLeft  int
	progGrant bool
	progAct   int
	copies    []*emuCopy
	cache     map[string]bool
}

func newEmu(t *testing.T, cfg Config, chains []availability.Chain, w []int, tprog, tdata, iters, tasks int, seed uint64) *emu {
	m, err := NewMachine(cfg, 1<<32)
	if err != nil {
		t.Fatal(err)
	}
	e := &emu{t: t, m: m, rng: rand.New(rand.NewPCG(seed, 7)), chains: chains, w: w, tprog: tprog, tdata: tdata, sub: 4, iters: iters, tasks: tasks, accepted: map[string]int{}}
	for q := range chains {
		e.ws = append(e.ws, &emuWorker{name: fmt.Sprintf("w%02d", q), state: availability.Down, cache: map[string]bool{}})
	}
	m.NewIteration(0, 0, specs(0, tasks))
	return e
}

func (e *emu) now() int64 { return e.step * int64(e.m.cfg.Slot) / int64(e.sub) }

func (e *emu) check() {
	if e.m.held > e.m.cfg.NCom || e.m.held < 0 {
		e.t.Fatalf("step %d: %d channels held, ncom %d", e.step, e.m.held, e.m.cfg.NCom)
	}
	e.maxHeld = max(e.maxHeld, e.m.held)
	active := 0
	for _, w := range e.ws {
		if w.state != availability.Up || w.session == 0 {
			continue
		}
		if w.progGrant {
			active++
		}
		for _, c := range w.copies {
			if c.granted {
				active++
			}
		}
	}
	if active > e.m.cfg.NCom {
		e.t.Fatalf("step %d: %d transfers active on the workers, ncom %d", e.step, active, e.m.cfg.NCom)
	}
}

func (e *emu) deliver() {
	for _, c := range e.m.TakeCommands() {
		w := e.ws[c.Worker]
		if c.Session != w.session {
			continue // a stale command for an ended session
		}
		switch c.Kind {
		case CmdFetch:
			if c.Program {
				w.progGrant = true
				if w.progLeft == 0 {
					w.progLeft = e.tprog * e.sub
				}
				continue
			}
			for _, cp := range w.copies {
				if cp.input == c.Digest && !cp.haveInput {
					cp.granted = true
				}
			}
		case CmdRun:
			cp := &emuCopy{iter: c.Iter, task: c.Task, attempt: c.Attempt, input: c.Digest, workLeft: e.w[c.Worker] * e.sub, xferLeft: e.tdata * e.sub}
			cp.work = cp.workLeft
			if !c.Fetch {
				if !w.cache[c.Digest] {
					e.t.Fatalf("worker %s told to use a cached input it does not hold", w.name)
				}
				cp.haveInput = true
			} else {
				cp.granted = true
			}
			if len(w.copies) >= 2 {
				e.t.Fatalf("worker %s given a third copy", w.name)
			}
			w.copies = append(w.copies, cp)
		case CmdCancel:
			for i, cp := range w.copies {
				if cp.task == c.Task && cp.attempt == c.Attempt {
					w.copies = append(w.copies[:i], w.copies[i+1:]...)
					break
				}
			}
		}
	}
	if l := e.m.TakeLog(); e.onLog != nil {
		e.onLog(l)
	}
}

// run steps until the application finishes; it returns the makespan in
// slots.
func (e *emu) run(maxSlots int) float64 {
	for e.step = 0; e.step < int64(maxSlots*e.sub); e.step++ {
		now := e.now()
		if e.step%int64(e.sub) == 0 {
			for q, w := range e.ws {
				var st availability.State
				if e.step == 0 {
					st = availability.Up
				} else {
					st = e.chains[q].Next(w.state, e.rng)
				}
				e.transition(w, st, now)
			}
		}
		for _, w := range e.ws {
			if w.session == 0 {
				continue
			}
			if err := e.m.Heartbeat(now, w.session, w.state); err != nil {
				e.t.Fatalf("heartbeat: %v", err)
			}
			if w.state != availability.Up {
				w.progGrant = false
				for _, c := range w.copies {
					c.granted = false
				}
				continue
			}
			e.progress(w, now)
		}
		e.m.Tick(now)
		e.m.Step()
		e.check()
		e.deliver()
		switch e.m.Phase() {
		case PhaseDriver:
			e.iterations++
			if e.iterations == e.iters {
				e.m.NewIteration(now, e.iterations, nil)
				return float64(e.step+1) / float64(e.sub)
			}
			e.m.NewIteration(now, e.iterations, specs(e.iterations, e.tasks))
		case PhaseFailed:
			return -1
		}
	}
	e.t.Fatalf("not finished after %d slots", maxSlots)
	return 0
}

func (e *emu) transition(w *emuWorker, st availability.State, now int64) {
	if st == w.state && !(w.session == 0 && st != availability.Down) {
		return
	}
	switch {
	case st == availability.Down:
		if w.session != 0 {
			e.m.Disconnect(now, w.session)
		}
		w.session, w.hasProg, w.progLeft, w.progGrant, w.copies = 0, false, 0, false, nil
		w.cache = map[string]bool{}
	case w.session == 0:
		var cached []string
		for d := range w.cache {
			cached = append(cached, d)
		}
		w.session, _ = e.m.Register(now, w.name, cached)
		w.copies, w.progLeft, w.progGrant = nil, 0, false
		w.hasProg = w.cache[progDigest]
	}
	w.state = st
}

func (e *emu) progress(w *emuWorker, now int64) {
	if w.progGrant && !w.hasProg {
		w.progLeft--
		w.progAct++
		if w.progLeft <= 0 {
			w.hasProg, w.progGrant = true, false
			w.cache[progDigest] = true
			act := w.progAct * int(e.m.cfg.Slot) / e.sub
			w.progAct = 0
			if err := e.m.TransferDone(now, w.session, progDigest, int64(act)); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	for _, c := range w.copies {
		if c.granted && !c.haveInput {
			c.xferLeft--
			c.xferDone++
			if c.xferLeft <= 0 {
				c.haveInput, c.granted = true, false
				w.cache[c.input] = true
				if err := e.m.TransferDone(now, w.session, c.input, int64(c.xferDone*int(e.m.cfg.Slot)/e.sub)); err != nil {
					e.t.Fatal(err)
				}
			}
		}
	}
	if len(w.copies) > 0 && w.hasProg && w.copies[0].haveInput {
		c := w.copies[0]
		c.workLeft--
		if c.workLeft <= 0 {
			w.copies = w.copies[1:]
			name := e.m.tasks[c.task].name
			if name == e.failTask {
				if err := e.m.TaskFailed(now, w.session, c.iter, c.task, c.attempt, "exit status 1: boom"); err != nil {
					e.t.Fatal(err)
				}
				return
			}
			digest := fmt.Sprintf("%064x", 1<<40+c.iter*1000+c.task)
			acc, err := e.m.Result(now, w.session, c.iter, c.task, c.attempt, digest, int64(c.work*int(e.m.cfg.Slot)/e.sub))
			if err != nil {
				if c.iter == e.m.iter && e.m.tasks[c.task].done {
					return // another copy completed in the same step: its cancel is on its way
				}
				e.t.Fatalf("result of %s refused: %v", name, err)
			}
			key := fmt.Sprintf("%d/%d", acc.Iter, acc.Task)
			e.accepted[key]++
			if e.accepted[key] > 1 {
				e.t.Fatalf("task %s accepted twice", key)
			}
		}
	}
}

func TestMachineFaultFree(t *testing.T) {
	up := availability.Chain{P: [3][3]float64{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}}
	chains := []availability.Chain{up, up, up, up}
	e := newEmu(t, testConfig(), chains, []int{2, 3, 4, 5}, 2, 1, 3, 10, 1)
	ms := e.run(2000)
	if len(e.accepted) != 30 {
		t.Fatalf("%d results accepted, want 30", len(e.accepted))
	}
	if e.m.Phase() != PhaseFinished {
		t.Fatalf("phase %v", e.m.Phase())
	}
	if e.maxHeld != 2 {
		t.Errorf("at most %d channels used, want the 2 of ncom at some point", e.maxHeld)
	}
	// Measured quantities in slots: T_prog 2, T_data 1, w_q as given.
	if e.m.TProg() != 2 || e.m.TData() != 1 {
		t.Errorf("T_prog %d, T_data %d; want 2, 1", e.m.TProg(), e.m.TData())
	}
	for q, w := range []int{2, 3, 4, 5} {
		if got := e.m.W(q); got != w {
			t.Errorf("w_%d = %d, want %d", q, got, w)
		}
	}
	t.Logf("makespan %.1f slots", ms)
}

func TestMachineVolatile(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var chains []availability.Chain
		var ws []int
		for q := 0; q < 8; q++ {
			chains = append(chains, availability.RandomIn(rng, 0.85, 0.99))
			ws = append(ws, 1+rng.IntN(5))
		}
		for _, h := range []string{"EMCT*", "RANDOM", "UD", "LW*", "MCT"} {
			cfg := testConfig()
			cfg.Heuristic, cfg.Seed = heuristic(t, h), seed
			e := newEmu(t, cfg, chains, ws, 3, 2, 2, 12, seed)
			if ms := e.run(20000); ms < 0 {
				t.Fatalf("%s: failed: %s", h, e.m.Err())
			}
			if len(e.accepted) != 24 {
				t.Fatalf("%s seed %d: %d results, want 24", h, seed, len(e.accepted))
			}
		}
	}
}

func TestMachineEstimatesConverge(t *testing.T) {
	truth := availability.Chain{P: [3][3]float64{{0.9, 0.06, 0.04}, {0.2, 0.75, 0.05}, {0.1, 0.05, 0.85}}}
	m, err := NewMachine(testConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	m.NewIteration(0, 0, specs(0, 1))
	rng := rand.New(rand.NewPCG(5, 5))
	slot := int64(m.cfg.Slot)
	st := availability.Up
	var sess uint64
	for k := int64(0); k < 30000; k++ {
		now := k*slot + slot/2 // mid-slot: the state of slot k
		if k > 0 {
			st = truth.Next(st, rng)
		}
		switch {
		case st == availability.Down && sess != 0:
			m.Disconnect(now, sess)
			sess = 0
		case st != availability.Down && sess == 0:
			sess, _ = m.Register(now, "w", nil)
			fallthrough
		case st != availability.Down:
			if err := m.Heartbeat(now, sess, st); err != nil {
				t.Fatal(err)
			}
		}
		m.Tick(now + slot/2) // the boundary after slot k
		m.TakeLog()
		m.TakeCommands()
	}
	got := m.Chain(0)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if d := math.Abs(got.P[i][j] - truth.P[i][j]); d > 0.02 {
				t.Errorf("P[%d][%d] = %.4f, true %.4f", i, j, got.P[i][j], truth.P[i][j])
			}
		}
	}
}

func TestMachineRefusesHostileReports(t *testing.T) {
	cfg := testConfig()
	cfg.NCom = 4
	m, _ := NewMachine(cfg, 1)
	m.NewIteration(0, 0, specs(0, 2))
	s1, _ := m.Register(0, "a", []string{progDigest})
	s2, _ := m.Register(0, "b", []string{progDigest})
	m.Step()
	var runs []Command
	for _, c := range m.TakeCommands() {
		if c.Kind == CmdRun {
			runs = append(runs, c)
		}
		if c.Kind == CmdFetch && c.Program {
			t.Fatal("program sent to a worker that holds it")
		}
	}
	if len(runs) != 2 || runs[0].Worker == runs[1].Worker {
		t.Fatalf("runs %+v", runs)
	}
	if _, err := m.Result(1, 12345, 0, 0, 1, "x", 1); !errors.Is(err, ErrSession) {
		t.Fatalf("unknown session: %v", err)
	}
	r := runs[0]
	sess := map[int]uint64{m.WorkerIndex("a"): s1, m.WorkerIndex("b"): s2}
	other := sess[runs[1].Worker]
	// The other worker reports our task: not given to it.
	if _, err := m.Result(1, other, 0, r.Task, r.Attempt, "x", 1); err == nil || !strings.Contains(err.Error(), "not given") {
		t.Fatalf("result for a task not given: %v", err)
	}
	// Before its input arrived.
	if _, err := m.Result(1, sess[r.Worker], 0, r.Task, r.Attempt, "x", 1); err == nil || !strings.Contains(err.Error(), "input") {
		t.Fatalf("result before input: %v", err)
	}
	m.TransferDone(2, sess[r.Worker], r.Digest, 1)
	if _, err := m.Result(3, sess[r.Worker], 0, r.Task, r.Attempt+1, "x", 1); err == nil {
		t.Fatal("wrong attempt accepted")
	}
	if _, err := m.Result(3, sess[r.Worker], 1, r.Task, r.Attempt, "x", 1); err == nil {
		t.Fatal("wrong iteration accepted")
	}
	if _, err := m.Result(3, sess[r.Worker], 0, r.Task, r.Attempt, "x", 1); err != nil {
		t.Fatal(err)
	}
	// Twice.
	if _, err := m.Result(4, sess[r.Worker], 0, r.Task, r.Attempt, "x", 1); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("second result: %v", err)
	}
	refused := 0
	for _, l := range m.TakeLog() {
		if l.Kind == LogRefused {
			refused++
		}
	}
	if refused != 5 {
		t.Errorf("%d refusals logged, want 5", refused)
	}
}

func TestMachineFailingTaskStops(t *testing.T) {
	up := availability.Chain{P: [3][3]float64{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}}
	e := newEmu(t, testConfig(), []availability.Chain{up, up, up}, []int{1, 1, 1}, 1, 1, 2, 4, 1)
	e.failTask = "t002"
	if ms := e.run(1000); ms >= 0 {
		t.Fatal("application finished with a failing task")
	}
	if !strings.Contains(e.m.Err(), "task t002 of iteration 0 failed 3 times") || !strings.Contains(e.m.Err(), "boom") {
		t.Fatalf("error %q", e.m.Err())
	}
}

func TestMachineReclaimPausesTransfer(t *testing.T) {
	cfg := testConfig()
	cfg.NCom = 1
	m, _ := NewMachine(cfg, 1)
	m.NewIteration(0, 0, specs(0, 3))
	a, _ := m.Register(0, "a", nil)
	m.Step()
	cmds := m.TakeCommands()
	if len(cmds) != 1 || cmds[0].Kind != CmdFetch || !cmds[0].Program || m.Held() != 1 {
		t.Fatalf("first command %+v held %d", cmds, m.Held())
	}
	b, _ := m.Register(1, "b", nil)
	m.Step()
	if c := m.TakeCommands(); len(c) != 0 {
		t.Fatalf("a second transfer with ncom 1: %+v", c)
	}
	m.Heartbeat(2, a, availability.Reclaimed) // a's program transfer pauses, its channel goes to b
	m.Step()
	c := m.TakeCommands()
	if len(c) != 1 || c[0].Worker != m.WorkerIndex("b") || m.Held() != 1 {
		t.Fatalf("after a reclaimed: %+v", c)
	}
	m.Heartbeat(3, a, availability.Up)
	m.Step()
	if c := m.TakeCommands(); len(c) != 0 {
		t.Fatalf("a resumed while b holds the only channel: %+v", c)
	}
	m.TransferDone(4, b, progDigest, 3)
	m.Step()
	c = m.TakeCommands()
	if len(c) == 0 || c[0].Worker != m.WorkerIndex("a") || c[0].Kind != CmdFetch || !c[0].Program {
		t.Fatalf("a's paused transfer not resumed first: %+v", c)
	}
}

func TestMachineDownDropsCopies(t *testing.T) {
	cfg := testConfig()
	m, _ := NewMachine(cfg, 1)
	m.NewIteration(0, 0, specs(0, 1))
	a, _ := m.Register(0, "a", []string{progDigest})
	m.Step()
	c := m.TakeCommands()
	if len(c) != 1 || c[0].Kind != CmdRun {
		t.Fatalf("%+v", c)
	}
	m.Tick(int64(cfg.DownAfter) + 1) // no heartbeat: DOWN
	if _, err := m.Result(int64(cfg.DownAfter)+2, a, 0, 0, c[0].Attempt, "x", 1); !errors.Is(err, ErrSession) {
		t.Fatalf("result after DOWN: %v", err)
	}
	if m.Held() != 0 || m.copies[0] != 0 {
		t.Fatalf("held %d copies %v after DOWN", m.Held(), m.copies)
	}
	// It comes back with the input cached: no transfer needed.
	a2, keep := m.Register(int64(cfg.DownAfter)+3, "a", []string{progDigest, c[0].Digest, "ffff"})
	if len(keep) != 2 {
		t.Fatalf("keep %v, want the program and the input", keep)
	}
	m.Step()
	c2 := m.TakeCommands()
	if len(c2) != 1 || c2[0].Kind != CmdRun || c2[0].Fetch || m.Held() != 0 {
		t.Fatalf("cached input re-sent: %+v", c2)
	}
	if _, err := m.Result(int64(cfg.DownAfter)+4, a2, 0, 0, c2[0].Attempt, "x", 1); err != nil {
		t.Fatal(err)
	}
	if m.Phase() != PhaseDriver {
		t.Fatalf("phase %v", m.Phase())
	}
}

// backoffRun: one worker whose program transfers fail fails times in a
// row, then one succeeds, the worker loses the program again and its next
// transfer fails; it returns the delays between each failure and the next
// grant (fails + 1 of them).
func backoffRun(t *testing.T, seed uint64, fails int) []time.Duration {
	cfg := testConfig()
	cfg.Seed = seed
	m, err := NewMachine(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.NewIteration(0, 0, specs(0, 2))
	sess, _ := m.Register(0, "a", nil)
	var delays []time.Duration
	failedAt, n := int64(-1), 0
	for now := int64(0); now < int64(10*time.Second) && len(delays) <= fails; now += int64(time.Millisecond) {
		if err := m.Heartbeat(now, sess, availability.Up); err != nil {
			t.Fatal(err)
		}
		m.Tick(now)
		m.Step()
		for _, c := range m.TakeCommands() {
			if c.Kind != CmdFetch || !c.Program {
				continue
			}
			if failedAt >= 0 {
				delays = append(delays, time.Duration(now-failedAt))
			}
			n++
			if n == fails+1 { // this one succeeds, then the program is lost
				m.TransferDone(now, sess, progDigest, int64(time.Millisecond))
				m.workers[0].hasProgram = false
				failedAt = -1
				continue
			}
			if err := m.TransferFailed(now, sess, progDigest, "cache: disk full"); err != nil {
				t.Fatal(err)
			}
			failedAt = now
		}
	}
	return delays
}

// TestMachineTransferBackoff: a worker whose transfers keep failing (a
// broken cache) gets bounded exponential backoff with jitter: after the
// n-th failure in a row no transfer for a delay in [d/2, d), d =
// slot·2^(n−1) ≤ 64 slots; a success resets it; the same seed gives the
// same delays, another seed others.
func TestMachineTransferBackoff(t *testing.T) {
	const fails = 9
	slot := testConfig().Slot
	a := backoffRun(t, 1, fails)
	if len(a) != fails+1 {
		t.Fatalf("%d regrants after %d failures: %v", len(a), fails, a)
	}
	for i, got := range a {
		n := i + 1 // failures in a row
		if i == fails {
			n = 1 // after the success
		}
		d := min(slot<<(n-1), 64*slot)
		// The test's clock steps by 1 ms: the grant comes at most 1 ms late.
		if got < d/2 || got > d+time.Millisecond {
			t.Errorf("delay %d (%d failures in a row): %v, want in [%v, %v)", i, n, got, d/2, d)
		}
	}
	if b := backoffRun(t, 1, fails); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, different delays: %v and %v", a, b)
	}
	if c := backoffRun(t, 2, fails); fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 1 and 2 gave the same jitter: %v", a)
	}
	t.Logf("delays: %v", a)
}

// TestMachineBackfill: a worker that comes back tells when; the slots the
// master counted DOWN while it was connecting become UP (not before the
// master last heard from it, not after now), and the estimator's counts
// follow; a worker silent until DownAfter is counted DOWN from its first
// missed heart-beat.
func TestMachineBackfill(t *testing.T) {
	cfg := testConfig()
	cfg.Heartbeat = cfg.Slot
	cfg.DownAfter = 10 * cfg.Slot
	slot := int64(cfg.Slot)
	m, _ := NewMachine(cfg, 1)
	m.NewIteration(0, 0, specs(0, 1))
	q := 0
	tickTo := func(from, to int64, sess uint64) {
		for now := from; now <= to; now += slot / 2 {
			if sess != 0 {
				m.Heartbeat(now, sess, availability.Up)
			}
			m.Tick(now)
		}
	}
	sess, _ := m.Register(0, "a", nil)
	tickTo(0, 10*slot, sess) // UP slots 0..9
	m.Disconnect(10*slot+1, sess)
	tickTo(10*slot+slot/2, 20*slot, 0) // DOWN: slots 10..19 counted DOWN
	before := m.workers[q].est.Counts
	total := func(c [3][3]float64) (s float64) {
		for i := range c {
			for j := range c[i] {
				s += c[i][j]
			}
		}
		return
	}
	// Back 3.5 slots ago: slots ending at 17·slot … 20·slot (16..19) were UP.
	now := 20*slot + slot/4
	sess, _ = m.Register(now, "a", nil)
	n, from := m.Backfill(now, sess, []StateSince{{State: availability.Up, Since: now - 7*slot/2}})
	if n != 4 || from != now-7*slot/2 {
		t.Fatalf("backfill corrected %d slots from %d, want 4 from %d", n, from, now-7*slot/2)
	}
	after := m.workers[q].est.Counts
	u, d := availability.Up, availability.Down
	if total(after) != total(before) || after[d][d] != before[d][d]-4 || after[d][u] != before[d][u]+1 || after[u][u] != before[u][u]+3 {
		t.Fatalf("counts before %v after %v", before, after)
	}
	if m.Chain(q) != m.workers[q].est.Chain() {
		t.Fatal("chain not refreshed")
	}
	// A return claimed before the master last heard from it is cut there.
	m.Disconnect(now+1, sess)
	tickTo(now+slot/2, now+5*slot, 0)
	now2 := now + 5*slot + slot/4
	sess, _ = m.Register(now2, "a", nil)
	if _, from := m.Backfill(now2, sess, []StateSince{{State: availability.Up, Since: 0}}); from != now {
		t.Fatalf("claimed return before the last heart-beat: from %d, want %d", from, now)
	}
	// Back RECLAIMED, and its first heart-beat 3 slots after its
	// registration: the 3 slots counted UP meanwhile become RECLAIMED.
	m.Disconnect(now2+1, sess)
	tickTo(now2+slot/2, now2+5*slot, 0)
	now3 := now2 + 5*slot + slot/4
	sess, _ = m.Register(now3, "a", nil)
	r := availability.Reclaimed
	tickTo(now3+slot/2, now3+3*slot, 0) // no heart-beat yet: counted UP
	c2 := m.workers[q].est.Counts
	hb := now3 + 3*slot + slot/2
	m.Heartbeat(hb, sess, r)
	if n, _ := m.Backfill(hb, sess, []StateSince{{State: r, Since: now3 - slot}}); n != 4 {
		t.Fatalf("back RECLAIMED: %d slots corrected, want 4 (1 DOWN, 3 UP)", n)
	}
	c3 := m.workers[q].est.Counts
	if c3[u][u] != c2[u][u]-2 || c3[d][u] != c2[d][u]-1 || c3[r][r] != c2[r][r]+3 || c3[d][r] != c2[d][r]+1 {
		t.Fatalf("back RECLAIMED: counts before %v after %v", c2, c3)
	}
	tickTo(hb, hb+2*slot, sess)
	now2 = hb + 2*slot

	// Silent: DOWN from its first missed heart-beat, not from DownAfter.
	tickTo(now2+slot/2, now2+4*slot, sess) // heart-beats until ~now2+4 slots
	last := m.workers[q].lastHeard
	c0 := m.workers[q].est.Counts
	tickTo(last+slot/2, last+12*slot, 0)
	if m.workers[q].session != 0 {
		t.Fatal("not DOWN after DownAfter")
	}
	c1 := m.workers[q].est.Counts
	// Slots ending after last+heartbeat count DOWN: about 11 of the 12.
	if got := c1[u][d] + c1[d][d] - c0[u][d] - c0[d][d]; got < 10 || c1[u][u]-c0[u][u] > 2 {
		t.Fatalf("silent worker: %v more transitions into DOWN, UP→UP grew by %v", got, c1[u][u]-c0[u][u])
	}
}

// TestLateRefusal: the refusals of a normal run (a cancelled copy's late
// transfer report, a result of a task already completed) are told apart
// from the others, which stay warnings.
func TestLateRefusal(t *testing.T) {
	for why, want := range map[string]bool{
		refusedLateTransfer: true,
		"result for task t3 of iteration 2: " + refusedCompleted:      true,
		"result for task t3 of iteration 2: not given to this worker": false,
		"failure report for a copy not given":                         false,
		refusedCompleted:                                              false, // not in the form Result gives
	} {
		if got := lateRefusal(why); got != want {
			t.Errorf("lateRefusal(%q) = %v, want %v", why, got, want)
		}
	}
}
