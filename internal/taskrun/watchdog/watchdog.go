//go:build unix

// Package watchdog is the task runner's watchdog (see internal/taskrun): a
// process that starts the tasks of one caller, stops, continues and kills
// them when told, kills what a task leaves when its first process ends,
// and kills every task when the caller dies.
//
// The watchdog is the caller's own executable started again with Env set:
// this package's init then runs it and exits, before the program's main
// and before most packages are initialized. For that, the package imports
// nothing that needs package os (initialized late, with what depends on
// it): it reads its environment, its pipes and /proc through package
// syscall. Any program that links internal/taskrun links this package, so
// it can be its own watchdog with nothing to call from its main.
//
// The protocol, one line per message, fields quoted as by strconv.Quote:
//
//	caller → watchdog (FdCommands; end-of-file: the caller died)
//	  start ID DIR STDOUT STDERR FILELIMIT NENV ENV... PATH ARGS...
//	  stop ID | cont ID | kill ID
//	watchdog → caller (FdReport)
//	  pid ID PID | error ID TEXT        (the answer to start)
//	  exit ID STATUS | signal ID SIGNAL (the task and all it left are dead)
package watchdog

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Env marks a process as the watchdog (its value: "1").
const Env = "VOLSCHED_TASKRUN_WATCHDOG"

// Marker is set in every task's environment to "WATCHDOG-PID.ID": a process
// of the task that left its process group and lost its parent is known by
// it (Linux).
const Marker = "VOLSCHED_TASKRUN_TASK"

// The watchdog's file descriptors, after standard input, output and error.
const (
	FdCommands = 3
	FdReport   = 4
)

// Join quotes fields into one protocol line (without its newline).
func Join(fields ...string) string {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = strconv.Quote(f)
	}
	return strings.Join(q, " ")
}

// Split is Join's inverse.
func Split(line string) ([]string, bool) {
	var f []string
	for line = strings.TrimLeft(line, " "); line != ""; line = strings.TrimLeft(line, " ") {
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			return nil, false
		}
		s, err := strconv.Unquote(q)
		if err != nil {
			return nil, false
		}
		f = append(f, s)
		line = line[len(q):]
	}
	return f, true
}

func init() {
	if v, _ := syscall.Getenv(Env); v != "" {
		syscall.Exit(run())
	}
}

// task is one task of the watchdog.
type task struct {
	id     string
	leader int                // its first process, leader of its group
	marker string             // Marker's value
	alive  bool               // the leader is not reaped
	status syscall.WaitStatus // the leader's, once reaped
}

// keeper is the watchdog's state, shared by the command reader and the
// reaper.
type keeper struct {
	mu       sync.Mutex
	byID     map[string]*task
	byLeader map[int]*task
	ending   []*task // leaders reaped, their processes not all dead yet
	// whose holds the task of each child judged (not reaped yet, a child
	// keeps its pid; a dying one's environment cannot be read any more).
	whose   map[int]*task
	dying   bool // the caller died: kill everything, then exit
	wake    chan struct{}
	devnull int
	self    string
}

// report writes one line to the caller (ignored if it is gone).
func report(line string) {
	syscall.Write(FdReport, []byte(line+"\n"))
}

func run() int {
	syscall.CloseOnExec(FdCommands)
	syscall.CloseOnExec(FdReport)
	if err := becomeSubreaper(); err != nil {
		report(Join("error", "", "subreaper: "+err.Error()))
		return 1
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		report(Join("error", "", "/dev/null: "+err.Error()))
		return 1
	}
	k := &keeper{byID: map[string]*task{}, byLeader: map[int]*task{}, whose: map[int]*task{}, wake: make(chan struct{}, 1), devnull: null, self: strconv.Itoa(syscall.Getpid())}
	go k.commands()
	k.reap()
	return 0
}

// commands reads the caller's commands. It starts the tasks: their
// parent-death signal is sent when the thread that started them ends, so
// this goroutine keeps its thread until the watchdog exits.
func (k *keeper) commands() {
	runtime.LockOSThread()
	var buf []byte
	chunk := make([]byte, 65536)
	for {
		n, err := syscall.Read(FdCommands, chunk)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			k.callerDied()
			return
		}
		buf = append(buf, chunk[:n]...)
		for {
			i := strings.IndexByte(string(buf), '\n')
			if i < 0 {
				break
			}
			k.command(string(buf[:i]))
			buf = buf[i+1:]
		}
	}
}

func (k *keeper) command(line string) {
	f, ok := Split(line)
	if !ok || len(f) < 2 {
		return
	}
	if f[0] == "start" {
		k.start(f[1], f[2:])
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.byID[f[1]]
	if t == nil || !t.alive {
		return
	}
	switch f[0] {
	case "stop":
		syscall.Kill(-t.leader, syscall.SIGSTOP)
	case "cont":
		syscall.Kill(-t.leader, syscall.SIGCONT)
	case "kill":
		syscall.Kill(-t.leader, syscall.SIGKILL)
	}
}

// start starts task id: f is DIR STDOUT STDERR FILELIMIT NENV ENV... PATH
// ARGS...
func (k *keeper) start(id string, f []string) {
	fail := func(msg string) { report(Join("error", id, msg)) }
	if len(f) < 5 {
		fail("watchdog: malformed start")
		return
	}
	dir, stdout, stderr := f[0], f[1], f[2]
	limit, err1 := strconv.ParseInt(f[3], 10, 64)
	nenv, err2 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || limit < 0 || nenv < 0 || len(f) < 6+nenv {
		fail("watchdog: malformed start")
		return
	}
	marker := k.self + "." + id
	env := append(f[5:5+nenv:5+nenv], Marker+"="+marker)
	path, argv := f[5+nenv], f[5+nenv:]
	files := []uintptr{uintptr(k.devnull), uintptr(k.devnull), uintptr(k.devnull)}
	opened := map[string]int{}
	defer func() {
		for _, fd := range opened {
			syscall.Close(fd)
		}
	}()
	for i, p := range []string{stdout, stderr} {
		if p == "" {
			continue
		}
		fd, ok := opened[p]
		if !ok {
			var err error
			fd, err = syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
			if err != nil {
				fail(p + ": " + err.Error())
				return
			}
			opened[p] = fd
		}
		files[1+i] = uintptr(fd)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dying || k.byID[id] != nil {
		fail("watchdog: stopping, or task " + id + " exists")
		return
	}
	pid, err := forkTask(path, argv, env, dir, files, limit)
	if err != nil {
		fail(path + ": " + err.Error())
		return
	}
	t := &task{id: id, leader: pid, marker: marker, alive: true}
	k.byID[id], k.byLeader[pid] = t, t
	report(Join("pid", id, strconv.Itoa(pid)))
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// callerDied kills every task; the reaper then kills what is left and
// exits.
func (k *keeper) callerDied() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dying = true
	for _, t := range k.byID {
		if t.alive {
			syscall.Kill(-t.leader, syscall.SIGKILL)
		}
	}
	k.sweep()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// reap waits for the watchdog's children. When a task's leader has ended,
// its group is killed while the unreaped leader still holds the group's id
// (Linux); then the leader is reaped. Every child is then judged (sweep),
// and a task is reported ended once none of its processes is left. While
// a task is ending, the reaper also looks every few milliseconds (the
// processes of its group are not all the watchdog's children).
func (k *keeper) reap() {
	for {
		k.mu.Lock()
		block := len(k.ending) == 0
		k.mu.Unlock()
		pid, status, reaped, err := waitExited(block)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // no child
			k.mu.Lock()
			dying := k.dying
			k.sweep()
			k.mu.Unlock()
			if dying {
				return
			}
			if block {
				<-k.wake
			} else {
				time.Sleep(5 * time.Millisecond)
			}
			continue
		}
		k.mu.Lock()
		if t := k.byLeader[pid]; pid > 0 && t != nil && t.alive {
			syscall.Kill(-pid, syscall.SIGKILL)
			if !reaped {
				wait4(pid, &status)
			}
			t.status, t.alive = status, false
			delete(k.byLeader, pid)
			delete(k.whose, pid)
			k.ending = append(k.ending, t)
		} else if pid > 0 {
			if !reaped {
				wait4(pid, nil) // a process of a task, re-parented here
			}
			delete(k.whose, pid)
		}
		k.sweep()
		k.mu.Unlock()
		if pid == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func wait4(pid int, status *syscall.WaitStatus) {
	for {
		if _, err := syscall.Wait4(pid, status, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

// sweep (k.mu held) kills the watchdog's children that belong to no
// running task, and reports the ended tasks none of whose processes is
// left.
func (k *keeper) sweep() {
	kids := children()
	left := map[*task]bool{}
	for _, c := range kids {
		if t := k.byLeader[c]; t != nil && t.alive && !k.dying {
			continue
		}
		t, ok := k.whose[c]
		if !ok {
			t = k.owner(c)
			k.whose[c] = t
		}
		if t != nil {
			if t.alive && !k.dying {
				continue // a running task's: it ends with its task
			}
			left[t] = true
		}
		syscall.Kill(c, syscall.SIGKILL)
	}
	var still []*task
	for _, t := range k.ending {
		if left[t] || groupExists(t.leader) {
			still = append(still, t)
			continue
		}
		delete(k.byID, t.id)
		if t.status.Signaled() {
			report(Join("signal", t.id, strconv.Itoa(int(t.status.Signal()))))
		} else {
			report(Join("exit", t.id, strconv.Itoa(t.status.ExitStatus())))
		}
	}
	k.ending = still
}

// groupExists reports whether a process of group pgid is left that the
// watchdog can kill (one it may not signal, of another user, is not waited
// for).
func groupExists(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// readFile reads a small file (of /proc) without package os.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

// readDir lists a directory's names without package os.
func readDir(path string) ([]string, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var names []string
	buf := make([]byte, 16384)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}
