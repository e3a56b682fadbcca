// Package worker is the live runtime's worker: it dials out to the master
// (workers sit behind NAT; the master never dials a worker), registers with
// its token and the verified content of its cache, then keeps a session:
// heart-beats with its state (UP, or RECLAIMED when its owner wants the
// machine back), the master's commands (fetch a blob, run a task copy,
// cancel one), the results uploaded and submitted. Tasks run through the
// task runner (internal/taskrun): in a process group of their own, killed
// whole when cancelled and when the worker dies, SIGKILL included. While
// RECLAIMED the task's process group is stopped (SIGSTOP) and transfers
// pause; back UP the task continues (SIGCONT) and a paused transfer
// resumes, by a Range request, once the master grants it a channel again.
//
// With an emulated chain the worker follows a 3-state Markov chain one draw
// per slot: RECLAIMED as above, DOWN drops the connection, wipes the cache
// and stays away while DOWN.
package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/taskrun"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/manifest"
)

// Options configure a worker: `volsched worker`'s flags, which the CLI
// only maps (errors name the flag).
type Options struct {
	Master string      // --master: https://host:port
	Token  string      // --token: the bearer token `volsched master token add` printed
	Cache  string      // --cache: cache directory (blobs, programs, task working directories)
	TLS    *tls.Config // --fingerprint or --ca: pinned fingerprint or CA (pki.ClientConfigPinned / ClientConfigCA)
	// Probe says whether the owner wants the machine (RECLAIMED; --reclaim,
	// --reclaim-load, --reclaim-cmd: NewProbe); nil: never (only SetManual
	// and emulation reclaim it).
	Probe      Probe
	ProbeEvery time.Duration // --probe-every
	// Emulate (--emulate), when set, makes the worker follow this chain
	// one draw per slot (the master's slot), from EmulateStart (or, with
	// EmulateStationary, a state drawn from the chain's stationary
	// distribution), drawing from EmulateSeed; the Probe is then not used.
	Emulate           *availability.Chain
	EmulateStart      availability.State // --emulate-start u, r or d
	EmulateStationary bool               // --emulate-start stationary
	EmulateSeed       uint64             // --emulate-seed
	// EmulateSlot (--emulate-slot) is the emulation's slot; 0: the
	// master's, learnt when the worker registers (a worker that may start
	// DOWN must be given it).
	EmulateSlot time.Duration
	// ExitWhenDone (--exit-when-done): return nil when the master says the
	// application is finished (otherwise wait for a next one).
	ExitWhenDone bool
	// NoUDPBeats (--udp-heartbeats=false): heart-beats on the session
	// socket only, never by UDP datagram (live/beat), even when the master
	// offers it.
	NoUDPBeats bool
	// BeatAddr (--udp-heartbeat-addr): send the heart-beat datagrams to
	// this HOST:PORT instead of the master's host and the UDP port it
	// gives (a port forwarded from another address).
	BeatAddr string
	Logger   *slog.Logger // nil: none
	// OnAccepted, when set, is called for every result the master
	// acknowledged (tests check that each is durable).
	OnAccepted func(iter, task int, digest string)
}

// DefaultReclaimLoad is --reclaim-load's default: RECLAIMED while other
// processes use more than half the CPUs.
const DefaultReclaimLoad = 0.5

// DefaultOptions are the defaults of `volsched worker`'s flags (the
// RECLAIMED probe: --reclaim cpu at DefaultReclaimLoad).
func DefaultOptions() Options {
	return Options{Probe: &CPUProbe{Threshold: DefaultReclaimLoad}, ProbeEvery: time.Second, EmulateSeed: 1}
}

// NewProbe is the RECLAIMED probe of --reclaim NAME (cpu: other processes
// use more than load of the CPUs; none) or, when cmd is not empty, of
// --reclaim-cmd (RECLAIMED while the shell command exits 0). None: nil.
func NewProbe(name string, load float64, cmd string) (Probe, error) {
	switch {
	case cmd != "":
		return &CmdProbe{Cmd: cmd}, nil
	case name == "cpu":
		p := &CPUProbe{Threshold: load}
		return p, p.validate()
	case name == "none":
		return nil, nil
	}
	return nil, fmt.Errorf("--reclaim %q: want cpu or none", name)
}

// Validate checks the options as they are (New gives ProbeEvery 0 its
// default first; the CLI validates its flags' values). Errors name the
// flag, the value and what is wanted.
func (o *Options) Validate() error {
	switch {
	case o.Master == "":
		return errors.New("--master is empty, want the master's URL (https://HOST:PORT)")
	case !strings.HasPrefix(o.Master, "https://"):
		return fmt.Errorf("--master %q: want an https:// URL", o.Master)
	case o.Token == "":
		return errors.New("--token is empty, want the token `volsched master token add NAME` printed")
	case o.TLS == nil:
		return errors.New("no TLS trust: give --fingerprint (the master prints it) or --ca FILE")
	case o.Cache == "":
		return errors.New("--cache is empty, want a directory")
	case o.ProbeEvery <= 0:
		return fmt.Errorf("--probe-every %v: want a duration > 0", o.ProbeEvery)
	}
	if o.BeatAddr != "" {
		if _, _, err := net.SplitHostPort(o.BeatAddr); err != nil {
			return fmt.Errorf("--udp-heartbeat-addr %q: want HOST:PORT (%v)", o.BeatAddr, err)
		}
	}
	if p, ok := o.Probe.(*CPUProbe); ok && o.Emulate == nil {
		if err := p.validate(); err != nil {
			return err
		}
	}
	if o.Emulate == nil {
		return nil
	}
	if err := o.Emulate.Validate("--emulate chain"); err != nil {
		return err
	}
	switch {
	case o.EmulateSlot < 0:
		return fmt.Errorf("--emulate-slot %v: want ≥ 0 (0: the master's slot, learnt at registration)", o.EmulateSlot)
	case o.EmulateSlot == 0 && (o.EmulateStationary || o.EmulateStart == availability.Down):
		start := "d"
		if o.EmulateStationary {
			start = "stationary" // (which may draw DOWN)
		}
		return fmt.Errorf("--emulate-start %s needs --emulate-slot (the master's --slot): a worker starting DOWN learns the slot only when it registers", start)
	}
	return nil
}

// Worker is one worker process's state.
type Worker struct {
	opt    Options
	log    *slog.Logger
	blobs  *blob.Store
	http   *http.Client
	client livepbconnect.MasterClient

	manual   atomic.Bool
	probed   atomic.Bool
	emuState atomic.Int32 // availability.State when emulating
	changed  chan struct{}
	slot     atomic.Int64 // ns, learned from the master
	haveSlot chan struct{}
	slotOnce sync.Once

	// hist: the worker's state changes since it is available and, as far
	// as it knows, reachable (the master's Heartbeat.since_back).
	histMu sync.Mutex
	hist   []histEntry

	// Stats, for tests and the demo.
	Completed atomic.Int64
	Refused   atomic.Int64
	Sessions  atomic.Int64
}

type histEntry struct {
	at time.Time
	st availability.State
}

// restartHistory: the worker's availability, as it can vouch for it,
// starts now (process start, a failed connection, a broken session).
func (w *Worker) restartHistory() {
	w.histMu.Lock()
	w.hist = append(w.hist[:0], histEntry{time.Now(), w.State()})
	w.histMu.Unlock()
}

// sinceBack is what the worker tells the master of its return in its
// first heart-beat: its states since its last DOWN (emulated) or since
// restartHistory, as durations before now, oldest first.
func (w *Worker) sinceBack() []*livepb.StateSince {
	w.histMu.Lock()
	defer w.histMu.Unlock()
	h := w.hist
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].st == availability.Down {
			h = h[i+1:]
			break
		}
	}
	var out []*livepb.StateSince
	for _, e := range h {
		out = append(out, &livepb.StateSince{State: toPB(e.st), AgoNs: int64(time.Since(e.at))})
	}
	return out
}

// ErrAuth is returned by Run when the master refuses the token.
var ErrAuth = errors.New("the master refused the token (wrong or revoked)")

// New checks the options and prepares a worker (its cache directory is
// created).
func New(opt Options) (*Worker, error) {
	if opt.ProbeEvery == 0 {
		opt.ProbeEvery = DefaultOptions().ProbeEvery
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(opt.Cache)
	if err != nil {
		return nil, err
	}
	opt.Cache = abs
	st, err := blob.Open(filepath.Join(opt.Cache, "blobs"))
	if err != nil {
		return nil, fmt.Errorf("cache %s: %v", opt.Cache, err)
	}
	// HTTP/1.1 for the calls and the blobs: a worker makes one or two
	// requests at a time, and an idle HTTP/1.1 connection costs the master
	// a fraction of an HTTP/2 one (no frame reader, flow control or
	// header tables): with thousands of workers its memory per worker.
	tlsCfg := opt.TLS.Clone()
	tlsCfg.NextProtos = []string{"http/1.1"}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsCfg, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 30 * time.Second}
	hc := &http.Client{Transport: tr}
	w := &Worker{opt: opt, log: opt.Logger, blobs: st, http: hc, changed: make(chan struct{}, 1), haveSlot: make(chan struct{})}
	w.client = livepbconnect.NewMasterClient(hc, strings.TrimRight(opt.Master, "/"))
	if opt.Emulate != nil {
		w.opt.Probe = nil // the chain decides
		if opt.EmulateStationary {
			w.opt.EmulateStart = stationaryStart(*opt.Emulate, opt.EmulateSeed)
		}
		w.emuState.Store(int32(w.opt.EmulateStart))
		if opt.EmulateSlot > 0 {
			w.slot.Store(int64(opt.EmulateSlot))
			w.slotOnce.Do(func() { close(w.haveSlot) })
		}
	}
	return w, nil
}

// stationaryStart draws an emulated worker's first state from its chain's
// stationary distribution (the stream (seed, 1); the emulation's draws use
// another).
func stationaryStart(c availability.Chain, seed uint64) availability.State {
	pi := c.Stationary()
	switch u := rand.New(rand.NewPCG(seed, 1)).Float64(); {
	case u < pi[0]:
		return availability.Up
	case u < pi[0]+pi[1]:
		return availability.Reclaimed
	}
	return availability.Down
}

// SetManual sets or clears the manual RECLAIMED state (SIGUSR1/SIGUSR2).
func (w *Worker) SetManual(on bool) {
	w.manual.Store(on)
	w.notify()
}

func (w *Worker) notify() {
	w.histMu.Lock()
	if k := len(w.hist); k > 0 && w.hist[k-1].st != w.State() {
		if k >= 64 { // keep the last changes: the first entry is the oldest vouched for
			w.hist = append(w.hist[:0], w.hist[k-32:]...)
		}
		w.hist = append(w.hist, histEntry{time.Now(), w.State()})
	}
	w.histMu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// State is the worker's own state now.
func (w *Worker) State() availability.State {
	if w.opt.Emulate != nil {
		if s := availability.State(w.emuState.Load()); s != availability.Up {
			return s
		}
	}
	if w.manual.Load() || w.probed.Load() {
		return availability.Reclaimed
	}
	return availability.Up
}

func (w *Worker) header() http.Header {
	return http.Header{"Authorization": []string{"Bearer " + w.opt.Token}}
}

// Run keeps a session with the master until ctx ends (nil), the token is
// refused (ErrAuth) or, with ExitWhenDone, the application is finished.
func (w *Worker) Run(ctx context.Context) error {
	if w.opt.Probe != nil {
		go w.probeLoop(ctx)
	}
	if w.opt.Emulate != nil {
		go w.emulate(ctx)
	}
	backoff := 50 * time.Millisecond
	w.restartHistory()
	restart := false
	lastErr, repeats := "", 0
	for ctx.Err() == nil {
		if w.State() == availability.Down {
			select {
			case <-w.changed:
			case <-ctx.Done():
			}
			continue
		}
		start := time.Now()
		if restart {
			w.restartHistory()
			restart = false
		}
		err := w.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errDown) {
			// Emulated DOWN: back as soon as the chain says so.
			backoff = 50 * time.Millisecond
			continue
		}
		// A session the master ended (it declared the worker DOWN after
		// silent heart-beats, or it restarted) leaves the worker's
		// availability as it was; a connection that failed or broke does
		// not: the worker cannot vouch for the time it was unreachable.
		restart = connect.CodeOf(err) != connect.CodeFailedPrecondition
		switch {
		case connect.CodeOf(err) == connect.CodeUnauthenticated:
			return ErrAuth
		case err != nil && strings.Contains(err.Error(), "application finished"):
			if w.opt.ExitWhenDone {
				return nil
			}
			w.log.Info("the master's application is finished; waiting for another")
		case err != nil:
			// The same error again and again (the master is away) is
			// logged once, then every 20th time.
			if msg := err.Error(); msg != lastErr || repeats%20 == 19 {
				w.log.Warn("session ended", "err", err, "repeated", repeats)
				lastErr, repeats = msg, 0
			} else {
				repeats++
				w.log.Debug("session ended", "err", err)
			}
		}
		if time.Since(start) > 5*time.Second {
			backoff = 50 * time.Millisecond
		}
		d := backoff/2 + time.Duration(rand.Int64N(int64(backoff)))
		backoff = min(2*backoff, 30*time.Second)
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	return nil
}

// probeLoop polls the reclaim probe.
func (w *Worker) probeLoop(ctx context.Context) {
	t := time.NewTicker(w.opt.ProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		r := w.opt.Probe.Reclaimed(ctx)
		if r != w.probed.Load() {
			w.probed.Store(r)
			w.log.Info("reclaim probe", "reclaimed", r)
			w.notify()
		}
	}
}

// emulate draws the emulated state once per slot.
func (w *Worker) emulate(ctx context.Context) {
	select {
	case <-w.haveSlot:
	case <-ctx.Done():
		return
	}
	rng := rand.New(rand.NewPCG(w.opt.EmulateSeed, 0x656d75))
	next := time.Now()
	for {
		next = next.Add(time.Duration(w.slot.Load()))
		select {
		case <-time.After(time.Until(next)):
		case <-ctx.Done():
			return
		}
		old := availability.State(w.emuState.Load())
		s := w.opt.Emulate.Next(old, rng)
		if s != old {
			w.emuState.Store(int32(s))
			if s == availability.Down {
				w.log.Debug("emulated DOWN")
			}
			w.notify()
		}
	}
}

var errDown = errors.New("emulated DOWN")

// copyState is a task copy the master gave this worker.
type copyState struct {
	run       *livepb.Run
	haveInput bool
	fetch     *fetchState
	cmd       *processState
	done      bool // finished computing (result being submitted)
	granted   bool // the master granted its input transfer
}

type fetchState struct {
	digest  string
	program bool
	cancel  context.CancelFunc
	active  time.Duration // before the current attempt
	started time.Time
	bytes   int64
}

type processState struct {
	task    *taskrun.Task
	log     string // the task's standard output and error, beside workDir
	workDir string
	output  string
}

type fetchResult struct {
	f   *fetchState
	n   int64
	err error
	dur time.Duration
}

type procResult struct {
	cp  *copyState
	res taskrun.Result
}

type submitResult struct {
	cp       *copyState
	digest   string
	accepted bool
	reason   string
	err      error
}

// sess is one session's loop state.
type sess struct {
	w        *Worker
	ctx      context.Context
	cancel   context.CancelFunc
	id       uint64
	sock     *SessionConn
	beater   *Beater // heart-beats by UDP; nil: on the socket only
	beatUDP  bool    // the master receives the datagrams: plain heart-beats go by UDP only
	program  string
	entry    string
	env      map[string]string
	hasProg  bool
	progF    *fetchState
	copies   []*copyState
	state    availability.State
	fetches  chan fetchResult
	procs    chan procResult
	submits  chan submitResult
	pending  sync.WaitGroup
	progPath string
}

func (w *Worker) session(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Revalidate the cache by hash: only verified blobs are announced.
	var cached []string
	for _, d := range w.blobs.List() {
		if err := w.blobs.Verify(d); err == nil {
			cached = append(cached, d)
		}
	}
	req := connect.NewRequest(&livepb.RegisterRequest{Cached: cached, Version: "volsched-worker/1"})
	req.Header().Set("Authorization", "Bearer "+w.opt.Token)
	rctx, rc := context.WithTimeout(sctx, 30*time.Second)
	reg, err := w.client.Register(rctx, req)
	rc()
	if err != nil {
		return err
	}
	r := reg.Msg
	w.slotOnce.Do(func() {
		w.slot.Store(r.SlotNs)
		close(w.haveSlot)
	})
	w.Sessions.Add(1)
	keep := map[string]bool{}
	for _, d := range r.Keep {
		keep[d] = true
	}
	for _, d := range cached {
		if !keep[d] {
			w.blobs.Remove(d)
		}
	}
	w.log.Info("registered", "worker", r.Worker, "session", r.Session, "cached", len(cached), "kept", len(r.Keep))
	sock, err := DialSession(sctx, w.opt.Master, w.opt.Token, w.opt.TLS)
	if err != nil {
		return err
	}
	s := &sess{w: w, ctx: sctx, cancel: cancel, id: r.Session, sock: sock, program: r.ProgramDigest, entry: r.Entry, env: r.Env,
		hasProg: keep[r.ProgramDigest], state: w.State(),
		fetches: make(chan fetchResult, 8), procs: make(chan procResult, 4), submits: make(chan submitResult, 4)}
	defer s.teardown()
	if r.BeatPort > 0 && !w.opt.NoUDPBeats {
		if b, err := NewBeater(w.opt.Master, r.BeatPort, w.opt.BeatAddr, r.BeatKey, r.Session); err != nil {
			w.log.Warn("no heart-beats by UDP", "err", err)
		} else {
			s.beater = b
		}
	}
	if err := s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: toPB(s.state), SinceBack: w.sinceBack()}}}); err != nil {
		return err
	}
	cmds := make(chan *livepb.MasterMessage, 64)
	recvErr := make(chan error, 1)
	go func() {
		for {
			m, err := sock.Receive()
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case cmds <- m:
			case <-sctx.Done():
				return
			}
		}
	}()
	hb := time.NewTicker(time.Duration(r.HeartbeatNs))
	defer hb.Stop()
	for {
		select {
		case <-sctx.Done():
			return sctx.Err()
		case err := <-recvErr:
			return err
		case m := <-cmds:
			s.command(m)
		case f := <-s.fetches:
			s.fetched(f)
		case p := <-s.procs:
			s.exited(p)
		case sr := <-s.submits:
			s.submitted(sr)
		case <-w.changed:
			st := w.State()
			if st == availability.Down {
				// Emulated DOWN: gone, with the cache and the connection
				// (coming back costs a TLS handshake, as for a real return).
				s.teardown()
				w.http.CloseIdleConnections()
				w.blobs.Wipe()
				os.RemoveAll(filepath.Join(w.opt.Cache, "prog"))
				return errDown
			}
			if st != s.state {
				s.setState(st)
				if err := s.heartbeat(); err != nil {
					return err
				}
			}
		case <-hb.C:
			if s.beater != nil {
				// A datagram every period: while the master has not said
				// it receives them, beside the socket's heart-beat.
				s.beater.Beat(toPB(s.state))
				if s.beatUDP {
					break
				}
			}
			if err := s.heartbeat(); err != nil {
				return err
			}
		}
		s.schedule()
	}
}

func toPB(s availability.State) livepb.State {
	switch s {
	case availability.Up:
		return livepb.State_STATE_UP
	case availability.Reclaimed:
		return livepb.State_STATE_RECLAIMED
	}
	return livepb.State_STATE_DOWN
}

func (s *sess) send(m *livepb.WorkerMessage) error {
	m.Session = s.id
	return s.sock.Send(m)
}

func (s *sess) heartbeat() error {
	return s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: toPB(s.state)}}})
}

// setState applies a change between UP and RECLAIMED: the running task's
// process group is stopped or continued, transfers pause (their grant is
// lost: they resume when the master grants them again).
func (s *sess) setState(st availability.State) {
	s.state = st
	for _, cp := range s.copies {
		if p := cp.cmd; p != nil {
			if st == availability.Reclaimed {
				p.task.Stop()
			} else {
				p.task.Continue()
			}
		}
		if st == availability.Reclaimed {
			cp.granted = false
			if cp.fetch != nil && cp.fetch.cancel != nil {
				cp.fetch.cancel()
			}
		}
	}
	if st == availability.Reclaimed && s.progF != nil && s.progF.cancel != nil {
		s.progF.cancel()
	}
}

func (s *sess) command(m *livepb.MasterMessage) {
	switch c := m.Msg.(type) {
	case *livepb.MasterMessage_BeatMode:
		if c.BeatMode.Udp {
			s.beatUDP = s.beater != nil
		} else if s.beater != nil { // they stopped arriving: the socket only, from now on
			s.w.log.Warn("the master stopped receiving heart-beat datagrams: heart-beats on the socket")
			s.beatUDP = false
			s.beater.Close()
			s.beater = nil
		}
	case *livepb.MasterMessage_Fetch:
		f := c.Fetch
		if f.Program {
			if s.hasProg || s.w.blobs.Has(f.Digest) {
				s.hasProg = s.w.blobs.Has(f.Digest)
			}
			if s.progF == nil {
				s.progF = &fetchState{digest: f.Digest, program: true}
			}
			s.startFetch(s.progF)
			return
		}
		for _, cp := range s.copies {
			if cp.run.InputDigest == f.Digest && !cp.haveInput {
				cp.granted = true
				if cp.fetch == nil {
					cp.fetch = &fetchState{digest: f.Digest}
				}
				s.startFetch(cp.fetch)
			}
		}
	case *livepb.MasterMessage_Run:
		r := c.Run
		cp := &copyState{run: r}
		s.copies = append(s.copies, cp)
		if s.w.blobs.Has(r.InputDigest) {
			if err := s.w.blobs.Verify(r.InputDigest); err == nil {
				cp.haveInput = true
				if r.Fetch {
					// Granted a channel it does not need: report at once.
					s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: r.InputDigest}}})
				}
			}
		}
		switch {
		case !cp.haveInput && r.Fetch:
			cp.granted = true
			cp.fetch = &fetchState{digest: r.InputDigest}
			s.startFetch(cp.fetch)
		case !cp.haveInput:
			// The master believes the input is cached here; it is not (any more).
			s.remove(cp)
			s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferFailed{TransferFailed: &livepb.TransferFailed{Digest: r.InputDigest, Error: "input not in the cache"}}})
		}
	case *livepb.MasterMessage_Cancel:
		c2 := c.Cancel
		for i, cp := range s.copies {
			if cp.run.Iteration == c2.Iteration && cp.run.Task == c2.Task && cp.run.Attempt == c2.Attempt {
				s.kill(cp)
				s.copies = append(s.copies[:i], s.copies[i+1:]...)
				break
			}
		}
	}
}

func (s *sess) kill(cp *copyState) {
	if cp.fetch != nil && cp.fetch.cancel != nil {
		cp.fetch.cancel()
	}
	if p := cp.cmd; p != nil {
		p.task.Kill()
	}
	cp.done = true
}

// startFetch begins (or resumes) a transfer the master granted, if the
// worker is UP.
func (s *sess) startFetch(f *fetchState) {
	if s.state != availability.Up || f.cancel != nil {
		return
	}
	fctx, cancel := context.WithCancel(s.ctx)
	f.cancel, f.started = cancel, time.Now()
	url := strings.TrimRight(s.w.opt.Master, "/") + "/blobs/" + f.digest
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		n, err := s.w.blobs.Fetch(fctx, s.w.http, url, f.digest, s.w.header())
		if err == nil && f.program {
			_, err = s.w.programPath(f.digest, s.entry) // unpack and verify now
		}
		select {
		case s.fetches <- fetchResult{f: f, n: n, err: err, dur: time.Since(f.started)}:
		case <-s.ctx.Done():
		}
	}()
}

func (s *sess) fetched(r fetchResult) {
	f := r.f
	f.cancel = nil
	f.active += r.dur
	f.bytes += r.n
	if r.err != nil {
		if s.ctx.Err() != nil || (s.state != availability.Up && !errors.Is(r.err, blob.ErrDigest)) {
			return // paused: resumes when granted again
		}
		if !f.program && !s.holds(f) {
			return // its copy was cancelled
		}
		s.w.log.Warn("transfer failed", "digest", f.digest, "err", r.err)
		s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferFailed{TransferFailed: &livepb.TransferFailed{Digest: f.digest, Error: r.err.Error()}}})
		if f.program {
			s.progF = nil
		} else {
			for i, cp := range s.copies {
				if cp.fetch == f {
					s.copies = append(s.copies[:i], s.copies[i+1:]...)
					break
				}
			}
		}
		return
	}
	s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: f.digest, ActiveNs: int64(f.active), Bytes: f.bytes}}})
	if f.program {
		s.hasProg, s.progF = true, nil
		return
	}
	for _, cp := range s.copies {
		if cp.fetch == f {
			cp.haveInput, cp.fetch = true, nil
		}
	}
}

func (s *sess) holds(f *fetchState) bool {
	for _, cp := range s.copies {
		if cp.fetch == f {
			return true
		}
	}
	return false
}

// schedule starts the first copy whose input is there when nothing runs.
func (s *sess) schedule() {
	if !s.hasProg || s.state != availability.Up {
		return
	}
	for _, cp := range s.copies {
		if cp.cmd != nil && !cp.done {
			return // one task at a time
		}
	}
	for _, cp := range s.copies {
		if cp.done || cp.cmd != nil {
			continue
		}
		if !cp.haveInput {
			return // in order: the first copy first
		}
		if err := s.start(cp); err != nil {
			s.w.log.Warn("task could not start", "task", cp.run.Name, "err", err)
			s.report(cp, err.Error())
		}
		return
	}
}

func (s *sess) report(cp *copyState, msg string) {
	cp.done = true
	s.remove(cp)
	s.send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TaskFailed{TaskFailed: &livepb.TaskFailed{Iteration: cp.run.Iteration, Task: cp.run.Task, Attempt: cp.run.Attempt, Error: msg}}})
}

func (s *sess) remove(cp *copyState) {
	for i, c := range s.copies {
		if c == cp {
			s.copies = append(s.copies[:i], s.copies[i+1:]...)
			return
		}
	}
}

// start runs the copy: `program INPUT OUTPUT` in a fresh working directory,
// the program verified by hash first, the input a copy of the verified blob.
func (s *sess) start(cp *copyState) error {
	prog, err := s.w.programPath(s.program, s.entry)
	if err != nil {
		s.hasProg = false
		return fmt.Errorf("program: %v", err)
	}
	if err := s.w.blobs.Verify(cp.run.InputDigest); err != nil {
		cp.haveInput = false
		return fmt.Errorf("input: %v", err)
	}
	wd := filepath.Join(s.w.opt.Cache, "run", fmt.Sprintf("%d-%d-%d", cp.run.Iteration, cp.run.Task, cp.run.Attempt))
	os.RemoveAll(wd)
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	in := filepath.Join(wd, "INPUT")
	if err := copyFile(s.w.blobs.Path(cp.run.InputDigest), in); err != nil {
		return err
	}
	p := &processState{workDir: wd, log: wd + ".log", output: filepath.Join(wd, "OUTPUT")}
	spec := manifest.TaskSpec(prog, in, p.output, wd, int(cp.run.Iteration), cp.run.Name, s.env)
	spec.Stdout, spec.Stderr = p.log, p.log
	task, err := taskrun.Start(s.ctx, spec)
	if err != nil {
		return err
	}
	p.task = task
	cp.cmd = p
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		res := task.Wait()
		select {
		case s.procs <- procResult{cp: cp, res: res}:
		case <-s.ctx.Done():
		}
	}()
	return nil
}

func (s *sess) exited(r procResult) {
	cp := r.cp
	p := cp.cmd
	tail := taskrun.ReadTail(p.log, 4096)
	os.Remove(p.log)
	if cp.done { // cancelled
		os.RemoveAll(p.workDir)
		return
	}
	compute := r.res.Running
	cp.done = true
	if r.res.Err != nil {
		msg := fmt.Sprintf("%s %s: %v", cp.run.Name, "exited", r.res.Err)
		if tail != "" {
			msg += "; last stderr lines:\n" + manifest.Tail([]byte(tail), 10)
		}
		os.RemoveAll(p.workDir)
		s.report(cp, msg)
		return
	}
	f, err := os.Open(p.output)
	if err != nil {
		os.RemoveAll(p.workDir)
		s.report(cp, fmt.Sprintf("%s exited 0 but wrote no OUTPUT file", cp.run.Name))
		return
	}
	d, err := s.w.blobs.PutReader(f, "", 0)
	f.Close()
	os.RemoveAll(p.workDir)
	if err != nil {
		s.report(cp, "storing OUTPUT: "+err.Error())
		return
	}
	// Upload and submit without blocking the session (the next copy runs).
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		res := submitResult{cp: cp, digest: d}
		size := s.w.blobs.Size(d)
		var data []byte
		if size > 0 && size <= livepb.MaxInline {
			// Small: inside SubmitResult (one round trip, no blob file on
			// the master).
			data, res.err = os.ReadFile(s.w.blobs.Path(d))
			if res.err == nil && blob.Sum(data) != d {
				res.err = fmt.Errorf("result %s changed in the cache: %w", d, blob.ErrDigest)
			}
		} else {
			url := strings.TrimRight(s.w.opt.Master, "/") + "/blobs/" + d
			res.err = s.w.blobs.Upload(s.ctx, s.w.http, url, d, s.w.header())
		}
		if res.err == nil {
			req := connect.NewRequest(&livepb.SubmitResultRequest{Session: s.id, Iteration: cp.run.Iteration, Task: cp.run.Task, Attempt: cp.run.Attempt,
				Digest: d, Size: size, ComputeNs: int64(compute), Data: data})
			req.Header().Set("Authorization", "Bearer "+s.w.opt.Token)
			var resp *connect.Response[livepb.SubmitResultResponse]
			resp, res.err = s.w.client.SubmitResult(s.ctx, req)
			if res.err == nil {
				res.accepted, res.reason = resp.Msg.Accepted, resp.Msg.Reason
			}
		}
		s.w.blobs.Remove(d)
		select {
		case s.submits <- res:
		case <-s.ctx.Done():
		}
	}()
}

func (s *sess) submitted(r submitResult) {
	s.remove(r.cp)
	switch {
	case r.err != nil:
		s.w.log.Warn("result not submitted", "task", r.cp.run.Name, "err", r.err)
	case r.accepted:
		s.w.Completed.Add(1)
		if s.w.opt.OnAccepted != nil {
			s.w.opt.OnAccepted(int(r.cp.run.Iteration), int(r.cp.run.Task), r.digest)
		}
	default:
		s.w.Refused.Add(1)
		s.w.log.Info("result refused", "task", r.cp.run.Name, "reason", r.reason)
	}
}

// teardown ends the session: processes killed, transfers stopped (their
// partial files stay for a later resume), goroutines waited for.
func (s *sess) teardown() {
	for _, cp := range s.copies {
		s.kill(cp)
	}
	if s.progF != nil && s.progF.cancel != nil {
		s.progF.cancel()
	}
	s.copies = nil
	s.cancel()
	s.sock.Close()
	if s.beater != nil {
		s.beater.Close()
		s.beater = nil
	}
	s.pending.Wait()
	os.RemoveAll(filepath.Join(s.w.opt.Cache, "run"))
}

// programPath returns the executable of the program blob digest, verified
// by hash: a file program is copied executable to cache/prog/DIGEST and
// re-hashed before every use; a directory program is unpacked to
// cache/prog/DIGEST.d and its tree re-packed and hashed.
func (w *Worker) programPath(digest, entry string) (string, error) {
	dir := filepath.Join(w.opt.Cache, "prog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if entry == "" {
		p := filepath.Join(dir, digest)
		if data, err := os.ReadFile(p); err == nil && blob.Sum(data) == digest {
			return p, nil
		}
		if err := w.blobs.Verify(digest); err != nil {
			return "", err
		}
		data, err := os.ReadFile(w.blobs.Path(digest))
		if err != nil {
			return "", err
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, data, 0o755); err != nil {
			return "", err
		}
		return p, os.Rename(tmp, p)
	}
	d := filepath.Join(dir, digest+".d")
	if packed, err := manifest.Pack(d); err == nil && blob.Sum(packed) == digest {
		return filepath.Join(d, filepath.FromSlash(entry)), nil
	}
	os.RemoveAll(d)
	if err := w.blobs.Verify(digest); err != nil {
		return "", err
	}
	data, err := os.ReadFile(w.blobs.Path(digest))
	if err != nil {
		return "", err
	}
	if err := manifest.Unpack(data, d); err != nil {
		return "", err
	}
	if packed, err := manifest.Pack(d); err != nil || blob.Sum(packed) != digest {
		return "", fmt.Errorf("unpacked program does not hash to %s", digest)
	}
	return filepath.Join(d, filepath.FromSlash(entry)), nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
