package worker

import (
	"encoding/binary"
	"io"
	"net/http"
	"strings"
)

// WholeMessages wraps the transport of a Connect client so that each
// message of a streaming request (a worker's Session stream) goes to the
// master in one HTTP/2 DATA frame. Connect writes a message's 5-byte
// envelope prefix and its bytes in two writes, and the HTTP/2 transport
// sends (and flushes) a DATA frame for each: two TLS records, two frames
// for the master to read and two wake-ups of its handler per heart-beat.
// The bytes on the wire are the same; only their framing changes.
func WholeMessages(rt http.RoundTripper) http.RoundTripper { return wholeMessagesTransport{rt} }

type wholeMessagesTransport struct{ rt http.RoundTripper }

func (t wholeMessagesTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody && strings.HasPrefix(r.Header.Get("Content-Type"), "application/connect+") {
		r2 := new(http.Request)
		*r2 = *r // a RoundTripper must not modify its request; the body is the only change
		r2.Body = &wholeMessages{r: r.Body}
		r = r2
	}
	return t.rt.RoundTrip(r)
}

// wholeMessages reads a stream of Connect envelopes (flags byte, 4-byte
// big-endian length, message) so that one Read returns a prefix and the
// message after it, as much of it as fits.
type wholeMessages struct {
	r      io.ReadCloser
	left   int64   // bytes of the current message not read yet
	prefix [5]byte // a prefix not yet returned (only when Read's buffer was smaller)
	npre   int     // bytes of prefix still to return
	err    error   // an error to return once the bytes before it are
}

func (w *wholeMessages) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if w.npre > 0 {
		n := copy(p, w.prefix[5-w.npre:])
		w.npre -= n
		return n, nil
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.left > 0 {
		n, err := w.r.Read(p[:min(int64(len(p)), w.left)])
		w.left -= int64(n)
		if err == io.EOF && w.left > 0 {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	}
	var pre [5]byte
	n, err := io.ReadFull(w.r, pre[:])
	if err != nil {
		if n == 0 {
			return 0, err // io.EOF: the end of the stream
		}
		// A cut prefix: pass on the bytes, then the error.
		w.err = err
		return copy(p, pre[:n]), nil
	}
	w.left = int64(binary.BigEndian.Uint32(pre[1:]))
	if len(p) < len(pre) {
		w.prefix, w.npre = pre, len(pre)
		return w.Read(p)
	}
	copy(p, pre[:])
	if w.left == 0 {
		return len(pre), nil
	}
	m, err := io.ReadFull(w.r, p[len(pre):len(pre)+int(min(int64(len(p)-len(pre)), w.left))])
	w.left -= int64(m)
	if err != nil {
		w.err = err
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			w.err = io.ErrUnexpectedEOF
		}
	}
	return len(pre) + m, nil
}

func (w *wholeMessages) Close() error { return w.r.Close() }

// CloseIdleConnections closes the idle connections of the wrapped
// transport (http.Client.CloseIdleConnections needs the method).
func (t wholeMessagesTransport) CloseIdleConnections() {
	if c, ok := t.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
