package node

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/overlay"
)

// The submission role: bags of tasks submitted at this node, requested
// through the overlay, assigned to the execution nodes that claim them,
// their results stored; tasks whose execution node goes silent, and
// requests that are neither claimed nor returned, are requested again
// after Detect (§3.5).

// Job is a bag of tasks as a client submits it.
type Job struct {
	Name  string `json:"name,omitempty"`
	Tasks int    `json:"tasks"`
	// Length of one task, MI (million instructions: the overlay's MFLOP).
	Length float64 `json:"length"`
	Mem    float64 `json:"memory,omitempty"` // MB
	Disk   float64 `json:"disk,omitempty"`   // MB
	// Deadline, seconds after submission (0: none; DP then uses 7 days).
	Deadline float64 `json:"deadline,omitempty"`
	// Program is the executable (run as `program INPUT OUTPUT`); Inputs,
	// if given, one per task.
	Program []byte   `json:"program,omitempty"`
	Inputs  [][]byte `json:"inputs,omitempty"`
	// Stored form (set by the node): digests instead of bytes.
	ProgramDigest string  `json:"program_digest,omitempty"`
	DeadlineAt    float64 `json:"deadline_at,omitempty"`
}

func (j *Job) validate() error {
	switch {
	case j.Tasks < 1 || j.Tasks > MaxTasks:
		return fmt.Errorf("tasks %d: want 1 to %d", j.Tasks, MaxTasks)
	case !(j.Length > 0) || math.IsInf(j.Length, 0):
		return fmt.Errorf("length %g MI: want a finite value > 0", j.Length)
	case !(j.Mem >= 0) || math.IsInf(j.Mem, 0):
		return fmt.Errorf("memory %g MB: want a finite value >= 0", j.Mem)
	case !(j.Disk >= 0) || math.IsInf(j.Disk, 0):
		return fmt.Errorf("disk %g MB: want a finite value >= 0", j.Disk)
	case !(j.Deadline >= 0) || math.IsInf(j.Deadline, 0):
		return fmt.Errorf("deadline %g s: want a finite value >= 0 (0: none)", j.Deadline)
	case len(j.Program) == 0:
		return fmt.Errorf("program: empty: want the executable's bytes")
	case len(j.Program) > MaxBlob:
		return fmt.Errorf("program: %d bytes: want at most %d", len(j.Program), MaxBlob)
	case len(j.Inputs) != 0 && len(j.Inputs) != j.Tasks:
		return fmt.Errorf("inputs: %d for %d tasks: want one per task or none", len(j.Inputs), j.Tasks)
	case len(j.Name) > 200:
		return fmt.Errorf("name: %d bytes: want at most 200", len(j.Name))
	}
	total := len(j.Program)
	for i, in := range j.Inputs {
		if len(in) > MaxBlob {
			return fmt.Errorf("input %d: %d bytes: want at most %d", i, len(in), MaxBlob)
		}
		total += len(in)
	}
	if total > MaxBlob {
		return fmt.Errorf("program and inputs: %d bytes: want at most %d in one submission", total, MaxBlob)
	}
	return nil
}

// Submitted answers a submission: the bag's id.
type Submitted struct {
	Bag uint64 `json:"bag"`
}

func (s *Submitted) validate() error { return nil }

// Task states at the submission node.
const (
	tsPending   = iota // to be requested
	tsRequested        // in a request travelling in the overlay
	tsAssigned         // assigned to an execution node
	tsDone             // its result is stored
	tsFailed           // failed for good
)

var taskStateNames = [...]string{"pending", "requested", "assigned", "done", "failed"}

type subTask struct {
	state    int
	node     string
	at       time.Time // requested or assigned at
	lease    time.Time // last lease from its execution node
	attempts int
	input    string
	exit     int
	output   string
	err      string
	start    float64
	finish   float64
	// stored: the final state is committed (set by the store's callback,
	// or true for a task loaded done or failed); a result is acknowledged
	// only then.
	stored bool
}

type bag struct {
	id        uint64
	job       Job
	submitted float64
	tasks     []subTask
	nextReq   time.Time
	backoff   time.Duration
	// blobs holds the program and inputs while the bag runs (assignments
	// do not wait for the database).
	blobs map[string][]byte
	// Counters for status and measurements.
	done, failed, duplicates, resubmitted, returned int
	firstStart, lastStart, completed                float64
	allocated                                       float64 // when every task was first assigned
}

// MaxAttempts is how many times a task whose program fails is run.
const MaxAttempts = 3

func (b *bag) count(state int) int {
	k := 0
	for i := range b.tasks {
		if b.tasks[i].state == state {
			k++
		}
	}
	return k
}

// submit stores a new bag and answers once it is durable.
func (n *Node) submit(j *Job, reply func(validator)) {
	if n.leaving {
		reply(&ErrorMsg{Err: "the node is stopping"})
		return
	}
	id := n.rng.Uint64() >> 1
	for n.bags[id] != nil || id == 0 {
		id = n.rng.Uint64() >> 1
	}
	now := n.now()
	stored := *j
	stored.Program, stored.Inputs = nil, nil
	stored.ProgramDigest = blob.Sum(j.Program)
	switch {
	case j.Deadline > 0:
		stored.DeadlineAt = now + j.Deadline
	case n.cfg.Policy.Deadlines():
		stored.DeadlineAt = now + 7*24*3600
	}
	b := &bag{id: id, job: stored, submitted: now, tasks: make([]subTask, j.Tasks), backoff: n.cfg.Retry,
		blobs: map[string][]byte{stored.ProgramDigest: j.Program}}
	for i := range b.tasks {
		if len(j.Inputs) > 0 {
			b.tasks[i].input = blob.Sum(j.Inputs[i])
			b.blobs[b.tasks[i].input] = j.Inputs[i]
		}
	}
	js, _ := json.Marshal(&stored)
	prog, inputs := j.Program, j.Inputs
	n.st.do(func(tx *sql.Tx) error {
		if err := putBlob(tx, stored.ProgramDigest, prog); err != nil {
			return err
		}
		for _, in := range inputs {
			if err := putBlob(tx, blob.Sum(in), in); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`INSERT INTO bags(id, job, submitted) VALUES(?, ?, ?)`, int64(id), string(js), now); err != nil {
			return err
		}
		st, err := tx.Prepare(`INSERT INTO tasks(bag, idx, input, state) VALUES(?, ?, ?, 0)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range b.tasks {
			if _, err := st.Exec(int64(id), i, b.tasks[i].input); err != nil {
				return err
			}
		}
		return nil
	}, func(err error) {
		n.post(func() {
			if err != nil {
				reply(&ErrorMsg{Err: "storing the bag: " + err.Error()})
				return
			}
			n.bags[id] = b
			n.logf("bag %d (%s): %d tasks of %g MI submitted", id, stored.Name, stored.Tasks, stored.Length)
			reply(&Submitted{Bag: id})
			n.submitTimers(time.Now()) // its first request leaves now
		})
	})
}

// app is the overlay's view of a bag.
func (b *bag) app() overlay.App {
	dl := b.job.DeadlineAt
	if dl == 0 {
		dl = math.Inf(1)
	}
	return overlay.App{ID: b.id, Length: b.job.Length, Mem: b.job.Mem, Disk: b.job.Disk, Deadline: dl}
}

// request sends a request for k pending tasks of b from this node's leaf.
func (n *Node) request(t time.Time, b *bag, k int) {
	l := n.leaf
	marked := 0
	for i := range b.tasks {
		if marked == k {
			break
		}
		if s := &b.tasks[i]; s.state == tsPending {
			s.state, s.at = tsRequested, t
			marked++
		}
	}
	m := overlay.Msg{Kind: overlay.KindRequest, From: l.self.ID,
		Req: overlay.Request{App: b.app(), Submitter: l.self.ID, Src: overlay.NoAddr, N: marked}}
	if l.father.None() {
		m.To = l.self.ID
		n.local = append(n.local, localMsg{n.self, m})
	} else {
		m.To = l.father.ID
		n.sendOverlay(l.father.Node, n.self, m)
	}
}

// submitTimers: detection of lost tasks and requests, and the requests
// of pending tasks.
func (n *Node) submitTimers(t time.Time) {
	if len(n.bags) == 0 {
		return
	}
	now := n.now()
	ids := make([]uint64, 0, len(n.bags))
	for id := range n.bags {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b := n.bags[id]
		if b.done+b.failed == len(b.tasks) {
			continue
		}
		pending := 0
		for i := range b.tasks {
			s := &b.tasks[i]
			switch s.state {
			case tsAssigned:
				if t.Sub(s.lease) > n.cfg.Detect {
					n.logf("bag %d task %d: no news from %s for %v: resubmitted", b.id, i, s.node, n.cfg.Detect)
					s.state, s.node = tsPending, ""
					b.resubmitted++
				}
			case tsRequested:
				if t.Sub(s.at) > n.cfg.Detect {
					n.logf("bag %d task %d: request neither claimed nor returned for %v: resubmitted", b.id, i, n.cfg.Detect)
					s.state = tsPending
					b.resubmitted++
				}
			}
			if s.state == tsPending {
				if b.job.DeadlineAt > 0 && now > b.job.DeadlineAt && n.cfg.Policy.Deadlines() {
					n.finishTask(b, i, tsFailed, Result{Exit: -1, Err: "deadline passed before the task was placed"}, nil)
					continue
				}
				pending++
			}
		}
		if pending > 0 && !t.Before(b.nextReq) && n.joined() {
			n.request(t, b, pending)
		}
	}
}

// onReturn: tasks the overlay could not place come back.
func (n *Node) onReturn(from string, m overlay.Msg) {
	b := n.bags[m.Req.App.ID]
	if b == nil {
		return
	}
	k := m.Req.N
	b.returned += k
	for i := len(b.tasks) - 1; i >= 0 && k > 0; i-- {
		if s := &b.tasks[i]; s.state == tsRequested {
			s.state = tsPending
			k--
		}
	}
	// One wait per round of requests (a request's leftovers may come back
	// in several returns): the wait doubles while rounds place nothing
	// (a claim resets it).
	if t := time.Now(); !b.nextReq.After(t) {
		b.nextReq = t.Add(b.backoff)
		b.backoff = min(2*b.backoff, 32*n.cfg.Retry)
	}
}

// onClaim assigns tasks to an execution node that accepted them.
func (n *Node) onClaim(from string, c *Claim) {
	if c.Node != from {
		n.invalid(from, "claim", errString2("claims for another node"))
		return
	}
	b := n.bags[c.Bag]
	if b == nil {
		n.sendCtl(from, &Assign{Bag: c.Bag, Claimed: c.N})
		return
	}
	t := time.Now()
	// Requested tasks first (oldest request first), then pending ones.
	var pick []int
	for _, want := range []int{tsRequested, tsPending} {
		for i := range b.tasks {
			if len(pick) == c.N {
				break
			}
			if b.tasks[i].state == want {
				pick = append(pick, i)
			}
		}
	}
	a := &Assign{Bag: b.id, Claimed: c.N}
	if len(pick) > 0 {
		a.Program = b.job.ProgramDigest
		prog, err := n.bagBlob(b, b.job.ProgramDigest)
		if err != nil {
			n.logf("bag %d: %v", b.id, err)
			n.sendCtl(from, &Assign{Bag: c.Bag, Claimed: c.N})
			return
		}
		if len(prog) <= inlineMax {
			a.ProgramData = prog
		}
		inl := 0
		for _, i := range pick {
			s := &b.tasks[i]
			s.state, s.node, s.at, s.lease = tsAssigned, from, t, t
			ts := TaskSpec{Index: i, Input: s.input}
			if s.input != "" && inl < 1<<20 {
				if data, err := n.bagBlob(b, s.input); err == nil && len(data) <= inlineMax {
					ts.InputData = data
					inl += len(data)
				}
			}
			a.Tasks = append(a.Tasks, ts)
		}
		b.backoff = n.cfg.Retry
		if b.allocated == 0 && b.count(tsPending)+b.count(tsRequested) == 0 {
			b.allocated = n.now()
			n.storeBagTime(b.id, "allocated", b.allocated)
		}
		node := from
		n.st.do(func(tx *sql.Tx) error {
			for _, i := range pick {
				if _, err := tx.Exec(`UPDATE tasks SET state = 2, node = ? WHERE bag = ? AND idx = ? AND state < 3`, node, int64(b.id), i); err != nil {
					return err
				}
			}
			return nil
		}, nil)
	}
	n.sendCtl(from, a)
}

// bagBlob returns a program or input of a running bag (held in memory
// while it runs: from its submission, or read by loadState).
func (n *Node) bagBlob(b *bag, d string) ([]byte, error) {
	if data, ok := b.blobs[d]; ok {
		return data, nil
	}
	return nil, fmt.Errorf("blob %s: not loaded (see the log of the node's start)", d)
}

// onLease: an execution node's tasks are alive; those assigned to it that
// it no longer holds are pending again.
func (n *Node) onLease(from string, l *Lease) {
	if l.Node != from {
		return
	}
	b := n.bags[l.Bag]
	if b == nil {
		return
	}
	t := time.Now()
	held := map[int]bool{}
	for _, i := range l.Tasks {
		held[i] = true
		if i < len(b.tasks) && b.tasks[i].state == tsAssigned && b.tasks[i].node == from {
			b.tasks[i].lease = t
		}
	}
	// Tasks assigned to it that it does not list: the most recent
	// l.Claims of them may be in an Assign it has not received yet.
	var unlisted []int
	for i := range b.tasks {
		if s := &b.tasks[i]; s.state == tsAssigned && s.node == from && !held[i] {
			unlisted = append(unlisted, i)
		}
	}
	sort.Slice(unlisted, func(x, y int) bool { return b.tasks[unlisted[x]].at.After(b.tasks[unlisted[y]].at) })
	if l.Claims < len(unlisted) {
		unlisted = unlisted[l.Claims:]
	} else {
		unlisted = nil
	}
	for _, i := range unlisted {
		if s := &b.tasks[i]; t.Sub(s.at) > 3*n.cfg.Heartbeat {
			n.logf("bag %d task %d: %s no longer holds it: resubmitted", b.id, i, from)
			s.state, s.node = tsPending, ""
			b.resubmitted++
		}
	}
}

// onResult stores a task's result, then acknowledges it (the
// acknowledgement leaves only once the result is durable). A result that
// arrives twice is counted once.
func (n *Node) onResult(from string, r *Result) {
	if r.Node != from {
		n.invalid(from, "result", errString2("a result for another node"))
		return
	}
	b := n.bags[r.Bag]
	ack := func() {
		n.st.do(func(*sql.Tx) error { return nil }, func(error) {
			n.post(func() { n.sendCtl(from, &ResultAck{Bag: r.Bag, Task: r.Task}) })
		})
	}
	// ackStored acknowledges a result once its own write committed (run on
	// the loop); a failed write is not acknowledged: the execution node
	// resends, and the copy is stored again.
	ackStored := func(err error) {
		if err != nil {
			n.logf("bag %d task %d: result from %s not stored (%v): not acknowledged", r.Bag, r.Task, from, err)
			return
		}
		n.sendCtl(from, &ResultAck{Bag: r.Bag, Task: r.Task})
	}
	if b == nil || r.Task >= len(b.tasks) {
		ack() // nothing to keep (a bag this node no longer has)
		return
	}
	s := &b.tasks[r.Task]
	if s.state == tsDone || s.state == tsFailed {
		b.duplicates++
		if s.stored {
			ack()
		} else if r.Output == s.output {
			// The first copy's write failed (or is still in flight): the
			// resent copy is stored again and acknowledged once committed.
			n.storeTask(b, r.Task, r.Data, ackStored)
		}
		return
	}
	if r.Exit == 0 && (r.Output == "" || blob.Sum(r.Data) != r.Output) {
		n.invalid(from, "result", fmt.Errorf("bag %d task %d: output does not hash to %s", r.Bag, r.Task, r.Output))
		return
	}
	if r.Exit != 0 {
		s.attempts++
		if s.attempts < MaxAttempts {
			n.logf("bag %d task %d failed on %s (exit %d): %s; again", r.Bag, r.Task, from, r.Exit, firstLine(r.Err))
			s.state, s.node = tsPending, ""
			ack()
			return
		}
		n.finishTask(b, r.Task, tsFailed, *r, ackStored)
		return
	}
	n.finishTask(b, r.Task, tsDone, *r, ackStored)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// finishTask records a task's final state and stores it; done, if not
// nil, runs on the loop once the write committed or failed.
func (n *Node) finishTask(b *bag, i, state int, r Result, done func(error)) {
	s := &b.tasks[i]
	s.state, s.exit, s.output, s.err, s.start, s.finish = state, r.Exit, r.Output, r.Err, r.Start, r.End
	if r.Node != "" {
		s.node = r.Node
	}
	if state == tsDone {
		b.done++
	} else {
		b.failed++
	}
	if r.Start > 0 {
		if b.firstStart == 0 || r.Start < b.firstStart {
			b.firstStart = r.Start
		}
		b.lastStart = max(b.lastStart, r.Start)
	}
	if b.done+b.failed == len(b.tasks) {
		b.blobs = nil
		b.completed = n.now()
		n.storeBagTime(b.id, "completed", b.completed)
		n.logf("bag %d complete: %d done, %d failed", b.id, b.done, b.failed)
	}
	n.storeTask(b, i, r.Data, done)
}

// storeTask writes task i's final state as the loop holds it (and its
// output's bytes) and marks it stored once committed; done, if not nil,
// then runs on the loop with the write's error.
func (n *Node) storeTask(b *bag, i int, data []byte, done func(error)) {
	s := &b.tasks[i]
	st, node, exit, output, errText, start, finish := s.state, s.node, s.exit, s.output, s.err, s.start, s.finish
	id := b.id
	n.st.do(func(tx *sql.Tx) error {
		if len(data) > 0 {
			if err := putBlob(tx, output, data); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`UPDATE tasks SET state = ?, node = ?, exit = ?, output = ?, err = ?, start = ?, finish = ? WHERE bag = ? AND idx = ?`,
			st, node, exit, output, errText, start, finish, int64(id), i)
		return err
	}, func(err error) {
		n.post(func() {
			if err == nil {
				s.stored = true
			}
			if done != nil {
				done(err)
			}
		})
	})
}

// loadState reads the bags and the results held for others.
func (n *Node) loadState() error {
	bags, err := n.st.loadBags()
	if err != nil {
		return err
	}
	t := time.Now()
	for _, sb := range bags {
		b := &bag{id: sb.id, job: sb.job, submitted: sb.submitted, tasks: make([]subTask, len(sb.tasks)), backoff: n.cfg.Retry}
		for i, st := range sb.tasks {
			s := &b.tasks[i]
			s.input, s.attempts, s.exit, s.output, s.err, s.start, s.finish = st.input, st.attempts, st.exit, st.output, st.err, st.start, st.finish
			s.node = st.node
			s.state = st.state
			s.stored = st.state == tsDone || st.state == tsFailed
			switch st.state {
			case tsDone:
				b.done++
			case tsFailed:
				b.failed++
			case tsAssigned:
				// Its execution node may still run it: it has Detect to
				// say so with a lease.
				s.node, s.at, s.lease = st.node, t, t
			default:
				s.state = tsPending
			}
			if st.state >= tsDone && st.start > 0 {
				if b.firstStart == 0 || st.start < b.firstStart {
					b.firstStart = st.start
				}
				b.lastStart = max(b.lastStart, st.start)
			}
		}
		if b.done+b.failed < len(b.tasks) {
			// A running bag's program and inputs are held in memory, as
			// after its submission (the loop never reads them from disk).
			b.blobs = map[string][]byte{}
			need := []string{b.job.ProgramDigest}
			for i := range b.tasks {
				if s := &b.tasks[i]; s.input != "" && s.state < tsDone {
					need = append(need, s.input)
				}
			}
			for _, d := range need {
				if _, ok := b.blobs[d]; ok {
					continue
				}
				data, err := n.st.blob(d)
				if err != nil {
					n.logf("bag %d: %v: its tasks that need it cannot be assigned", b.id, err)
					continue
				}
				b.blobs[d] = data
			}
		}
		n.bags[b.id] = b
	}
	if err := n.loadBagTimes(); err != nil {
		return err
	}
	held, err := n.st.loadHeld()
	if err != nil {
		return err
	}
	for i := range held {
		h := held[i]
		k := heldKey{h.res.Bag, h.res.Task, h.submitter}
		n.held[k] = &h
		n.heldSent[k] = time.Time{}
	}
	// Programs already here, verified.
	ents, _ := os.ReadDir(filepath.Join(n.dir, "bin"))
	for _, e := range ents {
		if !blob.ValidDigest(e.Name()) {
			continue
		}
		p := filepath.Join(n.dir, "bin", e.Name())
		if data, err := os.ReadFile(p); err == nil && blob.Sum(data) == e.Name() {
			n.programs[e.Name()] = true
		} else {
			os.Remove(p)
		}
	}
	var member string
	n.st.db.QueryRow(`SELECT v FROM meta WHERE k = 'member'`).Scan(&member)
	n.wasMember = member != ""
	n.loadRemembered()
	return nil
}

// storeBagTime stores one of a bag's times that its task rows do not
// give back (when every task was first assigned, when the last result
// came), so that a restarted node's status shows them as before.
func (n *Node) storeBagTime(id uint64, what string, t float64) {
	k := fmt.Sprintf("bag/%d/%s", id, what)
	n.putMeta(k, strconv.FormatFloat(t, 'g', -1, 64))
}

// putMeta queues the write of meta key k (as before it had one place:
// a failed write is not retried).
func (n *Node) putMeta(k, v string) {
	n.st.do(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT OR REPLACE INTO meta(k, v) VALUES(?, ?)`, k, v)
		return err
	}, nil)
}

// loadBagTimes reads back what storeBagTime stored.
func (n *Node) loadBagTimes() error {
	rows, err := n.st.db.Query(`SELECT k, v FROM meta WHERE k LIKE 'bag/%'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		parts := strings.Split(k, "/")
		if len(parts) != 3 {
			continue
		}
		id, err1 := strconv.ParseUint(parts[1], 10, 64)
		t, err2 := strconv.ParseFloat(v, 64)
		b := n.bags[id]
		if err1 != nil || err2 != nil || b == nil {
			continue
		}
		switch parts[2] {
		case "allocated":
			b.allocated = t
		case "completed":
			if b.done+b.failed == len(b.tasks) {
				b.completed = t
			}
		}
	}
	return rows.Err()
}

// markMember records that this node is in a tree (after a restart it
// joins again instead of taking its bootstrap place).
func (n *Node) markMember() {
	if n.wasMember {
		return
	}
	n.wasMember = true
	n.putMeta("member", "1")
}
