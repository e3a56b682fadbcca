package node

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/overlay"
)

// Clock gives the time the overlay's roles decide with, in seconds. The
// default is the Unix time; a test may freeze it.
type Clock interface{ Now() float64 }

type wallClock struct{}

func (wallClock) Now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// ManualClock is a clock set by hand (tests that compare the daemons'
// decisions with the simulator's at chosen instants).
type ManualClock struct {
	mu sync.Mutex
	t  float64
}

func (c *ManualClock) Now() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *ManualClock) Set(t float64) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Config is one daemon.
type Config struct {
	// Listen is the address to listen on; Advertise the address the other
	// nodes reach this one at, which is also its identity (default: the
	// listener's address). Listener, when not nil, is used instead of
	// Listen.
	Listen    string
	Advertise string
	Listener  net.Listener
	// Join lists members to join through (tried in turn). Peers, instead,
	// is the whole initial membership (this node's address included):
	// every node builds the same balanced tree over the sorted addresses,
	// as the simulator does, with no join messages. Neither: this node
	// rejoins through the members its state remembers (members.go), and
	// starts a tree of its own if it remembers none or none answers.
	Join  []string
	Peers []string
	// Options are the policy (any registered one, the same on every node)
	// and its parameters; zero fields take the policy's defaults
	// (Options.WithDefaults). Clustering and Cells are the accuracy
	// experiment's, refused here. Bandwidth is the update limit, bytes
	// per second per link (0: the policy's default,
	// Policy.DefaultBandwidth; < 0: unlimited).
	overlay.Options
	Bandwidth float64
	// State is the state directory (database, programs, task files).
	State string
	// Cert is this node's certificate (client and server use) and CA the
	// cluster's CA: only peers with a certificate from it are heard.
	Cert tls.Certificate
	CA   *x509.Certificate
	// The execution node: memory and disk offered (MB), power (MFLOPS per
	// slot), tasks run at once.
	Mem, Disk, Power float64
	Slots            int
	// Heartbeat is the interval of heartbeats between fathers and children;
	// a neighbour silent for DeadAfter (default 4 heartbeats) is taken for
	// failed. Detect is how long a submission node waits for news of its
	// tasks (a lease from their execution node, a claim or return of its
	// requests) before it resubmits them (§3.5; default 60 s).
	Heartbeat time.Duration
	DeadAfter time.Duration
	Detect    time.Duration
	// StartGrace is how long a node placed from Peers waits for a
	// neighbour it has never heard from before taking it for failed (the
	// nodes of a cluster do not all start at once; default 30 s).
	StartGrace time.Duration
	// Retry is the first wait before tasks the overlay returned
	// unallocated are requested again (doubling up to 32 times it).
	Retry time.Duration
	// Clock is the overlay's clock (nil: Unix time).
	Clock Clock
	// Runner runs one task (nil: as a process, program INPUT OUTPUT).
	Runner Runner
	// Codec is the overlay messages' wire form (nil: the default).
	Codec MsgCodec
	// Logf logs (nil: the standard logger with the node's address).
	Logf func(format string, args ...any)
	// Seed draws vertex identifiers (0: random).
	Seed uint64
}

// DefaultConfig are the defaults of `volsched node`'s flags, but for the
// policy's options (Options, Bandwidth), whose defaults are the policy's
// (withDefaults).
func DefaultConfig() Config {
	return Config{Mem: 1024, Disk: 10240, Power: 1000, Slots: 1, Heartbeat: time.Second, Detect: time.Minute, StartGrace: 30 * time.Second, Retry: time.Second}
}

// withDefaults gives the zero fields their defaults: DefaultConfig's,
// DeadAfter 4 heart-beats, the policy's (Options.WithDefaults; Bandwidth
// 0: Policy.DefaultBandwidth, < 0: unlimited), a wall clock and a process
// runner. A program sets only what it changes.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	for _, f := range []struct{ v, def *float64 }{{&c.Mem, &d.Mem}, {&c.Disk, &d.Disk}, {&c.Power, &d.Power}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	for _, f := range []struct{ v, def *time.Duration }{{&c.Heartbeat, &d.Heartbeat}, {&c.Detect, &d.Detect}, {&c.StartGrace, &d.StartGrace}, {&c.Retry, &d.Retry}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	if c.Slots == 0 {
		c.Slots = d.Slots
	}
	if c.DeadAfter == 0 {
		c.DeadAfter = 4 * c.Heartbeat
	}
	// The policy's.
	c.Options = c.Options.WithDefaults()
	switch {
	case c.Bandwidth == 0:
		c.Bandwidth = c.Policy.DefaultBandwidth()
	case c.Bandwidth < 0:
		c.Bandwidth = 0
	}
	if c.Clock == nil {
		c.Clock = wallClock{}
	}
	if c.Runner == nil {
		c.Runner = ProcessRunner{}
	}
	return c
}

// Validate checks the configuration as it is (New gives the zero fields
// their defaults first; the CLI validates its flags' values, so that
// --mem 0 is refused, not taken for the default). Errors name the flag of
// `volsched node`, the value and what is wanted.
func (c *Config) Validate() error {
	// The policy's (overlay.Options): --sfmax 0 is the policy's default,
	// --beta is checked as given; the options that are no flags of the
	// command (Samples, Horizon) may be zero (the policy's).
	if c.Clustering != nil || c.Cells != nil {
		return errors.New("clustering and cells: the authors' variants (package overlay/stars) are options of the accuracy experiment; the daemons run Fig. 3 with the overlay's cells")
	}
	if !c.Policy.Valid() {
		return fmt.Errorf("--policy: none given, want %s", overlay.PolicyNames())
	}
	if c.SFMax < 0 || c.SFMax > overlay.MaxSFMax {
		return fmt.Errorf("--sfmax %d: want 0 (the policy's default) or 1 to %d", c.SFMax, overlay.MaxSFMax)
	}
	if !(c.Beta > 0 && c.Beta <= 1) {
		return fmt.Errorf("--beta %g: want a value in (0, 1]", c.Beta)
	}
	if err := c.Options.WithDefaults().Validate(); err != nil {
		return err
	}
	if math.IsNaN(c.Bandwidth) || math.IsInf(c.Bandwidth, 0) {
		return fmt.Errorf("--bandwidth %g: want a finite value (B/s; 0: the policy's default, < 0: none)", c.Bandwidth)
	}
	// The node's.
	if c.Listener == nil {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			return fmt.Errorf("--listen %q: want host:port", c.Listen)
		}
	}
	if c.Advertise != "" {
		if err := validNodeAddr("--advertise", c.Advertise); err != nil {
			return err
		}
	}
	if c.State == "" {
		return errors.New("--state: none given, want the state directory")
	}
	if c.CA == nil || len(c.Cert.Certificate) == 0 {
		return errors.New("--creds: a certificate and the cluster's CA are needed")
	}
	for _, x := range []struct {
		flag string
		v    float64
	}{{"mem", c.Mem}, {"disk", c.Disk}, {"power", c.Power}} {
		if !(x.v > 0) || math.IsInf(x.v, 0) {
			return fmt.Errorf("--%s %g: want a finite value > 0", x.flag, x.v)
		}
	}
	if c.Slots < 1 || c.Slots > 1024 {
		return fmt.Errorf("--slots %d: want 1 to 1024", c.Slots)
	}
	switch {
	case c.Heartbeat < time.Millisecond || c.Heartbeat > time.Hour:
		return fmt.Errorf("--heartbeat %v: want 1ms to 1h", c.Heartbeat)
	case c.DeadAfter < 0 || c.DeadAfter != 0 && c.DeadAfter < 2*c.Heartbeat:
		return fmt.Errorf("--dead-after %v: want at least two heartbeats (%v; 0: four)", c.DeadAfter, 2*c.Heartbeat)
	case c.Detect <= 0 || c.Detect < c.DeadAfter || c.DeadAfter == 0 && c.Detect < 4*c.Heartbeat:
		return fmt.Errorf("--detect %v: want at least --dead-after (%v)", c.Detect, max(c.DeadAfter, 4*c.Heartbeat))
	case c.StartGrace <= 0:
		return fmt.Errorf("--start-grace %v: want a duration > 0", c.StartGrace)
	case c.Retry <= 0:
		return fmt.Errorf("--retry %v: want a duration > 0", c.Retry)
	case len(c.Peers) > 0 && len(c.Join) > 0:
		return errors.New("--join and --peers both given: want one")
	}
	return nil
}

// Node is one daemon: the execution role, the submission role and the
// routing roles the tree gives it, driven by one goroutine.
type Node struct {
	cfg   Config
	self  string
	oc    overlay.Config
	tr    *transport
	ctr   counters
	st    *store
	rng   *rand.Rand
	inbox chan inbound
	calls chan func()
	// posted holds what post queued for the loop (not a bounded channel:
	// the store's goroutines post, and the loop may be waiting for room
	// in the store's queues: with both full, neither would move).
	postMu   sync.Mutex
	posted   []func()
	postWake chan struct{} // capacity 1: something is in posted
	logf     func(string, ...any)
	dir      string

	// tree
	leaf         *leafRole
	routers      map[overlay.Addr]*routerRole
	root         Ref
	joinAt       time.Time // next join attempt (zero: none pending)
	joinK        int
	joinAttach   Ref                     // the vertex being attached (none: a new leaf)
	joinLeaf     bool                    // joinAttach is this node's leaf
	joinMaxDepth int                     // a move: how deep the leaf may end
	wasMember    bool                    // the state says this node was in a tree before (restart: join again)
	remembered   []string                // the neighbours' nodes stored in the state (members.go)
	rejoining    bool                    // started with neither Join nor Peers, joining through remembered
	moved        map[overlay.Addr]string // vertices this node gave up, to whom
	heardFrom    map[string]time.Time    // when each node was last heard from (any frame)
	memberSeen   time.Time               // last JoinAck: a tree exists
	joinStarted  time.Time
	lastBal      time.Time

	// execution
	exec     *realExec
	held     map[heldKey]*heldResult
	heldSent map[heldKey]time.Time
	running  map[*execTask]bool
	wantBlob map[string][]*execTask
	inputs   map[*execTask][]byte
	programs map[string]bool
	seqRun   uint64
	runID    string // this run of the daemon (task directories never collide with a previous run's)
	tasksRun uint64

	// submission
	bags map[uint64]*bag

	local    []localMsg
	localCtl []localCtl
	out      []overlay.Msg
	hbNext   time.Time
	started  time.Time

	stop     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	life     sync.Mutex // Start against Close/Kill: a node closed unstarted never starts
	launched bool       // Start ran (life held)
	closing  bool       // Close or Kill ran (life held)
	closeErr error
	leaving  bool
}

type localCtl struct {
	m validator
}

type localMsg struct {
	sub string
	m   overlay.Msg
}

type heldKey struct {
	bag  uint64
	task int
	sub  string
}

// ConfigError is an error of New caused by the configuration itself (a
// value out of range, a field missing, an address that is not host:port),
// as opposed to one the machine causes (an address in use, a state
// directory that cannot be opened), which New returns as it is.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New checks the configuration (a *ConfigError if it is wrong; its zero
// fields take their defaults first), opens the state and the listener.
// Start runs it.
func New(cfg Config) (*Node, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, &ConfigError{err}
	}
	abs, err := filepath.Abs(cfg.State)
	if err != nil {
		return nil, &ConfigError{fmt.Errorf("--state %s: %w", cfg.State, err)}
	}
	cfg.State = abs
	rules, err := overlay.NewRules(cfg.Options)
	if err != nil {
		return nil, &ConfigError{err}
	}
	codec := cfg.Codec
	if codec == nil {
		codec = defaultCodec()
	}
	ln := cfg.Listener
	if ln == nil {
		ln, err = net.Listen("tcp", cfg.Listen)
		if err != nil {
			var oe *net.OpError
			if errors.As(err, &oe) && oe.Err != nil {
				err = oe.Err // "bind: address already in use", without the address again
			}
			return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
		}
	}
	self := cfg.Advertise
	if self == "" {
		self = ln.Addr().String()
	}
	if err := validNodeAddr("advertised address", self); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listener's address: %w", err)
	}
	st, err := openStore(cfg.State)
	if err != nil {
		ln.Close()
		return nil, err
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	n := &Node{cfg: cfg, self: self, oc: overlay.Config{Rules: rules, Bandwidth: cfg.Bandwidth}, st: st,
		rng: rand.New(rand.NewPCG(seed, uint64(len(self)))), inbox: make(chan inbound, 4096), calls: make(chan func(), 1024), postWake: make(chan struct{}, 1),
		dir: cfg.State, routers: make(map[overlay.Addr]*routerRole), heardFrom: make(map[string]time.Time), moved: make(map[overlay.Addr]string),
		held: make(map[heldKey]*heldResult), heldSent: make(map[heldKey]time.Time), inputs: make(map[*execTask][]byte),
		programs: make(map[string]bool), running: make(map[*execTask]bool), wantBlob: make(map[string][]*execTask),
		bags: make(map[uint64]*bag), stop: make(chan struct{}), stopped: make(chan struct{})}
	n.logf = cfg.Logf
	if n.logf == nil {
		lg := log.New(os.Stderr, "node "+self+": ", log.LstdFlags|log.Lmicroseconds)
		n.logf = lg.Printf
	}
	cli := pki.MutualClientConfig(cfg.Cert, cfg.CA)
	srv := pki.MutualServerConfig(cfg.Cert, cfg.CA)
	n.tr = newTransport(self, ln, srv, cli, codec, n.inbox, n.logf, &n.ctr)
	n.exec = newRealExec(rules.Options(), cfg.Mem, cfg.Disk, cfg.Power, cfg.Slots)
	// Task directories a previous run left (it was killed): removed.
	if err := os.RemoveAll(filepath.Join(cfg.State, "work")); err != nil {
		st.close()
		ln.Close()
		return nil, fmt.Errorf("state directory %s: removing the previous run's task directories: %w", cfg.State, err)
	}
	n.runID = newRunID()
	for _, d := range []string{"bin", "work"} {
		if err := os.MkdirAll(filepath.Join(cfg.State, d), 0o700); err != nil {
			st.close()
			ln.Close()
			return nil, fmt.Errorf("state directory %s: %w", cfg.State, err)
		}
	}
	if err := n.loadState(); err != nil {
		st.close()
		ln.Close()
		return nil, fmt.Errorf("state directory %s: loading the state: %w", cfg.State, err)
	}
	return n, nil
}

// newRunID names one run of a daemon: 64 random bits from crypto/rand,
// not from the node's stream (which a fixed Seed repeats: a node made
// again with the same configuration, while the killed one's tasks still
// end, would reuse its task directories' names).
func newRunID() string {
	var b [8]byte
	crand.Read(b[:]) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b[:])
}

// Addr is the node's advertised address (its identity).
func (n *Node) Addr() string { return n.self }

// Start serves the listener and runs the node until ctx ends or Close.
// After Close or Kill it does nothing.
func (n *Node) Start(ctx context.Context) {
	n.life.Lock()
	defer n.life.Unlock()
	if n.closing || n.launched {
		return
	}
	n.launched = true
	n.tr.serve()
	n.started = time.Now()
	go func() {
		select {
		case <-ctx.Done():
			n.Close()
		case <-n.stopped:
		}
	}()
	go n.loop()
}

// call runs f in the node's goroutine and waits for it (false if the
// node stopped).
func (n *Node) call(f func()) bool {
	done := make(chan struct{})
	select {
	case n.calls <- func() { f(); close(done) }:
	case <-n.stopped:
		return false
	}
	select {
	case <-done:
		return true
	case <-n.stopped:
		return false
	}
}

// post runs f in the node's goroutine later (from any goroutine), after
// what was posted before it; it never waits.
func (n *Node) post(f func()) {
	select {
	case <-n.stopped:
		return
	default:
	}
	n.postMu.Lock()
	n.posted = append(n.posted, f)
	n.postMu.Unlock()
	select {
	case n.postWake <- struct{}{}:
	default:
	}
}

// runPosted runs what post queued, in order.
func (n *Node) runPosted() {
	n.postMu.Lock()
	fs := n.posted
	n.posted = nil
	n.postMu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Close leaves the tree (telling the neighbours, so that they repair it
// at once), kills the running tasks and stops the node.
func (n *Node) Close() error {
	if !n.closeStarted() {
		return n.closeErr
	}
	n.stopOnce.Do(func() {
		n.call(func() { n.leave() })
		n.tr.flush(500 * time.Millisecond)
		close(n.stop)
		<-n.stopped
		n.tr.close()
		n.closeErr = n.st.close()
	})
	return n.closeErr
}

// Kill stops the node abruptly, as a crash would: no message to anyone,
// the running tasks killed (tests).
func (n *Node) Kill() {
	if !n.closeStarted() {
		return
	}
	n.stopOnce.Do(func() {
		n.tr.close()
		close(n.stop)
		<-n.stopped
		n.closeErr = n.st.close()
	})
}

// closeStarted marks the node closing and reports whether it was started;
// a node never started is closed here (its transport and store; nothing
// to leave, no loop to stop), and Done is closed.
func (n *Node) closeStarted() bool {
	n.life.Lock()
	defer n.life.Unlock()
	n.closing = true
	if n.launched {
		return true
	}
	n.stopOnce.Do(func() {
		close(n.stop)
		close(n.stopped)
		n.tr.close()
		n.closeErr = n.st.close()
	})
	return false
}

// Done is closed when the node has stopped.
func (n *Node) Done() <-chan struct{} { return n.stopped }

func (n *Node) now() float64 { return n.cfg.Clock.Now() }

func (n *Node) loop() {
	defer close(n.stopped)
	defer n.killTasks()
	n.bootstrap()
	timer := time.NewTimer(0)
	defer timer.Stop()
	tick := max(n.cfg.Heartbeat/4, time.Millisecond)
	nextHouse := time.Now()
	for {
		select {
		case in := <-n.inbox:
			n.receive(in)
			n.drain()
			if in.t < fMax {
				n.ctr.handled[in.t].Add(1)
			}
		case f := <-n.calls:
			f()
		case <-n.postWake:
			n.runPosted()
		case <-timer.C:
		case <-n.stop:
			return
		}
		n.drain()
		if t := time.Now(); !t.Before(nextHouse) {
			if late := t.Sub(nextHouse); late > tick {
				// This node did not run for a while (an overloaded
				// machine): that time is not counted against its
				// neighbours' silence.
				n.stalled(late)
			}
			n.housekeeping(t)
			n.drain()
			nextHouse = t.Add(tick)
		}
		n.wakes()
		n.drain()
		n.startTasks()
		d := time.Until(nextHouse)
		if w := n.nextWake(); w < math.Inf(1) {
			if dw := time.Duration((w - n.now()) * 1e9); dw < d {
				d = max(dw, 0)
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(max(d, 0))
	}
}

// drain delivers the messages between this node's own roles.
// The queues are read by index (not resliced from the front), so that
// their arrays are kept from one step to the next instead of being
// allocated again once the front has eaten their capacity.
func (n *Node) drain() {
	li, ci := 0, 0
	for li < len(n.local) || ci < len(n.localCtl) {
		for li < len(n.local) {
			lm := n.local[li]
			n.local[li] = localMsg{}
			li++
			n.deliver(n.self, lm.sub, lm.m)
		}
		if ci < len(n.localCtl) {
			c := n.localCtl[ci]
			n.localCtl[ci] = localCtl{}
			ci++
			n.control(n.self, c.m)
		}
	}
	n.local, n.localCtl = n.local[:0], n.localCtl[:0]
}

// receive handles one frame from the network.
func (n *Node) receive(in inbound) {
	if in.reply != nil {
		n.client(in)
		return
	}
	n.heardFrom[in.from] = time.Now()
	if in.t == fOverlay {
		n.deliver(in.from, in.sub, in.msg)
		return
	}
	n.control(in.from, in.ctl)
}

// invalid logs a dropped message.
func (n *Node) invalid(from, what string, err error) {
	n.ctr.invalid.Add(1)
	n.logf("dropped %s from %s: %v", what, from, err)
}

// stale logs a well-formed message dropped because its sender does not
// hold the link it claims: sent by a vertex's former player before it
// learnt of the hand-over, or by a node whose relink this node has not
// heard of yet. Normal while the tree changes; never applied.
func (n *Node) stale(from, what string, err error) {
	n.ctr.stale.Add(1)
	n.logf("ignored %s from %s (stale link): %v", what, from, err)
}

// sendCtl sends a control message to node addr (to itself: handled after
// the current step).
func (n *Node) sendCtl(addr string, m validator) {
	if addr == "" {
		return
	}
	if addr == n.self {
		n.localCtl = append(n.localCtl, localCtl{m})
		return
	}
	b, err := encodeControl(m)
	if err != nil {
		n.logf("encode %s: %v", frameOf(m), err)
		return
	}
	n.tr.send(addr, b)
}

// sendOverlay sends an overlay message to the node playing its
// destination.
func (n *Node) sendOverlay(addr, sub string, m overlay.Msg) {
	if addr == n.self {
		n.local = append(n.local, localMsg{sub, m})
		return
	}
	b, err := appendOverlayFrame(n.tr.codec, sub, &m)
	if err != nil {
		n.logf("encode overlay %s: %v", m.Kind, err)
		return
	}
	n.tr.send(addr, b)
}

// validateMsg checks an overlay message before any role sees it.
func (n *Node) validateMsg(m *overlay.Msg) error {
	if err := m.Validate(); err != nil {
		return err
	}
	switch m.Kind {
	case overlay.KindRequest, overlay.KindReturn:
		r := &m.Req
		if r.N < 1 || r.N > MaxTasks {
			return fmt.Errorf("%s of %d tasks: want 1 to %d", m.Kind, r.N, MaxTasks)
		}
		if err := r.App.Validate(); err != nil {
			return err
		}
		if math.IsInf(r.App.Length, 0) || math.IsInf(r.App.Mem, 0) || math.IsInf(r.App.Disk, 0) || math.IsNaN(r.App.Deadline) {
			return fmt.Errorf("app %d: length %g, memory %g, disk %g, deadline %g: want finite values and a deadline",
				r.App.ID, r.App.Length, r.App.Mem, r.App.Disk, r.App.Deadline)
		}
	case overlay.KindUpdate:
		if m.Sum != nil {
			if ps, ok := m.Sum.(overlay.PolicySummary); !ok || ps.Policy() != n.cfg.Policy {
				what := fmt.Sprintf("type %T", m.Sum)
				if ok {
					what = "policy " + ps.Policy().String()
				}
				return fmt.Errorf("summary of %s: this overlay runs policy %s (every node needs the same --policy)", what, n.cfg.Policy)
			}
			if k := m.Sum.Len(); k > n.cfg.SFMax && k > n.cfg.Slots {
				return fmt.Errorf("summary of %d sampled functions: want at most SF_max = %d", k, n.cfg.SFMax)
			}
			if v := m.Sum.Nodes(); v < 0 || v > 1<<30 {
				return fmt.Errorf("summary of %d nodes: want 0 to %d", v, 1<<30)
			}
		}
	case overlay.KindBound:
		if math.IsNaN(m.Bound) || math.IsInf(m.Bound, 1) {
			return fmt.Errorf("bound %g: want a time or -Inf", m.Bound)
		}
	default:
		return fmt.Errorf("kind %s: not sent between nodes", m.Kind)
	}
	return nil
}

// deliver runs an overlay message through the role it is for.
func (n *Node) deliver(from, sub string, m overlay.Msg) {
	if err := n.validateMsg(&m); err != nil {
		n.invalid(from, "overlay "+m.Kind.String(), err)
		return
	}
	if m.Kind == overlay.KindReturn {
		n.onReturn(from, m)
		return
	}
	now := n.now()
	if l := n.leaf; l != nil && l.self.ID == m.To {
		if from != n.self || m.From != l.self.ID {
			// From its father only (a request to a root leaf comes from
			// its own node's submission role).
			if l.father.None() || m.From != l.father.ID || from != l.father.Node {
				if !(l.father.None() && from == n.self) {
					err := fmt.Errorf("from vertex %d: not the father of leaf %d", m.From, m.To)
					if !l.father.None() && m.From == l.father.ID {
						n.stale(from, "overlay "+m.Kind.String(), fmt.Errorf("%v here (played by %s)", err, l.father.Node))
					} else if l.former.has(m.From, from) {
						n.stale(from, "overlay "+m.Kind.String(), fmt.Errorf("%v any more", err))
					} else {
						n.invalid(from, "overlay "+m.Kind.String(), err)
					}
					return
				}
			}
		}
		if m.Kind == overlay.KindRequest {
			n.exec.subNode = sub
			n.exec.accepted = n.exec.accepted[:0]
		}
		out := l.l.Step(&n.oc, now, m, n.out[:0])
		if m.Kind == overlay.KindRequest {
			n.claim(n.exec.accepted)
			n.exec.accepted = n.exec.accepted[:0]
		}
		n.dispatchLeaf(out, sub)
		return
	}
	r := n.routers[m.To]
	if r == nil {
		if m.Kind != overlay.KindBound {
			n.logf("dropped overlay %s for vertex %d from %s: not played here", m.Kind, m.To, from)
		}
		return
	}
	nb := r.neighbour(m.From)
	if nb.None() {
		err := fmt.Errorf("from vertex %d: not a neighbour of vertex %d", m.From, m.To)
		if r.former.has(m.From, from) {
			n.stale(from, "overlay "+m.Kind.String(), fmt.Errorf("%v any more", err))
		} else {
			n.invalid(from, "overlay "+m.Kind.String(), err)
		}
		return
	}
	if nb.Node != from {
		n.stale(from, "overlay "+m.Kind.String(), fmt.Errorf("from vertex %d: a neighbour of vertex %d played by %s here", m.From, m.To, nb.Node))
		return
	}
	out := r.r.Step(&n.oc, now, m, n.out[:0])
	n.dispatchRouter(r, out, sub)
}

// dispatchLeaf sends what the leaf's step produced.
func (n *Node) dispatchLeaf(out []overlay.Msg, sub string) {
	for i := range out {
		m := out[i]
		out[i] = overlay.Msg{}
		switch m.Kind {
		case overlay.KindUpdate:
			if n.leaf != nil && !n.leaf.father.None() && m.To == n.leaf.father.ID {
				n.sendOverlay(n.leaf.father.Node, "", m)
			}
		case overlay.KindReturn:
			n.sendOverlay(sub, sub, m)
		}
		// KindDone (and the overlay's acknowledgements): the node's
		// results and claims say it to the submission node, task by task.
	}
	n.out = out[:0]
}

// dispatchRouter sends what a router's step produced.
func (n *Node) dispatchRouter(r *routerRole, out []overlay.Msg, sub string) {
	for i := range out {
		m := out[i]
		out[i] = overlay.Msg{}
		if m.Kind == overlay.KindReturn {
			n.sendOverlay(sub, sub, m)
			continue
		}
		nb := r.neighbour(m.To)
		if nb.None() {
			n.logf("router %v: %s for vertex %d: not a neighbour, dropped", r.view.Self, m.Kind, m.To)
			continue
		}
		s := ""
		if m.Kind == overlay.KindRequest {
			s = sub
		}
		n.sendOverlay(nb.Node, s, m)
	}
	n.out = out[:0]
}

// stepLeafTick steps the leaf with a tick (its summary goes up if it
// changed, finished tasks are reported).
func (n *Node) stepLeafTick() {
	if n.leaf == nil {
		return
	}
	out := n.leaf.l.Step(&n.oc, n.now(), overlay.Msg{Kind: overlay.KindTick, To: n.leaf.self.ID}, n.out[:0])
	n.dispatchLeaf(out, "")
}

// wakes steps the roles whose wake time has come.
func (n *Node) wakes() {
	now := n.now()
	if n.leaf != nil && n.leaf.l.Wake() <= now {
		n.stepLeafTick()
	}
	for _, r := range n.routers {
		if r.r.Wake() <= now {
			out := r.r.Step(&n.oc, now, overlay.Msg{Kind: overlay.KindTick, To: r.view.Self.ID}, n.out[:0])
			n.dispatchRouter(r, out, "")
		}
	}
}

func (n *Node) nextWake() float64 {
	w := math.Inf(1)
	if n.leaf != nil {
		w = n.leaf.l.Wake()
	}
	for _, r := range n.routers {
		w = min(w, r.r.Wake())
	}
	return w
}

// housekeeping runs the node's timers: heartbeats, failure detection,
// joins, the submission role's requests and detection, the execution
// role's leases.
func (n *Node) housekeeping(t time.Time) {
	if n.leaving {
		return
	}
	n.treeTimers(t)
	if !t.Before(n.hbNext) {
		n.heartbeats()
		n.hbNext = t.Add(n.cfg.Heartbeat)
		n.leases(t)
		n.forgetSilent(t)
		n.rememberNeighbours()
	}
	n.submitTimers(t)
	n.execTimers(t)
}

// heardWindow is how long a node heard from counts (formTree); older
// entries of heardFrom are dropped (forgetSilent), so that the map holds
// the nodes heard from lately, not every name ever seen.
func (n *Node) heardWindow() time.Duration { return 2 * n.cfg.DeadAfter }

// forgetSilent drops the nodes not heard from within heardWindow.
func (n *Node) forgetSilent(t time.Time) {
	for a, h := range n.heardFrom {
		if t.Sub(h) >= n.heardWindow() {
			delete(n.heardFrom, a)
		}
	}
}

// sortedKeys returns the routers' ids in order (deterministic iteration).
func (n *Node) routerIDs() []overlay.Addr {
	ids := make([]overlay.Addr, 0, len(n.routers))
	for id := range n.routers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
