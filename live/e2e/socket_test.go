package e2e

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/worker"
)

// TestSessionSocketRefusals: the session socket refuses what the protocol
// does not allow, each with its answer: no token or a wrong one (401, a
// worker sees connect.CodeUnauthenticated), a plain GET (426), a web
// page's request (an Origin header: 403), a first message naming another
// worker's session or no session (close code CloseSessionEnded), a text
// message and bytes that are no WorkerMessage (CloseInvalid), a second
// socket for a session that has one (CloseInvalid). The session that was
// refused nothing still works afterwards: the master sends it a command.
func TestSessionSocketRefusals(t *testing.T) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=2\nITERATIONS=1\n"})
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "a", "b")
	opt := masterOptions(loadApp(t, app), state)
	opt.DownAfter = time.Minute
	c := startMaster(t, opt)
	hc, cl := rawClient(t, c)
	tlsCfg, err := pki.ClientConfigPinned(c.fp)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if _, err := worker.DialSession(ctx, c.url, "not-a-token", tlsCfg); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("wrong token: %v, want an Unauthenticated error", err)
	}
	get := func(h http.Header) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url+livepb.SessionPath, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(nil); code != http.StatusUnauthorized {
		t.Fatalf("GET without a token: %d, want 401", code)
	}
	if code := get(http.Header{"Authorization": {"Bearer " + toks["a"]}}); code != http.StatusUpgradeRequired {
		t.Fatalf("GET without an upgrade: %d, want 426", code)
	}
	dial := func(tok string, h http.Header) (*websocket.Conn, int, error) {
		cfg := tlsCfg.Clone()
		cfg.NextProtos = []string{"http/1.1"}
		d := websocket.Dialer{TLSClientConfig: cfg, HandshakeTimeout: 10 * time.Second, Subprotocols: []string{livepb.SessionSubprotocol}}
		if h == nil {
			h = http.Header{}
		}
		h.Set("Authorization", "Bearer "+tok)
		conn, resp, err := d.DialContext(ctx, "wss://"+c.url[len("https://"):]+livepb.SessionPath, h)
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		return conn, code, err
	}
	if _, code, err := dial(toks["a"], http.Header{"Origin": {"https://evil.example"}}); err == nil || code != http.StatusForbidden {
		t.Fatalf("a web page's upgrade: %d %v, want 403", code, err)
	}
	register := func(tok string) uint64 {
		reg, err := cl.Register(ctx, authed(&livepb.RegisterRequest{}, tok))
		if err != nil {
			t.Fatal(err)
		}
		return reg.Msg.Session
	}
	sa, sb := register(toks["a"]), register(toks["b"])
	// closeCode sends msg (a WorkerMessage's bytes, or text) on a new
	// socket of worker tok and returns the close code the master answers.
	closeCode := func(tok string, typ int, msg []byte) int {
		conn, _, err := dial(tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.WriteMessage(typ, msg); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				var ce *websocket.CloseError
				if !errors.As(err, &ce) {
					t.Fatalf("no close frame: %v", err)
				}
				return ce.Code
			}
		}
	}
	heartbeat := func(sess uint64) []byte {
		b, err := proto.Marshal(&livepb.WorkerMessage{Session: sess, Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		what string
		tok  string
		typ  int
		msg  []byte
		want int
	}{
		{"another worker's session", toks["a"], websocket.BinaryMessage, heartbeat(sb), livepb.CloseSessionEnded},
		{"no session", toks["a"], websocket.BinaryMessage, heartbeat(0), livepb.CloseSessionEnded},
		{"a text message", toks["a"], websocket.TextMessage, []byte("hello"), livepb.CloseInvalid},
		{"not a WorkerMessage", toks["a"], websocket.BinaryMessage, []byte{0xff, 0xff, 0xff}, livepb.CloseInvalid},
	} {
		if got := closeCode(tc.tok, tc.typ, tc.msg); got != tc.want {
			t.Errorf("%s: close code %d, want %d", tc.what, got, tc.want)
		}
	}
	// Worker a's own socket works: the master sends it commands (the
	// program to fetch, or a task).
	sock, err := worker.DialSession(ctx, c.url, toks["a"], tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	if err := sock.Send(&livepb.WorkerMessage{Session: sa, Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}}); err != nil {
		t.Fatal(err)
	}
	m, err := sock.Receive()
	if err != nil || (m.GetFetch() == nil && m.GetRun() == nil) {
		t.Fatalf("the session's first command: %v, %v", m, err)
	}
	// A second socket for it is refused, and the first one still works.
	if got := closeCode(toks["a"], websocket.BinaryMessage, heartbeat(sa)); got != livepb.CloseInvalid {
		t.Errorf("a second socket: close code %d, want %d", got, livepb.CloseInvalid)
	}
	if err := sock.Send(&livepb.WorkerMessage{Session: sa, Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}}); err != nil {
		t.Fatalf("the first socket after a second was refused: %v", err)
	}
	// A socket lives as long as its context: its end makes a waiting
	// Receive return (the tests' reads are bounded by their contexts).
	sctx, scancel := context.WithCancel(ctx)
	sock2, err := worker.DialSession(sctx, c.url, toks["b"], tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	recv := make(chan error, 1)
	go func() { _, err := sock2.Receive(); recv <- err }()
	scancel()
	select {
	case err := <-recv:
		if err == nil {
			t.Error("Receive after the context's end: no error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Receive did not return at the context's end")
	}
	sock2.Close()
	// The master ends a session it no longer knows with CloseSessionEnded,
	// which the worker reads as a FailedPrecondition error: worker a
	// registers again, which ends its old session.
	register(toks["a"])
	for { // bounded by ctx (the socket closes at its end)
		_, err := sock.Receive()
		if err != nil {
			if connect.CodeOf(err) != connect.CodeFailedPrecondition {
				t.Fatalf("the old session's socket ended with %v, want a FailedPrecondition error", err)
			}
			break
		}
	}
}
