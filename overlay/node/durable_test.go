package node

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
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
	dup.Output = digest(dup.Data)
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
