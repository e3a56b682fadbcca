package node

import (
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/blob"
)

// TestSlowReadsDoNotStallTheLoop: while the submission node's database
// reads are stuck (a gate holds every blob read, as a slow disk would), a
// results request and a blob request that must read the database are
// pending, and the node's loop still answers (its status, the overlay's
// messages); once the reads go on, both are answered with what the
// database holds.
func TestSlowReadsDoNotStallTheLoop(t *testing.T) {
	var runs atomic.Int64
	cl := newCluster(t, 2, false, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 10 * time.Millisecond, runs: &runs}
	})
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	bags := cl.submitBags([]int{0}, 4, 10)
	cl.waitBags(bags, 30*time.Second)
	sub := cl.nodes[0]

	// Every blob read waits at the gate until the test opens it.
	var release chan struct{}
	entered := make(chan struct{}, 16)
	gate := func() {
		entered <- struct{}{}
		<-release
	}
	stuck := false
	stick := func() {
		release = make(chan struct{})
		sub.st.readGate.Store(&gate)
		stuck = true
	}
	unstick := func() {
		sub.st.readGate.Store(nil)
		close(release)
		stuck = false
	}
	defer func() {
		if stuck { // a failed step: the reader must not stay stuck (the node's Close waits for it)
			unstick()
		}
	}()
	mustEnter := func(what string) {
		t.Helper()
		select {
		case <-entered:
		case <-time.After(10 * time.Second * waitSlack):
			t.Fatalf("%s: no database read started", what)
		}
	}
	// The loop answers while a read is stuck (a failing test gives up
	// after the bound: nothing asserts a time).
	mustAnswer := func(what string) {
		t.Helper()
		done := make(chan bool, 1)
		go func() { _, ok := sub.Status(); done <- ok }()
		select {
		case ok := <-done:
			if !ok {
				t.Fatalf("%s: node stopped", what)
			}
		case <-time.After(10 * time.Second * waitSlack):
			t.Fatalf("%s: the node's loop does not answer while a database read is stuck", what)
		}
	}

	// 1. A results request (outputs read from the database).
	type answer struct {
		res []TaskResult
		err error
	}
	resCh := make(chan answer, 1)
	c := cl.client(0)
	stick()
	go func() {
		r, err := c.Results(cl.ctx, bags[0].bag)
		resCh <- answer{r, err}
	}()
	mustEnter("results")
	mustAnswer("results")
	unstick()
	select {
	case a := <-resCh:
		if a.err != nil {
			t.Fatal(a.err)
		}
		if len(a.res) != 4 {
			t.Fatalf("%d results, want 4", len(a.res))
		}
		for j, r := range a.res {
			if want := fmt.Sprintf("n0-t%d ok", j); r.State != "done" || string(r.Output) != want || r.Err != "" {
				t.Errorf("task %d: %s %q (err %q), want done %q", j, r.State, r.Output, r.Err, want)
			}
		}
	case <-time.After(20 * time.Second * waitSlack):
		t.Fatal("results not answered after the reads went on")
	}

	// 2. A blob request for a digest the node does not hold in memory.
	peer := rawPeer(t, sub.Addr(), cl.nodes[1].Addr())
	defer peer.Close()
	stick()
	b, _ := encodeControl(&BlobGet{Digest: blob.Sum([]byte("not here"))})
	if _, err := peer.Write(b); err != nil {
		t.Fatal(err)
	}
	mustEnter("blob-get")
	mustAnswer("blob-get")
	unstick()
	waitFor(t, 10*time.Second, "tree intact", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
}

// TestStoreCallbacksDoNotBlockTheLoop: the loop queues more store
// operations at once than the store's queue and the loop's call queue
// hold together, each of which posts back to the loop once committed (as
// a stored result's acknowledgement does). The store's goroutine never
// waits on the loop, so the loop's queuing ends and every callback runs;
// when post waited for room in a bounded queue, the loop (waiting for
// room in the store's queue) and the store (waiting for room in the
// loop's) stopped each other for good.
func TestStoreCallbacksDoNotBlockTheLoop(t *testing.T) {
	cl := newCluster(t, 1, false, nil)
	nd := cl.nodes[0]
	const ops = 8192 // > 4096 (store queue) + 1024 (calls) + 512 (a batch)
	ran := 0
	queued := make(chan bool, 1)
	go func() {
		queued <- nd.call(func() {
			for range ops {
				nd.st.do(func(*sql.Tx) error { return nil }, func(error) {
					nd.post(func() { ran++ })
				})
			}
		})
	}()
	select {
	case ok := <-queued:
		if !ok {
			t.Fatal("node stopped")
		}
	case <-time.After(30 * time.Second * waitSlack):
		cl.nodes = nil // stuck: Kill would wait for its loop for good
		t.Fatal("the loop is still queuing store operations: blocked")
	}
	waitFor(t, 30*time.Second, "every callback run", func() (bool, string) {
		n := -1
		nd.call(func() { n = ran })
		return n == ops, fmt.Sprintf("%d of %d run", n, ops)
	})
}
