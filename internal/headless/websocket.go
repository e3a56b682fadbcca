package headless

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// wsConn is the client side of a WebSocket (RFC 6455) connection, as much
// of it as the DevTools protocol needs: text messages both ways,
// fragmented or not, ping answered, close. Only loopback addresses are
// dialled.
type wsConn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // serializes writes
}

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

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
	c, err := net.DialTimeout("tcp", u.Host, timeout)
	if err != nil {
		return nil, err
	}
	var key [16]byte
	if _, err := rand.Read(key[:]); err != nil {
		c.Close()
		return nil, err
	}
	k := base64.StdEncoding.EncodeToString(key[:])
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + k +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, &http.Request{Method: "GET"})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("websocket %s: handshake: %w", rawURL, err)
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(k + wsGUID))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("websocket %s: handshake refused: %s", rawURL, resp.Status)
	}
	c.SetDeadline(time.Time{})
	return &wsConn{c: c, r: r}, nil
}

// writeText sends one text message in one masked frame.
func (w *wsConn) writeText(p []byte) error { return w.writeFrame(0x1, p) }

func (w *wsConn) writeFrame(op byte, p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	hdr := make([]byte, 0, 14)
	hdr = append(hdr, 0x80|op)
	switch n := len(p); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 0x80|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	hdr = append(hdr, mask[:]...)
	buf := make([]byte, len(hdr)+len(p))
	copy(buf, hdr)
	for i, b := range p {
		buf[len(hdr)+i] = b ^ mask[i%4]
	}
	_, err := w.c.Write(buf)
	return err
}

// readMessage returns the next text or binary message, answering pings;
// io.EOF when the peer closes.
func (w *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		masked := h[1]&0x80 != 0
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n+uint64(len(msg)) > maxMessage {
			return nil, fmt.Errorf("websocket: message over %d bytes", maxMessage)
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(w.r, mask[:]); err != nil {
				return nil, err
			}
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(w.r, p); err != nil {
			return nil, err
		}
		if masked {
			for i := range p {
				p[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8: // close
			w.writeFrame(0x8, nil)
			return nil, io.EOF
		case 0x9: // ping
			if err := w.writeFrame(0xA, p); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		case 0x0, 0x1, 0x2:
			msg = append(msg, p...)
			if fin {
				return msg, nil
			}
		default:
			return nil, errors.New("websocket: unknown opcode " + fmt.Sprint(op))
		}
	}
}

func (w *wsConn) close() error {
	w.writeFrame(0x8, nil)
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
