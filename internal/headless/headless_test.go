package headless

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// frame builds a server frame (unmasked).
func frame(fin bool, op byte, p []byte) []byte {
	b := []byte{op}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(p); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, p...)
}

// rawServer accepts one WebSocket upgrade on a loopback port by hand and
// hands the raw connection (and its reader) to serve: the frames the
// DevTools side would send, written byte for byte.
func rawServer(t *testing.T, serve func(c net.Conn, r *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", base64.StdEncoding.EncodeToString(sum[:]))
		serve(c, r)
	}()
	return "ws://" + ln.Addr().String() + "/devtools/page/x"
}

// readClientFrame reads one (masked) frame the client sent.
func readClientFrame(r *bufio.Reader) (op byte, p []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask [4]byte
	if h[1]&0x80 != 0 {
		io.ReadFull(r, mask[:])
	}
	p = make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	for i := range p {
		p[i] ^= mask[i%4]
	}
	return h[0] & 0x0F, p, nil
}

// TestWebSocketFrames: the client reads whole messages out of single and
// fragmented frames (a ping between fragments answered with a pong of its
// payload), a 64-bit length, then an error after the server's close.
func TestWebSocketFrames(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 70000) // a 64-bit length
	pong := make(chan []byte, 1)
	url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
		var b []byte
		b = append(b, frame(true, 0x1, []byte(`{"id":1}`))...)
		b = append(b, frame(false, 0x1, []byte(`{"a":`))...)
		b = append(b, frame(true, 0x9, []byte("ping"))...) // between fragments
		b = append(b, frame(true, 0x0, []byte(`2}`))...)
		b = append(b, frame(true, 0x1, big)...)
		c.Write(b)
		for {
			op, p, err := readClientFrame(r)
			if err != nil {
				return
			}
			if op == 0xA {
				pong <- p
				c.Write(frame(true, 0x8, nil))
			}
		}
	})
	ws, err := dialWS(url, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	for _, want := range []string{`{"id":1}`, `{"a":2}`, string(big)} {
		got, err := ws.readMessage()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("message %.40q…, want %.40q…", got, want)
		}
	}
	select {
	case p := <-pong:
		if string(p) != "ping" {
			t.Errorf("pong %q, want the ping's payload", p)
		}
	case <-time.After(5 * time.Second):
		t.Error("no pong")
	}
	if _, err := ws.readMessage(); err == nil {
		t.Error("after a close frame: no error")
	}
}

// TestWebSocketWriteMasked: a message the client writes arrives as one
// masked text message the server unmasks to the bytes written.
func TestWebSocketWriteMasked(t *testing.T) {
	msg := bytes.Repeat([]byte("hello "), 30000) // 180,000 bytes
	got := make(chan []byte, 1)
	url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
		var all []byte
		for {
			h, err := r.Peek(2)
			if err != nil {
				return
			}
			fin, masked := h[0]&0x80 != 0, h[1]&0x80 != 0
			if !masked {
				got <- []byte("unmasked")
				return
			}
			op, p, err := readClientFrame(r)
			if err != nil {
				return
			}
			if op != 0x1 && op != 0x0 {
				continue
			}
			all = append(all, p...)
			if fin {
				got <- all
				return
			}
		}
	})
	ws, err := dialWS(url, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	if err := ws.writeText(msg); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if !bytes.Equal(p, msg) {
			t.Fatalf("the server read %d bytes (%.20q…), want the %d written", len(p), p, len(msg))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived")
	}
}

func TestDialRefusesNonLoopback(t *testing.T) {
	if _, err := dialWS("ws://192.0.2.1:9222/devtools/page/x", time.Second); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("dialWS to a non-loopback address: %v", err)
	}
	if isLoopbackHTTP("http://example.org/json/list") || !isLoopbackHTTP("http://127.0.0.1:1/json/list") || !isLoopbackHTTP("http://[::1]:1/") {
		t.Error("isLoopbackHTTP")
	}
}

// browser returns the installed browser or skips.
func browser(t *testing.T) string {
	t.Helper()
	b, err := Find()
	if errors.Is(err, ErrNoBrowser) && os.Getenv(RequireEnv) == "" {
		t.Skip("skipped: no headless browser installed; on Debian: apt-get install chromium (or set VOLSCHED_CHROMIUM)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A 1×1 PNG.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

// TestLoad: a good page loads with its images and no error; a bad page's
// missing image, console.error and exception are all reported.
func TestLoad(t *testing.T) {
	b := browser(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="#0072B2"/></svg>`), 0o644)
	good := filepath.Join(dir, "good.html")
	os.WriteFile(good, []byte(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>good page</title></head><body>
<img src="a.svg" alt="a"><img src="data:image/png;base64,`+pixel+`" alt="b"><p style="height:2000px">tall</p></body></html>`), 0o644)
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad page</title></head><body>
<img src="missing.png" alt="m"><script>console.error("logged on purpose"); throw new Error("thrown on purpose");</script></body></html>`), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := Load(ctx, b, good, Options{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	if r.Title != "good page" {
		t.Errorf("title %q", r.Title)
	}
	if len(r.Images) != 2 {
		t.Fatalf("images %+v, want 2", r.Images)
	}
	if im := r.Images[0]; !im.Complete || im.NaturalWidth != 40 || im.NaturalHeight != 30 {
		t.Errorf("the SVG: %+v, want loaded at 40 × 30", im)
	}
	if im := r.Images[1]; im.NaturalWidth != 1 {
		t.Errorf("the data: PNG: %+v, want loaded at 1 × 1", im)
	}
	if len(r.Errors) != 0 {
		t.Errorf("errors on a good page: %q", r.Errors)
	}
	img, err := png.Decode(bytes.NewReader(r.Screenshot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if img.Bounds().Dx() != 800 || img.Bounds().Dy() < 2000 {
		t.Errorf("screenshot %v, want the whole page (800 wide, over 2000 tall)", img.Bounds())
	}

	r, err = Load(ctx, b, bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Images) != 1 || r.Images[0].NaturalWidth != 0 {
		t.Errorf("missing image: %+v, want naturalWidth 0", r.Images)
	}
	all := strings.Join(r.Errors, "\n")
	t.Logf("errors of the bad page: %q", r.Errors)
	for _, want := range []string{"console.error: logged on purpose", "thrown on purpose", "missing.png"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", r.Errors, want)
		}
	}
}
