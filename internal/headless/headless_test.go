package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image/png"
	"net"
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

func TestWebSocketFrames(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	ws := &wsConn{c: client, r: bufio.NewReader(client)}
	big := bytes.Repeat([]byte("x"), 70000) // a 64-bit length
	go func() {
		var b []byte
		b = append(b, frame(true, 0x1, []byte(`{"id":1}`))...)
		b = append(b, frame(false, 0x1, []byte(`{"a":`))...)
		b = append(b, frame(true, 0x9, []byte("ping"))...) // between fragments
		b = append(b, frame(true, 0x0, []byte(`2}`))...)
		b = append(b, frame(true, 0x1, big)...)
		b = append(b, frame(true, 0x8, nil)...)
		server.Write(b)
	}()
	pong := make(chan []byte, 1)
	go func() { // the client's pong, then its close
		r := bufio.NewReader(server)
		for {
			var h [2]byte
			if _, err := r.Read(h[:1]); err != nil {
				return
			}
			r.Read(h[1:2])
			n := int(h[1] & 0x7F)
			var mask [4]byte
			r.Read(mask[:])
			p := make([]byte, n)
			r.Read(p)
			for i := range p {
				p[i] ^= mask[i%4]
			}
			if h[0]&0x0F == 0xA {
				pong <- p
			}
		}
	}()
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

func TestWebSocketWriteMasked(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	ws := &wsConn{c: client}
	msg := bytes.Repeat([]byte("hello "), 30000) // 180,000 bytes
	go ws.writeText(msg)
	r := bufio.NewReader(server)
	var h [2]byte
	readFull(t, r, h[:])
	if h[0] != 0x81 || h[1] != 0x80|127 {
		t.Fatalf("header % x, want FIN text, masked, 64-bit length", h)
	}
	var l [8]byte
	readFull(t, r, l[:])
	if n := binary.BigEndian.Uint64(l[:]); n != uint64(len(msg)) {
		t.Fatalf("length %d, want %d", n, len(msg))
	}
	var mask [4]byte
	readFull(t, r, mask[:])
	p := make([]byte, len(msg))
	readFull(t, r, p)
	if bytes.Equal(p, msg) {
		t.Error("payload not masked")
	}
	for i := range p {
		p[i] ^= mask[i%4]
	}
	if !bytes.Equal(p, msg) {
		t.Error("payload does not unmask to the message")
	}
}

func readFull(t *testing.T, r *bufio.Reader, b []byte) {
	t.Helper()
	for n := 0; n < len(b); {
		k, err := r.Read(b[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += k
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
