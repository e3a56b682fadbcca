package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/live/worker"
	"github.com/volsched/volsched/trace"
)

func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// masterProc runs `volsched master` as a subprocess.
type masterProc struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
	once   sync.Once
	err    error
}

// wait waits for the process to end (any number of times).
func (p *masterProc) wait() error {
	p.once.Do(func() { p.err = <-p.done })
	return p.err
}

func (p *masterProc) exited() bool {
	select {
	case err := <-p.done:
		p.once.Do(func() { p.err = err })
		return true
	default:
		return false
	}
}

func startMasterProc(t testing.TB, bin string, args ...string) *masterProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"master"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &masterProc{cmd: cmd, stderr: &stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		p.wait()
	})
	return p
}

func waitFile(t testing.TB, path string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s not written after %v", path, limit)
	return ""
}

func countResults(state string) int {
	b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	return bytes.Count(b, []byte(`"k":"result"`))
}

// TestMasterSIGKILL kills the master (a real volsched process) with
// SIGKILL at random moments — while results arrive, while the driver
// runs, between — and starts it again with the same command. The workers
// (in-process) reconnect on their own. The final output must be
// byte-identical to a sequential run, every result a worker saw
// acknowledged must be in the database with the digest it sent, and no
// task may have two results.
func TestMasterSIGKILL(t *testing.T) {
	bin := volschedBinary(t)
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=10\nITERATIONS=5\n"})
	want := reference(t, app)
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(4)...)
	addr := freePort(t)
	args := []string{"--app", app, "--state", state, "--listen", addr, "--slot", "25ms", "--heartbeat", "25ms", "--down-after", "250ms", "--ncom", "3", "--log-level", "warn"}
	p := startMasterProc(t, bin, args...)
	fp := waitFile(t, filepath.Join(state, "fingerprint"), 30*time.Second)

	var mu sync.Mutex
	acked := map[string]string{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for _, n := range names(4) {
		tlsCfg, _ := pki.ClientConfigPinned(fp)
		w, err := worker.New(worker.Options{Master: "https://" + addr, Token: toks[n], Cache: filepath.Join(t.TempDir(), n), TLS: tlsCfg, Logger: logger(t),
			OnAccepted: func(iter, task int, digest string) {
				mu.Lock()
				acked[fmt.Sprintf("%d/%d", iter, task)] = digest
				mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	kills := 0
	for kills < 4 {
		// Kill after a random number of new results (0..6) or a random time.
		before := countResults(state)
		target := before + rng.IntN(7)
		deadline := time.Now().Add(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		finished := false
		for countResults(state) < target && time.Now().Before(deadline) {
			if finished = p.exited(); finished {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if finished {
			break
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait()
		kills++
		t.Logf("kill %d after %d results", kills, countResults(state))
		p = startMasterProc(t, bin, args...)
	}
	fin := make(chan error, 1)
	go func() { fin <- p.wait() }()
	select {
	case err := <-fin:
		if err != nil {
			t.Fatalf("master: %v\n%s", err, p.stderr)
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("master not finished\n%s", p.stderr)
	}
	if kills == 0 {
		t.Fatal("the master was never killed")
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	db, err := master.OpenDB(state)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mu.Lock()
	defer mu.Unlock()
	for key, digest := range acked {
		var iter, task int
		fmt.Sscanf(key, "%d/%d", &iter, &task)
		res, err := db.ResultsByIndex(iter)
		if err != nil {
			t.Fatal(err)
		}
		if res[task] != digest {
			t.Errorf("result %s acknowledged with digest %s, database has %q", key, digest, res[task])
		}
	}
	for it := 0; it < 5; it++ {
		if n, _ := db.CountResults(it); n != 10 {
			t.Errorf("iteration %d: %d results in the database, want 10", it, n)
		}
	}
	t.Logf("%d kills, %d results acknowledged to workers", kills, len(acked))
	checkEventLog(t, state, 3, 2)
	checkTraceSpansRestarts(t, state)
}

// TestWorkersSIGKILL runs workers as volsched processes, kills two with
// SIGKILL in the middle and starts one again on the same cache: the
// application completes with the same output, and the restarted worker's
// cache (the program) is revalidated by hash instead of sent again.
func TestWorkersSIGKILL(t *testing.T) {
	bin := volschedBinary(t)
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=8\nITERATIONS=6\n", "step.sh": "#!/bin/sh\nset -eu\nsleep 0.05\n{ cat \"$1\"; printf 'iteration %s task %s\\n' \"$VOLSCHED_ITER\" \"$VOLSCHED_TASK\"; } | sha256sum | cut -d' ' -f1 > \"$2\"\n"})
	os.Chmod(filepath.Join(app, "step.sh"), 0o755)
	want := reference(t, app)
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(3)...)
	a := loadApp(t, app)
	opt := masterOptions(a, state)
	c := startMaster(t, opt)
	caches := map[string]string{}
	procs := map[string]*exec.Cmd{}
	start := func(n string) {
		if caches[n] == "" {
			caches[n] = filepath.Join(t.TempDir(), n)
		}
		cmd := exec.Command(bin, "worker", "--master", c.url, "--token", toks[n], "--fingerprint", c.fp, "--cache", caches[n], "--reclaim", "none", "--log-level", "warn")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[n] = cmd
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	for _, n := range names(3) {
		start(n)
	}
	// Let them work, then kill two.
	deadline := time.Now().Add(60 * time.Second)
	for countResults(state) < 12 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, n := range []string{"w00", "w01"} {
		procs[n].Process.Signal(syscall.SIGKILL)
		procs[n].Wait()
	}
	t.Logf("killed w00 and w01 after %d results", countResults(state))
	time.Sleep(300 * time.Millisecond)
	start("w00")
	if err := c.wait(120 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	ev, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if !bytes.Contains(ev, []byte(`"k":"register","q":0,`)) || !bytes.Contains(ev, []byte(`"info":"program cached"`)) {
		t.Errorf("the restarted worker's cached program was not revalidated (no 'program cached' registration)")
	}
	checkEventLog(t, state, 3, 2)
}

// checkTraceSpansRestarts: availability.fta, written by the last master
// process, holds what the earlier (killed) ones saw: intervals before the
// last process's start.
func checkTraceSpansRestarts(t *testing.T, state string) {
	t.Helper()
	ev, err := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lastStart float64
	for _, line := range bytes.Split(ev, []byte("\n")) {
		var r master.LogRecord
		if json.Unmarshal(line, &r) == nil && r.Kind == master.LogStart {
			ns, _ := strconv.ParseInt(r.Info, 10, 64)
			lastStart = float64(ns) / 1e9
		}
	}
	f, err := os.Open(filepath.Join(state, "availability.fta"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.ReadFTA(f, "availability.fta")
	if err != nil {
		t.Fatal(err)
	}
	earliest, n := math.Inf(1), 0
	for _, node := range tr.Nodes {
		for _, e := range node.Events {
			earliest = math.Min(earliest, e.Start)
			n++
		}
	}
	if !(earliest < lastStart) {
		t.Errorf("availability.fta: %d intervals, the earliest at %.3f, not before the last master's start %.3f: the killed masters' availability is lost", n, earliest, lastStart)
	}
}
