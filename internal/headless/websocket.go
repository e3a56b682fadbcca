package headless

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wsConn is the client side of the DevTools protocol's WebSocket (RFC
// 6455, github.com/gorilla/websocket, the live runtime's library too):
// text messages both ways, pings answered, close. Only loopback addresses
// are dialled.
type wsConn struct {
	c  *websocket.Conn
	mu sync.Mutex // serializes writes
}

// maxMessage bounds a message read (a full-page screenshot is a few MB
// of base64).
const maxMessage = 256 << 20

func dialWS(rawURL string, timeout time.Duration) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("websocket %s: scheme %q, want ws", rawURL, u.Scheme)
	}
	if ip := net.ParseIP(u.Hostname()); (ip == nil || !ip.IsLoopback()) && u.Hostname() != "localhost" {
		return nil, fmt.Errorf("websocket %s: host %q is not a loopback address", rawURL, u.Hostname())
	}
	d := websocket.Dialer{HandshakeTimeout: timeout}
	c, resp, err := d.Dial(rawURL, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("websocket %s: handshake refused: %s", rawURL, resp.Status)
		}
		return nil, fmt.Errorf("websocket %s: handshake: %w", rawURL, err)
	}
	c.SetReadLimit(maxMessage)
	return &wsConn{c: c}, nil
}

// writeText sends one text message.
func (w *wsConn) writeText(p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.WriteMessage(websocket.TextMessage, p)
}

// readMessage returns the next text or binary message (pings are
// answered meanwhile); an error once the peer closes.
func (w *wsConn) readMessage() ([]byte, error) {
	_, p, err := w.c.ReadMessage()
	return p, err
}

func (w *wsConn) close() error {
	w.mu.Lock()
	w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	w.mu.Unlock()
	return w.c.Close()
}

// isLoopbackHTTP reports whether raw is an http URL on a loopback address.
func isLoopbackHTTP(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return (ip != nil && ip.IsLoopback()) || strings.EqualFold(u.Hostname(), "localhost")
}
