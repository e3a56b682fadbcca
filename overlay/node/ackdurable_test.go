package node

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestResultNotAckedUntilStored: while the submission node cannot write
// its tasks' results (a trigger makes every update of the tasks table
// fail), the results it receives are not acknowledged, so their execution
// nodes keep them and send them again; once writes succeed again, a
// resent copy is stored, acknowledged and the task's row says done.
func TestResultNotAckedUntilStored(t *testing.T) {
	cl, _ := newHeldCluster(t)
	sub := cl.nodes[0]
	if _, err := sub.st.db.Exec(`CREATE TRIGGER fail_results BEFORE UPDATE ON tasks WHEN NEW.state >= ` + fmt.Sprint(tsDone) + ` BEGIN SELECT RAISE(FAIL, 'injected write failure'); END`); err != nil {
		t.Fatal(err)
	}
	bags := cl.submitBags([]int{0}, 4, 10)
	id := bags[0].bag
	held := func() int { return heldResults(cl) }
	waitFor(t, 20*time.Second, "results held while they cannot be stored", func() (bool, string) {
		s, _ := sub.Status()
		return len(s.Bags) == 1 && s.Bags[0].Storing == 4 && held() == 4, fmt.Sprintf("bags %+v, held %d", s.Bags, held())
	})
	// Status and results report only what is stored: nothing done yet,
	// four tasks being stored, no error.
	if s, _ := sub.Status(); s.Bags[0].Done != 0 || s.Bags[0].Failed != 0 || s.Bags[0].Completed != 0 {
		t.Errorf("status while no result is stored: %+v, want 0 done, 0 failed, not completed", s.Bags[0])
	}
	res, err := cl.client(0).Results(cl.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.State != StateStoring || r.Err != "" || len(r.Output) != 0 || r.Digest != "" {
			t.Errorf("task %d while its result is not stored: %+v, want state %q and nothing else", r.Index, r, StateStoring)
		}
	}
	// Still held a while later: nothing acknowledged them.
	time.Sleep(3 * sub.cfg.Heartbeat)
	if h := held(); h != 4 {
		t.Fatalf("%d results held after their writes failed, want 4 (a result was acknowledged without being stored)", h)
	}
	if _, err := sub.st.db.Exec(`DROP TRIGGER fail_results`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "results stored and acknowledged", func() (bool, string) {
		return held() == 0, fmt.Sprintf("held %d", held())
	})
	var stored int
	if err := sub.st.db.QueryRow(`SELECT COUNT(*) FROM tasks WHERE bag = ? AND state = ?`, int64(id), tsDone).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 4 {
		t.Fatalf("%d task rows done in the database, want 4", stored)
	}
	s, _ := sub.Status()
	if b := s.Bags[0]; b.Done != 4 || b.Storing != 0 || b.Completed == 0 {
		t.Errorf("status once stored: %+v, want 4 done, none storing, completed", b)
	}
	res, err = cl.client(0).Results(cl.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.State != "done" || r.Err != "" || len(r.Output) == 0 {
			t.Errorf("task %d once stored: %+v, want done with its output", r.Index, r)
		}
	}
}

// TestResultNotSentUntilHeld: an execution node sends a result only once
// its held copy has committed, so that a node killed after sending can
// still send it again. While every node's writes of held results fail (a
// trigger), the submission node receives nothing (no task storing or
// done) and the results stay held in memory; once writes succeed again,
// the retried writes commit, the results are sent, stored and
// acknowledged.
func TestResultNotSentUntilHeld(t *testing.T) {
	cl, runs := newHeldCluster(t)
	for _, nd := range cl.nodes {
		if _, err := nd.st.db.Exec(`CREATE TRIGGER fail_held BEFORE INSERT ON held BEGIN SELECT RAISE(FAIL, 'injected write failure'); END`); err != nil {
			t.Fatal(err)
		}
	}
	sub := cl.nodes[0]
	cl.submitBags([]int{0}, 4, 10)
	held := func() int { return heldResults(cl) }
	waitFor(t, 20*time.Second, "the four tasks run and held", func() (bool, string) {
		return runs.Load() >= 4 && held() == 4, fmt.Sprintf("runs %d, held %d", runs.Load(), held())
	})
	// A while later (three heart-beats: leases retry the writes, which
	// fail again), the submission node still has received nothing.
	time.Sleep(3 * sub.cfg.Heartbeat)
	if s, _ := sub.Status(); len(s.Bags) != 1 || s.Bags[0].Storing != 0 || s.Bags[0].Done != 0 {
		t.Fatalf("submission node while no held result could be stored: %+v, want nothing storing or done (a result was sent before it was held)", s.Bags)
	}
	if h := held(); h != 4 {
		t.Fatalf("%d results held, want 4", h)
	}
	for _, nd := range cl.nodes {
		if _, err := nd.st.db.Exec(`DROP TRIGGER fail_held`); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 60*time.Second, "results stored and acknowledged", func() (bool, string) {
		s, _ := sub.Status()
		return held() == 0 && len(s.Bags) == 1 && s.Bags[0].Done == 4, fmt.Sprintf("held %d, bags %+v", held(), s.Bags)
	})
}

// newHeldCluster starts three nodes whose tasks sleep 50 ms (runs counts
// them) and waits for their tree.
func newHeldCluster(t *testing.T) (*cluster, *atomic.Int64) {
	runs := new(atomic.Int64)
	cl := newCluster(t, 3, false, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 50 * time.Millisecond, runs: runs}
	})
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	return cl, runs
}

// heldResults is the number of results the nodes hold for their
// submission nodes, unacknowledged.
func heldResults(cl *cluster) int {
	h := 0
	for _, nd := range cl.nodes {
		if s, ok := nd.Status(); ok {
			h += s.Exec.Held
		}
	}
	return h
}
