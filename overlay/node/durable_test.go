package node

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/blob"
)

// TestSubmissionNodeRestart kills the submission node abruptly in the
// middle of a bag and starts it again from its state directory: the bag
// (stored before its submission was acknowledged) goes on and completes,
// the results stored before the crash are kept, and a result that arrives
// a second time is counted once.
func TestSubmissionNodeRestart(t *testing.T) {
	var runs atomic.Int64
	cl := newCluster(t, 4, false, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 150 * time.Millisecond, runs: &runs}
	})
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	bags := cl.submitBags([]int{0}, 16, 10)
	id := bags[0].bag
	waitFor(t, 20*time.Second, "first results", func() (bool, string) {
		s, _ := cl.nodes[0].Status()
		return len(s.Bags) == 1 && s.Bags[0].Done >= 3, fmt.Sprintf("%+v", s.Bags)
	})
	old := cl.nodes[0]
	addr := old.Addr()
	cfg := old.cfg
	old.Kill()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = ln
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.nodes[0] = n
	n.Start(cl.ctx)
	s, _ := n.Status()
	if len(s.Bags) != 1 || s.Bags[0].ID != id {
		t.Fatalf("after the restart the node has bags %+v, want bag %d", s.Bags, id)
	}
	t.Logf("restarted with %d of %d tasks done", s.Bags[0].Done, s.Bags[0].Tasks)
	cl.waitBags(bags, 60*time.Second)

	// A result sent again (the execution node did not get the
	// acknowledgement) is acknowledged and counted once.
	res, err := cl.client(0).Results(cl.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	dup := Result{Node: res[0].Node, Bag: id, Task: 0, Output: res[0].Digest, Data: []byte("something else"), Start: 1, End: 2}
	dup.Output = blob.Sum(dup.Data)
	// Every result acknowledged (those sent again around the restart too).
	waitFor(t, 20*time.Second, "results acknowledged", func() (bool, string) {
		for _, nd := range cl.nodes {
			if s, _ := nd.Status(); s.Exec.Held > 0 {
				return false, fmt.Sprintf("%s holds %d", nd.Addr(), s.Exec.Held)
			}
		}
		return true, ""
	})
	s, _ = n.Status()
	dups := s.Bags[0].Duplicates
	c := rawPeer(t, addr, res[0].Node)
	defer c.Close()
	b, _ := encodeControl(&dup)
	c.Write(b)
	waitFor(t, 10*time.Second, "duplicate counted", func() (bool, string) {
		s, _ := n.Status()
		return s.Bags[0].Duplicates == dups+1, fmt.Sprintf("%+v", s.Bags[0])
	})
	s, _ = n.Status()
	if s.Bags[0].Done != 16 {
		t.Errorf("done %d after a duplicate, want 16", s.Bags[0].Done)
	}
	again, _ := cl.client(0).Results(cl.ctx, id)
	if string(again[0].Output) != string(res[0].Output) {
		t.Errorf("task 0's output changed by a duplicate: %q, was %q", again[0].Output, res[0].Output)
	}
}

// TestBagTimesSurviveRestart: a complete bag's times that its task rows do
// not give back (every task first assigned, the last result) are shown
// the same by the node started again from its state.
func TestBagTimesSurviveRestart(t *testing.T) {
	cl := newCluster(t, 2, false, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 10 * time.Millisecond}
	})
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	bags := cl.submitBags([]int{0}, 4, 10)
	cl.waitBags(bags, 30*time.Second)
	before, _ := cl.nodes[0].Status()
	b0 := before.Bags[0]
	if b0.Allocated == 0 || b0.Completed == 0 {
		t.Fatalf("bag before the restart: %+v, want its allocated and completed times", b0)
	}
	old := cl.nodes[0]
	cfg := old.cfg
	old.Kill()
	ln, err := net.Listen("tcp", old.Addr())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = ln
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.nodes[0] = n
	n.Start(cl.ctx)
	after, _ := n.Status()
	if len(after.Bags) != 1 {
		t.Fatalf("after the restart: bags %+v", after.Bags)
	}
	b1 := after.Bags[0]
	if b1.Allocated != b0.Allocated || b1.Completed != b0.Completed || b1.Submitted != b0.Submitted || b1.Done != b0.Done {
		t.Errorf("after the restart: allocated %v, completed %v, submitted %v, done %d; before: %v, %v, %v, %d",
			b1.Allocated, b1.Completed, b1.Submitted, b1.Done, b0.Allocated, b0.Completed, b0.Submitted, b0.Done)
	}
}
