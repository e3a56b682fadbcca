package master

import (
	"bufio"
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
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/live/blob"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/manifest"
	"github.com/volsched/volsched/live/pki"
)

// Options configure a master Server.
type Options struct {
	App           *manifest.App
	State         string       // state directory (CA, database, blobs, output)
	Listen        string       // address to listen on (default ":7411")
	Listener      net.Listener // when set, used instead of Listen
	Hosts         []string     // extra host names / addresses for the certificate
	Heuristic     string
	NCom          int
	Slot          time.Duration
	Heartbeat     time.Duration // the workers' heart-beat period
	DownAfter     time.Duration // missing heart-beats for this long: DOWN
	ExtraReplicas int
	Seed          uint64
	Rate          int64 // when > 0, every blob GET is limited to Rate bytes/s (demos, tests)
	MaxResult     int64 // largest result accepted (bytes; default 1 GiB)
	Logger        *slog.Logger
}

// DefaultOptions fills the defaults of the unset fields.
func (o *Options) defaults() {
	if o.Listen == "" {
		o.Listen = ":7411"
	}
	if o.Heuristic == "" {
		o.Heuristic = "EMCT*"
	}
	if o.NCom == 0 {
		o.NCom = 10
	}
	if o.Slot == 0 {
		o.Slot = time.Second
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = time.Second
	}
	if o.DownAfter == 0 {
		o.DownAfter = 5 * o.Heartbeat
	}
	if o.MaxResult == 0 {
		o.MaxResult = 1 << 30
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
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

	tokMu  sync.RWMutex
	tokens map[string]string // hash → name

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
}

type session struct {
	id       uint64
	name     string
	out      chan *livepb.MasterMessage
	kill     chan struct{}
	dead     bool
	finished bool // ended because the application is finished
}

var errFinished = errors.New("application finished")

type persistReq struct {
	acc      *Accepted
	done     chan error
	driver   int // ≥ 0: run the driver for this iteration
	measures *Saved
}

// New opens (creating on first start) the state directory: the CA and the
// server certificate, the database, the blob store; it loads the
// application's progress and measurements.
func New(opt Options) (*Server, error) {
	opt.defaults()
	if opt.App == nil {
		return nil, errors.New("no application")
	}
	abs, err := filepath.Abs(opt.State)
	if err != nil {
		return nil, fmt.Errorf("state directory %s: %v", opt.State, err)
	}
	opt.State = abs
	if err := os.MkdirAll(opt.State, 0o700); err != nil {
		return nil, fmt.Errorf("state directory %s: %v", opt.State, err)
	}
	s := &Server{opt: opt, log: opt.Logger, start: time.Now(), evc: make(chan func(), 4096), sessions: map[uint64]*session{},
		persist: make(chan persistReq, 1<<16), finished: make(chan error, 1)}
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
	cfg := Config{Heuristic: opt.Heuristic, NCom: opt.NCom, Slot: opt.Slot, ExtraReplicas: opt.ExtraReplicas, DownAfter: opt.DownAfter,
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
	if s.tokens, err = s.db.Tokens(); err != nil {
		return fail(err)
	}
	s.met = newMetrics()
	s.fta = newFTARecorder(s.start)
	for _, w := range saved.Workers {
		s.fta.ensure(w.Name)
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
func (s *Server) post(f func()) { s.evc <- f }

// call runs f in the loop and waits for it.
func (s *Server) call(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case s.evc <- func() { f(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
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
	mux := http.NewServeMux()
	path, h := livepbconnect.NewMasterHandler(s, connect.WithReadMaxBytes(1<<20))
	mux.Handle(path, h)
	mux.Handle("/blobs/", &blob.Handler{Store: s.blobs, Prefix: "/blobs/", Auth: s.httpAuth, MaxPut: s.opt.MaxResult, Rate: s.opt.Rate})
	mux.Handle("/metrics", s.met.handler())
	s.httpSrv = &http.Server{Handler: mux, TLSConfig: pki.ServerConfig(s.cert), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
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
	s.log.Info("master listening", "addr", s.addr, "fingerprint", s.Fingerprint(), "app", s.opt.App.Manifest.Name, "heuristic", s.opt.Heuristic, "ncom", s.opt.NCom, "slot", s.opt.Slot)
	prog, err := s.db.LoadProgress()
	if err != nil {
		return err
	}
	b, _ := json.Marshal(LogRecord{T: s.now(), Kind: LogStart, Worker: -1, Iter: prog.Iter, Task: -1})
	s.events.Write(append(b, '\n'))
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.persister(loopCtx) }()
	go func() { defer wg.Done(); s.refreshTokens(loopCtx) }()
	go func() { defer wg.Done(); s.loop(loopCtx) }()
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
				ss.finished = true
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
	lastSave := time.Now()
	for {
		select {
		case f := <-s.evc:
			f()
			for i := 0; i < 4096 && len(s.evc) > 0; i++ {
				(<-s.evc)()
			}
		case <-tick.C:
			s.m.Tick(s.now())
			if time.Since(lastSave) > 5*time.Second {
				sv := s.m.Save()
				s.persist <- persistReq{measures: &sv, driver: -1}
				lastSave = time.Now()
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
		s.fta.record(s.m, r)
		switch r.Kind {
		case LogDown:
			s.killDeadSessions()
		case LogResult:
			s.met.completions.Inc()
		case LogRefused:
			s.met.refused.Inc()
			s.log.Warn("refused", "worker", s.workerName(r.Worker), "iteration", r.Iter, "task", r.Task, "why", r.Info)
		case LogDecide:
			s.met.decisions.Inc()
		case LogFail:
			s.log.Warn("task failed", "worker", s.workerName(r.Worker), "iteration", r.Iter, "task", r.Task, "err", r.Info)
		case LogIterDone:
			s.log.Info("iteration done", "iteration", r.Iter)
		}
	}
	s.events.Flush()
	up, rec, down := s.m.Counts()
	s.met.workers.WithLabelValues("up").Set(float64(up))
	s.met.workers.WithLabelValues("reclaimed").Set(float64(rec))
	s.met.workers.WithLabelValues("down").Set(float64(down))
	s.met.held.Set(float64(s.m.Held()))
	s.met.iteration.Set(float64(s.m.Iter()))
	s.met.open.Set(float64(s.m.OpenTasks()))
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

func (s *Server) killDeadSessions() {
	for id, ss := range s.sessions {
		if _, ok := s.m.bySession[id]; !ok {
			s.killSession(ss)
		}
	}
}

func (s *Server) killSession(ss *session) {
	if !ss.dead {
		ss.dead = true
		close(ss.kill)
	}
	delete(s.sessions, ss.id)
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
	select {
	case ss.out <- msg:
	default:
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
	res := filepath.Join(work, fmt.Sprintf("results-%d", iter-1))
	tasks := filepath.Join(work, fmt.Sprintf("tasks-%d", iter))
	for _, d := range []string{res, tasks} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if iter > 0 {
		results, err := s.db.Results(iter - 1)
		if err != nil {
			return nil, err
		}
		for name, d := range results {
			if err := s.blobs.Verify(d); err != nil {
				return nil, fmt.Errorf("result of task %s of iteration %d: %v", name, iter-1, err)
			}
			if err := copyFile(s.blobs.Path(d), filepath.Join(res, name)); err != nil {
				return nil, err
			}
		}
	}
	names, err := s.opt.App.RunDriver(ctx, iter, res, tasks, filepath.Join(s.opt.State, "output"))
	if err != nil {
		return nil, err
	}
	var specs []TaskSpec
	for _, n := range names {
		f, err := os.Open(filepath.Join(tasks, n))
		if err != nil {
			return nil, err
		}
		d, err := s.blobs.PutReader(f, "", 0)
		f.Close()
		if err != nil {
			return nil, err
		}
		specs = append(specs, TaskSpec{Name: n, Digest: d, Size: s.blobs.Size(d)})
	}
	if err := s.db.AddIteration(iter, specs); err != nil {
		return nil, err
	}
	os.RemoveAll(res)
	os.RemoveAll(tasks)
	return specs, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// refreshTokens rereads the tokens every second (`volsched master token
// revoke` writes the database from another process); the sessions of a
// revoked worker end.
func (s *Server) refreshTokens(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
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
		ss := &session{id: id, name: name, out: make(chan *livepb.MasterMessage, 256), kill: make(chan struct{})}
		s.sessions[id] = ss
		s.killDeadSessions()
		resp = &livepb.RegisterResponse{Worker: name, Session: id, SlotNs: int64(s.opt.Slot), HeartbeatNs: int64(s.opt.Heartbeat), Keep: keep,
			ProgramDigest: s.m.cfg.ProgramDigest, Entry: s.m.cfg.Entry, Env: s.m.cfg.Env}
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

// Session implements the protocol's Session stream.
func (s *Server) Session(ctx context.Context, st *connect.BidiStream[livepb.WorkerMessage, livepb.MasterMessage]) error {
	name, ok := s.authName(st.RequestHeader())
	if !ok {
		s.met.authFailures.Inc()
		return errAuth
	}
	first, err := st.Receive()
	if err != nil {
		return err
	}
	var ss *session
	if err := s.call(ctx, func() {
		if x := s.sessions[first.Session]; x != nil && x.name == name {
			ss = x
		}
	}); err != nil {
		return err
	}
	if ss == nil {
		return connect.NewError(connect.CodeFailedPrecondition, ErrSession)
	}
	s.handle(ss, first)
	recvErr := make(chan error, 1)
	go func() {
		for {
			msg, err := st.Receive()
			if err != nil {
				recvErr <- err
				return
			}
			if msg.Session != ss.id {
				recvErr <- connect.NewError(connect.CodeInvalidArgument, errors.New("message for another session"))
				return
			}
			s.handle(ss, msg)
		}
	}()
	var end error
	for end == nil {
		select {
		case msg := <-ss.out:
			if err := st.Send(msg); err != nil {
				end = err
			}
		case <-ss.kill:
			end = connect.NewError(connect.CodeFailedPrecondition, ErrSession)
			if ss.finished {
				end = connect.NewError(connect.CodeFailedPrecondition, errFinished)
			}
		case err := <-recvErr:
			end = err
			if errors.Is(err, io.EOF) {
				end = nil
			}
			s.post(func() {
				if s.sessions[ss.id] == ss {
					s.m.Disconnect(s.now(), ss.id)
					s.killSession(ss)
				}
			})
			return end
		case <-ctx.Done():
			end = ctx.Err()
		}
	}
	s.post(func() {
		if s.sessions[ss.id] == ss {
			s.m.Disconnect(s.now(), ss.id)
			s.killSession(ss)
		}
	})
	return end
}

func (s *Server) handle(ss *session, msg *livepb.WorkerMessage) {
	s.post(func() {
		now := s.now()
		var err error
		switch m := msg.Msg.(type) {
		case *livepb.WorkerMessage_Heartbeat:
			s.met.heartbeats.Inc()
			st := availability.Up
			switch m.Heartbeat.State {
			case livepb.State_STATE_RECLAIMED:
				st = availability.Reclaimed
			case livepb.State_STATE_DOWN:
				st = availability.Down
			}
			err = s.m.Heartbeat(now, ss.id, st)
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

// SubmitResult implements the protocol's SubmitResult: accepted only once
// the result is committed to the database.
func (s *Server) SubmitResult(ctx context.Context, req *connect.Request[livepb.SubmitResultRequest]) (*connect.Response[livepb.SubmitResultResponse], error) {
	name, ok := s.authName(req.Header())
	if !ok {
		s.met.authFailures.Inc()
		return nil, errAuth
	}
	r := req.Msg
	if !blob.ValidDigest(r.Digest) || !s.blobs.Has(r.Digest) {
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
