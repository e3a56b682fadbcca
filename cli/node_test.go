package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNodeBadInput: the node commands refuse bad flags with a message
// naming the flag, the value and what was expected, exit status 2, no hang
// (no daemon is started and no connection is tried). What the machine
// refuses (an address in use, a state directory that cannot be opened) is
// a runtime error: exit 1, naming the address or path.
func TestNodeBadInput(t *testing.T) {
	dir := t.TempDir()
	_, _, code := runCLI(t, "", "node", "ca", "init", "--dir", filepath.Join(dir, "ca"))
	if code != 0 {
		t.Fatalf("ca init: exit %d", code)
	}
	_, errOut, code := runCLI(t, "", "node", "ca", "issue", "--dir", filepath.Join(dir, "ca"), "--name", "127.0.0.1:7946", "--out", filepath.Join(dir, "cr"))
	if code != 0 {
		t.Fatalf("ca issue: exit %d: %s", code, errOut)
	}
	prog := filepath.Join(dir, "p.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.json")
	if err := os.WriteFile(job, []byte(`{"tasks": 2, "length": 10, "program": "p.sh", "colour": "red"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cr := filepath.Join(dir, "cr")
	daemon := []string{"node", "--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "s"), "--creds", cr}
	submit := []string{"node", "submit", "--node", "127.0.0.1:1", "--creds", cr}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"node", "--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "s")}, "--creds"},
		{[]string{"node", "--state", filepath.Join(dir, "s"), "--creds", cr}, "--listen"},
		{[]string{"node", "--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "s"), "--creds", filepath.Join(dir, "nope")}, "--creds"},
		{[]string{"node", "ca", "issue", "--dir", filepath.Join(dir, "ca"), "--name", "x"}, "--out"},
		{append(daemon, "--policy", "fifo"), `policy "fifo": want ibp, mmp or dp`},
		{append(daemon, "--slots", "0"), "--slots 0: want 1 to 1024"},
		{append(daemon, "--mem", "0"), "--mem 0: want"},
		{append(daemon, "--power", "-5"), "--power -5: want a finite value > 0"},
		{append(daemon, "--disk", "NaN"), "--disk NaN"},
		{append(daemon, "--beta", "2"), "--beta 2: want a value in (0, 1]"},
		{append(daemon, "--sfmax", "-1"), "--sfmax -1"},
		{append(daemon, "--heartbeat", "0s"), "--heartbeat 0s: want 1ms to 1h"},
		{append(daemon, "--start-grace", "0s"), "--start-grace 0s: want a duration > 0"},
		{append(daemon, "--bandwidth", "Inf"), "--bandwidth +Inf: want a finite value"},
		{append(daemon, "--retry", "-1s"), "--retry -1s"},
		{append(daemon, "--dead-after", "100ms"), "--dead-after 100ms: want at least two heartbeats"},
		{append(daemon, "--detect", "1s"), "--detect 1s: want at least --dead-after (4s)"},
		{append(daemon, "--detect", "5s", "--dead-after", "6s"), "--detect 5s: want at least --dead-after (6s)"},
		{[]string{"node", "--listen", "127.0.0.1:0", "--creds", cr}, "--state: none given"},
		{append(daemon, "--peers", "a,b"), `"a": want host:port`},
		{append(daemon, "--peers", "127.0.0.1:1", "--join", "127.0.0.1:2"), "--join and --peers both given"},
		{append(daemon, "--slots", "many"), `invalid argument "many" for "--slots"`},
		{append(submit, "--tasks", "3", "--length", "0", "--program", prog), "length 0 MI: want a finite value > 0"},
		{append(submit, "--tasks", "3", "--length", "5"), "program: none given"},
		{append(submit, "--tasks", "3", "--length", "5", "--program", filepath.Join(dir, "missing")), "missing"},
		{append(submit, "--tasks", "3", "--length", "5", "--program", prog, "--deadline", "-1s"), "--deadline -1s: want >= 0"},
		{append(submit, "--job", job), `unknown field "colour"`},
		{append(submit, "--job", job, "--tasks", "3"), "--job and --tasks/--length/--program/--inputs both given"},
		{append(submit, "--tasks", "3", "--length", "5", "--program", prog, "--inputs", dir), "tasks 3 but"},
		{[]string{"node", "status", "--node", "127.0.0.1:1"}, "--node and --creds are required"},
		{[]string{"node", "results", "--node", "127.0.0.1:1", "--creds", cr}, "--bag is required"},
		{[]string{"node", "--listen", "7946", "--state", filepath.Join(dir, "s"), "--creds", cr}, `--listen "7946": want host:port`},
		{append(daemon, "--metrics", "9474"), `--metrics "9474": want host:port`},
		{append(daemon, "--advertise", "node-11"), `--advertise "node-11": want host:port`},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "panic") {
			t.Errorf("volsched %s: exit %d, %q; want exit 2 naming %q", strings.Join(c.args, " "), code, strings.TrimSpace(errOut), c.want)
		}
	}
	// What the machine refuses is not a usage error: exit 1, naming the
	// address or path and what went wrong.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	inUse := busy.Addr().String()
	stateFile := filepath.Join(dir, "state-file")
	if err := os.WriteFile(stateFile, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dbDir := filepath.Join(dir, "db-is-a-dir")
	if err := os.MkdirAll(filepath.Join(dbDir, "node.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	garbled := filepath.Join(dir, "garbled")
	os.Mkdir(garbled, 0o700)
	if err := os.WriteFile(filepath.Join(garbled, "node.db"), bytes.Repeat([]byte("not a database "), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	withState := func(state string, more ...string) []string {
		return append([]string{"node", "--listen", "127.0.0.1:0", "--state", state, "--creds", cr}, more...)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"node", "--listen", inUse, "--state", filepath.Join(dir, "s"), "--creds", cr}, []string{"listen on " + inUse, "address already in use"}},
		{withState(stateFile), []string{"state directory " + stateFile, "not a directory"}},
		{withState(dbDir), []string{filepath.Join(dbDir, "node.db")}},
		{withState(garbled), []string{filepath.Join(garbled, "node.db"), "not a database"}},
		{withState(filepath.Join(dir, "s"), "--metrics", inUse), []string{"--metrics", inUse, "address already in use"}},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		ok := code == 1 && !strings.Contains(errOut, "panic")
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("volsched %s: exit %d, %q; want exit 1 naming %q", strings.Join(c.args, " "), code, strings.TrimSpace(errOut), c.want)
		}
	}

	// A node that is not there: a clear error, exit 1, at once.
	_, errOut, code = runCLI(t, "", append(submit, "--tasks", "1", "--length", "5", "--program", prog, "--timeout", "20s")...)
	if code != 1 || !strings.Contains(errOut, "127.0.0.1:1") {
		t.Errorf("submit to a closed port: exit %d, %q; want exit 1 naming the address", code, strings.TrimSpace(errOut))
	}
}

// TestNodeEndToEnd runs one daemon (a membership of one: it is the whole
// tree) as a process of the command, submits a bag with inputs through
// the command, waits for it and checks every output, the status (text and
// JSON) and the results; then Ctrl-C stops the daemon cleanly.
func TestNodeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a daemon and its client commands as processes (not in -short)")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the daemon listens there
	ca, ncr, ocr := filepath.Join(dir, "ca"), filepath.Join(dir, "ncr"), filepath.Join(dir, "ocr")
	for _, args := range [][]string{
		{"node", "ca", "init", "--dir", ca},
		{"node", "ca", "issue", "--dir", ca, "--name", addr, "--out", ncr},
		{"node", "ca", "issue", "--dir", ca, "--name", "operator", "--host", "127.0.0.1", "--out", ocr},
	} {
		if _, e, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("volsched %s: exit %d: %s", strings.Join(args, " "), code, e)
		}
	}
	prog := filepath.Join(dir, "p.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n{ cat \"$1\"; echo \" out\"; } > \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	const tasks = 4
	for i := 0; i < tasks; i++ {
		if err := os.WriteFile(filepath.Join(in, fmt.Sprint("f", i)), []byte(fmt.Sprint("in-", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	d := exec.Command(os.Args[0], "-test.run=^$")
	d.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ARGS="+strings.Join([]string{"node", "--listen", addr,
		"--state", filepath.Join(dir, "state"), "--creds", ncr, "--peers", addr, "--heartbeat", "200ms"}, " "))
	var dlog bytes.Buffer
	d.Stdout, d.Stderr = &dlog, &dlog
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			d.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("daemon's log:\n%s", dlog.String())
		}
	}()

	client := []string{"--node", addr, "--creds", ocr, "--timeout", "30s"}
	// The daemon may not listen yet: the client fails, exit 1, until it does.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, e, code := runCLI(t, "", append([]string{"node", "status"}, client...)...)
		if code == 0 {
			break
		}
		if code != 1 || time.Now().After(deadline) {
			t.Fatalf("status before the daemon listens: exit %d: %s", code, e)
		}
		time.Sleep(200 * time.Millisecond)
	}
	outDir := filepath.Join(dir, "out")
	out, e, code := runCLI(t, "", append([]string{"node", "submit", "--length", "10", "--program", prog, "--inputs", in, "--wait", "--out", outDir, "--name", "e2e"}, client...)...)
	if code != 0 {
		t.Fatalf("submit --wait: exit %d: %s", code, e)
	}
	bag := strings.TrimSpace(out)
	for i := 0; i < tasks; i++ {
		b, err := os.ReadFile(filepath.Join(outDir, fmt.Sprintf("%06d", i)))
		if want := fmt.Sprintf("in-%d out\n", i); err != nil || string(b) != want {
			t.Errorf("output of task %d: %q, %v; want %q", i, b, err, want)
		}
	}
	out, e, code = runCLI(t, "", append([]string{"node", "status"}, client...)...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d/%d", tasks, tasks)) || !strings.Contains(out, "e2e") {
		t.Errorf("status: exit %d, %q %s; want the bag e2e %d/%d", code, out, e, tasks, tasks)
	}
	out, e, code = runCLI(t, "", append([]string{"node", "status", "--json"}, client...)...)
	var st struct {
		Node string
		Bags []struct {
			Name        string
			Tasks, Done int
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Node != addr || len(st.Bags) != 1 || st.Bags[0].Done != tasks || st.Bags[0].Name != "e2e" {
		t.Errorf("status --json: exit %d, %q %s; want node %s with one bag e2e, %d done", code, out, e, addr, tasks)
	}
	out, e, code = runCLI(t, "", append([]string{"node", "results", "--bag", bag}, client...)...)
	if code != 0 || strings.Count(out, " done ") != tasks {
		t.Errorf("results --bag %s: exit %d, %q %s; want %d tasks done", bag, code, out, e, tasks)
	}
	_, e, code = runCLI(t, "", append([]string{"node", "results", "--bag", "1"}, client...)...)
	if code != 1 || !strings.Contains(e, "bag 1") {
		t.Errorf("results of an unknown bag: exit %d, %q; want exit 1 naming bag 1", code, e)
	}

	// Ctrl-C: the daemon stops by itself, exit 0, its state kept.
	if err := d.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil || !strings.Contains(dlog.String(), "stopped") {
			t.Errorf("after SIGINT: %v; want exit 0 and 'stopped' in the log", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the daemon did not stop within 30 s of SIGINT")
	}
}
