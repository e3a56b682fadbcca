package node

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/volsched/volsched/overlay"
)

// alpn is the application protocol both sides of a connection announce.
const alpn = "volsched-node/1"

// inbound is one decoded frame handed to the node's loop.
type inbound struct {
	from  string // the sending node's address ("" for a client)
	t     FrameType
	ctl   validator   // control frames
	sub   string      // overlay frames: the submitter's node address
	msg   overlay.Msg // overlay frames
	size  int
	reply func(validator) // clients only: answers on the same connection
}

// counters are a transport's traffic counts, safe for concurrent use.
type counters struct {
	msgsOut, bytesOut, msgsIn, bytesIn atomic.Uint64
	dropped, refused, invalid, stale   atomic.Uint64
	byTypeOut                          [fMax]atomic.Uint64
	byTypeIn                           [fMax]atomic.Uint64
	byteTypeOut                        [fMax]atomic.Uint64
	// queued: frames put in a peer's queue; handled: frames the node's
	// loop has finished handling. Summed over a cluster, equal counts of
	// a type mean none is in flight (the tests' quiescence).
	queued, handled [fMax]atomic.Uint64
}

// Traffic is a snapshot of a node's message counts since it started.
type Traffic struct {
	MsgsOut, BytesOut, MsgsIn, BytesIn uint64
	// Dropped: frames not sent (queue full or peer unreachable); Refused:
	// connections refused (TLS or hello); Invalid: frames dropped because
	// they failed decoding or validation; Stale: well-formed messages
	// dropped because their sender does not hold the link they claim (a
	// vertex's former player, or one whose relink has not reached this
	// node: messages in flight while the tree changes).
	Dropped, Refused, Invalid, Stale uint64
	// ByType counts frames sent by frame type name; BytesByType their bytes.
	ByType, BytesByType map[string]uint64
}

// transport holds a node's listener and its outgoing connections: one per
// peer, used in one direction (the peer answers on its own), so that the
// frames from one node to another arrive in the order they were sent.
type transport struct {
	self   string
	srv    *tls.Config
	cli    *tls.Config
	ln     net.Listener
	inbox  chan<- inbound
	codec  MsgCodec
	logf   func(format string, args ...any)
	ctr    *counters
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	peers  map[string]*peer
	conns  map[net.Conn]struct{}
	closed bool
	// queueLen is the number of frames waiting per peer before new ones
	// are dropped.
	queueLen int
}

type peer struct {
	addr     string
	q        chan []byte
	lastFail time.Time
	failing  atomic.Bool
}

func tlsWithALPN(c *tls.Config) *tls.Config {
	c = c.Clone()
	c.NextProtos = []string{alpn}
	if c.ClientSessionCache == nil && len(c.Certificates) > 0 && c.ClientCAs == nil {
		// Reconnections to a peer resume the session (no certificate
		// signature and verification again).
		c.ClientSessionCache = tls.NewLRUClientSessionCache(256)
	}
	return c
}

func newTransport(self string, ln net.Listener, srv, cli *tls.Config, codec MsgCodec, inbox chan<- inbound, logf func(string, ...any), ctr *counters) *transport {
	return &transport{self: self, srv: tlsWithALPN(srv), cli: tlsWithALPN(cli), ln: ln, inbox: inbox, codec: codec,
		logf: logf, ctr: ctr, done: make(chan struct{}), peers: make(map[string]*peer), conns: make(map[net.Conn]struct{}),
		queueLen: 8192}
}

// serve accepts connections until close.
func (t *transport) serve() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			c, err := t.ln.Accept()
			if err != nil {
				select {
				case <-t.done:
					return
				default:
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				t.logf("accept: %v", err)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			if !t.track(c) {
				c.Close()
				return
			}
			t.wg.Add(1)
			go func() {
				defer t.wg.Done()
				defer t.untrack(c)
				t.handle(c)
			}()
		}
	}()
}

func (t *transport) track(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.conns[c] = struct{}{}
	return true
}

func (t *transport) untrack(c net.Conn) {
	c.Close()
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

// handle runs one incoming connection: TLS with a client certificate from
// the cluster's CA, a Hello, then frames until the connection ends.
func (t *transport) handle(raw net.Conn) {
	c := tls.Server(raw, t.srv)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := c.Handshake(); err != nil {
		t.ctr.refused.Add(1)
		t.logf("refused connection from %s: %v", raw.RemoteAddr(), err)
		return
	}
	r := bufio.NewReaderSize(c, 16<<10)
	ft, payload, err := readFrame(r)
	if err != nil || ft != fHello {
		t.ctr.refused.Add(1)
		t.logf("refused connection from %s: no hello (%v)", raw.RemoteAddr(), err)
		return
	}
	v, err := decodeControl(ft, payload)
	if err != nil {
		t.ctr.refused.Add(1)
		t.logf("refused connection from %s: %v", raw.RemoteAddr(), err)
		return
	}
	hello := v.(*Hello)
	c.SetDeadline(time.Time{})
	var reply func(validator)
	if hello.Client {
		// A client waits for answers on this connection; they are written
		// by the node's loop (through a small queue, so that a slow client
		// never blocks the loop).
		out := make(chan []byte, 64)
		var omu sync.Mutex
		outClosed := false
		replyDone := make(chan struct{})
		go func() {
			defer close(replyDone)
			failed := false
			for b := range out {
				if failed {
					continue
				}
				c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if _, err := c.Write(b); err != nil {
					c.Close()
					failed = true
				}
			}
		}()
		reply = func(m validator) {
			b, err := encodeControl(m)
			if err != nil {
				b, _ = encodeControl(&ErrorMsg{Err: err.Error()})
			}
			omu.Lock()
			defer omu.Unlock()
			if outClosed {
				return
			}
			select {
			case out <- b:
			default:
				t.ctr.dropped.Add(1)
			}
		}
		defer func() {
			omu.Lock()
			outClosed = true
			close(out)
			omu.Unlock()
			<-replyDone
		}()
	}
	for {
		ft, payload, err := readFrame(r)
		if err != nil {
			if !errors.Is(err, io.EOF) && !isClosed(err) {
				t.logf("connection from %s (%s): %v", hello.Node, raw.RemoteAddr(), err)
			}
			return
		}
		in := inbound{from: hello.Node, t: ft, size: len(payload) + 5, reply: reply}
		t.ctr.msgsIn.Add(1)
		t.ctr.bytesIn.Add(uint64(in.size))
		t.ctr.byTypeIn[ft].Add(1)
		switch {
		case ft == fHello:
			err = errors.New("a second hello")
		case ft == fOverlay:
			if hello.Client {
				err = errors.New("an overlay message from a client")
				break
			}
			in.sub, in.msg, err = decodeOverlayFrame(t.codec, payload)
		default:
			in.ctl, err = decodeControl(ft, payload)
		}
		if err != nil {
			t.ctr.invalid.Add(1)
			t.logf("dropped a %s frame from %s: %v", ft, peerName(hello), err)
			if reply != nil {
				reply(&ErrorMsg{Err: err.Error()})
			}
			continue
		}
		select {
		case t.inbox <- in:
		case <-t.done:
			return
		}
	}
}

func peerName(h *Hello) string {
	if h.Client {
		return "a client"
	}
	return h.Node
}

func isClosed(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF)
}

// send queues a frame for node addr (never blocks: a full queue drops it).
func (t *transport) send(addr string, frame []byte) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	p := t.peers[addr]
	if p == nil {
		p = &peer{addr: addr, q: make(chan []byte, t.queueLen)}
		t.peers[addr] = p
		t.wg.Add(1)
		go t.writer(p)
	}
	t.mu.Unlock()
	select {
	case p.q <- frame:
		if ft, ok := frameType(frame); ok {
			t.ctr.queued[ft].Add(1)
		}
	default:
		t.ctr.dropped.Add(1)
	}
}

// redialFor is how long a writer keeps a frame for a peer it cannot
// connect to, dialling again every second.
const redialFor = 10 * time.Second

// writer owns the connection to one peer: it dials when there is
// something to send, writes frames in order, redials after an error
// (during redialFor for the frame that found no connection; once the
// peer is taken for down, not more than once a second: frames for it are
// dropped meanwhile) and closes after a minute without frames.
func (t *transport) writer(p *peer) {
	defer t.wg.Done()
	var c *tls.Conn
	var w *bufio.Writer
	var gone chan struct{} // closed when the peer closes c
	idle := time.NewTimer(time.Minute)
	defer idle.Stop()
	closeConn := func() {
		if c != nil {
			c.Close()
			t.mu.Lock()
			delete(t.conns, c)
			t.mu.Unlock()
			c, w, gone = nil, nil, nil
		}
	}
	defer closeConn()
	for {
		var b []byte
		select {
		case b = <-p.q:
		case <-idle.C:
			t.mu.Lock()
			if len(p.q) == 0 {
				delete(t.peers, p.addr)
				t.mu.Unlock()
				return
			}
			t.mu.Unlock()
			idle.Reset(time.Minute)
			continue
		case <-t.done:
			return
		}
		idle.Reset(time.Minute)
		if c != nil {
			select {
			case <-gone:
				// The peer closed the connection (it stopped, or was
				// restarted): a frame written on it would be lost.
				closeConn()
			default:
			}
		}
		if c == nil {
			if p.failing.Load() && time.Since(p.lastFail) < time.Second {
				t.ctr.dropped.Add(1)
				continue
			}
			// A peer that does not answer in time may only be slow (a
			// loaded machine: hundreds of handshakes at a start): the
			// frame waits and the dial is tried again every second for
			// redialFor, the frames sent meanwhile queued behind it. A
			// peer unreachable that long is taken for down: this frame
			// is dropped, and so is every frame for it while the last
			// attempt is less than a second old.
			var err error
			for since := time.Now(); ; {
				c, err = t.dial(p.addr)
				if err == nil || time.Since(since) >= redialFor {
					break
				}
				if since.Add(time.Second).After(time.Now()) {
					t.logf("dial %s: %v (trying again every second for %v)", p.addr, err, redialFor)
				}
				select {
				case <-time.After(time.Second):
				case <-t.done:
					return
				}
			}
			if err != nil {
				t.logf("dial %s: %v (taken for down)", p.addr, err)
				p.lastFail = time.Now()
				p.failing.Store(true)
				t.ctr.dropped.Add(1)
				continue
			}
			p.failing.Store(false)
			w = bufio.NewWriterSize(c, 16<<10)
			gone = make(chan struct{})
			// c is in t.conns until closeConn closes it, and close closes
			// every tracked connection: the watcher always ends, and close
			// waits for it.
			t.wg.Add(1)
			go func(c *tls.Conn, gone chan struct{}) {
				defer t.wg.Done()
				watchClose(c, gone)
			}(c, gone)
		}
		n := len(b)
		t.count(b)
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := w.Write(b)
		// Write what else is queued before flushing.
		for err == nil && len(p.q) > 0 {
			b = <-p.q
			t.count(b)
			n += len(b)
			_, err = w.Write(b)
		}
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			p.lastFail = time.Now()
			closeConn()
		}
	}
}

// watchClose closes gone when the peer closes c (or c is closed here).
// Nothing comes from the peer on a connection this node dialled (it
// answers on its own), so a read returns only when the connection ends;
// without it, the first frames written after the peer stopped would go
// into a connection nobody reads (a node restarted at once: its join's
// welcome lost).
func watchClose(c *tls.Conn, gone chan struct{}) {
	var b [1]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			close(gone)
			return
		}
	}
}

func (t *transport) count(b []byte) {
	t.ctr.msgsOut.Add(1)
	t.ctr.bytesOut.Add(uint64(len(b)))
	if ft, ok := frameType(b); ok {
		t.ctr.byTypeOut[ft].Add(1)
		t.ctr.byteTypeOut[ft].Add(uint64(len(b)))
	}
}

func (t *transport) dial(addr string) (*tls.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { // a dial in progress does not hold close up
		select {
		case <-t.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	d := tls.Dialer{Config: t.cli}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := nc.(*tls.Conn)
	if !t.track(c) {
		c.Close()
		return nil, net.ErrClosed
	}
	h, err := encodeControl(&Hello{Version: ProtocolVersion, Node: t.self})
	if err == nil {
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, err = c.Write(h)
	}
	if err != nil {
		t.untrack(c)
		return nil, err
	}
	return c, nil
}

// close stops the listener, every connection and every writer.
func (t *transport) close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	close(t.done)
	conns := make([]net.Conn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	// Closed outside t.mu: closing a TLS connection writes its
	// close_notify (up to 5 s to a peer that does not read), and send
	// (the node's loop, still running during Kill) takes t.mu. No
	// connection is added once closed is set (track refuses it).
	t.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	t.wg.Wait()
}

// flush waits (at most d) until the queues of every peer are empty: what a
// departing node does so that its Leave messages leave.
func (t *transport) flush(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		t.mu.Lock()
		busy := false
		for _, p := range t.peers {
			if len(p.q) > 0 && !p.failing.Load() {
				busy = true
			}
		}
		t.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (t *transport) traffic() Traffic {
	c := t.ctr
	tr := Traffic{MsgsOut: c.msgsOut.Load(), BytesOut: c.bytesOut.Load(), MsgsIn: c.msgsIn.Load(), BytesIn: c.bytesIn.Load(),
		Dropped: c.dropped.Load(), Refused: c.refused.Load(), Invalid: c.invalid.Load(), Stale: c.stale.Load(),
		ByType: map[string]uint64{}, BytesByType: map[string]uint64{}}
	for i := FrameType(1); i < fMax; i++ {
		if n := c.byTypeOut[i].Load(); n > 0 {
			tr.ByType[i.String()] = n
			tr.BytesByType[i.String()] = c.byteTypeOut[i].Load()
		}
	}
	return tr
}

// errString shortens an error for logs.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}
