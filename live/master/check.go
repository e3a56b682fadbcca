package master

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/volsched/volsched/availability"
)

// CheckSummary is what CheckEvents saw.
type CheckSummary struct {
	Records    int
	Processes  int // master processes (start records)
	MaxHeld    int // most channels held at once
	Begins     int
	Results    int
	Iterations int // iterations ended
}

// CheckEvents replays a master's event log (STATE/events.jsonl) against the
// rules of seed 001 §3 and §6.1 as they apply to a system in continuous
// time. They are those of the slot simulator's checker (slotsim.Check),
// each carried from "per slot" to "at every instant" (docs/runtime.md,
// "Checking", says why slotsim.Check itself cannot replay a real run):
//
//   - at most ncom channels (transfers of the program or of data) held at
//     once, at most one per worker;
//   - no channel granted to, and no copy begun on, a worker that is not UP
//     as the master sees it;
//   - the program before any data or task: no data granted to and no copy
//     begun on a worker without it, no program sent to a worker holding it;
//   - at most one task ahead: at most two copies on a worker;
//   - DOWN loses the copies and the transfer: a worker declared DOWN holds
//     neither any more;
//   - a result only from a worker holding a copy of the task whose input
//     was received; no task completed twice (by one master process: one
//     killed before it made a result durable may have accepted it, its
//     successor accepts it again); at most 1+extraReplicas copies of a
//     task; a copy cancelled only when its task is done (or the
//     application stopped);
//   - an iteration ends exactly when every one of its tasks has a result,
//     and nothing of it is begun or accepted after (except by the next
//     master process: the log is written before the results are durable,
//     so a master killed in between logged an end that its successor,
//     finding some of the iteration's results missing, takes up again;
//     it must do so with its first iteration).
//
// A start record (a new master process) resets what the master holds in
// memory: workers, channels, copies. It returns the first violation, with
// its line.
func CheckEvents(r io.Reader, ncom, extraReplicas int) (CheckSummary, error) {
	type wk struct {
		state   availability.State // Down: no session
		prog    bool
		channel int          // channels held (must stay ≤ 1)
		chTask  int          // the task of the data channel held (−1: the program)
		copies  []int        // tasks of the copies held
		need    map[int]bool // copies whose input has not arrived
	}
	var (
		sum      CheckSummary
		workers  map[int]*wk
		held     int
		copies   map[int]int // copies of each task of the current iteration
		accepted map[int]bool
		results  = map[int]map[int]bool{} // iteration → tasks with a result (any process)
		ntasks   = map[int]int{}          // iteration → its tasks
		ended    = map[int]bool{}
		resumed  bool // the process has started or resumed an iteration
	)
	reset := func() {
		workers, held, copies, accepted = map[int]*wk{}, 0, map[int]int{}, map[int]bool{}
	}
	reset()
	get := func(q int) *wk {
		w := workers[q]
		if w == nil {
			w = &wk{state: availability.Down, chTask: -2, need: map[int]bool{}}
			workers[q] = w
		}
		return w
	}
	drop := func(w *wk, task int) bool {
		i := slices.Index(w.copies, task)
		if i < 0 {
			return false
		}
		w.copies = slices.Delete(w.copies, i, i+1)
		delete(w.need, task)
		copies[task]--
		return true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e LogRecord
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return sum, fmt.Errorf("line %d: %v", line, err)
		}
		sum.Records++
		fail := func(format string, a ...any) (CheckSummary, error) {
			return sum, fmt.Errorf("line %d (%s, worker %d, iteration %d, task %d): %s", line, e.Kind, e.Worker, e.Iter, e.Task, fmt.Sprintf(format, a...))
		}
		var w *wk
		if e.Worker >= 0 {
			w = get(e.Worker)
		}
		switch e.Kind {
		case LogStart:
			sum.Processes++
			reset()
			resumed = false
		case LogIter:
			copies, accepted = map[int]int{}, map[int]bool{}
			if e.Info == "" {
				ntasks[e.Iter] = e.Task
				if ended[e.Iter] {
					// Only a new process may take up an ended iteration:
					// the one killed logged the end before its last
					// results were durable.
					if resumed {
						return fail("iteration started again after its end")
					}
					delete(ended, e.Iter)
					sum.Iterations--
				}
			}
			resumed = true
		case LogRegister:
			w.state, w.prog, w.copies, w.need = availability.Up, strings.Contains(e.Info, "program cached"), nil, map[int]bool{}
			if w.channel != 0 {
				return fail("registers holding a channel")
			}
		case LogState:
			st, err := availability.ParseState(e.Info)
			if err != nil {
				return fail("state %q: %v", e.Info, err)
			}
			if w.state == availability.Down {
				return fail("state change of a worker without a session")
			}
			w.state = st
		case LogDown:
			if w.channel != 0 || len(w.copies) != 0 {
				return fail("DOWN still holding %d channel(s) and copies of tasks %v", w.channel, w.copies)
			}
			w.state, w.prog = availability.Down, false
		case LogGrant:
			if w.state != availability.Up {
				return fail("channel granted to a worker that is %v", w.state)
			}
			if w.channel != 0 {
				return fail("a second channel for the worker")
			}
			if e.Info == "program" {
				if w.prog {
					return fail("program sent to a worker that holds it")
				}
				w.chTask = -1
			} else {
				if !w.prog {
					return fail("data granted to a worker without the program")
				}
				if !w.need[e.Task] {
					return fail("data granted for a copy the worker does not hold or whose input it has")
				}
				w.chTask = e.Task
			}
			w.channel++
			held++
			if held > ncom {
				return fail("%d channels held, n_com = %d", held, ncom)
			}
		case LogRelease:
			if w.channel != 1 {
				return fail("release of a channel not held")
			}
			w.channel, w.chTask = 0, -2
			held--
		case LogReceived:
			// (A transfer paused by a reclaim may end before the worker
			// heard it lost its channel: received without a channel held.)
			if e.Task < 0 {
				w.prog = true
			} else if !w.need[e.Task] {
				return fail("input received for a copy the worker does not hold or whose input it has")
			} else {
				delete(w.need, e.Task)
			}
		case LogBegin:
			switch {
			case ended[e.Iter]:
				return fail("copy of a task of an iteration already ended")
			case w.state != availability.Up:
				return fail("copy begun on a worker that is %v", w.state)
			case !w.prog:
				return fail("copy begun on a worker without the program")
			case len(w.copies) >= 2:
				return fail("a third copy on the worker (more than one task ahead)")
			case slices.Contains(w.copies, e.Task):
				return fail("the worker holds a copy of the task already")
			case accepted[e.Task]:
				return fail("copy of a task already done")
			case copies[e.Task] >= 1+extraReplicas:
				return fail("copy %d of the task, at most %d", copies[e.Task]+1, 1+extraReplicas)
			}
			w.copies = append(w.copies, e.Task)
			if !strings.Contains(e.Info, "cached") {
				w.need[e.Task] = true
			}
			copies[e.Task]++
			sum.Begins++
		case LogDrop:
			if !drop(w, e.Task) {
				return fail("drop of a copy the worker does not hold")
			}
		case LogCancel:
			if !accepted[e.Task] && e.Info != "application stopped" {
				return fail("copy cancelled while its task is not done")
			}
			if !drop(w, e.Task) {
				return fail("cancel of a copy the worker does not hold")
			}
		case LogResult:
			switch {
			case ended[e.Iter]:
				return fail("result for an iteration already ended")
			case !slices.Contains(w.copies, e.Task):
				return fail("result from a worker that holds no copy of the task")
			case w.need[e.Task]:
				return fail("result before the copy's input arrived")
			case accepted[e.Task]:
				return fail("task completed twice by one master process")
			}
			accepted[e.Task] = true
			if results[e.Iter] == nil {
				results[e.Iter] = map[int]bool{}
			}
			results[e.Iter][e.Task] = true
			drop(w, e.Task)
			sum.Results++
		case LogIterDone:
			if n := len(results[e.Iter]); n != ntasks[e.Iter] {
				return fail("iteration ends with %d of its %d tasks done", n, ntasks[e.Iter])
			}
			for q, o := range workers {
				if len(o.copies) != 0 {
					return fail("iteration ends with worker %d holding copies of tasks %v", q, o.copies)
				}
			}
			ended[e.Iter] = true
			sum.Iterations++
		}
		if e.Kind != LogStart && e.Kind != LogIter && e.Held != held {
			return fail("the record says %d channels held, the replay %d", e.Held, held)
		}
		sum.MaxHeld = max(sum.MaxHeld, held)
	}
	return sum, sc.Err()
}
