package oversim

import (
	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
)

// Observation of a run, for diagnostics (tools/overlaydiag) and
// tests: what happens to the tasks, and the execution nodes' state.

// TaskEventKind says what happened to a group of tasks.
type TaskEventKind uint8

const (
	// TasksPlaced: execution node Node accepted them (KindAccepted).
	TasksPlaced TaskEventKind = iota + 1
	// TasksFinished: they finished at execution node Node.
	TasksFinished
	// TasksUnallocated: they were reported unallocated to the submitter
	// (Node is −1).
	TasksUnallocated
	// TasksAborted: execution node Node failed while holding them (their
	// submitter resubmits them after the detection timeout).
	TasksAborted
)

// TaskEvent is N tasks of one job that were placed, finished, reported
// unallocated or aborted at Time.
type TaskEvent struct {
	Kind     TaskEventKind
	Time     des.Time
	Node     int32 // execution node (leaf index), −1 for TasksUnallocated
	Job      int32 // the job's slot (reused once the job is over)
	N        int32
	LengthMI float64 // of each task
	Deadline float64 // absolute, seconds (+Inf: none)
	Submit   des.Time
}

// OnTasks sets a function called with every TaskEvent, as it happens.
func (s *Sim) OnTasks(f func(TaskEvent)) { s.onTasks = f }

func (s *Sim) tasks(k TaskEventKind, t des.Time, node, job, n int32) {
	if s.onTasks == nil {
		return
	}
	j := &s.jobs[job]
	s.onTasks(TaskEvent{Kind: k, Time: t, Node: node, Job: job, N: n, LengthMI: j.length, Deadline: j.deadline, Submit: j.submit})
}

// Nodes is the number of execution nodes.
func (s *Sim) Nodes() int { return len(s.leaves) }

// Exec returns execution node i's local scheduler, to be read only (its
// Wake, Summary; a DP node's Running, Queue).
func (s *Sim) Exec(i int) overlay.Exec { return s.leaves[i].Exec }
