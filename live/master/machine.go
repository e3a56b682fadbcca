package master

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/volsched/volsched/availability"
)

// ErrSession is returned for a message whose session is not current (the
// worker was declared DOWN, or the master restarted): the worker must
// register again.
var ErrSession = errors.New("unknown or expired session: register again")

// xfer is a begun transfer (the program, or a task copy's input).
type xfer struct {
	digest      string
	size        int64
	program     bool
	cp          *tcopy
	began       int64 // ns: the order of the FIFO channel rule
	holding     bool  // holds one of the n_com channels
	waiting     bool  // begun, paused (its worker was RECLAIMED), wants a channel again
	activeSince int64
	active      int64 // ns spent holding a channel, before activeSince
}

// tcopy is a begun copy of a task on a worker.
type tcopy struct {
	task        int
	attempt     uint32
	replica     bool
	xfer        *xfer // the input transfer not finished (nil: input there)
	computeFrom int64 // when it could start computing (estimate of WorkLeft)
}

type worker struct {
	name       string
	q          int
	session    uint64
	known      bool // registered since this machine started
	state      availability.State
	lastHeard  int64
	regAt      int64 // when its session registered (taken UP until its first heart-beat)
	hasProgram bool
	prog       *xfer
	cur, next  *tcopy
	cached     map[string]bool

	est       availability.Estimator
	prev      availability.State
	observed  bool
	sinceCrit int
	// The last observations (obs[j%obsRing] = the state counted for slot
	// j, for j in (lastObs−nObs, lastObs]), so that a back-fill can
	// correct them; backFloor: the master last heard from the worker's
	// previous session then (a return cannot be claimed earlier).
	obs        [obsRing]availability.State
	lastObs    int64
	nObs       int
	backFloor  int64
	backfilled bool    // this session's return was back-filled
	wSum       float64 // ns of computation of completed copies
	wN         int

	// Failed transfers in a row (reset by a successful one), and the time
	// before which the worker is given no transfer (backoff).
	xferFails int
	coolUntil int64
}

// xferOf is the worker's begun and unfinished transfer, if any.
func (w *worker) xferOf() *xfer {
	switch {
	case w.prog != nil:
		return w.prog
	case w.cur != nil && w.cur.xfer != nil:
		return w.cur.xfer
	case w.next != nil && w.next.xfer != nil:
		return w.next.xfer
	}
	return nil
}

// up reports whether the master sees the worker UP.
func (w *worker) up() bool { return w.session != 0 && w.state == availability.Up }

// acceptor: UP, no transfer begun, not backing off after failed
// transfers, able to take the program or a task.
func (w *worker) acceptor(now int64) bool {
	return w.up() && w.xferOf() == nil && now >= w.coolUntil && (!w.hasProgram || w.cur == nil || w.next == nil)
}

type task struct {
	name     string
	digest   string
	size     int64
	done     bool
	result   string
	copies   int
	attempts uint32
	fails    int
	failedOn map[int]bool
	holders  []int // workers holding a copy
}

// Machine is the master's deterministic state machine. Feed it events (the
// methods taking a time now, in ns since its epoch), call Step after a
// batch of them, and take its outputs (Commands, Log). It is not safe for
// concurrent use: the driver serializes everything through one goroutine
// or a lock.
type Machine struct {
	cfg  Config
	dec  *decider
	now  int64
	slot int64

	workers   []*worker
	byName    map[string]int
	bySession map[uint64]int
	nextSess  uint64

	phase  Phase
	iter   int
	tasks  []*task
	open   []int // uncompleted tasks in task order
	copies []int // copies of open[i]
	err    string

	held    int
	waiting []*xfer
	dirty   bool

	progSum, dataSum float64 // ns
	progN, dataN     int
	wAllSum          float64 // ns of computation of all workers' completed copies
	wAllN            int

	completions int64
	decisions   int64
	unobserved  int64 // slot boundaries left out of the estimates (Tick late)

	cmds []Command
	log  []LogRecord

	views []procView
	watch []bool
	picks []pick

	jitter  *rand.Rand // the backoff's jitter (seeded: deterministic)
	cooling int        // workers backing off
}

// NewMachine makes a machine; sessionBase should differ between runs of
// the master (e.g. the start time) so that a session of an earlier run is
// never taken for a current one.
func NewMachine(cfg Config, sessionBase uint64) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := newDecider(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = cfg.Slot
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = 64 * cfg.BackoffBase
	}
	cfg.BackoffMax = max(cfg.BackoffMax, cfg.BackoffBase)
	return &Machine{cfg: cfg, dec: d, byName: map[string]int{}, bySession: map[uint64]int{}, nextSess: sessionBase | 1,
		jitter: rand.New(rand.NewPCG(cfg.Seed, 0x6261636b6f6666))}, nil
}

// Config returns the machine's configuration.
func (m *Machine) Config() Config { return m.cfg }

// Phase, Iter: where the application is.
func (m *Machine) Phase() Phase { return m.phase }
func (m *Machine) Iter() int    { return m.iter }

// Err is why the application failed (PhaseFailed).
func (m *Machine) Err() string { return m.err }

// TakeCommands returns the commands produced since the last call.
func (m *Machine) TakeCommands() []Command {
	c := m.cmds
	m.cmds = nil
	return c
}

// TakeLog returns the log records produced since the last call.
func (m *Machine) TakeLog() []LogRecord {
	l := m.log
	m.log = nil
	return l
}

func (m *Machine) logf(kind string, q, iter, task int, info string) {
	m.log = append(m.log, LogRecord{T: m.now, Kind: kind, Worker: q, Iter: iter, Task: task, Held: m.held, Info: info})
}

func (m *Machine) advance(now int64) {
	if now > m.now {
		m.now = now
	}
}

// slots converts a duration in ns to the model's slots: rounded, at least
// 1 (a transfer or a computation occupies at least the slot it happens
// in).
func (m *Machine) slots(ns float64) int {
	s := int(math.Round(ns / float64(m.cfg.Slot)))
	return max(s, 1)
}

// TProg, TData: the measured mean transfer times in slots (1 before any
// measurement).
func (m *Machine) TProg() int {
	if m.progN == 0 {
		return 1
	}
	return m.slots(m.progSum / float64(m.progN))
}

func (m *Machine) TData() int {
	if m.dataN == 0 {
		return 1
	}
	return m.slots(m.dataSum / float64(m.dataN))
}

// W is worker q's measured speed w_q: its mean computation time per task
// in slots; before its first task, the mean over all workers (1 before any
// measurement).
func (m *Machine) W(q int) int {
	w := m.workers[q]
	if w.wN > 0 {
		return m.slots(w.wSum / float64(w.wN))
	}
	if m.wAllN == 0 {
		return 1
	}
	return m.slots(m.wAllSum / float64(m.wAllN))
}

// Chain is worker q's estimated chain.
func (m *Machine) Chain(q int) availability.Chain { return m.workers[q].est.Chain() }

// WorkerIndex returns the index of a worker by name (−1: unknown).
func (m *Machine) WorkerIndex(name string) int {
	if q, ok := m.byName[name]; ok {
		return q
	}
	return -1
}

func (m *Machine) addWorker(name string) *worker {
	w := &worker{name: name, q: len(m.workers), state: availability.Down}
	w.est.Prior = m.cfg.Prior
	m.workers = append(m.workers, w)
	m.byName[name] = w.q
	m.dec.addProc(w.est.Chain())
	return w
}

// SavedWorker is what persists of a worker across restarts of the master.
type SavedWorker struct {
	Name   string
	Counts [3][3]float64
	WSum   float64
	WN     int
}

// Saved is what persists of the machine's measurements.
type Saved struct {
	Workers          []SavedWorker
	ProgSum, DataSum float64
	ProgN, DataN     int
}

// Save returns the measurements to persist.
func (m *Machine) Save() Saved {
	s := Saved{ProgSum: m.progSum, DataSum: m.dataSum, ProgN: m.progN, DataN: m.dataN}
	for _, w := range m.workers {
		s.Workers = append(s.Workers, SavedWorker{Name: w.name, Counts: w.est.Counts, WSum: w.wSum, WN: w.wN})
	}
	return s
}

// Restore loads saved measurements (before any event).
func (m *Machine) Restore(s Saved) {
	m.progSum, m.dataSum, m.progN, m.dataN = s.ProgSum, s.DataSum, s.ProgN, s.DataN
	for _, sw := range s.Workers {
		w := m.workers[m.ensure(sw.Name)]
		w.est.Counts, w.wSum, w.wN = sw.Counts, sw.WSum, sw.WN
		m.wAllSum += sw.WSum
		m.wAllN += sw.WN
		m.dec.setChain(w.q, w.est.Chain())
	}
}

func (m *Machine) ensure(name string) int {
	if q, ok := m.byName[name]; ok {
		return q
	}
	return m.addWorker(name).q
}

// NewIteration starts iteration iter with the driver's tasks (in task
// order). Tasks whose Result is set are already done (a reloaded state).
// No task ends the application.
func (m *Machine) NewIteration(now int64, iter int, specs []TaskSpec) {
	m.advance(now)
	m.iter = iter
	m.tasks = m.tasks[:0]
	m.open, m.copies = m.open[:0], m.copies[:0]
	for i, s := range specs {
		t := &task{name: s.Name, digest: s.Digest, size: s.Size, result: s.Result, done: s.Result != ""}
		m.tasks = append(m.tasks, t)
		if !t.done {
			m.open = append(m.open, i)
			m.copies = append(m.copies, 0)
		}
	}
	switch {
	case len(specs) == 0:
		m.phase = PhaseFinished
		m.logf(LogIter, -1, iter, -1, "finished")
		return
	case len(m.open) == 0:
		m.phase = PhaseDriver
	default:
		m.phase = PhaseRunning
	}
	m.logf(LogIter, -1, iter, len(specs), "")
	m.dirty = true
}

// Fail stops the application (the driver failed).
func (m *Machine) Fail(now int64, msg string) {
	m.advance(now)
	m.phase, m.err = PhaseFailed, msg
	m.cancelAll()
}

// Register starts a session for worker name, which holds (verified) the
// blobs cached. Its previous session, if any, ends as if it went DOWN. It
// returns the session and the cached blobs still useful (the program and
// the inputs of open tasks).
func (m *Machine) Register(now int64, name string, cached []string) (uint64, []string) {
	m.advance(now)
	w := m.workers[m.ensure(name)]
	w.backFloor, w.backfilled = now, false // nothing to correct for a worker not seen before
	if w.known {
		w.backFloor = w.lastHeard
	}
	if w.session != 0 {
		m.down(w, "registered again")
	}
	w.session = m.nextSess
	m.nextSess += 2
	m.bySession[w.session] = w.q
	w.known, w.state, w.lastHeard, w.regAt = true, availability.Up, now, now
	w.cached = map[string]bool{}
	var keep []string
	useful := map[string]bool{m.cfg.ProgramDigest: true}
	for _, i := range m.open {
		useful[m.tasks[i].digest] = true
	}
	for _, d := range cached {
		if useful[d] {
			w.cached[d] = true
			keep = append(keep, d)
		}
	}
	w.hasProgram = w.cached[m.cfg.ProgramDigest]
	info := ""
	if w.hasProgram {
		info = "program cached"
	}
	m.logf(LogRegister, w.q, m.iter, -1, info)
	m.log[len(m.log)-1].Name = w.name
	m.dirty = true
	return w.session, keep
}

func (m *Machine) bySess(session uint64) (*worker, error) {
	q, ok := m.bySession[session]
	if !ok {
		return nil, ErrSession
	}
	return m.workers[q], nil
}

// Heartbeat records that a worker is alive in state st (UP or RECLAIMED).
func (m *Machine) Heartbeat(now int64, session uint64, st availability.State) error {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil {
		return err
	}
	w.lastHeard = max(w.lastHeard, now) // (the server gives quiet heart-beats at its tick, with the time they came)
	if st == availability.Down {
		m.down(w, "announced")
		return nil
	}
	if st == w.state {
		return nil
	}
	w.state = st
	m.logf(LogState, w.q, m.iter, -1, st.String())
	if x := w.xferOf(); x != nil {
		if st == availability.Reclaimed && x.holding {
			m.release(w, x, "reclaimed")
			x.waiting = true
			m.waiting = append(m.waiting, x)
		}
	}
	m.dirty = true
	return nil
}

// StateSince is a worker's state since a moment (ns since the machine's
// epoch), as it reports it when it registers again.
type StateSince struct {
	State availability.State
	Since int64
}

// Backfill corrects the record of worker session's slots with what the
// worker says of its return (once per session, in its first heart-beat):
// its states since it came back, oldest first. The master counted those
// slots DOWN (it had no session, the worker was connecting: a TLS
// handshake and a registration, longer than a short slot); they become the
// reported states, and so do the slots since the registration (counted UP:
// the master did not know the worker's state before this heart-beat). Only
// slots ending after the master last heard from the worker's previous
// session and before now are corrected, at most the last obsRing of them. It returns the number of slots
// corrected and the time the worker's return is taken to be (now when
// none).
func (m *Machine) Backfill(now int64, session uint64, back []StateSince) (int, int64) {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil || len(back) == 0 || !w.observed || w.backfilled {
		return 0, now
	}
	w.backfilled = true
	from := max(back[0].Since, w.backFloor)
	if from >= now {
		return 0, now
	}
	n := m.rewrite(w, from, func(old availability.State, t int64) (availability.State, bool) {
		// Slots counted DOWN (before the registration), and those ending
		// after it: the master took the worker UP until this heart-beat
		// told its state (a worker back RECLAIMED was counted UP then
		// RECLAIMED, for as long as this heart-beat took to come).
		if (old != availability.Down && t <= w.regAt) || t > now {
			return old, false
		}
		st := back[0].State
		for _, b := range back[1:] {
			if b.Since <= t {
				st = b.State
			}
		}
		return st, true
	})
	m.log = append(m.log, LogRecord{T: m.now, Kind: LogBackfill, Worker: w.q, Iter: m.iter, Task: -1, Held: m.held, Since: from,
		Info: fmt.Sprintf("back %v before it registered: %d slots corrected", time.Duration(now-from), n)})
	return n, from
}

// rewrite replaces worker w's recorded observations of the slots ending at
// or after from with f(old state, end of the slot) where f says so, and
// corrects the estimator's counts of the transitions around them. The
// oldest recorded slot is never rewritten (the transition into it is not
// known any more). It returns the number of slots rewritten.
func (m *Machine) rewrite(w *worker, from int64, f func(availability.State, int64) (availability.State, bool)) int {
	if w.nObs < 2 {
		return 0
	}
	slot := int64(m.cfg.Slot)
	lo := w.lastObs - int64(w.nObs) + 1
	first := max(lo+1, (from+slot-1)/slot-1) // slot j ends at (j+1)·slot ≥ from
	if first > w.lastObs {
		return 0
	}
	at := func(j int64) *availability.State { return &w.obs[((j%obsRing)+obsRing)%obsRing] }
	for j := first; j <= w.lastObs; j++ {
		w.est.Counts[*at(j - 1)][*at(j)]--
	}
	n := 0
	for j := first; j <= w.lastObs; j++ {
		if st, ok := f(*at(j), (j+1)*slot); ok && st != *at(j) {
			*at(j) = st
			n++
		}
	}
	for j := first; j <= w.lastObs; j++ {
		w.est.Observe(*at(j - 1), *at(j))
	}
	w.prev = *at(w.lastObs)
	if n > 0 {
		m.dec.setChain(w.q, w.est.Chain())
	}
	return n
}

// Disconnect: the worker's connection broke; it is DOWN.
func (m *Machine) Disconnect(now int64, session uint64) {
	m.advance(now)
	if w, err := m.bySess(session); err == nil {
		m.down(w, "disconnected")
	}
}

func (m *Machine) release(w *worker, x *xfer, why string) {
	if x.holding {
		x.holding = false
		x.active += m.now - x.activeSince
		m.held--
		task := -1
		if x.cp != nil {
			task = x.cp.task
		}
		m.logf(LogRelease, w.q, m.iter, task, why)
	}
	if x.waiting {
		x.waiting = false
		m.waiting = slices.DeleteFunc(m.waiting, func(y *xfer) bool { return y == x })
	}
}

func (m *Machine) grant(w *worker, x *xfer, resume bool) {
	x.holding, x.activeSince = true, m.now
	m.held++
	task := -1
	what := "data"
	if x.program {
		what = "program"
	} else {
		task = x.cp.task
	}
	m.logf(LogGrant, w.q, m.iter, task, what)
	if resume || x.program {
		m.cmds = append(m.cmds, Command{Worker: w.q, Session: w.session, Kind: CmdFetch, Digest: x.digest, Size: x.size, Program: x.program, Iter: m.iter, Task: task})
	}
}

// down ends the worker's session: it loses the program, its copies and
// its transfer (§3: DOWN loses everything).
func (m *Machine) down(w *worker, why string) {
	if w.prog != nil {
		m.release(w, w.prog, "down")
		w.prog = nil
	}
	for _, cp := range []*tcopy{w.next, w.cur} {
		if cp != nil {
			m.dropCopy(w, cp, "down", false)
		}
	}
	delete(m.bySession, w.session)
	w.session, w.state, w.hasProgram, w.cached = 0, availability.Down, false, nil
	m.logf(LogDown, w.q, m.iter, -1, why)
	m.dirty = true
}

// dropCopy removes a copy from its worker (releasing its channel) and
// from its task; cancel sends the worker a CmdCancel.
func (m *Machine) dropCopy(w *worker, cp *tcopy, why string, cancel bool) {
	if cp.xfer != nil {
		m.release(w, cp.xfer, why)
	}
	switch cp {
	case w.cur:
		w.cur, w.next = w.next, nil
		if w.cur != nil {
			w.cur.computeFrom = max(w.cur.computeFrom, m.now)
		}
	case w.next:
		w.next = nil
	}
	t := m.tasks[cp.task]
	t.copies--
	t.holders = slices.DeleteFunc(t.holders, func(q int) bool { return q == w.q })
	m.setCopies(cp.task, t.copies)
	switch {
	case cancel:
		m.cmds = append(m.cmds, Command{Worker: w.q, Session: w.session, Kind: CmdCancel, Iter: m.iter, Task: cp.task, Name: t.name, Attempt: cp.attempt})
		m.logf(LogCancel, w.q, m.iter, cp.task, why)
	case why != "completed":
		m.logf(LogDrop, w.q, m.iter, cp.task, why)
	}
	m.dirty = true
}

func (m *Machine) setCopies(task, c int) {
	if i, ok := slices.BinarySearch(m.open, task); ok {
		m.copies[i] = c
	}
}

func (m *Machine) findCopy(w *worker, iter, task int, attempt uint32) *tcopy {
	if iter != m.iter {
		return nil
	}
	for _, cp := range []*tcopy{w.cur, w.next} {
		if cp != nil && cp.task == task && cp.attempt == attempt {
			return cp
		}
	}
	return nil
}

// The refusals a normal run has: a report or a result of a copy that was
// cancelled (or whose transfer ended) when another copy of its task
// completed, arriving late. Logged at level info, not as warnings (the
// event log and volsched_refused_total count them all the same).
const (
	refusedLateTransfer = "transfer-done for a blob not being transferred"
	refusedCompleted    = "already completed"
)

// lateRefusal reports whether a refusal's reason is one of those.
func lateRefusal(why string) bool {
	return why == refusedLateTransfer || strings.HasSuffix(why, ": "+refusedCompleted)
}

// TransferDone: the worker holds blob digest, after activeNs of actual
// transfer (its pauses excluded).
func (m *Machine) TransferDone(now int64, session uint64, digest string, activeNs int64) error {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil {
		return err
	}
	x := w.xferOf()
	if x == nil || x.digest != digest {
		m.logf(LogRefused, w.q, m.iter, -1, refusedLateTransfer)
		return nil // late (cancelled copy): harmless
	}
	m.release(w, x, "done")
	w.xferFails = 0
	if w.cached == nil {
		w.cached = map[string]bool{}
	}
	w.cached[digest] = true
	if x.program {
		m.logf(LogReceived, w.q, m.iter, -1, "program")
	} else {
		m.logf(LogReceived, w.q, m.iter, x.cp.task, "data")
	}
	if x.program {
		w.prog, w.hasProgram = nil, true
		m.progSum += float64(activeNs)
		m.progN++
	} else {
		x.cp.xfer = nil
		x.cp.computeFrom = max(x.cp.computeFrom, now)
		m.dataSum += float64(activeNs)
		m.dataN++
	}
	m.dirty = true
	return nil
}

// TransferFailed: the worker could not get blob digest (its bytes did not
// hash to it, or the server refused): the transfer ends, a copy waiting
// for it is dropped.
func (m *Machine) TransferFailed(now int64, session uint64, digest, why string) error {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil {
		return err
	}
	x := w.xferOf()
	if x == nil || x.digest != digest {
		// A copy begun with its input believed cached, which is not.
		for _, cp := range []*tcopy{w.cur, w.next} {
			if cp != nil && cp.xfer == nil && m.tasks[cp.task].digest == digest {
				delete(w.cached, digest)
				m.dropCopy(w, cp, "input not cached", false)
				m.backoff(w)
				break
			}
		}
		return nil
	}
	m.release(w, x, "failed: "+why)
	m.backoff(w)
	if x.program {
		w.prog = nil
	} else {
		m.dropCopy(w, x.cp, "transfer failed", false)
	}
	m.dirty = true
	return nil
}

// Result checks a result a worker announces for (iter, task, attempt),
// its blob already received and verified. Accepted, the task is done (the
// other copies are cancelled) and the caller must make it durable before
// acknowledging; refused, the error says why (and it is logged).
func (m *Machine) Result(now int64, session uint64, iter, task int, attempt uint32, digest string, computeNs int64) (Accepted, error) {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil {
		return Accepted{}, err
	}
	refuse := func(why string) (Accepted, error) {
		m.logf(LogRefused, w.q, iter, task, why)
		return Accepted{}, errors.New(why)
	}
	if iter == m.iter && task >= 0 && task < len(m.tasks) && m.tasks[task].done {
		return refuse(fmt.Sprintf("result for task %s of iteration %d: %s", m.tasks[task].name, iter, refusedCompleted))
	}
	if m.phase != PhaseRunning || iter != m.iter || task < 0 || task >= len(m.tasks) {
		return refuse(fmt.Sprintf("result for iteration %d task %d: not an open task of the current iteration %d", iter, task, m.iter))
	}
	t := m.tasks[task]
	if t.done {
		return refuse(fmt.Sprintf("result for task %s of iteration %d: already completed", t.name, iter))
	}
	cp := m.findCopy(w, iter, task, attempt)
	if cp == nil {
		return refuse(fmt.Sprintf("result for task %s attempt %d of iteration %d: not given to worker %s", t.name, attempt, iter, w.name))
	}
	if cp.xfer != nil {
		return refuse(fmt.Sprintf("result for task %s: its input was not received yet", t.name))
	}
	t.done, t.result = true, digest
	m.completions++
	w.wSum += float64(computeNs)
	w.wN++
	m.wAllSum += float64(computeNs)
	m.wAllN++
	m.logf(LogResult, w.q, iter, task, "")
	m.dropCopy(w, cp, "completed", false)
	for len(t.holders) > 0 {
		o := m.workers[t.holders[0]]
		for _, c := range []*tcopy{o.cur, o.next} {
			if c != nil && c.task == task {
				m.dropCopy(o, c, "another copy completed", true)
				break
			}
		}
	}
	i, _ := slices.BinarySearch(m.open, task)
	m.open = slices.Delete(m.open, i, i+1)
	m.copies = slices.Delete(m.copies, i, i+1)
	if len(m.open) == 0 {
		m.phase = PhaseDriver
		m.logf(LogIterDone, -1, iter, -1, "")
	}
	return Accepted{Iter: iter, Task: task, Name: t.name, Digest: digest, Worker: w.name, Attempt: attempt}, nil
}

// TaskFailed: the worker's copy ended without a result (non-zero exit, no
// output file). After MaxAttempts failures of the task the application
// fails with an error naming it and its last stderr lines.
func (m *Machine) TaskFailed(now int64, session uint64, iter, task int, attempt uint32, msg string) error {
	m.advance(now)
	w, err := m.bySess(session)
	if err != nil {
		return err
	}
	cp := m.findCopy(w, iter, task, attempt)
	if cp == nil {
		m.logf(LogRefused, w.q, iter, task, "failure report for a copy not given")
		return nil
	}
	t := m.tasks[task]
	t.fails++
	if t.failedOn == nil {
		t.failedOn = map[int]bool{}
	}
	t.failedOn[w.q] = true
	m.logf(LogFail, w.q, iter, task, msg)
	m.dropCopy(w, cp, "failed", false)
	if t.fails >= m.cfg.MaxAttempts {
		m.phase = PhaseFailed
		m.err = fmt.Sprintf("task %s of iteration %d failed %d times (max_attempts = %d); last on worker %s: %s", t.name, iter, t.fails, m.cfg.MaxAttempts, w.name, msg)
		m.cancelAll()
	}
	return nil
}

// backoff: after n failed transfers in a row, worker w is given no
// transfer for a delay drawn uniformly in [d/2, d), d = BackoffBase·2^(n−1)
// bounded by BackoffMax (a worker whose cache or disk is broken would
// otherwise fail at once, again and again). The jitter comes from the
// machine's own seeded stream: the same events give the same delays.
func (m *Machine) backoff(w *worker) {
	w.xferFails++
	d := m.cfg.BackoffMax
	if w.xferFails <= 62 {
		d = min(d, m.cfg.BackoffBase<<(w.xferFails-1))
	}
	d = max(d, 2)
	delay := d/2 + time.Duration(m.jitter.Int64N(int64(d-d/2)))
	if w.coolUntil <= m.now {
		m.cooling++
	}
	w.coolUntil = m.now + int64(delay)
	m.logf(LogBackoff, w.q, m.iter, -1, fmt.Sprintf("%d failed transfers in a row: none for %v", w.xferFails, delay))
}

// BackoffUntil is the time (ns since the epoch) before which worker q is
// given no transfer, 0 if none.
func (m *Machine) BackoffUntil(q int) int64 {
	if w := m.workers[q]; w.coolUntil > m.now {
		return w.coolUntil
	}
	return 0
}

func (m *Machine) cancelAll() {
	for _, w := range m.workers {
		for _, cp := range []*tcopy{w.next, w.cur} {
			if cp != nil {
				m.dropCopy(w, cp, "application stopped", true)
			}
		}
	}
}

// Tick advances time: a worker not heard from for DownAfter is DOWN; at
// every slot boundary passed, each worker's state in that slot (DOWN when
// it has no session) is observed by its estimator.
func (m *Machine) Tick(now int64) {
	m.advance(now)
	for _, w := range m.workers {
		if w.session != 0 && now-w.lastHeard > int64(m.cfg.DownAfter) {
			m.down(w, "no heartbeat")
			if m.cfg.Heartbeat > 0 {
				// Silent since lastHeard: DOWN from its next heart-beat on.
				since := w.lastHeard + int64(m.cfg.Heartbeat)
				n := m.rewrite(w, since, func(availability.State, int64) (availability.State, bool) { return availability.Down, true })
				m.log = append(m.log, LogRecord{T: m.now, Kind: LogBackfill, Worker: w.q, Iter: m.iter, Task: -1, Held: m.held, Since: since,
					Info: fmt.Sprintf("down since its first missed heart-beat: %d slots corrected", n)})
			}
		}
	}
	if m.cooling > 0 { // a backoff ended: the worker can be given work
		m.cooling = 0
		for _, w := range m.workers {
			if w.coolUntil > now {
				m.cooling++
			} else if w.coolUntil != 0 {
				w.coolUntil = 0
				m.dirty = true
			}
		}
	}
	slot := now / int64(m.cfg.Slot)
	if slot-m.slot > 1 {
		// Late (the loop was stalled): the states at the boundaries passed
		// before the last are unknown. Counting the state now for them
		// would fabricate self-transitions; they are left out, and so is
		// the transition into the last one.
		m.unobserved += slot - 1 - m.slot
		m.slot = slot - 1
		for _, w := range m.workers {
			w.observed = false
		}
	}
	for ; m.slot < slot; m.slot++ {
		for _, w := range m.workers {
			if !w.known {
				continue
			}
			st := w.state
			if w.session == 0 {
				st = availability.Down
			}
			if w.observed {
				w.est.Observe(w.prev, st)
				w.sinceCrit++
				if st != w.prev || w.sinceCrit >= critRefresh {
					m.dec.setChain(w.q, w.est.Chain())
					w.sinceCrit = 0
				}
			} else {
				w.nObs = 0
			}
			w.prev, w.observed = st, true
			w.obs[m.slot%obsRing], w.lastObs = st, m.slot
			w.nObs = min(w.nObs+1, obsRing)
		}
	}
}

// obsRing: the slots of observations a back-fill can correct.
const obsRing = 64

// critRefresh: a worker's heuristic criteria are recomputed from its
// estimate when it changes state, and at least every critRefresh slots.
const critRefresh = 16

// Step makes the decisions the events since the last Step call for: the
// paused transfers get channels back first (FIFO by the time they began),
// then the heuristic places the unstarted tasks and replicas on the UP
// workers that can begin a transfer, as the slot simulator does. It
// returns whether a decision ran.
func (m *Machine) Step() bool {
	if !m.dirty || m.phase != PhaseRunning {
		return false
	}
	m.dirty = false
	// Paused transfers first, in the order they began.
	if len(m.waiting) > 0 {
		slices.SortStableFunc(m.waiting, func(a, b *xfer) int { return cmp.Compare(a.began, b.began) })
		for i := 0; i < len(m.waiting) && m.held < m.cfg.NCom; {
			x := m.waiting[i]
			w := m.ownerOf(x)
			if w == nil || !w.up() {
				i++
				continue
			}
			x.waiting = false
			m.waiting = slices.Delete(m.waiting, i, i+1)
			m.grant(w, x, true)
		}
	}
	free := m.cfg.NCom - m.held
	if free <= 0 {
		return false
	}
	unstarted, replicable, nUp := 0, false, 0
	for _, c := range m.copies {
		if c == 0 {
			unstarted++
		} else if c <= m.cfg.ExtraReplicas {
			replicable = true
		}
	}
	acceptors := 0
	m.views = resizeViews(m.views, len(m.workers))
	m.watch = resizeBool(m.watch, len(m.workers))
	tdata := m.TData()
	for q, w := range m.workers {
		m.views[q] = m.view(w, tdata)
		m.watch[q] = w.acceptor(m.now)
		if m.watch[q] {
			acceptors++
		}
		if w.up() {
			nUp++
		}
	}
	if acceptors == 0 || (unstarted == 0 && (!replicable || nUp <= len(m.open))) {
		return false
	}
	m.decisions++
	m.picks = m.dec.decide(m.views, m.copies, tdata, m.watch, min(free, acceptors), m.picks)
	m.logf(LogDecide, -1, m.iter, len(m.picks), "")
	// Each worker's first pick is what it begins now, in pick order
	// (FIFO channel rule).
	seen := m.watch // reused: cleared as workers are served
	for _, pk := range m.picks {
		w := m.workers[pk.proc]
		if !seen[pk.proc] || !w.acceptor(m.now) {
			continue
		}
		seen[pk.proc] = false
		if !w.hasProgram {
			if m.held >= m.cfg.NCom {
				continue
			}
			w.prog = &xfer{digest: m.cfg.ProgramDigest, size: m.cfg.ProgramSize, program: true, began: m.now}
			m.grant(w, w.prog, false)
			continue
		}
		ti := m.open[pk.task]
		t := m.tasks[ti]
		if t.failedOn[w.q] && len(t.failedOn) < len(m.workers) {
			continue // retried elsewhere while another worker exists
		}
		cached := w.cached[t.digest]
		if !cached && m.held >= m.cfg.NCom {
			continue
		}
		t.attempts++
		cp := &tcopy{task: ti, attempt: t.attempts, replica: pk.replica, computeFrom: m.now}
		if w.cur == nil {
			w.cur = cp
		} else {
			w.next = cp
			cp.computeFrom = math.MaxInt64
		}
		t.copies++
		t.holders = append(t.holders, w.q)
		m.copies[pk.task] = t.copies
		info := ""
		if pk.replica {
			info = "replica"
		}
		if cached {
			info = strings.TrimSpace(info + " cached")
		}
		m.logf(LogBegin, w.q, m.iter, ti, info)
		if !cached {
			cp.xfer = &xfer{digest: t.digest, size: t.size, cp: cp, began: m.now}
			m.grant(w, cp.xfer, false)
		}
		m.cmds = append(m.cmds, Command{Worker: w.q, Session: w.session, Kind: CmdRun, Digest: t.digest, Size: t.size, Iter: m.iter, Task: ti, Name: t.name, Attempt: cp.attempt, Fetch: !cached})
	}
	for q := range m.watch {
		m.watch[q] = false
	}
	return true
}

func (m *Machine) ownerOf(x *xfer) *worker {
	for _, w := range m.workers {
		if w.xferOf() == x {
			return w
		}
	}
	return nil
}

// view is what the heuristic sees of worker w: its state, speed, the
// program, data and work left in slots, from the measured means and the
// time spent so far.
func (m *Machine) view(w *worker, tdata int) procView {
	v := procView{state: availability.Down, w: m.W(w.q)}
	if w.session != 0 {
		v.state = w.state
	}
	if !w.hasProgram {
		v.programLeft = m.TProg()
		if w.prog != nil {
			v.programLeft = m.left(v.programLeft, w.prog)
		}
	}
	if w.cur != nil {
		v.hasCur, v.curData, v.curWork = true, m.dataLeft(w.cur, tdata), v.w
		if w.cur.xfer == nil && w.cur.computeFrom < m.now {
			v.curWork = max(1, v.w-int((m.now-w.cur.computeFrom)/int64(m.cfg.Slot)))
		}
	}
	if w.next != nil {
		v.hasNext, v.nextData, v.nextWork = true, m.dataLeft(w.next, tdata), v.w
	}
	return v
}

func (m *Machine) dataLeft(cp *tcopy, tdata int) int {
	if cp.xfer == nil {
		return 0
	}
	return m.left(tdata, cp.xfer)
}

// left is a transfer's slots left: the mean minus the slots it has held a
// channel, at least 1 while unfinished.
func (m *Machine) left(total int, x *xfer) int {
	act := x.active
	if x.holding {
		act += m.now - x.activeSince
	}
	return max(1, total-int(act/int64(m.cfg.Slot)))
}

// Held is the number of channels held.
func (m *Machine) Held() int { return m.held }

// Workers is the number of workers known.
func (m *Machine) Workers() int { return len(m.workers) }

// Counts returns the numbers of workers UP, RECLAIMED and DOWN (no
// session).
func (m *Machine) Counts() (up, reclaimed, down int) {
	for _, w := range m.workers {
		switch {
		case w.session == 0:
			down++
		case w.state == availability.Up:
			up++
		default:
			reclaimed++
		}
	}
	return
}

// Unobserved is the number of slot boundaries left out of the estimates
// because Tick came more than a slot late.
func (m *Machine) Unobserved() int64 { return m.unobserved }

// Completions and Decisions count since start.
func (m *Machine) Completions() int64 { return m.completions }
func (m *Machine) Decisions() int64   { return m.decisions }

// OpenTasks is the number of uncompleted tasks of the iteration.
func (m *Machine) OpenTasks() int { return len(m.open) }

// Status describes the machine for `volsched status`.
func (m *Machine) Status() StatusInfo {
	s := StatusInfo{Phase: m.phase, Iter: m.iter, Tasks: len(m.tasks), Done: len(m.tasks) - len(m.open), TProg: m.TProg(), TData: m.TData(),
		Held: m.held, Slot: m.cfg.Slot, Heuristic: m.cfg.Heuristic.String(), Err: m.err, Completions: m.completions, PredictedSlots: -1}
	for _, w := range m.workers {
		wi := WorkerInfo{Name: w.name, State: availability.Down, Connected: w.session != 0, HasProgram: w.hasProgram, Chain: w.est.Chain(), Transitions: w.est.Transitions(), W: m.W(w.q)}
		if w.session != 0 {
			wi.State = w.state
		}
		for _, cp := range []*tcopy{w.cur, w.next} {
			if cp != nil {
				wi.Copies = append(wi.Copies, m.tasks[cp.task].name)
			}
		}
		s.Workers = append(s.Workers, wi)
	}
	if m.phase == PhaseRunning && len(m.open) > 0 {
		s.Predict = m.predictParams()
	}
	return s
}

// predictParams are the slot simulator's parameters to predict the time
// to finish the open tasks of the iteration with the estimated platform:
// every worker known starts from its state as the master sees it (DOWN
// without a session) and follows its estimated chain, with its measured
// w_q and the measured T_prog, T_data. The program and the copies in
// progress are not carried over (they are counted again: the prediction
// leans long by up to a transfer and a task). Nil when no worker is known.
func (m *Machine) predictParams() *PredictParams {
	p := &PredictParams{Heuristic: m.cfg.Heuristic, ExtraReplicas: m.cfg.ExtraReplicas, Runs: 10, Seed: m.cfg.Seed}
	p.TProg, p.TData, p.NCom, p.Tasks, p.Iterations = m.TProg(), m.TData(), m.cfg.NCom, len(m.open), 1
	for _, w := range m.workers {
		if w.known {
			st := availability.Down
			if w.session != 0 {
				st = w.state
			}
			p.Chains = append(p.Chains, w.est.Chain())
			p.W = append(p.W, m.W(w.q))
			p.Start = append(p.Start, st)
		}
	}
	if len(p.Chains) == 0 {
		return nil
	}
	return p
}

func resizeViews(v []procView, n int) []procView {
	if cap(v) < n {
		return make([]procView, n)
	}
	return v[:n]
}

func resizeBool(v []bool, n int) []bool {
	if cap(v) < n {
		return make([]bool, n)
	}
	return v[:n]
}

// Now is the machine's time (ns since its epoch).
func (m *Machine) Now() time.Duration { return time.Duration(m.now) }
