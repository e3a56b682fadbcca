package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/testbin"
)

// volschedBinary is the volsched command built once for the tests that
// run it as real processes.
func volschedBinary(t testing.TB) string { return testbin.Volsched(t) }

func TestMain(m *testing.M) { testbin.Main(m) }

// daemon is one `volsched node` process.
type daemon struct {
	addr, state, creds string
	args               []string
	cmd                *exec.Cmd
	log                *os.File
}

func (d *daemon) start(t *testing.T, bin string) {
	t.Helper()
	var err error
	d.log, err = os.OpenFile(filepath.Join(filepath.Dir(d.state), filepath.Base(d.state)+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	d.cmd = exec.Command(bin, append([]string{"node", "--listen", d.addr, "--state", d.state, "--creds", d.creds}, d.args...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	// Killed with the test process too (a test binary that times out
	// runs no deferred kill: the daemons would outlive it).
	d.cmd.SysProcAttr = procAttr()
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

func (d *daemon) kill() {
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Signal(syscall.SIGKILL)
		d.cmd.Wait()
		d.cmd = nil
	}
	if d.log != nil {
		d.log.Close()
	}
}

// TestProcessesWithSIGKILL runs five daemons as processes of the real
// binary, submits a bag, and SIGKILLs two execution nodes and the
// submission node while it runs; the submission node is started again
// with its state and the bag completes, every task's output correct and
// counted once.
func TestProcessesWithSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs daemons as processes (not in -short)")
	}
	bin := volschedBinary(t)
	dir := t.TempDir()
	if _, err := InitCA(filepath.Join(dir, "ca")); err != nil {
		t.Fatal(err)
	}
	const n = 5
	lns, addrs := listeners(t, n)
	for _, ln := range lns {
		ln.Close() // the processes listen on these addresses
	}
	ds := make([]*daemon, n)
	for i := range ds {
		d := &daemon{addr: addrs[i], state: filepath.Join(dir, fmt.Sprint("node", i)), creds: filepath.Join(dir, fmt.Sprint("creds", i))}
		if err := Issue(filepath.Join(dir, "ca"), addrs[i], []string{"127.0.0.1"}, time.Hour, d.creds); err != nil {
			t.Fatal(err)
		}
		d.args = []string{"--peers", strings.Join(addrs, ","), "--heartbeat", "100ms", "--dead-after", "1s",
			"--detect", "3s", "--start-grace", "5s", "--retry", "100ms", "--bandwidth", "100000"}
		ds[i] = d
		d.start(t, bin)
	}
	defer func() {
		for _, d := range ds {
			d.kill()
		}
		if t.Failed() {
			for _, d := range ds {
				b, _ := os.ReadFile(d.log.Name())
				var lines []string
				for _, l := range strings.Split(string(b), "\n") {
					if !strings.Contains(l, "dial ") && !strings.Contains(l, "connection from") {
						lines = append(lines, l)
					}
				}
				t.Logf("--- %s:\n%s", d.addr, strings.Join(lines[max(0, len(lines)-60):], "\n"))
			}
		}
	}()
	if err := Issue(filepath.Join(dir, "ca"), "operator", []string{"127.0.0.1"}, time.Hour, filepath.Join(dir, "op")); err != nil {
		t.Fatal(err)
	}
	cert, ca, err := LoadCredentials(filepath.Join(dir, "op"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dial := func() *Client {
		var c *Client
		waitFor(t, 20*time.Second, "dial "+addrs[0], func() (bool, string) {
			c, err = Dial(ctx, addrs[0], cert, ca)
			return err == nil, fmt.Sprint(err)
		})
		return c
	}
	c := dial()
	const tasks = 24
	inputs := make([][]byte, tasks)
	for i := range inputs {
		inputs[i] = []byte(fmt.Sprintf("in-%d", i))
	}
	prog := "#!/bin/sh\nsleep 0.3\n{ cat \"$1\"; echo \" done\"; } > \"$2\"\n"
	var bag uint64
	waitFor(t, 20*time.Second, "submission", func() (bool, string) {
		bag, err = c.Submit(ctx, &Job{Name: "sigkill", Tasks: tasks, Length: 300, Program: []byte(prog), Inputs: inputs})
		return err == nil, fmt.Sprint(err)
	})
	done := func() (BagStatus, error) {
		s, err := c.Status(ctx)
		if err != nil {
			return BagStatus{}, err
		}
		for _, b := range s.Bags {
			if b.ID == bag {
				return b, nil
			}
		}
		return BagStatus{}, fmt.Errorf("bag %d missing", bag)
	}
	waitFor(t, 30*time.Second, "first results", func() (bool, string) {
		b, err := done()
		return err == nil && b.Done >= 4, fmt.Sprintf("%+v %v", b, err)
	})
	// Two execution nodes and the submission node die at once.
	ds[2].kill()
	ds[4].kill()
	ds[0].kill()
	c.Close()
	t.Log("SIGKILLed nodes 0 (submission), 2 and 4")
	time.Sleep(500 * time.Millisecond)
	ds[0].start(t, bin)
	c = dial()
	defer c.Close()
	waitFor(t, 60*time.Second, "bag done after the kills", func() (bool, string) {
		b, err := done()
		return err == nil && b.Done == tasks, fmt.Sprintf("%+v %v", b, err)
	})
	res, err := c.Results(ctx, bag)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != tasks {
		t.Fatalf("%d results, want %d", len(res), tasks)
	}
	for i, r := range res {
		if want := fmt.Sprintf("in-%d done\n", i); r.State != "done" || string(r.Output) != want {
			t.Errorf("task %d: %s %q (node %s, exit %d, err %q, digest %s), want %q", i, r.State, r.Output, r.Node, r.Exit, r.Err, r.Digest, want)
		}
	}
	b, _ := done()
	t.Logf("bag complete after the kills: %d resubmitted, %d duplicate results counted once", b.Resubmitted, b.Duplicates)
}
