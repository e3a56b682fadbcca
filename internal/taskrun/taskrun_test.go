package taskrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/taskrun/taskruntest"
	"github.com/volsched/volsched/internal/taskrun/watchdog"
)

// helperEnv makes the test binary a caller that starts a task and waits
// for ever (TestCallerKilled kills it).
const helperEnv = "TASKRUN_TEST_CALLER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		t, err := Start(context.Background(), Spec{Path: filepath.Join(dir, "tree.sh")})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("started", t.Pid(), t.k.cmd.Process.Pid)
		select {}
	}
	os.Exit(m.Run())
}

// tree writes taskruntest's script to a new directory, where its
// processes write their pids, and returns the directory.
func tree(t *testing.T, escape bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tree.sh"), []byte(taskruntest.Script(dir, escape)), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startTree starts tree's script as a task (with its time limit) and
// returns it with its directory.
func startTree(t *testing.T, ctx context.Context, escape bool, limit time.Duration) (*Task, string) {
	t.Helper()
	taskruntest.NeedProc(t)
	dir := tree(t, escape)
	tk, err := Start(ctx, Spec{Path: filepath.Join(dir, "tree.sh"), TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return tk, dir
}

// roles are the task's processes of tree: with escape where the runner
// kills a process that left the group (Linux).
func roles(escape bool) []string {
	if escape {
		return taskruntest.EscapeRoles
	}
	return taskruntest.Roles
}

// TestExit: the first process's exit status comes back, its standard
// output and error go to their files; a non-zero status is an error worded
// as os/exec words it.
func TestExit(t *testing.T) {
	cases := []struct {
		script string
		exit   int
		sig    syscall.Signal
		err    string
	}{
		{"echo out; echo err >&2", 0, 0, ""},
		{"echo out; echo err >&2; exit 3", 3, 0, "exit status 3"},
		{"echo out; echo err >&2; kill -TERM $$", -1, syscall.SIGTERM, "signal: terminated"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		tk, err := Start(context.Background(), Spec{Path: "sh", Args: []string{"-c", c.script}, Dir: dir, Stdout: "out", Stderr: filepath.Join(dir, "err")})
		if err != nil {
			t.Fatal(err)
		}
		r := tk.Wait()
		out, errOut := ReadTail(filepath.Join(dir, "out"), 100), ReadTail(filepath.Join(dir, "err"), 100)
		if r.End != Exited || r.Exit != c.exit || r.Signal != c.sig || out != "out\n" || errOut != "err\n" {
			t.Errorf("%q: %+v, stdout %q, stderr %q; want exit %d, signal %d, out, err", c.script, r, out, errOut, c.exit, c.sig)
		}
		if got := fmt.Sprint(r.Err); (c.err == "") != (r.Err == nil) || c.err != "" && got != c.err {
			t.Errorf("%q: error %v, want %q", c.script, r.Err, c.err)
		}
	}
}

// TestEnvAndDir: the task runs in Spec.Dir with Spec.Env (and the marker of
// its task, not the watchdog's); standard output and error to one file
// when they name the same; ReadTail keeps the end.
func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	tk, err := Start(context.Background(), Spec{Path: "sh", Args: []string{"-c", `pwd; echo "$A" >&2; env | grep -c ` + watchdog.Env + `; env | grep -c ` + watchdog.Marker},
		Dir: dir, Env: []string{"A=b", "PATH=" + os.Getenv("PATH")}, Stdout: "log", Stderr: "log"})
	if err != nil {
		t.Fatal(err)
	}
	if r := tk.Wait(); !r.OK() {
		t.Fatalf("%+v", r)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got, want := ReadTail(filepath.Join(dir, "log"), 1000), real+"\nb\n0\n1\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if got := ReadTail(filepath.Join(dir, "log"), 4); got != "0\n1\n" {
		t.Errorf("tail %q, want the last 4 bytes", got)
	}
}

// TestStartErrors: what cannot start is an error of Start, wrapping
// ErrStart and naming the cause.
func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644)
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{Path: filepath.Join(dir, "missing")}, "no such file"},
		{Spec{Path: "no-such-program-volsched"}, "not found"},
		{Spec{Path: plain}, "permission denied"},
		{Spec{Path: "sh", Dir: filepath.Join(dir, "nodir")}, "no such file"},
		{Spec{Path: "sh", FileLimit: -1}, "want ≥ 0"},
		{Spec{Path: "sh", Stdout: filepath.Join(dir, "nodir", "out")}, "no such file"},
	}
	for _, c := range cases {
		_, err := Start(context.Background(), c.spec)
		if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want ErrStart naming %q", c.spec, err, c.want)
		}
	}
}

// TestKillKillsTree: Kill and the end of the context kill the task's
// first process, its child and grandchild, and (Linux) a process that left
// the task's process group; all are dead when Wait returns.
func TestKillKillsTree(t *testing.T) {
	taskruntest.NeedProc(t)
	for _, how := range []string{"kill", "context"} {
		t.Run(how, func(t *testing.T) {
			escape := runtime.GOOS == "linux"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tk, dir := startTree(t, ctx, escape, 0)
			ps := taskruntest.Procs(t, dir, 30*time.Second, roles(escape)...)
			if ps[0].Pid != tk.Pid() {
				t.Fatalf("the task's first process is %d, Pid says %d", ps[0].Pid, tk.Pid())
			}
			if escape {
				if _, pg, _, _ := taskruntest.Stat(ps[3].Pid); pg == tk.Pid() {
					t.Fatalf("the escaped process is in the task's group %d", pg)
				}
			}
			if how == "kill" {
				tk.Kill()
			} else {
				cancel()
			}
			r := tk.Wait()
			if r.End != Cancelled || r.Signal != syscall.SIGKILL || fmt.Sprint(r.Err) != "cancelled" {
				t.Errorf("result %+v, want cancelled, the first process killed", r)
			}
			taskruntest.Dead(t, ps)
		})
	}
}

// TestEndKillsRest: when the first process exits, what it left running
// is killed before Wait returns.
func TestEndKillsRest(t *testing.T) {
	taskruntest.NeedProc(t)
	dir := t.TempDir()
	tk, err := Start(context.Background(), Spec{Path: "sh", Args: []string{"-c", `sleep 600 & echo $! > bg.tmp; mv bg.tmp bg; while [ ! -f go ]; do sleep 0.01; done`}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ps := taskruntest.Procs(t, dir, 30*time.Second, "bg")
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	if r := tk.Wait(); !r.OK() {
		t.Fatal(r.Err)
	}
	taskruntest.Dead(t, ps)
}

// startCaller starts the test binary as a caller of a task (tree.sh in
// dir) and returns it and the task's watchdog.
func startCaller(t *testing.T, dir string) (caller *exec.Cmd, watchdog int) {
	t.Helper()
	caller = exec.Command(os.Args[0], "-test.run=^$")
	caller.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := caller.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := caller.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caller.Process.Kill(); caller.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var leader int
	if _, e := fmt.Sscanf(line, "started %d %d", &leader, &watchdog); err != nil || e != nil {
		t.Fatalf("caller: %q, %v", line, err)
	}
	return caller, watchdog
}

// TestCallerKilled: a caller killed with SIGKILL takes its task's whole
// tree with it (the watchdog sees its commands' pipe closed).
func TestCallerKilled(t *testing.T) {
	taskruntest.NeedProc(t)
	if testing.Short() {
		t.Skip("starts a caller process and kills it")
	}
	escape := runtime.GOOS == "linux"
	dir := tree(t, escape)
	caller, _ := startCaller(t, dir)
	ps := taskruntest.Procs(t, dir, 30*time.Second, roles(escape)...)
	caller.Process.Signal(syscall.SIGKILL)
	caller.Wait()
	taskruntest.WaitDead(t, ps, 30*time.Second)
}

// TestCallerAndWatchdogKilled: with the caller and the watchdog both
// killed (the watchdog stopped first, so that it cannot act), the task's
// first process still dies: its parent-death signal (Linux). Its child
// and grandchild are left (the package's documented limit; the test's
// clean-up kills them).
func TestCallerAndWatchdogKilled(t *testing.T) {
	taskruntest.NeedProc(t)
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("Linux; starts a caller process and kills it")
	}
	dir := tree(t, false)
	caller, watchdog := startCaller(t, dir)
	ps := taskruntest.Procs(t, dir, 30*time.Second, taskruntest.Roles...)
	syscall.Kill(watchdog, syscall.SIGSTOP)
	caller.Process.Signal(syscall.SIGKILL)
	caller.Wait()
	syscall.Kill(watchdog, syscall.SIGKILL)
	taskruntest.WaitDead(t, ps[:1], 30*time.Second)
}

// TestWatchdogKilled: a watchdog killed from outside takes the task's
// first process with it (its parent-death signal, Linux) and the caller
// kills the rest of the group: Wait says Lost.
func TestWatchdogKilled(t *testing.T) {
	tk, dir := startTree(t, context.Background(), false, 0)
	ps := taskruntest.Procs(t, dir, 30*time.Second, taskruntest.Roles...)
	tk.k.cmd.Process.Signal(syscall.SIGKILL)
	r := tk.Wait()
	if r.End != Lost || !strings.Contains(fmt.Sprint(r.Err), "watchdog ended") {
		t.Errorf("result %+v, want Lost", r)
	}
	taskruntest.WaitDead(t, ps, 30*time.Second)
}

// TestOrphansJudged: the watchdog is shared by a caller's tasks. A process
// that left task A's group and lost its parent (re-parented to the
// watchdog) lives while A runs, even when another task ends; one that also
// replaced its environment (env -i: no task's marker) is killed at the
// next end of a task; A's dies with A.
func TestOrphansJudged(t *testing.T) {
	taskruntest.NeedProc(t)
	if runtime.GOOS != "linux" {
		t.Skip("orphans are the watchdog's on Linux only")
	}
	dir := t.TempDir()
	orphan := func(name, prefix string) string {
		inner := `echo \$\$ > ` + name + `.tmp; mv ` + name + `.tmp ` + name + `; exec sleep 600`
		return `sh -c '` + prefix + `setsid sh -c "` + inner + `" &'` + "\n"
	}
	script := "#!/bin/sh\ncd " + dir + "\n" + orphan("orphan", "") + orphan("bare", "env -i PATH=\"$PATH\" ") +
		"echo $$ > task.tmp; mv task.tmp task\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := Start(context.Background(), Spec{Path: filepath.Join(dir, "a.sh")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Kill()
	ps := taskruntest.Procs(t, dir, 30*time.Second, "task", "orphan", "bare")
	keeper := a.k.cmd.Process.Pid
	for _, p := range ps[1:] {
		taskruntest.Poll(t, p.Role+" re-parented to the watchdog", 30*time.Second, func() bool {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			return len(f) > 1 && f[1] == strconv.Itoa(keeper)
		})
	}
	other := func() {
		b, err := Start(context.Background(), Spec{Path: "true"})
		if err != nil {
			t.Fatal(err)
		}
		if r := b.Wait(); !r.OK() {
			t.Fatal(r.Err)
		}
	}
	other()
	// The bare orphan is killed; had A's been killed with it (in the same
	// sweep), it would be dead by the time the bare one is, and surely
	// after another task's end.
	taskruntest.WaitDead(t, ps[2:], 30*time.Second)
	other()
	if !ps[1].Alive() {
		t.Errorf("task A's orphan was killed when another task ended")
	}
	a.Kill()
	a.Wait()
	taskruntest.Dead(t, ps[:2])
}

// TestStopContinue: Stop stops the whole process group, Continue continues
// it; a stopped task can be killed.
func TestStopContinue(t *testing.T) {
	tk, dir := startTree(t, context.Background(), false, 0)
	defer tk.Kill()
	ps := taskruntest.Procs(t, dir, 30*time.Second, taskruntest.Roles...)
	all := func(want bool) func() bool {
		return func() bool {
			for _, p := range ps {
				if (p.State() == "T") != want {
					return false
				}
			}
			return true
		}
	}
	tk.Stop()
	taskruntest.Poll(t, "every process stopped", 30*time.Second, all(true))
	tk.Continue()
	taskruntest.Poll(t, "every process continued", 30*time.Second, all(false))
	tk.Stop()
	taskruntest.Poll(t, "every process stopped again", 30*time.Second, all(true))
	tk.Kill()
	if r := tk.Wait(); r.End != Cancelled {
		t.Errorf("result %+v, want cancelled", r)
	}
	taskruntest.Dead(t, ps)
}

// TestTimeLimit: a task is killed once it has run for its time limit;
// time stopped does not count.
func TestTimeLimit(t *testing.T) {
	const limit = 100 * time.Millisecond
	tk, dir := startTree(t, context.Background(), false, limit)
	tk.Stop()
	// Stopped for several times the limit: not killed (if the stopped
	// time counted, the task would be killed at the limit, load or not).
	select {
	case <-tk.Done():
		t.Fatalf("a stopped task ended: %+v", tk.Wait())
	case <-time.After(5 * limit):
	}
	tk.Continue()
	r := tk.Wait()
	if r.End != TimeLimit || r.Running < limit || !strings.Contains(fmt.Sprint(r.Err), "time limit of 100ms") {
		t.Errorf("result %+v; want the time limit, running ≥ %v", r, limit)
	}
	// The processes the task had the time to start are dead.
	for _, role := range taskruntest.Roles {
		b, err := os.ReadFile(filepath.Join(dir, role))
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if st, _, _, _ := taskruntest.Stat(pid); st != "" && st != "Z" {
			t.Errorf("%s (pid %d) alive after the time limit", role, pid)
		}
	}
}

// TestFileLimit: a write past the file size limit is refused by the
// kernel while the task writes: the task dies of SIGXFSZ, or, if it
// ignores the signal, its output is over the limit; both end with
// FileLimit. A file of exactly the limit is fine.
func TestFileLimit(t *testing.T) {
	cases := []struct {
		script string
		end    End
	}{
		{"head -c 1000 /dev/zero > out", Exited},
		{"exec head -c 5000 /dev/zero > out", FileLimit},
		{"trap '' XFSZ; head -c 5000 /dev/zero > out; exit 0", FileLimit},
	}
	for _, c := range cases {
		dir := t.TempDir()
		tk, err := Start(context.Background(), Spec{Path: "sh", Args: []string{"-c", c.script}, Dir: dir, FileLimit: 1000, Outputs: []string{"out"}})
		if err != nil {
			t.Fatal(err)
		}
		r := tk.Wait()
		st, err := os.Stat(filepath.Join(dir, "out"))
		if r.End != c.end || err != nil || st.Size() > 1001 {
			t.Errorf("%q: %+v, out %v; want %v and at most 1001 bytes written", c.script, r, st.Size(), c.end)
		}
		if c.end == FileLimit && !strings.Contains(fmt.Sprint(r.Err), "file size limit of 1000 bytes") {
			t.Errorf("%q: error %v, want the limit named", c.script, r.Err)
		}
	}
}
