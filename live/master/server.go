package master

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/beat"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/manifest"
)

// Options configure a master Server: `volsched master`'s flags, which
// the CLI only maps (flag --ncom is NCom, and so on; errors name the flag).
type Options struct {
	App       *manifest.App // --app (loaded)
	State     string        // --state: state directory (CA, database, blobs, output)
	Listen    string        // --listen: address to listen on
	Listener  net.Listener  // when set, used instead of Listen
	Hosts     []string      // --host: extra host names / addresses for the certificate
	Heuristic Heuristic     // --heuristic: one of the 17 of §6 or a registered one
	NCom      int           // --ncom: at most NCom transfers at once
	Slot      time.Duration // --slot: the model's time slot
	Heartbeat time.Duration // --heartbeat: the workers' heart-beat period
	// DownAfter (--down-after): missing heart-beats for this long: DOWN
	// (0: 5 heart-beats).
	DownAfter     time.Duration
	ExtraReplicas int    // --replicas: additional copies of a task (§6.1)
	Seed          uint64 // --seed: the random heuristics' seed
	Rate          int64  // --rate: when > 0, every blob GET is limited to Rate bytes/s (demos, tests)
	MaxResult     int64  // largest result accepted (bytes)
	NoUDPBeats    bool   // --udp-heartbeats=false: no heart-beats by UDP (live/beat): all on the sockets
	// Predictor predicts the time to finish the iteration for `status`
	// (nil: no prediction).
	Predictor Predictor
	Logger    *slog.Logger // nil: none
}

// DefaultOptions are the defaults of `volsched master`'s flags.
func DefaultOptions() Options {
	return Options{Listen: ":7411", Heuristic: DefaultHeuristic, NCom: 10, Slot: time.Second, Heartbeat: time.Second,
		ExtraReplicas: 2, Seed: 1, MaxResult: 1 << 30}
}

// withDefaults gives the zero options that cannot be zero their value in
// DefaultOptions (a program may set only what it changes; ExtraReplicas
// and Seed, which can be zero, keep their zero), and DownAfter 0 its 5
// heart-beats.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Listen == "" && o.Listener == nil {
		o.Listen = d.Listen
	}
	if !o.Heuristic.Valid() {
		o.Heuristic = d.Heuristic
	}
	if o.NCom == 0 {
		o.NCom = d.NCom
	}
	if o.Slot == 0 {
		o.Slot = d.Slot
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = d.Heartbeat
	}
	if o.MaxResult == 0 {
		o.MaxResult = d.MaxResult
	}
	if o.DownAfter == 0 {
		o.DownAfter = 5 * o.Heartbeat
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Validate checks the options as they are (New gives the zero ones their
// defaults first; the CLI validates its flags' values, so that --ncom 0 is
// refused, not taken for the default). Errors name the flag, the value and
// what is wanted.
func (o *Options) Validate() error {
	switch {
	case o.App == nil:
		return errors.New("--app: no application, want the application's directory")
	case o.State == "":
		return errors.New("--state: none given, want the state directory")
	case o.Listen == "" && o.Listener == nil:
		return errors.New("--listen: empty, want an address (HOST:PORT or :PORT)")
	case o.NCom < 1:
		return fmt.Errorf("--ncom %d: want ≥ 1", o.NCom)
	case o.Slot <= 0:
		return fmt.Errorf("--slot %v: want a duration > 0", o.Slot)
	case o.Heartbeat <= 0:
		return fmt.Errorf("--heartbeat %v: want a duration > 0", o.Heartbeat)
	case o.DownAfter < 0 || o.DownAfter != 0 && o.DownAfter <= o.Heartbeat:
		return fmt.Errorf("--down-after %v: want more than --heartbeat %v (0: 5 heart-beats), or every worker is DOWN between two heart-beats", o.DownAfter, o.Heartbeat)
	case o.ExtraReplicas < 0 || o.ExtraReplicas > 64:
		return fmt.Errorf("--replicas %d: want 0..64", o.ExtraReplicas)
	case o.Rate < 0:
		return fmt.Errorf("--rate %d: want ≥ 0 bytes/s (0: no limit)", o.Rate)
	case o.MaxResult <= 0:
		return fmt.Errorf("largest result %d bytes: want > 0", o.MaxResult)
	}
	if !o.Heuristic.Valid() {
		return fmt.Errorf("--heuristic: %v", errNoHeuristic)
	}
	return nil
}

// Server drives a Machine with a real clock, TLS sockets, SQLite and the
// application's driver.
type Server struct {
	opt   Options
	log   *slog.Logger
	db    *DB
	blobs *blob.Store
	ca    *pki.CA
	cert  tls.Certificate
	m     *Machine
	start time.Time

	evc      chan func()
	sessions map[uint64]*session // owned by the loop
	byWorker map[string]*session // the current session of each worker

	tokMu  sync.RWMutex
	tokens map[string]string // hash → name
	tokVer int64             // the tokens' version when they were read

	persist       chan persistReq
	driverPending bool
	finished      chan error
	finishOnce    sync.Once

	events *bufio.Writer
	evFile *os.File
	fta    *ftaRecorder
	met    *metrics

	httpSrv *http.Server
	addr    string
	sockets socketSet // the session sockets (hijacked: the HTTP server does not track them)

	udp   *net.UDPConn // heart-beat datagrams (nil: none)
	beats sync.Map     // session id → *session, for the UDP reader

	ftaWriting bool           // loop only: a periodic write of availability.fta is under way
	ftaWrites  sync.WaitGroup // that write
	loopDone   chan struct{}  // closed when the loop has returned

	predMu   sync.Mutex
	predAt   time.Time
	predLast float64
}

// session is a worker's session. Its socket has one goroutine, the
// handler's, blocked in a read; commands are sent by a goroutine started
// when there is something to send and gone when the queue is empty (with
// thousands of workers, a goroutine per worker is the largest cost of
// memory after the connection itself).
type session struct {
	id       uint64
	name     string
	dead     atomic.Bool // ended by the master
	finished atomic.Bool // ended because the application is finished

	mu      sync.Mutex
	queue   []*livepb.MasterMessage
	conn    *websocket.Conn // nil until the worker opens its socket
	sending bool
	closed  bool           // the handler is returning: no write any more
	senders sync.WaitGroup // the sending goroutine

	// Heart-beats that change nothing: the handler stores when the last
	// one came (heard, ns since the server's start) and the state they
	// carry (heardState, set by the handler from every heart-beat that is
	// given to the loop; known once there was one); the loop gives the
	// machine the newest at its tick (fed: the last time given).
	heard      atomic.Int64
	heardState atomic.Int32
	known      atomic.Bool
	fed        int64 // loop only

	// Heart-beats by UDP (beats.go): for the UDP reader only, the
	// verifier of the session's key and the last sequence number.
	beatVerifier *beat.Verifier
	beatSeq      atomic.Uint64
	beatUDP      atomic.Bool // datagrams arrive: the worker was told so
	beatOff      atomic.Bool // they stopped: back on the socket for good
}

// quiet reports whether a plain heart-beat in state st changes nothing
// the machine was told.
func (ss *session) quiet(st livepb.State) bool {
	return ss.known.Load() && st == livepb.State(ss.heardState.Load())
}

// heardQuiet notes a heart-beat that changes nothing (on the socket or by
// UDP): only the time it came, given to the machine at the loop's next
// clock tick, without waking the loop once per heart-beat.
func (s *Server) heardQuiet(ss *session) {
	s.met.heartbeats.Inc()
	ss.heard.Store(s.now())
}

// maxQueued: a worker with this many commands not yet sent does not read
// them: it is as good as DOWN.
const maxQueued = 256

// start starts the sending goroutine if there is something to send and
// none runs (ss.mu held).
func (ss *session) start() {
	if ss.conn == nil || ss.sending || ss.closed || len(ss.queue) == 0 {
		return
	}
	ss.sending = true
	ss.senders.Add(1)
	go ss.sendAll()
}

func (ss *session) sendAll() {
	defer ss.senders.Done()
	for {
		ss.mu.Lock()
		if len(ss.queue) == 0 || ss.closed {
			ss.queue, ss.sending = nil, false
			ss.mu.Unlock()
			return
		}
		m := ss.queue[0]
		ss.queue[0] = nil
		ss.queue = ss.queue[1:]
		c := ss.conn
		ss.mu.Unlock()
		b, err := proto.Marshal(m)
		if err == nil {
			c.SetWriteDeadline(time.Now().Add(socketWriteTimeout))
			err = c.WriteMessage(websocket.BinaryMessage, b)
		}
		if err != nil {
			ss.mu.Lock()
			ss.queue, ss.sending = nil, false
			ss.mu.Unlock()
			ss.end()
			return
		}
	}
}

// end makes the handler's read return, so that the socket ends.
func (ss *session) end() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.conn != nil && !ss.closed {
		ss.conn.SetReadDeadline(time.Now())
	}
}

var errFinished = errors.New("application finished")

// errStopped: the master's loop has stopped (the master is stopping).
var errStopped = errors.New("the master is stopping")

// MaxInline is the largest result a worker may send inside SubmitResult
// (the protocol's livepb.MaxInline).
const MaxInline = livepb.MaxInline

type persistReq struct {
	acc      *Accepted
	done     chan error
	driver   int // ≥ 0: run the driver for this iteration
	measures *Saved
}

// New checks the options (their zero ones take their defaults:
// DefaultOptions), opens (creating on first start) the state directory:
// the CA and the server certificate, the database, the blob store; it
// loads the application's progress and measurements.
func New(opt Options) (*Server, error) {
	opt = opt.withDefaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(opt.State)
	if err != nil {
		return nil, fmt.Errorf("state directory %s: %v", opt.State, err)
	}
	opt.State = abs
	if err := os.MkdirAll(opt.State, 0o700); err != nil {
		return nil, fmt.Errorf("state directory %s: %v", opt.State, err)
	}
	s := &Server{opt: opt, log: opt.Logger, start: time.Now(), evc: make(chan func(), 4096), sessions: map[uint64]*session{}, byWorker: map[string]*session{},
		persist: make(chan persistReq, 1<<16), finished: make(chan error, 1), loopDone: make(chan struct{})}
	if s.ca, err = pki.LoadOrCreateCA(opt.State, "volsched master CA"); err != nil {
		return nil, err
	}
	if s.cert, err = pki.LoadOrCreateServer(opt.State, s.ca, append(pki.DefaultHosts(), opt.Hosts...)); err != nil {
		return nil, err
	}
	if s.db, err = OpenDB(opt.State); err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		s.db.Close()
		return nil, err
	}
	if s.blobs, err = blob.Open(filepath.Join(opt.State, "blobs")); err != nil {
		return fail(err)
	}
	prog, err := opt.App.Program()
	if err != nil {
		return fail(fmt.Errorf("%s: program: %v", opt.App.File, err))
	}
	digest, err := s.blobs.Put(prog)
	if err != nil {
		return fail(err)
	}
	if old, err := s.db.Meta("program"); err != nil {
		return fail(err)
	} else if old != "" && old != digest {
		return fail(fmt.Errorf("state directory %s belongs to an application whose program has SHA-256 %s; %s has %s: use another --state", opt.State, old, opt.App.File, digest))
	}
	if err := s.db.SetMeta("program", digest); err != nil {
		return fail(err)
	}
	cfg := Config{Heuristic: opt.Heuristic, NCom: opt.NCom, Slot: opt.Slot, ExtraReplicas: opt.ExtraReplicas, DownAfter: opt.DownAfter, Heartbeat: opt.Heartbeat,
		MaxAttempts: opt.App.Manifest.MaxAttempts, Seed: opt.Seed, Prior: availability.DefaultPrior(),
		ProgramDigest: digest, ProgramSize: int64(len(prog)), Entry: opt.App.Manifest.Entry, Env: opt.App.Manifest.Env}
	if s.m, err = NewMachine(cfg, uint64(s.start.UnixNano())<<1); err != nil {
		return fail(err)
	}
	saved, err := s.db.LoadMeasures()
	if err != nil {
		return fail(err)
	}
	s.m.Restore(saved)
	if s.tokVer, err = s.db.TokensVersion(); err != nil {
		return fail(err)
	}
	if s.tokens, err = s.db.Tokens(); err != nil {
		return fail(err)
	}
	s.met = newMetrics()
	s.fta = newFTARecorder(s.start)
	// The availability seen by the earlier master processes (killed ones
	// included: the trace is rebuilt from their event log).
	if err := s.fta.replay(filepath.Join(opt.State, "events.jsonl")); err != nil {
		s.log.Warn("availability of earlier runs not recovered", "err", err)
	}
	for _, d := range []string{"output", "work"} {
		if err := os.MkdirAll(filepath.Join(opt.State, d), 0o755); err != nil {
			return fail(err)
		}
	}
	if s.evFile, err = os.OpenFile(filepath.Join(opt.State, "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return fail(err)
	}
	s.events = bufio.NewWriterSize(s.evFile, 1<<16)
	return s, nil
}

// FinalStatus is the machine's state for a report once Run has returned
// (it must not be called while Run runs).
func (s *Server) FinalStatus() StatusInfo { return s.m.Status() }

// Fingerprint is the SHA-256 fingerprint of the master's CA, which workers
// pin.
func (s *Server) Fingerprint() string { return pki.Fingerprint(s.ca.Cert) }

// CAPEM is the CA certificate (PEM), for workers given --ca.
func (s *Server) CAPEM() []byte { return s.ca.CertPEM }

// Addr is the address the server listens on (after Listen).
func (s *Server) Addr() string { return s.addr }

// Registry is the server's Prometheus registry.
func (s *Server) Registry() *prometheus.Registry { return s.met.reg }

func (s *Server) now() int64 { return int64(time.Since(s.start)) }

// post runs f in the loop, without waiting.
func (s *Server) post(f func()) {
	select {
	case s.evc <- f:
	case <-s.loopDone:
	}
}

// call runs f in the loop and waits for it.
func (s *Server) call(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case s.evc <- func() { f(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.loopDone:
		return errStopped
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.loopDone:
		return errStopped
	}
}

// Listen opens the listening socket (so that Addr is known before Run).
func (s *Server) Listen() error {
	ln := s.opt.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.opt.Listen); err != nil {
			return fmt.Errorf("listen %s: %v", s.opt.Listen, err)
		}
	}
	s.addr = ln.Addr().String()
	s.listenBeats(ln.Addr())
	mux := http.NewServeMux()
	// No compression of the (small) messages: gzip's per-message set-up
	// cost more CPU than the bytes it saves.
	mux.Handle(livepbconnect.NewMasterHandler(s, connect.WithReadMaxBytes(1<<20), connect.WithCompressMinBytes(1<<20)))
	mux.HandleFunc(livepb.SessionPath, s.serveSession)
	mux.Handle("/blobs/", &blob.Handler{Store: s.blobs, Prefix: "/blobs/", Auth: s.httpAuth, MaxPut: s.opt.MaxResult, Rate: s.opt.Rate})
	mux.Handle("/metrics", s.met.handler())
	s.httpSrv = &http.Server{Handler: mux, TLSConfig: pki.ServerConfig(s.cert), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		// Header compression tables of 1 KiB instead of 4 KiB each way per
		// connection (a worker's headers are a few hundred bytes): memory
		// per worker is the scale limit.
		HTTP2: &http.HTTP2Config{MaxDecoderHeaderTableSize: 1 << 10, MaxEncoderHeaderTableSize: 1 << 10}}
	tlsLn := tls.NewListener(ln, s.httpSrv.TLSConfig)
	go func() {
		if err := s.httpSrv.Serve(tlsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("server", "err", err)
		}
	}()
	return nil
}

// Run serves until the application finishes (nil), fails (its error) or
// ctx ends (ctx.Err(); the state is kept and a new Run continues).
func (s *Server) Run(ctx context.Context) error {
	if s.httpSrv == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	defer s.close()
	s.log.Info("master listening", "addr", s.addr, "fingerprint", s.Fingerprint(), "app", s.opt.App.Manifest.Name, "heuristic", s.opt.Heuristic.String(), "ncom", s.opt.NCom, "slot", s.opt.Slot)
	prog, err := s.db.LoadProgress()
	if err != nil {
		return err
	}
	b, _ := json.Marshal(LogRecord{T: s.now(), Kind: LogStart, Worker: -1, Iter: prog.Iter, Task: -1, Info: strconv.FormatInt(s.start.UnixNano(), 10)})
	s.events.Write(append(b, '\n'))
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.persister(loopCtx) }()
	go func() { defer wg.Done(); s.refreshTokens(loopCtx) }()
	if s.udp != nil {
		wg.Add(1)
		go func() { defer wg.Done(); s.readBeats() }()
		go func() { <-loopCtx.Done(); s.udp.Close() }()
	}
	go func() { defer wg.Done(); defer close(s.loopDone); s.loop(loopCtx) }()
	switch {
	case prog.Finished:
		s.log.Info("application already finished", "iterations", prog.Iter)
		s.finish(nil)
	case prog.Iter < 0:
		s.post(func() { s.requestDriver(0) })
	default:
		s.post(func() {
			s.m.NewIteration(s.now(), prog.Iter, prog.Tasks)
			s.log.Info("progress reloaded", "iteration", prog.Iter, "tasks", len(prog.Tasks), "done", len(prog.Tasks)-s.m.OpenTasks())
		})
	}
	select {
	case err = <-s.finished:
		// Tell the connected workers, so that those told to exit when done do.
		if s.call(ctx, func() {
			for _, ss := range s.sessions {
				ss.finished.Store(true)
				s.killSession(ss)
			}
		}) == nil {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel()
	wg.Wait()
	return err
}

func (s *Server) finish(err error) {
	s.finishOnce.Do(func() { s.finished <- err })
}

func (s *Server) close() {
	if s.httpSrv != nil {
		sctx, c := context.WithTimeout(context.Background(), time.Second)
		s.httpSrv.Shutdown(sctx)
		c()
		s.httpSrv.Close()
	}
	s.sockets.stop(2 * time.Second)
	if s.udp != nil {
		s.udp.Close() // (Run closed it already; this is for a Listen without Run)
	}
	s.ftaWrites.Wait() // the last periodic write before the final one
	if err := s.db.SaveMeasures(s.m.Save()); err != nil {
		s.log.Error("saving measurements", "err", err)
	}
	s.events.Flush()
	s.evFile.Close()
	if err := s.fta.write(filepath.Join(s.opt.State, "availability.fta"), s.now()); err != nil {
		s.log.Error("writing the availability trace", "err", err)
	}
	s.db.Close()
}

// loop is the only goroutine that touches the machine.
func (s *Server) loop(ctx context.Context) {
	every := min(s.opt.Slot, s.opt.Heartbeat) / 2
	every = max(every, time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	lastSave, lastFTA := time.Now(), time.Now()
	for {
		select {
		case f := <-s.evc:
			f()
			for i := 0; i < 4096 && len(s.evc) > 0; i++ {
				(<-s.evc)()
			}
		case <-tick.C:
			s.feedHeartbeats()
			s.m.Tick(s.now())
			s.gauges()
			if time.Since(lastSave) > 5*time.Second {
				sv := s.m.Save()
				s.persist <- persistReq{measures: &sv, driver: -1}
				lastSave = time.Now()
			}
			if time.Since(lastFTA) > time.Minute && !s.ftaWriting {
				// The trace is copied here and written by another
				// goroutine: formatting and writing tens of thousands of
				// intervals must not stall the loop.
				t := s.fta.snapshot(s.now())
				s.ftaWriting = true
				s.ftaWrites.Add(1)
				go func() {
					defer s.ftaWrites.Done()
					err := writeFTAFile(filepath.Join(s.opt.State, "availability.fta"), t)
					s.post(func() {
						s.ftaWriting = false
						if err != nil {
							s.log.Error("writing the availability trace", "err", err)
						}
					})
				}()
				lastFTA = time.Now()
			}
		case <-ctx.Done():
			return
		}
		s.afterBatch()
	}
}

func (s *Server) afterBatch() {
	t0 := time.Now()
	if s.m.Step() {
		s.met.decisionSeconds.Observe(time.Since(t0).Seconds())
	}
	for _, c := range s.m.TakeCommands() {
		s.dispatch(c)
	}
	for _, r := range s.m.TakeLog() {
		b, _ := json.Marshal(r)
		s.events.Write(b)
		s.events.WriteByte('\n')
		s.fta.record(s.workerName(r.Worker), r)
		switch r.Kind {
		case LogDown:
			s.killDeadSessions(s.workerName(r.Worker))
		case LogResult:
			s.met.completions.Inc()
		case LogRefused:
			s.met.refused.Inc()
			if lateRefusal(r.Info) {
				s.log.Info("refused a late report (a copy cancelled when another completed): harmless", "worker", s.workerName(r.Worker), "iteration", r.Iter, "task", r.Task, "why", r.Info)
			} else {
				s.log.Warn("refused", "worker", s.workerName(r.Worker), "iteration", r.Iter, "task", r.Task, "why", r.Info)
			}
		case LogDecide:
			s.met.decisions.Inc()
		case LogFail:
			s.log.Warn("task failed", "worker", s.workerName(r.Worker), "iteration", r.Iter, "task", r.Task, "err", r.Info)
		case LogBackoff:
			s.log.Warn("transfers failing on a worker: backing off", "worker", s.workerName(r.Worker), "why", r.Info)
		case LogIterDone:
			s.log.Info("iteration done", "iteration", r.Iter)
		}
	}
	s.events.Flush()
	switch s.m.Phase() {
	case PhaseDriver:
		if !s.driverPending {
			s.requestDriver(s.m.Iter() + 1)
		}
	case PhaseFinished:
		s.finish(nil)
	case PhaseFailed:
		s.finish(errors.New(s.m.Err()))
	}
}

// feedHeartbeats gives the machine the heart-beats the sessions' handlers
// only noted (they change nothing but the time the worker was last heard).
func (s *Server) feedHeartbeats() {
	now := s.now()
	for _, ss := range s.sessions {
		s.checkBeats(ss, now)
		if h := ss.heard.Load(); h > ss.fed {
			ss.fed = h
			if err := s.m.Heartbeat(h, ss.id, fromPB(livepb.State(ss.heardState.Load()))); errors.Is(err, ErrSession) {
				s.killSession(ss)
			}
		}
	}
}

// gauges sets the Prometheus gauges from the machine (at every tick: the
// count of workers by state costs a pass over all of them, too much for
// every batch of events with 10,000 workers).
func (s *Server) gauges() {
	up, rec, down := s.m.Counts()
	s.met.workers.WithLabelValues("up").Set(float64(up))
	s.met.workers.WithLabelValues("reclaimed").Set(float64(rec))
	s.met.workers.WithLabelValues("down").Set(float64(down))
	s.met.held.Set(float64(s.m.Held()))
	s.met.iteration.Set(float64(s.m.Iter()))
	s.met.open.Set(float64(s.m.OpenTasks()))
	s.met.unobserved.Set(float64(s.m.Unobserved()))
}

func (s *Server) workerName(q int) string {
	if q >= 0 && q < len(s.m.workers) {
		return s.m.workers[q].name
	}
	return ""
}

func (s *Server) requestDriver(iter int) {
	s.driverPending = true
	s.persist <- persistReq{driver: iter}
}

// killDeadSessions ends the server's session of worker name if the
// machine ended it (O(1): with 10,000 workers a pass over all sessions at
// every registration or DOWN costs more than the heart-beats).
func (s *Server) killDeadSessions(name string) {
	if ss := s.byWorker[name]; ss != nil {
		if _, ok := s.m.bySession[ss.id]; !ok {
			s.killSession(ss)
		}
	}
}

func (s *Server) killSession(ss *session) {
	if !ss.dead.Swap(true) {
		ss.end()
	}
	delete(s.sessions, ss.id)
	s.beats.Delete(ss.id)
	if s.byWorker[ss.name] == ss {
		delete(s.byWorker, ss.name)
	}
}

func (s *Server) dispatch(c Command) {
	ss := s.sessions[c.Session]
	if ss == nil {
		return
	}
	var msg *livepb.MasterMessage
	switch c.Kind {
	case CmdFetch:
		msg = &livepb.MasterMessage{Msg: &livepb.MasterMessage_Fetch{Fetch: &livepb.Fetch{Digest: c.Digest, Size: c.Size, Program: c.Program}}}
	case CmdRun:
		msg = &livepb.MasterMessage{Msg: &livepb.MasterMessage_Run{Run: &livepb.Run{Iteration: int32(c.Iter), Task: int32(c.Task), Name: c.Name, Attempt: c.Attempt, InputDigest: c.Digest, InputSize: c.Size, Fetch: c.Fetch}}}
	case CmdCancel:
		msg = &livepb.MasterMessage{Msg: &livepb.MasterMessage_Cancel{Cancel: &livepb.Cancel{Iteration: int32(c.Iter), Task: int32(c.Task), Attempt: c.Attempt}}}
	}
	s.queue(ss, msg)
}

// queue queues msg for the worker of ss (loop).
func (s *Server) queue(ss *session, msg *livepb.MasterMessage) {
	ss.mu.Lock()
	full := len(ss.queue) >= maxQueued
	if !full {
		ss.queue = append(ss.queue, msg)
		ss.start()
	}
	ss.mu.Unlock()
	if full {
		// A worker that does not read its commands is as good as DOWN.
		s.log.Warn("worker not reading its commands: session ended", "worker", ss.name)
		s.m.Disconnect(s.now(), ss.id)
		s.killSession(ss)
	}
}

// persister is the only goroutine that writes the database (besides the
// token commands of other processes): results in group commits, each
// acknowledged only once committed; driver runs, in order after the
// results before them; measurements.
func (s *Server) persister(ctx context.Context) {
	var batch []persistReq
	for {
		var r persistReq
		select {
		case r = <-s.persist:
		case <-ctx.Done():
			return
		}
		batch = append(batch[:0], r)
		for len(batch) < 1024 && len(s.persist) > 0 && batch[len(batch)-1].acc != nil {
			batch = append(batch, <-s.persist)
		}
		// The results of the batch (a non-result may end it).
		var accs []Accepted
		for _, b := range batch {
			if b.acc != nil {
				accs = append(accs, *b.acc)
			}
		}
		if len(accs) > 0 {
			err := s.db.AddResults(accs)
			if err != nil {
				s.log.Error("persisting results", "err", err)
				s.finish(fmt.Errorf("persisting results: %w", err))
			}
			for _, b := range batch {
				if b.acc != nil {
					b.done <- err
				}
			}
		}
		for _, b := range batch {
			switch {
			case b.measures != nil:
				if err := s.db.SaveMeasures(*b.measures); err != nil {
					s.log.Error("saving measurements", "err", err)
				}
			case b.acc == nil && b.driver >= 0:
				s.driverRun(ctx, b.driver)
			}
		}
	}
}

// driverRun runs the driver for iteration iter on the results of iter−1
// (from the database), stores the task inputs it wrote as blobs and the
// iteration in the database, then starts it in the machine.
func (s *Server) driverRun(ctx context.Context, iter int) {
	specs, err := s.prepareIteration(ctx, iter)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		s.log.Error("driver", "iteration", iter, "err", err)
		s.post(func() { s.m.Fail(s.now(), err.Error()) })
		return
	}
	s.log.Info("iteration starts", "iteration", iter, "tasks", len(specs))
	s.post(func() {
		s.driverPending = false
		s.m.NewIteration(s.now(), iter, specs)
	})
}

func (s *Server) prepareIteration(ctx context.Context, iter int) ([]TaskSpec, error) {
	work := filepath.Join(s.opt.State, "work")
	// The results directory is reused from one iteration to the next: its
	// files of the same names are overwritten, the others removed (new
	// files cost much more than rewritten ones on some file systems).
	res := filepath.Join(work, "results")
	tasks := filepath.Join(work, "tasks")
	if err := os.RemoveAll(tasks); err != nil {
		return nil, err
	}
	for _, d := range []string{res, tasks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var results []StoredResult
	if iter > 0 {
		var err error
		if results, err = s.db.Results(iter - 1); err != nil {
			return nil, err
		}
	}
	if err := keepOnly(res, results); err != nil {
		return nil, err
	}
	if err := s.writeResults(results, iter-1, res); err != nil {
		return nil, err
	}
	names, err := s.opt.App.RunDriver(ctx, iter, res, tasks, filepath.Join(s.opt.State, "output"))
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(tasks, n)
	}
	// Durable before the iteration that names them is committed.
	digests, err := s.blobs.Adopt(paths, 16)
	if err != nil {
		return nil, err
	}
	var specs []TaskSpec
	for i, n := range names {
		specs = append(specs, TaskSpec{Name: n, Digest: digests[i], Size: s.blobs.Size(digests[i])})
	}
	if err := s.db.AddIteration(iter, specs); err != nil {
		return nil, err
	}
	return specs, nil
}

// keepOnly removes from dir the files that are not results' names.
func keepOnly(dir string, results []StoredResult) error {
	keep := make(map[string]bool, len(results))
	for _, r := range results {
		keep[r.Name] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeResults writes an iteration's results into dir for the driver, each
// verified by its digest (inline ones from the database, the others from
// the blob store), several at once (file creation is slow on some file
// systems; the driver reruns after a crash, so they are not synced).
func (s *Server) writeResults(results []StoredResult, iter int, dir string) error {
	errs := make(chan error, len(results))
	sem := make(chan struct{}, 8)
	for _, r := range results {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			var err error
			if r.Data != nil {
				if got := blob.Sum(r.Data); got != r.Digest {
					err = fmt.Errorf("hashes to %s, stored as %s: %w", got, r.Digest, blob.ErrDigest)
				} else {
					err = overwrite(filepath.Join(dir, r.Name), bytes.NewReader(r.Data))
				}
			} else if err = s.blobs.Verify(r.Digest); err == nil {
				var f *os.File
				if f, err = os.Open(s.blobs.Path(r.Digest)); err == nil {
					err = overwrite(filepath.Join(dir, r.Name), f)
					f.Close()
				}
			}
			if err != nil {
				err = fmt.Errorf("result of task %s of iteration %d: %v", r.Name, iter, err)
			}
			errs <- err
		}()
	}
	var first error
	for range results {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// overwrite writes r to path, reusing the file if it exists (written over,
// then cut to length: cheaper than a new file or a truncation to zero).
func overwrite(path string, r io.Reader) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, r)
	if err == nil {
		err = out.Truncate(n)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// refreshTokens rereads the tokens when they changed, checked every second
// (`volsched master token revoke` writes the database from another
// process); the sessions of a revoked worker end. (Rereading 10,000 tokens
// every second cost more CPU than a quarter of the heart-beats.)
func (s *Server) refreshTokens(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		ver, err := s.db.TokensVersion()
		if err != nil {
			s.log.Error("reading tokens", "err", err)
			continue
		}
		if ver == s.tokVer {
			continue
		}
		toks, err := s.db.Tokens()
		if err != nil {
			s.log.Error("reading tokens", "err", err)
			continue
		}
		valid := map[string]bool{}
		for _, n := range toks {
			valid[n] = true
		}
		s.tokMu.Lock()
		s.tokens = toks
		s.tokMu.Unlock()
		s.tokVer = ver
		s.post(func() {
			for _, ss := range s.sessions {
				if !valid[ss.name] {
					s.log.Warn("token revoked: session ended", "worker", ss.name)
					s.m.Disconnect(s.now(), ss.id)
					s.killSession(ss)
				}
			}
		})
	}
}

// authName returns the worker a bearer token belongs to.
func (s *Server) authName(h http.Header) (string, bool) {
	a := h.Get("Authorization")
	tok, ok := strings.CutPrefix(a, "Bearer ")
	if !ok || tok == "" {
		return "", false
	}
	s.tokMu.RLock()
	name, ok := s.tokens[pki.HashToken(tok)]
	s.tokMu.RUnlock()
	return name, ok
}

func (s *Server) httpAuth(w http.ResponseWriter, r *http.Request) bool {
	if _, ok := s.authName(r.Header); !ok {
		s.met.authFailures.Inc()
		http.Error(w, "missing, unknown or revoked token", http.StatusUnauthorized)
		return false
	}
	return true
}

var errAuth = connect.NewError(connect.CodeUnauthenticated, errors.New("missing, unknown or revoked token"))

// Register implements the protocol's Register.
func (s *Server) Register(ctx context.Context, req *connect.Request[livepb.RegisterRequest]) (*connect.Response[livepb.RegisterResponse], error) {
	name, ok := s.authName(req.Header())
	if !ok {
		s.met.authFailures.Inc()
		s.log.Warn("registration refused: bad token", "peer", req.Peer().Addr)
		return nil, errAuth
	}
	var resp *livepb.RegisterResponse
	var finished bool
	err := s.call(ctx, func() {
		if s.m.Phase() == PhaseFinished || s.m.Phase() == PhaseFailed {
			finished = true
			return
		}
		id, keep := s.m.Register(s.now(), name, req.Msg.Cached)
		key := beat.NewKey()
		ss := &session{id: id, name: name, beatVerifier: beat.NewVerifier(key)}
		if old := s.byWorker[name]; old != nil && old != ss {
			s.killSession(old) // the machine ended it: registered again
		}
		s.sessions[id] = ss
		s.byWorker[name] = ss
		if s.udp != nil {
			s.beats.Store(id, ss)
		}
		resp = &livepb.RegisterResponse{Worker: name, Session: id, SlotNs: int64(s.opt.Slot), HeartbeatNs: int64(s.opt.Heartbeat), Keep: keep,
			ProgramDigest: s.m.cfg.ProgramDigest, Entry: s.m.cfg.Entry, Env: s.m.cfg.Env}
		if s.udp != nil {
			resp.BeatKey, resp.BeatPort = key, int32(s.udp.LocalAddr().(*net.UDPAddr).Port)
		}
	})
	if err != nil {
		return nil, err
	}
	if finished {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errFinished)
	}
	s.log.Info("worker registered", "worker", name, "cached", len(req.Msg.Cached), "kept", len(resp.Keep))
	return connect.NewResponse(resp), nil
}

func (s *Server) handle(ss *session, msg *livepb.WorkerMessage) {
	if hb := msg.GetHeartbeat(); hb != nil && len(hb.SinceBack) == 0 && ss.quiet(hb.State) {
		s.heardQuiet(ss)
		return
	} else if hb != nil {
		ss.heardState.Store(int32(hb.State))
		ss.known.Store(true)
	}
	s.post(func() {
		now := s.now()
		var err error
		switch m := msg.Msg.(type) {
		case *livepb.WorkerMessage_Heartbeat:
			s.met.heartbeats.Inc()
			err = s.m.Heartbeat(now, ss.id, fromPB(m.Heartbeat.State))
			if sb := m.Heartbeat.SinceBack; err == nil && len(sb) > 0 && len(sb) <= 64 {
				back := make([]StateSince, 0, len(sb))
				for _, b := range sb {
					if b.State == livepb.State_STATE_DOWN || b.AgoNs < 0 {
						back = nil // not a return: ignored
						break
					}
					back = append(back, StateSince{State: fromPB(b.State), Since: now - b.AgoNs})
				}
				s.m.Backfill(now, ss.id, back)
			}
		case *livepb.WorkerMessage_TransferDone:
			s.met.transfers.Inc()
			s.met.transferBytes.Add(float64(m.TransferDone.Bytes))
			err = s.m.TransferDone(now, ss.id, m.TransferDone.Digest, m.TransferDone.ActiveNs)
		case *livepb.WorkerMessage_TransferFailed:
			s.log.Warn("transfer failed on a worker", "worker", ss.name, "digest", m.TransferFailed.Digest, "err", m.TransferFailed.Error)
			if d := m.TransferFailed.Digest; blob.ValidDigest(d) {
				if verr := s.blobs.Verify(d); verr != nil {
					// The master's own copy is bad: nothing can fix that but the user.
					s.log.Error("the master's own blob is corrupt or missing", "digest", d, "err", verr)
					s.m.Fail(now, fmt.Sprintf("the master's blob %s (the program or a task input) failed its check: %v; its state directory %s is damaged", d, verr, s.opt.State))
					return
				}
			}
			err = s.m.TransferFailed(now, ss.id, m.TransferFailed.Digest, m.TransferFailed.Error)
		case *livepb.WorkerMessage_TaskFailed:
			tf := m.TaskFailed
			err = s.m.TaskFailed(now, ss.id, int(tf.Iteration), int(tf.Task), tf.Attempt, tf.Error)
		}
		if errors.Is(err, ErrSession) && s.sessions[ss.id] == ss {
			s.killSession(ss)
		}
	})
}

// fromPB is the protocol's state (UP when unspecified).
func fromPB(s livepb.State) availability.State {
	switch s {
	case livepb.State_STATE_RECLAIMED:
		return availability.Reclaimed
	case livepb.State_STATE_DOWN:
		return availability.Down
	}
	return availability.Up
}

// SubmitResult implements the protocol's SubmitResult: accepted only once
// the result is committed to the database.
func (s *Server) SubmitResult(ctx context.Context, req *connect.Request[livepb.SubmitResultRequest]) (*connect.Response[livepb.SubmitResultResponse], error) {
	name, ok := s.authName(req.Header())
	if !ok {
		s.met.authFailures.Inc()
		return nil, errAuth
	}
	r := req.Msg
	switch {
	case len(r.Data) > MaxInline:
		s.met.refused.Inc()
		return connect.NewResponse(&livepb.SubmitResultResponse{Reason: fmt.Sprintf("inline result of %d bytes: at most %d (PUT /blobs/DIGEST larger ones)", len(r.Data), MaxInline)}), nil
	case r.Data != nil:
		if got := blob.Sum(r.Data); got != r.Digest {
			s.met.refused.Inc()
			s.log.Warn("result refused: inline data does not match its digest", "worker", name, "digest", r.Digest, "got", got)
			return connect.NewResponse(&livepb.SubmitResultResponse{Reason: "inline result hashes to " + got + ", announced " + r.Digest}), nil
		}
	case !blob.ValidDigest(r.Digest) || !s.blobs.Has(r.Digest):
		s.met.refused.Inc()
		s.log.Warn("result refused: blob not uploaded", "worker", name, "digest", r.Digest)
		return connect.NewResponse(&livepb.SubmitResultResponse{Reason: "result blob " + r.Digest + " was not uploaded (PUT /blobs/DIGEST first)"}), nil
	}
	var acc Accepted
	var rerr error
	done := make(chan error, 1)
	err := s.call(ctx, func() {
		ss := s.sessions[r.Session]
		if ss == nil || ss.name != name {
			rerr = ErrSession
			return
		}
		acc, rerr = s.m.Result(s.now(), r.Session, int(r.Iteration), int(r.Task), r.Attempt, r.Digest, r.ComputeNs)
		if rerr == nil {
			acc.Data = r.Data
			s.persist <- persistReq{acc: &acc, done: done, driver: -1}
		}
	})
	if err != nil {
		return nil, err
	}
	if errors.Is(rerr, ErrSession) {
		return nil, connect.NewError(connect.CodeFailedPrecondition, ErrSession)
	}
	if rerr != nil {
		return connect.NewResponse(&livepb.SubmitResultResponse{Reason: rerr.Error()}), nil
	}
	select {
	case err := <-done:
		if err != nil {
			return nil, connect.NewError(connect.CodeInternal, err)
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return connect.NewResponse(&livepb.SubmitResultResponse{Accepted: true}), nil
}

// predict runs the Predictor for Status outside the machine's loop, at
// most once per 2 s (the result is kept meanwhile) and for at most 2,000
// workers.
func (s *Server) predict(p *PredictParams) float64 {
	s.predMu.Lock()
	defer s.predMu.Unlock()
	if p == nil || len(p.Chains) > 2000 || s.opt.Predictor == nil {
		return -1
	}
	if time.Since(s.predAt) < 2*time.Second {
		return s.predLast
	}
	f, err := s.opt.Predictor.Predict(*p)
	mean := f.Mean
	if err != nil {
		s.log.Warn("prediction", "err", err)
		mean = -1
	}
	s.predAt, s.predLast = time.Now(), mean
	return mean
}

// Status implements the protocol's Status.
func (s *Server) Status(ctx context.Context, req *connect.Request[livepb.StatusRequest]) (*connect.Response[livepb.StatusResponse], error) {
	if _, ok := s.authName(req.Header()); !ok {
		s.met.authFailures.Inc()
		return nil, errAuth
	}
	var st StatusInfo
	if err := s.call(ctx, func() { st = s.m.Status() }); err != nil {
		return nil, err
	}
	st.PredictedSlots = s.predict(st.Predict)
	resp := &livepb.StatusResponse{Phase: st.Phase.String(), Iteration: int32(st.Iter), Tasks: int32(st.Tasks), Done: int32(st.Done),
		Tprog: int32(st.TProg), Tdata: int32(st.TData), Held: int32(st.Held), Ncom: int32(s.opt.NCom), SlotNs: int64(st.Slot),
		Heuristic: st.Heuristic, Error: st.Err, Completions: st.Completions, PredictedSlots: st.PredictedSlots, Application: s.opt.App.Manifest.Name}
	for _, w := range st.Workers {
		ws := &livepb.WorkerStatus{Name: w.Name, Connected: w.Connected, HasProgram: w.HasProgram, Transitions: w.Transitions, W: int32(w.W), Copies: w.Copies}
		switch w.State {
		case availability.Up:
			ws.State = livepb.State_STATE_UP
		case availability.Reclaimed:
			ws.State = livepb.State_STATE_RECLAIMED
		default:
			ws.State = livepb.State_STATE_DOWN
		}
		for i := 0; i < 3; i++ {
			ws.P = append(ws.P, w.Chain.P[i][:]...)
		}
		resp.Workers = append(resp.Workers, ws)
	}
	return connect.NewResponse(resp), nil
}
