package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/volsched/volsched/live/livepb"
)

// SessionConn is a worker's session socket: the WebSocket on which it
// sends its heart-beats and reports and receives the master's commands
// (livepb.SessionPath; docs/runtime.md, "The protocol"). Send may be
// called from several goroutines; Receive from one.
type SessionConn struct {
	c    *websocket.Conn
	wmu  sync.Mutex
	stop func() bool // stops the closing at ctx's end
}

// DialSession opens the session socket of the master at URL master
// ("https://host:port"), authenticated by token, trusting what tlsCfg
// trusts, for as long as ctx lasts. A WebSocket is an HTTP/1.1 upgrade: the connection offers
// HTTP/1.1 only, whatever tlsCfg's NextProtos. A refused token is a
// connect.CodeUnauthenticated error, as Register's.
func DialSession(ctx context.Context, master, token string, tlsCfg *tls.Config) (*SessionConn, error) {
	u, ok := strings.CutPrefix(strings.TrimRight(master, "/"), "https://")
	if !ok {
		return nil, fmt.Errorf("master URL %q: want https://HOST:PORT", master)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS13}
	if tlsCfg != nil {
		cfg = tlsCfg.Clone()
	}
	cfg.NextProtos = []string{"http/1.1"}
	d := websocket.Dialer{TLSClientConfig: cfg, HandshakeTimeout: 30 * time.Second, Proxy: http.ProxyFromEnvironment,
		Subprotocols: []string{livepb.SessionSubprotocol}}
	h := http.Header{"Authorization": {"Bearer " + token}}
	c, resp, err := d.DialContext(ctx, "wss://"+u+livepb.SessionPath, h)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnauthorized {
			return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("session socket: missing, unknown or revoked token"))
		}
		if resp != nil {
			return nil, fmt.Errorf("session socket: %s: %v", resp.Status, err)
		}
		return nil, fmt.Errorf("session socket: %w", err)
	}
	c.SetReadLimit(livepb.MaxSessionMessage)
	// The socket lives as long as ctx (as a Connect stream did): its end
	// closes it, and a Receive or Send waiting on it returns.
	return &SessionConn{c: c, stop: context.AfterFunc(ctx, func() { c.Close() })}, nil
}

// Send sends m.
func (s *SessionConn) Send(m *livepb.WorkerMessage) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	return s.c.WriteMessage(websocket.BinaryMessage, b)
}

// Receive returns the master's next command. When the master ended the
// session its close code becomes an error of the kind Register's are: a
// connect.CodeFailedPrecondition error for an ended session (register
// again) or a finished application ("application finished" in its text).
func (s *SessionConn) Receive() (*livepb.MasterMessage, error) {
	typ, b, err := s.c.ReadMessage()
	if err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			switch ce.Code {
			case livepb.CloseSessionEnded:
				return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("session ended by the master: %s", ce.Text))
			case livepb.CloseFinished:
				return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("application finished"))
			case livepb.CloseInvalid:
				return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("the master refused a message: %s", ce.Text))
			}
		}
		return nil, err
	}
	if typ != websocket.BinaryMessage {
		return nil, errors.New("session socket: the master sent a non-binary message")
	}
	m := new(livepb.MasterMessage)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("session socket: not a MasterMessage: %v", err)
	}
	return m, nil
}

// Close ends the socket (a normal close frame, then the connection); a
// Receive blocked on it returns.
func (s *SessionConn) Close() error {
	s.stop()
	s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	return s.c.Close()
}
