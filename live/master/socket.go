package master

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/volsched/volsched/live/livepb"
)

// A worker's session is a WebSocket on the master's HTTPS port
// (livepb.SessionPath; docs/runtime.md, "The protocol"). A heart-beat costs
// the master one read of a TLS record by the connection's own goroutine:
// no HTTP/2 frame reader and serving goroutine handing each frame on to a
// stream handler, no flow control. With 10,000 workers at 1 Hz this is the
// master's main cost, and the connection's memory (a goroutine, two small
// buffers, the TLS state) its main memory per worker.

// socketReadBuffer: the read buffer of a session socket (the messages are
// a few dozen bytes; a larger one is read through it in several reads).
const socketReadBuffer = 1 << 10

// socketWriteTimeout bounds a command's write to a worker that does not
// read (its socket is then closed: the worker is as good as DOWN).
const socketWriteTimeout = 30 * time.Second

// socketFirstMessage bounds the wait for the first message of a socket.
const socketFirstMessage = 30 * time.Second

// socketWriteBufs: write buffers are taken for a write and given back
// after it (commands are rare next to heart-beats: an idle socket holds
// no write buffer).
var socketWriteBufs sync.Pool

var sessionUpgrader = websocket.Upgrader{
	ReadBufferSize:  socketReadBuffer,
	WriteBufferPool: &socketWriteBufs,
	Subprotocols:    []string{livepb.SessionSubprotocol},
	// Workers are programs, not browsers: a request with an Origin header
	// (a web page's) is refused.
	CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") == "" },
	Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
		http.Error(w, "session socket: "+reason.Error(), status)
	},
}

// errNotBinary: a session socket carries binary messages only.
var errNotBinary = errors.New("a session message must be a binary WebSocket message holding a WorkerMessage")

// readSocketMessage reads the next message of c into *buf (reused: an idle
// socket keeps a buffer of the size of the largest message it received, at
// most socketReadBuffer; larger ones are read into a new one).
func readSocketMessage(c *websocket.Conn, buf *[]byte) ([]byte, error) {
	typ, r, err := c.NextReader()
	if err != nil {
		return nil, err
	}
	if typ != websocket.BinaryMessage {
		return nil, errNotBinary
	}
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if cap(b) <= socketReadBuffer {
		*buf = b
	}
	return b, nil
}

// decodeWorkerMessage decodes a WorkerMessage. A plain heart-beat
// (WorkerMessage{session, heartbeat{state}}, without since_back), the
// message the master receives most, is decoded by hand into shared
// read-only parts; anything else, or any doubt about the bytes, goes to
// proto.Unmarshal: the decoded message is the same
// (TestDecodeSameAsProto).
func decodeWorkerMessage(data []byte) (*livepb.WorkerMessage, error) {
	if session, state, ok := plainHeartbeat(data); ok {
		return &livepb.WorkerMessage{Session: session, Msg: plainHeartbeats[state]}, nil
	}
	m := new(livepb.WorkerMessage)
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("not a WorkerMessage: %w", err)
	}
	return m, nil
}

// closeSocket ends a session socket: a close frame with code and reason
// (best effort, bounded), then the connection.
func closeSocket(c *websocket.Conn, code int, reason string) {
	if len(reason) > 120 { // a control frame's payload is at most 125 bytes
		reason = reason[:120]
	}
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	c.Close()
}

// serveSession serves a worker's session socket: authentication and the
// upgrade here, then the socket in a goroutine of its own (runSocket). The
// handler returns at once: its goroutine's stack, grown by the TLS
// handshake, and the HTTP server's buffers of the connection go with it
// (with 10,000 workers, tens of KB each).
func (s *Server) serveSession(w http.ResponseWriter, r *http.Request) {
	name, ok := s.authName(r.Header)
	if !ok {
		s.met.authFailures.Inc()
		http.Error(w, "missing, unknown or revoked token", http.StatusUnauthorized)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "the session is a WebSocket ("+livepb.SessionSubprotocol+"): an HTTP/1.1 Upgrade request is needed", http.StatusUpgradeRequired)
		return
	}
	if !s.sockets.add() {
		http.Error(w, "the master is stopping", http.StatusServiceUnavailable)
		return
	}
	c, err := sessionUpgrader.Upgrade(w, r, nil)
	if err != nil {
		s.sockets.done()
		return // the upgrader answered
	}
	go s.runSocket(c, name)
}

// runSocket reads the first message of worker name's socket c, which names
// its session, then every message until the socket or the session ends.
func (s *Server) runSocket(c *websocket.Conn, name string) {
	defer s.sockets.done()
	s.sockets.track(c)
	s.met.sockets.Inc()
	defer func() {
		s.sockets.untrack(c)
		s.met.sockets.Dec()
	}()
	c.SetReadLimit(livepb.MaxSessionMessage)
	var buf []byte
	c.SetReadDeadline(time.Now().Add(socketFirstMessage))
	data, err := readSocketMessage(c, &buf)
	if err != nil {
		closeSocket(c, livepb.CloseInvalid, err.Error())
		return
	}
	first, err := decodeWorkerMessage(data)
	if err != nil {
		closeSocket(c, livepb.CloseInvalid, err.Error())
		return
	}
	var ss *session
	if err := s.call(context.Background(), func() {
		if x := s.sessions[first.Session]; x != nil && x.name == name {
			ss = x
		}
	}); err != nil {
		c.Close()
		return
	}
	if ss == nil {
		closeSocket(c, livepb.CloseSessionEnded, ErrSession.Error())
		return
	}
	c.SetReadDeadline(time.Time{})
	ss.mu.Lock()
	if ss.conn != nil || ss.closed { // a second socket for the session
		ss.mu.Unlock()
		closeSocket(c, livepb.CloseInvalid, "the session has a socket already")
		return
	}
	ss.conn = c
	ss.start()
	ss.mu.Unlock()
	code, reason := websocket.CloseNormalClosure, ""
	if !ss.dead.Load() {
		s.handle(ss, first)
		for {
			data, err := readSocketMessage(c, &buf)
			if err != nil {
				if errors.Is(err, errNotBinary) {
					code, reason = livepb.CloseInvalid, err.Error()
				}
				break
			}
			if session, state, ok := plainHeartbeat(data); ok && session == ss.id && ss.quiet(livepb.State(state)) {
				s.heardQuiet(ss) // decoded without a WorkerMessage: no allocation
				continue
			}
			msg, err := decodeWorkerMessage(data)
			if err != nil {
				code, reason = livepb.CloseInvalid, err.Error()
				break
			}
			if msg.Session != ss.id {
				code, reason = livepb.CloseInvalid, "message for another session"
				break
			}
			s.handle(ss, msg)
		}
	}
	// No write after this: the sending goroutine (if any) finishes its
	// write or fails once the connection is closed.
	ss.mu.Lock()
	ss.closed = true
	ss.mu.Unlock()
	switch {
	case ss.finished.Load():
		code, reason = livepb.CloseFinished, errFinished.Error()
	case ss.dead.Load():
		code, reason = livepb.CloseSessionEnded, ErrSession.Error()
	}
	closeSocket(c, code, reason)
	ss.senders.Wait()
	s.post(func() {
		if s.sessions[ss.id] == ss {
			s.m.Disconnect(s.now(), ss.id)
			s.killSession(ss)
		}
	})
}

// socketSet tracks the open session sockets: the HTTP server's Shutdown
// knows nothing of hijacked connections, so the master closes them itself
// when it stops.
type socketSet struct {
	mu      sync.Mutex
	stopped bool
	conns   map[*websocket.Conn]struct{}
	wg      sync.WaitGroup
}

// add counts a handler in (false once the master is stopping).
func (t *socketSet) add() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	t.wg.Add(1)
	return true
}

func (t *socketSet) done() { t.wg.Done() }

func (t *socketSet) track(c *websocket.Conn) {
	t.mu.Lock()
	if t.conns == nil {
		t.conns = map[*websocket.Conn]struct{}{}
	}
	t.conns[c] = struct{}{}
	stopped := t.stopped
	t.mu.Unlock()
	if stopped {
		c.Close()
	}
}

func (t *socketSet) untrack(c *websocket.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.conns, c)
}

// stop closes every socket and waits (at most wait) for their handlers.
func (t *socketSet) stop(wait time.Duration) {
	t.mu.Lock()
	t.stopped = true
	conns := make([]*websocket.Conn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	// Closed outside the lock: closing a TLS connection writes its
	// close_notify, which may wait on a peer that reads nothing.
	for _, c := range conns {
		c.Close()
	}
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
	}
}
