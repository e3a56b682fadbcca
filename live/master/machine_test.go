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
)

const progDigest = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func testConfig() Config {
	return Config{Heuristic: "EMCT*", NCom: 2, Slot: 10 * time.Millisecond, ExtraReplicas: 2, DownAfter: 30 * time.Millisecond,
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
	e.m.TakeLog()
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
			cfg.Heuristic, cfg.Seed = h, seed
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
