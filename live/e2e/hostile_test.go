package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/live/worker"
)

func rawClient(t *testing.T, c *cluster) (*http.Client, livepbconnect.MasterClient) {
	tlsCfg, err := pki.ClientConfigPinned(c.fp)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}, Timeout: 20 * time.Second}
	return hc, livepbconnect.NewMasterClient(hc, c.url)
}

func authed[T any](msg *T, tok string) *connect.Request[T] {
	r := connect.NewRequest(msg)
	r.Header().Set("Authorization", "Bearer "+tok)
	return r
}

func TestTokensRefused(t *testing.T) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=2\nITERATIONS=200\n"})
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "good", "revoked")
	c := startMaster(t, masterOptions(loadApp(t, app), state))
	// A wrong token: the worker gives up with ErrAuth.
	w, err := worker.New(c.workerOptions("bad", "not-a-token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Run(ctx); !errors.Is(err, worker.ErrAuth) {
		t.Fatalf("wrong token: Run = %v, want ErrAuth", err)
	}
	// A token revoked while its worker works: its session ends and it
	// cannot register again.
	w2, _ := worker.New(c.workerOptions("revoked", toks["revoked"]))
	done := make(chan error, 1)
	go func() { done <- w2.Run(ctx) }()
	for w2.Sessions.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	db, err := master.OpenDB(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeToken("revoked"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	select {
	case err := <-done:
		if !errors.Is(err, worker.ErrAuth) {
			t.Fatalf("revoked token: Run = %v, want ErrAuth", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("a revoked worker kept working")
	}
	// Blobs need a token too.
	hc, _ := rawClient(t, c)
	resp, err := hc.Get(c.url + "/blobs/" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET a blob without a token: %d", resp.StatusCode)
	}
}

// TestHostileResults plays a hand-written worker: a result for a task it
// was not given, a result whose blob was never uploaded, a blob whose
// bytes do not match its name, then the same result twice. A real worker
// then does the other task: the master finishes normally.
//
// Two tasks, not one: with a single task the accepted result ends the
// iteration and the application (whose sessions the master then ends),
// and on a loaded machine the duplicate could arrive after that ("unknown
// or expired session", or "not an open task of the current iteration",
// instead of "already completed"). The other task keeps the iteration
// open until the real worker starts.
func TestHostileResults(t *testing.T) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=2\nITERATIONS=1\n"})
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "evil", "good")
	tok := toks["evil"]
	opt := masterOptions(loadApp(t, app), state)
	// This client heart-beats once: its session must not time out while
	// the test talks to the master on a loaded machine.
	opt.DownAfter = time.Minute
	c := startMaster(t, opt)
	hc, cl := rawClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reg, err := cl.Register(ctx, authed(&livepb.RegisterRequest{}, tok))
	if err != nil {
		t.Fatal(err)
	}
	// Pretend to hold the program: register again listing it (the master
	// only keeps what it knows).
	reg, err = cl.Register(ctx, authed(&livepb.RegisterRequest{Cached: []string{reg.Msg.ProgramDigest}}, tok))
	if err != nil || len(reg.Msg.Keep) != 1 {
		t.Fatalf("register: %v keep %v", err, reg.Msg.Keep)
	}
	sess := reg.Msg.Session
	put := func(data []byte, name string) int {
		req, _ := http.NewRequest(http.MethodPut, c.url+"/blobs/"+name, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	result := []byte("forged result\n")
	rd := blob.Sum(result)
	// Digest mismatch on upload: refused, nothing stored.
	if code := put(result, blob.Sum([]byte("other"))); code != http.StatusBadRequest {
		t.Fatalf("PUT with a wrong digest: %d, want 400", code)
	}
	// A result whose blob was not uploaded.
	r, err := cl.SubmitResult(ctx, authed(&livepb.SubmitResultRequest{Session: sess, Iteration: 0, Task: 0, Attempt: 1, Digest: rd}, tok))
	if err != nil || r.Msg.Accepted || !strings.Contains(r.Msg.Reason, "not uploaded") {
		t.Fatalf("result without blob: %v %+v", err, r)
	}
	// An inline result whose bytes do not hash to the digest announced.
	r, err = cl.SubmitResult(ctx, authed(&livepb.SubmitResultRequest{Session: sess, Iteration: 0, Task: 0, Attempt: 1, Digest: rd, Data: []byte("other bytes")}, tok))
	if err != nil || r.Msg.Accepted || !strings.Contains(r.Msg.Reason, "hashes to") {
		t.Fatalf("inline result with a wrong digest: %v %+v", err, r)
	}
	if code := put(result, rd); code != http.StatusNoContent {
		t.Fatalf("PUT: %d", code)
	}
	// Now take the task through the session socket.
	tlsCfg, _ := pki.ClientConfigPinned(c.fp)
	st, err := worker.DialSession(ctx, c.url, tok, tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&livepb.WorkerMessage{Session: sess, Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}}); err != nil {
		t.Fatal(err)
	}
	var run *livepb.Run
	for run == nil {
		m, err := st.Receive()
		if err != nil {
			t.Fatal(err)
		}
		run = m.GetRun()
	}
	// A result for a copy not given (attempt 99 of the task).
	r, err = cl.SubmitResult(ctx, authed(&livepb.SubmitResultRequest{Session: sess, Iteration: 0, Task: 0, Attempt: 99, Digest: rd}, tok))
	if err != nil || r.Msg.Accepted || !strings.Contains(r.Msg.Reason, "not given") {
		t.Fatalf("result for a task not given: %v %+v", err, r)
	}
	t.Logf("refused: %s", r.Msg.Reason)
	st.Send(&livepb.WorkerMessage{Session: sess, Msg: &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: run.InputDigest, ActiveNs: 1}}})
	// The report goes by the socket, the result by an RPC: wait until the
	// master has taken the report (its event log says the input was
	// received), or the result would be refused for its input.
	for deadline := time.Now().Add(60 * time.Second); !inputReceived(state); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the master did not take the transfer report within 60 s")
		}
	}
	sub := &livepb.SubmitResultRequest{Session: sess, Iteration: run.Iteration, Task: run.Task, Attempt: run.Attempt, Digest: rd, ComputeNs: 1}
	if r, err = cl.SubmitResult(ctx, authed(sub, tok)); err != nil || !r.Msg.Accepted {
		t.Fatalf("the given task's result: %v %+v", err, r)
	}
	if r, err = cl.SubmitResult(ctx, authed(sub, tok)); err != nil || r.Msg.Accepted || !strings.Contains(r.Msg.Reason, "already completed") {
		t.Fatalf("the same result twice: %v %+v", err, r)
	}
	t.Logf("refused: %s", r.Msg.Reason)
	st.Close()
	// The other task, by a real worker.
	c.addWorker(c.workerOptions("good", toks["good"]))
	if err := c.wait(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The refusals are in the event log.
	ev, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if n := bytes.Count(ev, []byte(`"k":"refused"`)); n != 2 {
		t.Errorf("%d refusals in the event log, want 2 (not given, twice)", n)
	}
}

// TestCorruptMasterBlob: the master's copy of the program is damaged on
// disk; the worker's download does not hash to its name, it refuses it,
// and the master stops with an error naming the blob.
func TestCorruptMasterBlob(t *testing.T) {
	app := writeExample(t, "hashchain", nil)
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "w")
	opt := masterOptions(loadApp(t, app), state)
	opt.Logger = logger(t)
	srv, err := master.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	bs, _ := blob.Open(filepath.Join(state, "blobs"))
	var prog string
	for _, d := range bs.List() {
		prog = d
	}
	os.WriteFile(bs.Path(prog), []byte("#!/bin/sh\necho evil\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	c := &cluster{t: t, url: "https://" + srv.Addr(), fp: srv.Fingerprint(), wcancel: func() {}}
	w, _ := worker.New(c.workerOptions("w", toks["w"]))
	wctx, wc := context.WithCancel(ctx)
	defer wc()
	go w.Run(wctx)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), prog) || !strings.Contains(err.Error(), "failed its check") {
			t.Fatalf("master: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the master did not stop on its corrupt blob")
	}
}

// TestBadApplicationsExit runs the volsched binary on broken applications:
// a clear error naming the file and field, a non-zero exit.
func TestBadApplicationsExit(t *testing.T) {
	bin := volschedBinary(t)
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"malformed", map[string]string{"volsched.toml": "program = [\n"}, "volsched.toml"},
		{"missing program", map[string]string{"volsched.toml": "program = \"nope.sh\"\ndriver = \"d.sh\"\n", "d.sh": "#!/bin/sh\n"}, `program = "nope.sh"`},
		{"failing driver", map[string]string{"volsched.toml": "program = \"p.sh\"\ndriver = \"d.sh\"\n", "p.sh": "#!/bin/sh\n", "d.sh": "#!/bin/sh\necho 'cannot read matrix.txt' >&2\nexit 4\n"}, "cannot read matrix.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, content := range c.files {
				mode := os.FileMode(0o644)
				if strings.HasPrefix(content, "#!") {
					mode = 0o755
				}
				os.WriteFile(filepath.Join(dir, f), []byte(content), mode)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "master", "--app", dir, "--state", filepath.Join(t.TempDir(), "s"), "--listen", "127.0.0.1:0", "--log-level", "error")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 {
				t.Fatalf("exit: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("output does not name %q:\n%s", c.want, out)
			}
		})
	}
}

// inputReceived tells whether the master's event log records a task's
// input received by a worker.
func inputReceived(state string) bool {
	b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"k":"`+master.LogReceived+`"`)) && bytes.Contains(l, []byte(`"info":"data"`)) {
			return true
		}
	}
	return false
}
