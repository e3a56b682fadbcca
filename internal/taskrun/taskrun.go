// Package taskrun is the one task runner of the live systems: `volsched
// worker` (live/worker) and `volsched node` (overlay/node) run every task
// through it, and `manifest.App.RunLocal` runs an application's tasks with
// it.
//
// A task is a program started with its arguments in a directory. Between
// a process that runs tasks (the caller: a worker, a node daemon) and its
// tasks sits a watchdog: the caller's own executable started again as a
// watchdog (package internal/taskrun/watchdog, whose init runs it), once,
// with the caller's first task; all the caller's tasks are its children.
// The watchdog
//
//   - starts each task in a process group of its own (the task's first
//     process is the group's leader), with standard input from /dev/null
//     and standard output and error to the files the caller names;
//   - on Linux, starts it with a parent-death signal (Pdeathsig SIGKILL)
//     from a thread that lives as long as the watchdog (the signal follows
//     the thread that started the child, not the process);
//   - on Linux, is the subreaper of everything its tasks start
//     (PR_SET_CHILD_SUBREAPER): a process of a task whose parent dies is
//     re-parented to the watchdog, not to init, even if it left the task's
//     process group (setsid, setpgid); it knows whose it is by its process
//     group, or else by the variable VOLSCHED_TASKRUN_TASK that every task's
//     environment carries and its processes inherit;
//   - gives a task its file size limit (RLIMIT_FSIZE, Spec.FileLimit) from
//     its first instruction, so that the kernel refuses the write that
//     would make a file of the task larger than the limit;
//   - stops, continues and kills a task's group when the caller says so;
//   - holds the read end of a pipe whose write end only the caller holds:
//     when the caller dies, however it dies (SIGKILL included), the read
//     returns end-of-file and the watchdog kills every task, then every
//     process re-parented to it, and exits;
//   - when a task's first process has ended, kills the rest of its group
//     and, on Linux, the processes re-parented to it that are the task's
//     (and any that is no running task's), and reports the task ended once
//     none of its processes is left.
//
// What is guaranteed, then: a task ends when its first process ends, when
// the caller cancels it and when its time or file limit is reached; it
// dies with its caller, SIGKILL of the caller included. "The task" is its
// process group on every Unix, and on Linux also every process it started,
// even one that left the group (an orphan that left the group and replaced
// its environment is killed at the next end of a task, or with the
// caller). What is not covered: on systems other than Linux, a process that
// left the task's process group (setsid) survives the task; a process the
// task had started through another service (at, cron, systemd-run, a
// daemon it contacted) is not the task's; if the watchdog itself is killed
// with SIGKILL (by an operator or the out-of-memory killer), only the
// tasks' first processes die with it (their parent-death signal, Linux)
// and the caller, which sees the watchdog gone, kills the tasks' process
// groups (the next task starts a new watchdog). Stop and Continue reach
// the process group, not the processes that left it.
//
// The watchdog costs one process per caller; its start-up is paid once,
// each task costs a fork and exec and a few messages (docs/benchmarks.md).
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
	"sync"
	"syscall"
	"time"

	"github.com/volsched/volsched/internal/taskrun/watchdog"
)

// Spec is a task to run.
type Spec struct {
	// Path is the program; a name without a slash is looked up in $PATH.
	// Args are its arguments (without the program's name).
	Path string
	Args []string
	// Dir is the working directory (empty: the caller's).
	Dir string
	// Env is the environment (nil: the caller's, as os/exec).
	Env []string
	// Stdout and Stderr are the files the task's standard output and error
	// go to, created or truncated (relative: to Dir; empty: /dev/null; the
	// same name for both: one file). They are the task's files: FileLimit
	// bounds them too. ReadTail reads the end of one.
	Stdout, Stderr string
	// TimeLimit, when > 0, is the task's running time after which it is
	// killed (Result.End TimeLimit). Time stopped (Stop to Continue) does
	// not count.
	TimeLimit time.Duration
	// FileLimit, when > 0, is the largest size in bytes of a file the task
	// writes: the kernel refuses the write that would go past it (the
	// writing process gets SIGXFSZ, which kills it unless it ignores the
	// signal). It applies to every regular file the task's processes
	// write, not to pipes. A task whose first process dies of SIGXFSZ, or
	// one of whose Outputs is larger than FileLimit when it ends, ends with
	// FileLimit.
	FileLimit int64
	// Outputs are files of the task (relative: to Dir) checked against
	// FileLimit when it ends (a task that ignores SIGXFSZ may exit 0 with a
	// file cut by the kernel: it is one byte over FileLimit).
	Outputs []string
}

// End says why a task ended.
type End int

const (
	// Exited: the task's first process exited, or died of a signal not
	// sent by the runner.
	Exited End = iota
	// Cancelled: the caller killed it (Kill, or the context ended).
	Cancelled
	// TimeLimit: it ran for Spec.TimeLimit.
	TimeLimit
	// FileLimit: it tried to write a file larger than Spec.FileLimit.
	FileLimit
	// Lost: the watchdog died (killed from outside); the task's process
	// group was killed.
	Lost
)

func (e End) String() string {
	switch e {
	case Exited:
		return "exited"
	case Cancelled:
		return "cancelled"
	case TimeLimit:
		return "time limit"
	case FileLimit:
		return "file size limit"
	case Lost:
		return "watchdog lost"
	}
	return "End(" + strconv.Itoa(int(e)) + ")"
}

// Result is how a task ended.
type Result struct {
	End End
	// Exit is the first process's exit status when it exited (Signal 0);
	// -1 when a signal ended it.
	Exit int
	// Signal is the signal that ended the first process (0: it exited).
	Signal syscall.Signal
	// Running is the time from the start to the end, less the time stopped.
	Running time.Duration
	// Err says why the task did not succeed: os/exec's wording for an exit
	// ("exit status 3", "signal: killed"), the limit reached, or the
	// watchdog's fate; nil for a task that exited 0.
	Err error
}

// OK reports whether the task exited with status 0 and reached no limit.
func (r Result) OK() bool { return r.Err == nil }

// Task is a started task.
type Task struct {
	spec Spec
	k    *keeper
	id   string
	pid  int

	started chan string // the watchdog's answer to start: "pid" or "error TEXT"

	mu      sync.Mutex // guards what follows
	end     End        // why the runner ended it (Exited: it did not)
	ended   bool       // the end is known
	stopped bool
	resumed time.Time     // the start, or the last Continue
	ran     time.Duration // running time before resumed
	left    time.Duration // TimeLimit: running time left at resumed
	limit   *time.Timer
	stopCtx func() bool // nil: none
	done    chan struct{}
	res     Result
}

// ErrStart wraps why a task could not be started.
var ErrStart = errors.New("task not started")

// Start starts the task (and the watchdog, if none runs). It returns once
// the task's first process runs, or with an error wrapping ErrStart when it
// cannot (no such program, not executable, no such directory). When ctx
// ends, the task is killed (Cancelled).
func Start(ctx context.Context, s Spec) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	if s.FileLimit < 0 || s.TimeLimit < 0 {
		return nil, fmt.Errorf("%w: file limit %d, time limit %v: want ≥ 0 (0: none)", ErrStart, s.FileLimit, s.TimeLimit)
	}
	path := s.Path
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStart, err)
		}
		path = p
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	// The watchdog's working directory is the caller's when it started:
	// it is given absolute paths.
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		if !filepath.IsAbs(p) && s.Dir != "" {
			p = filepath.Join(s.Dir, p)
		}
		return filepath.Abs(p)
	}
	dir, err1 := abs(s.Dir)
	stdout, err2 := abs(s.Stdout)
	stderr, err3 := abs(s.Stderr)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	if s.Dir == "" {
		dir = ""
	}
	fields := []string{"start", "", dir, stdout, stderr, strconv.FormatInt(s.FileLimit, 10), strconv.Itoa(len(env))}
	fields = append(append(append(fields, env...), path), s.Args...)
	t := &Task{spec: s, started: make(chan string, 1), done: make(chan struct{}), left: s.TimeLimit}
	k, err := theKeeper()
	if err != nil {
		return nil, fmt.Errorf("%w: watchdog: %v", ErrStart, err)
	}
	t.k = k
	if err := k.start(t, fields); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	if word, arg, _ := strings.Cut(<-t.started, " "); word != "pid" {
		return nil, fmt.Errorf("%w: %s", ErrStart, arg)
	}
	t.mu.Lock()
	if !t.ended { // (a task may end before Start returns)
		if s.TimeLimit > 0 {
			t.limit = time.AfterFunc(s.TimeLimit, func() { t.kill(TimeLimit) })
		}
		t.stopCtx = context.AfterFunc(ctx, func() { t.kill(Cancelled) })
	}
	t.mu.Unlock()
	return t, nil
}

// Pid is the task's first process, the leader of its process group.
func (t *Task) Pid() int { return t.pid }

// Done is closed when the task has ended (Wait returns at once).
func (t *Task) Done() <-chan struct{} { return t.done }

// Wait waits for the task's end: every process of the task is dead when
// it returns (see the package's guarantees).
func (t *Task) Wait() Result {
	<-t.done
	return t.res
}

// Stop stops the task's process group (SIGSTOP); its running time stops
// too. Stopping a stopped or ended task does nothing.
func (t *Task) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || t.stopped {
		return
	}
	t.stopped = true
	t.ran += time.Since(t.resumed)
	if t.limit != nil && t.limit.Stop() {
		t.left -= time.Since(t.resumed)
	}
	t.k.send("stop", t.id)
}

// Continue continues a stopped task (SIGCONT to its process group).
func (t *Task) Continue() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || !t.stopped {
		return
	}
	t.stopped = false
	t.resumed = time.Now()
	if t.limit != nil && t.end == Exited {
		t.limit.Reset(max(t.left, 0))
	}
	t.k.send("cont", t.id)
}

// Kill kills the task (Cancelled); Wait returns once it is dead.
func (t *Task) Kill() { t.kill(Cancelled) }

func (t *Task) kill(why End) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || t.end != Exited {
		return
	}
	t.end = why
	t.k.send("kill", t.id)
}

// finish makes the result from the watchdog's report ("exit N", "signal
// N"), or from its loss (lost).
func (t *Task) finish(word, arg string, lost error) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	if t.limit != nil {
		t.limit.Stop()
	}
	running := t.ran
	if !t.stopped {
		running += time.Since(t.resumed)
	}
	end, stopCtx := t.end, t.stopCtx
	t.mu.Unlock()
	if stopCtx != nil {
		stopCtx()
	}
	r := Result{End: end, Running: running, Exit: -1}
	n, err := strconv.Atoi(arg)
	switch {
	case lost != nil || err != nil:
		// Its first process died with the watchdog (parent-death signal):
		// kill the rest of its group.
		syscall.Kill(-t.pid, syscall.SIGKILL)
		r.End = Lost
		r.Err = fmt.Errorf("the tasks' watchdog ended (%v); the task's process group was killed", lost)
	case word == "exit":
		r.Exit = n
	default:
		r.Signal = syscall.Signal(n)
	}
	if r.End == Exited && t.spec.FileLimit > 0 && t.overLimit(r) {
		r.End = FileLimit
	}
	switch r.End {
	case Cancelled:
		r.Err = errors.New("cancelled")
	case TimeLimit:
		r.Err = fmt.Errorf("time limit of %v reached: killed", t.spec.TimeLimit)
	case FileLimit:
		r.Err = fmt.Errorf("file size limit of %d bytes: a write beyond it was refused (%s)", t.spec.FileLimit, exitText(r))
	case Exited:
		if r.Exit != 0 {
			r.Err = errors.New(exitText(r))
		}
	}
	t.res = r
	close(t.done)
}

// overLimit reports whether the task ran into its file size limit: its
// first process died of SIGXFSZ, or an output is larger than the limit.
func (t *Task) overLimit(r Result) bool {
	if r.Signal == syscall.SIGXFSZ {
		return true
	}
	for _, o := range t.spec.Outputs {
		if !filepath.IsAbs(o) && t.spec.Dir != "" {
			o = filepath.Join(t.spec.Dir, o)
		}
		if st, err := os.Stat(o); err == nil && st.Size() > t.spec.FileLimit {
			return true
		}
	}
	return false
}

// exitText is os/exec's wording of an exit: "exit status 3", "signal:
// killed".
func exitText(r Result) string {
	if r.Signal != 0 {
		return "signal: " + r.Signal.String()
	}
	return "exit status " + strconv.Itoa(r.Exit)
}

// keeper is the caller's side of the watchdog: its process, the pipe of
// commands and the tasks it runs.
type keeper struct {
	cmd  *exec.Cmd
	mu   sync.Mutex // guards the writes to w, tasks, next, err
	w    *os.File
	next uint64
	byID map[string]*Task
	err  error // non-nil: the watchdog is gone
}

var (
	keeperMu sync.Mutex
	current  *keeper
)

// theKeeper returns the running watchdog, starting one if there is none
// (the first task, or the last watchdog died).
func theKeeper() (*keeper, error) {
	keeperMu.Lock()
	defer keeperMu.Unlock()
	if current != nil {
		current.mu.Lock()
		gone := current.err != nil
		current.mu.Unlock()
		if !gone {
			return current, nil
		}
	}
	k, err := startKeeper()
	if err != nil {
		return nil, err
	}
	current = k
	return k, nil
}

func startKeeper() (*keeper, error) {
	self, err := selfExe()
	if err != nil {
		return nil, fmt.Errorf("the runner's own executable: %v", err)
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:       self,
		Args:       []string{"volsched-task-watchdog"},
		Env:        append(os.Environ(), watchdog.Env+"=1"),
		ExtraFiles: []*os.File{cmdR, repW},
		// Its own failures (a Go panic) in the caller's log.
		Stderr: os.Stderr,
		// Its own process group: a terminal's Ctrl-C reaches the caller,
		// which stops its tasks itself.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	cmdR.Close()
	repW.Close()
	if err != nil {
		cmdW.Close()
		repR.Close()
		return nil, err
	}
	k := &keeper{cmd: cmd, w: cmdW, byID: map[string]*Task{}}
	go k.read(repR)
	return k, nil
}

// start registers t and asks the watchdog to start it.
func (k *keeper) start(t *Task, fields []string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return k.err
	}
	k.next++
	t.id = strconv.FormatUint(k.next, 10)
	fields[1] = t.id
	k.byID[t.id] = t
	if _, err := k.w.WriteString(watchdog.Join(fields...) + "\n"); err != nil {
		delete(k.byID, t.id)
		return err
	}
	return nil
}

// send sends a command about a task (an error shows as the watchdog's
// loss, in read).
func (k *keeper) send(cmd, id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err == nil {
		k.w.WriteString(watchdog.Join(cmd, id) + "\n")
	}
}

// read takes the watchdog's reports until it is gone; then every task of
// it is lost.
func (k *keeper) read(r *os.File) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		f, ok := watchdog.Split(strings.TrimSuffix(line, "\n"))
		if !ok || len(f) < 3 {
			continue
		}
		k.mu.Lock()
		t := k.byID[f[1]]
		if f[0] == "exit" || f[0] == "signal" || f[0] == "error" {
			delete(k.byID, f[1])
		}
		k.mu.Unlock()
		if t == nil {
			continue
		}
		switch f[0] {
		case "pid":
			pid, _ := strconv.Atoi(f[2])
			t.mu.Lock()
			t.pid, t.resumed = pid, time.Now()
			t.mu.Unlock()
			t.started <- "pid"
		case "error":
			t.started <- "error " + f[2]
		case "exit", "signal":
			t.finish(f[0], f[2], nil)
		}
	}
	r.Close()
	werr := k.cmd.Wait()
	if werr == nil {
		werr = errors.New("exited")
	}
	k.mu.Lock()
	k.err = werr
	k.w.Close()
	tasks := k.byID
	k.byID = nil
	k.mu.Unlock()
	for _, t := range tasks {
		select {
		case t.started <- "error the tasks' watchdog ended: " + werr.Error():
		default:
		}
		if t.pid > 0 { // set by this goroutine
			t.finish("", "", werr)
		}
	}
}

// selfExe is the running executable, started again as the watchdog. On
// Linux /proc/self/exe, which stays valid if the file is replaced.
func selfExe() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

// ReadTail returns the last n bytes of a file (a task's standard error,
// for its failure message); "" if it cannot be read.
func ReadTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	m, _ := f.ReadAt(b, off)
	return string(b[:m])
}
