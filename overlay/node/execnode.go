package node

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/volsched/volsched/internal/blob"
)

// The execution role: tasks placed here by the overlay are claimed from
// their submission node, run as processes, and their results sent back
// (kept in the database until acknowledged).

// inlineMax is the largest program or input sent inside an Assign; larger
// ones are fetched by digest.
const inlineMax = 64 << 10

// claim asks the submission nodes for the tasks just accepted.
func (n *Node) claim(ts []*execTask) {
	type key struct {
		sub string
		bag uint64
	}
	count := map[key]int{}
	var order []key
	for _, t := range ts {
		k := key{t.subNode, t.bag}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	for _, k := range order {
		if k.sub == "" {
			// No submission node known (cannot happen for a request that
			// came through the network): the tasks cannot run.
			var drop []*execTask
			for _, t := range ts {
				if t.subNode == "" {
					drop = append(drop, t)
				}
			}
			n.exec.drop(n.now(), drop)
			continue
		}
		n.sendCtl(k.sub, &Claim{Bag: k.bag, N: count[k], Node: n.self})
	}
}

// onAssign: the submission node's answer to a claim.
func (n *Node) onAssign(from string, a *Assign) {
	now := n.now()
	var claimed []*execTask
	for _, t := range n.exec.tasks {
		if t.state == etClaimed && t.bag == a.Bag && t.subNode == from {
			claimed = append(claimed, t)
		}
	}
	if len(claimed) > a.Claimed {
		claimed = claimed[:a.Claimed] // the oldest claims this answer is for
	}
	k := min(len(a.Tasks), len(claimed))
	if len(a.Tasks) > 0 && len(a.ProgramData) > 0 {
		if blob.Sum(a.ProgramData) != a.Program {
			n.invalid(from, "assign", fmt.Errorf("program bytes hash to %s, not %s", blob.Sum(a.ProgramData), a.Program))
			n.exec.drop(now, claimed)
			n.stepLeafTick()
			return
		}
		n.materialize(a.Program, a.ProgramData)
	}
	for i := 0; i < k; i++ {
		t := claimed[i]
		s := a.Tasks[i]
		if len(s.InputData) > 0 && blob.Sum(s.InputData) != s.Input {
			n.invalid(from, "assign", fmt.Errorf("task %d: input bytes do not hash to %s", s.Index, s.Input))
			continue
		}
		t.index, t.input, t.program = s.Index, s.Input, a.Program
		t.state = etWaiting
		if len(s.InputData) > 0 {
			n.inputs[t] = s.InputData
		}
	}
	// Claims the submission node had no task for: not run here.
	var drop []*execTask
	for _, t := range claimed {
		if t.state == etClaimed {
			drop = append(drop, t)
		}
	}
	if len(drop) > 0 {
		n.exec.drop(now, drop)
		n.stepLeafTick()
	}
	for _, t := range claimed[:k] {
		if t.state == etWaiting {
			n.prepare(t, from)
		}
	}
}

// prepare checks that a task's program and input are here, fetching what
// is missing from its submission node.
func (n *Node) prepare(t *execTask, from string) {
	ready := true
	if !n.programs[t.program] {
		ready = false
		n.want(t.program, t, from)
	}
	if t.input != "" && n.inputs[t] == nil {
		ready = false
		n.want(t.input, t, from)
	}
	t.ready = ready
}

func (n *Node) want(d string, t *execTask, from string) {
	ws := n.wantBlob[d]
	for _, w := range ws {
		if w == t {
			return
		}
	}
	if len(ws) == 0 {
		n.sendCtl(from, &BlobGet{Digest: d})
	}
	n.wantBlob[d] = append(ws, t)
}

// materialize writes a program to state/bin/DIGEST, executable, once.
func (n *Node) materialize(d string, data []byte) {
	if n.programs[d] {
		return
	}
	p := filepath.Join(n.dir, "bin", d)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o700); err != nil {
		n.logf("program %s: %v", d, err)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		n.logf("program %s: %v", d, err)
		return
	}
	n.programs[d] = true
}

// onBlobGet serves a blob this node holds (a submission node's program,
// an input).
func (n *Node) onBlobGet(from string, g *BlobGet) {
	for _, b := range n.bags {
		if data, ok := b.blobs[g.Digest]; ok {
			n.sendCtl(from, &BlobData{Digest: g.Digest, Data: data})
			return
		}
	}
	// Not in memory: read from the database off the loop, sent from the
	// loop.
	st := n.st
	st.read(func() {
		m := &BlobData{Digest: g.Digest}
		data, err := st.blob(g.Digest)
		if err != nil {
			m.Err = err.Error()
		} else {
			m.Data = data
		}
		n.post(func() { n.sendCtl(from, m) })
	})
}

// onBlobData: a blob this node asked for.
func (n *Node) onBlobData(from string, b *BlobData) {
	ws := n.wantBlob[b.Digest]
	if len(ws) == 0 {
		return
	}
	delete(n.wantBlob, b.Digest)
	if b.Err != "" || blob.Sum(b.Data) != b.Digest {
		n.invalid(from, "blob-data", fmt.Errorf("blob %s: %s (hash %s)", b.Digest, b.Err, blob.Sum(b.Data)))
		var drop []*execTask
		for _, t := range ws {
			drop = append(drop, t)
		}
		n.exec.drop(n.now(), drop)
		n.stepLeafTick()
		return
	}
	for _, t := range ws {
		if t.program == b.Digest {
			n.materialize(b.Digest, b.Data)
		}
		if t.input == b.Digest {
			n.inputs[t] = b.Data
		}
		n.prepare(t, from)
	}
}

// startTasks starts queued tasks while slots are free.
func (n *Node) startTasks() {
	for {
		t := n.exec.next()
		if t == nil {
			return
		}
		n.startTask(t)
	}
}

func (n *Node) startTask(t *execTask) {
	now := n.now()
	n.exec.started(now, t)
	n.seqRun++
	dir := filepath.Join(n.dir, "work", fmt.Sprintf("%s-%d-%d-%d", n.runID, t.bag, t.index, n.seqRun))
	spec := RunSpec{Program: filepath.Join(n.dir, "bin", t.program), Input: filepath.Join(dir, "input"),
		Output: filepath.Join(dir, "output"), Dir: dir, Length: t.length, Power: n.cfg.Power}
	input := n.inputs[t]
	delete(n.inputs, t)
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	n.running[t] = true
	runner := n.cfg.Runner
	go func() {
		var res RunResult
		var out []byte
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			err = os.WriteFile(spec.Input, input, 0o600)
		}
		if err != nil {
			res = RunResult{Exit: -1, Err: err.Error()}
		} else {
			res = runner.Run(ctx, spec)
			if res.Exit == 0 {
				out, err = readCapped(spec.Output, MaxBlob)
				if err != nil {
					res = RunResult{Exit: -1, Err: "output: " + err.Error()}
				}
			}
		}
		os.RemoveAll(dir)
		n.post(func() { n.taskDone(t, res, out) })
	}()
}

func readCapped(p string, limit int64) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%d bytes: over the limit of %d", st.Size(), limit)
	}
	return os.ReadFile(p)
}

// taskDone: a task's process ended.
func (n *Node) taskDone(t *execTask, res RunResult, out []byte) {
	if !n.running[t] {
		return
	}
	delete(n.running, t)
	t.cancel()
	if res.Err == "cancelled" {
		return
	}
	now := n.now()
	r := Result{Node: n.self, Bag: t.bag, Task: t.index, Exit: res.Exit, Err: res.Err, Start: t.start, End: now}
	if res.Exit == 0 {
		r.Output, r.Data = blob.Sum(out), out
	}
	n.exec.finished(now, t)
	n.stepLeafTick()
	h := &heldResult{submitter: t.subNode, res: r}
	key := heldKey{t.bag, t.index, t.subNode}
	n.held[key] = h
	n.storeHeld(key, h)
	n.tasksRun++
}

// storeHeld writes a held result and sends it to its submission node once
// the write has committed: a node killed after sending still has the
// result to send again (the submission node may have lost it, or not
// acknowledged it). A failed write is retried by leases; the result is not
// sent before it is stored.
func (n *Node) storeHeld(key heldKey, h *heldResult) {
	h.storing = true
	js, _ := json.Marshal(&h.res)
	n.st.do(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT OR REPLACE INTO held(bag, idx, submitter, result) VALUES(?, ?, ?, ?)`, int64(key.bag), key.task, key.sub, string(js))
		return err
	}, func(err error) {
		n.post(func() {
			h.storing = false
			if err != nil {
				n.logf("storing the result of bag %d task %d (not sent until stored; retried): %v", key.bag, key.task, err)
				return
			}
			h.stored = true
			if n.held[key] != h {
				return // acknowledged meanwhile (an earlier copy)
			}
			n.heldSent[key] = time.Now()
			r := h.res
			n.sendCtl(key.sub, &r)
		})
	})
}

// onResultAck: the submission node has a result durably; it is dropped
// here.
func (n *Node) onResultAck(from string, a *ResultAck) {
	key := heldKey{a.Bag, a.Task, from}
	if n.held[key] == nil {
		return
	}
	delete(n.held, key)
	delete(n.heldSent, key)
	n.st.do(func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM held WHERE bag = ? AND idx = ? AND submitter = ?`, int64(a.Bag), a.Task, from)
		return err
	}, nil)
}

// leases tells each submission node which of its tasks this node holds,
// and sends again the results not acknowledged.
func (n *Node) leases(t time.Time) {
	type key struct {
		sub string
		bag uint64
	}
	ls := map[key]*Lease{}
	get := func(sub string, bag uint64) *Lease {
		k := key{sub, bag}
		if ls[k] == nil {
			ls[k] = &Lease{Node: n.self, Bag: bag}
		}
		return ls[k]
	}
	for _, x := range n.exec.tasks {
		if x.subNode == "" {
			continue
		}
		l := get(x.subNode, x.bag)
		if x.state == etClaimed {
			l.Claims++
		} else {
			l.Tasks = append(l.Tasks, x.index)
		}
	}
	for k, h := range n.held {
		l := get(k.sub, k.bag)
		l.Tasks = append(l.Tasks, k.task)
		if !h.stored {
			if !h.storing {
				n.storeHeld(k, h)
			}
			continue
		}
		if t.Sub(n.heldSent[k]) > 2*n.cfg.DeadAfter {
			n.heldSent[k] = t
			r := h.res
			n.sendCtl(k.sub, &r)
		}
	}
	keys := make([]key, 0, len(ls))
	for k := range ls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sub != keys[j].sub {
			return keys[i].sub < keys[j].sub
		}
		return keys[i].bag < keys[j].bag
	})
	for _, k := range keys {
		l := ls[k]
		sort.Ints(l.Tasks)
		n.sendCtl(k.sub, l)
	}
}

// execTimers drops claims their submission node never answered.
func (n *Node) execTimers(t time.Time) {
	now := n.now()
	limit := n.cfg.Detect.Seconds()
	var drop []*execTask
	for _, x := range n.exec.tasks {
		if x.state == etClaimed && now-x.claimed > limit {
			drop = append(drop, x)
		}
	}
	if len(drop) > 0 {
		n.logf("%d claimed tasks never assigned: dropped", len(drop))
		n.exec.drop(now, drop)
		n.stepLeafTick()
	}
}

// killTasks stops every running process (the node is stopping).
func (n *Node) killTasks() {
	for t := range n.running {
		t.cancel()
	}
}
