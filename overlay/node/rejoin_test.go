package node

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/overlay"
)

// restart starts node i again with its configuration and state directory
// on the same address (the node must have been stopped).
func (cl *cluster) restart(i int) *Node {
	cl.t.Helper()
	old := cl.nodes[i]
	cfg := old.cfg
	cfg.Seed = 0 // as the command: a random one (a node's vertex ids differ from its previous run's)
	ln, err := net.Listen("tcp", old.Addr())
	if err != nil {
		cl.t.Fatal(err)
	}
	cfg.Listener = ln
	n, err := New(cfg)
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.nodes[i] = n
	n.Start(cl.ctx)
	return n
}

// waitOneTree waits until the nodes form one tree with a leaf each.
func (cl *cluster) waitOneTree(what string, timeout time.Duration) {
	cl.t.Helper()
	waitFor(cl.t, timeout, what, func() (bool, string) {
		d, err := treeCheck(cl.nodes)
		if err != nil {
			return false, err.Error()
		}
		return len(d) == len(cl.nodes), fmt.Sprintf("%d leaves of %d", len(d), len(cl.nodes))
	})
}

// waitCovered waits until the root's summary covers k execution nodes
// (every node's availability has reached it: a bag can use them all).
func (cl *cluster) waitCovered(k int) {
	cl.t.Helper()
	waitFor(cl.t, 20*time.Second, fmt.Sprintf("root's summary covering %d nodes", k), func() (bool, string) {
		for _, nd := range cl.nodes {
			s, _ := nd.Status()
			for _, r := range s.Routers {
				if r.View.Father.None() {
					return r.Available == k, fmt.Sprintf("root %v covers %d", r.View.Self, r.Available)
				}
			}
		}
		return false, "no root router"
	})
}

// waitRemembered waits until node i has stored members to rejoin through.
func (cl *cluster) waitRemembered(i int) {
	cl.t.Helper()
	nd := cl.nodes[i]
	waitFor(cl.t, 10*time.Second, "members remembered", func() (bool, string) {
		var k int
		nd.call(func() { k = len(nd.remembered) })
		return k > 0, fmt.Sprintf("%d remembered", k)
	})
}

// logged reports whether a node's log has a line containing s.
func (cl *cluster) logged(addr, s string) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, l := range cl.logs {
		if strings.Contains(l, " "+addr+": ") && strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestFirstNodeRestartRejoins: the first node of an overlay (started with
// neither Join nor Peers, the others joining through it), stopped and
// started again with the same configuration and state, rejoins the tree
// the others still form instead of starting a tree of its own; a bag
// submitted afterwards at another node runs on it too. Once after a
// clean stop (it tells its neighbours it leaves), once after a kill
// (started again before its neighbours notice).
func TestFirstNodeRestartRejoins(t *testing.T) {
	const n = 4
	cl := newCluster(t, n, true, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 30 * time.Millisecond}
	})
	cl.waitOneTree("tree of joined nodes", 20*time.Second)
	for k, how := range []string{"clean stop", "kill"} {
		cl.waitRemembered(0)
		if how == "kill" {
			cl.nodes[0].Kill()
		} else {
			cl.nodes[0].Close()
		}
		first := cl.restart(0)
		if s, _ := first.Status(); !s.Joining {
			t.Fatalf("after a %s: the first node started again is not joining (leaf %v, father %v, root %v): a tree of its own", how, s.Leaf, s.Father, s.Root)
		}
		cl.waitOneTree("one tree after a "+how+" and restart of the first node", 30*time.Second)
		cl.waitCovered(n)
		at := 1 + k
		bags := cl.submitBags([]int{at}, 4*n, 10)
		cl.waitBags(bags, 30*time.Second)
		res, err := cl.client(at).Results(cl.ctx, bags[0].bag)
		if err != nil {
			t.Fatal(err)
		}
		ran := map[string]int{}
		for _, r := range res {
			ran[r.Node]++
		}
		t.Logf("after a %s: bag at node %d ran %v", how, at, ran)
		if ran[first.Addr()] == 0 {
			t.Errorf("after a %s: no task of the bag at node %d ran on the restarted first node %s: %v", how, at, first.Addr(), ran)
		}
	}
}

// TestNewNodeStartsOverlay: a node with no state, started with neither
// Join nor Peers, starts a tree of its own at once; started again, having
// never had a neighbour, it does so again.
func TestNewNodeStartsOverlay(t *testing.T) {
	cl := newCluster(t, 1, true, nil)
	for _, when := range []string{"first start", "restart"} {
		if when == "restart" {
			cl.nodes[0].Close()
			cl.restart(0)
		}
		s, ok := cl.nodes[0].Status()
		if !ok || s.Joining || s.Leaf.None() || !s.Father.None() || !s.Root.Same(s.Leaf) {
			t.Fatalf("%s: joining %v, leaf %v, father %v, root %v: want a tree of one (the leaf is the root)", when, s.Joining, s.Leaf, s.Father, s.Root)
		}
	}
}

// TestRestartWithMembersGone: a node whose remembered members have all
// gone tries them, then starts a new overlay (and says so).
func TestRestartWithMembersGone(t *testing.T) {
	cl := newCluster(t, 3, true, nil)
	cl.waitOneTree("tree of joined nodes", 20*time.Second)
	cl.waitRemembered(0)
	for _, nd := range cl.nodes {
		nd.Kill()
	}
	first := cl.restart(0)
	cl.nodes = cl.nodes[:1]
	if s, _ := first.Status(); !s.Joining {
		t.Fatalf("started again: not joining (leaf %v, father %v, root %v): want a rejoin through its remembered members first", s.Leaf, s.Father, s.Root)
	}
	waitFor(t, 30*time.Second, "a new overlay", func() (bool, string) {
		s, _ := first.Status()
		return !s.Joining && !s.Leaf.None() && s.Father.None() && s.Root.Same(s.Leaf),
			fmt.Sprintf("joining %v, leaf %v, father %v, root %v", s.Joining, s.Leaf, s.Father, s.Root)
	})
	if !cl.logged(first.Addr(), "no remembered member answered: starting a new overlay") {
		t.Error("no log line saying that no remembered member answered")
	}
}

// TestJoinDoesNotSplitOwnLeaf: a join for a node's new leaf is not placed
// by splitting a leaf that node plays already (the leaf of its previous
// run, killed and started again before its neighbours took it for dead:
// the welcome would give it a routing vertex whose child is a dead leaf);
// another node's join splits the same leaf.
func TestJoinDoesNotSplitOwnLeaf(t *testing.T) {
	n := unstartedNode(t)
	restarted := "127.0.0.1:1"
	old := Ref{ID: 3, Node: restarted} // its previous run's leaf
	v := View{Self: Ref{ID: 1, Node: n.self}, Left: old, LeftLeaf: true, Right: Ref{ID: 2, Node: n.self}, RightLeaf: true}
	for _, c := range []struct {
		from  string
		split bool
	}{{restarted, false}, {"127.0.0.1:2", true}} {
		r := soleRoot(t, n, v)
		n.routeJoin(r, &Join{Node: c.from, To: v.Self})
		if split := !r.view.Left.Same(old); split != c.split {
			t.Errorf("join of %s: leaf %v split %v, want %v (left child now %v)", c.from, old, split, c.split, r.view.Left)
		}
	}
}

// TestWholeOverlayRestart: every node of an overlay built by joins (the
// first started alone) stopped and started again with the same
// configuration: each tries the members it remembers, none of which is in
// a tree; they end in one tree (the node of the smallest address heard
// from starts it, as formTree says).
func TestWholeOverlayRestart(t *testing.T) {
	const n = 3
	cl := newCluster(t, n, true, nil)
	cl.waitOneTree("tree of joined nodes", 20*time.Second)
	for i := range cl.nodes {
		cl.waitRemembered(i)
	}
	for _, nd := range cl.nodes {
		nd.Kill()
	}
	for i := range cl.nodes {
		cl.restart(i)
	}
	cl.waitOneTree("one tree after every node restarted", 60*time.Second)
}

// TestCloseWithoutStart: a node made but never started closes at once
// (its store and listener released, Done closed), Kill too, and Start
// after Close does nothing.
func TestCloseWithoutStart(t *testing.T) {
	cr := sharedCreds(t)
	for _, kill := range []bool{false, true} {
		lns, _ := listeners(t, 1)
		n, err := New(Config{Listener: lns[0], Options: overlay.Options{Policy: overlay.PolicyIBP}, State: t.TempDir(), Cert: cr.cert, CA: cr.ca,
			Heartbeat: 50 * time.Millisecond, DeadAfter: time.Second, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			if kill {
				n.Kill()
				done <- nil
				return
			}
			done <- n.Close()
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Close: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("kill=%v: a node never started did not close", kill)
		}
		select {
		case <-n.Done():
		default:
			t.Fatal("Done not closed")
		}
		n.Start(context.Background()) // nothing: no loop, no panic
		if err := n.Close(); err != nil {
			t.Fatalf("a second Close: %v", err)
		}
	}
}

// TestSearchingNodeAnswersJoinWait: a node that is in no tree (its only
// seed does not answer) answers the joins that reach it with join-wait,
// so that the joining node has heard from it. When the searching node has
// the smaller address (the cluster is made again until the kernel's ports
// give that order), the joining node therefore does not start a tree of
// its own: it waits for the searching node's tree (formTree) and joins
// it, so the two end in one tree. (With the other order each may start
// its own: the searching node does not join through nodes it only heard
// from — noted in docs/overlay-node.md.)
func TestSearchingNodeAnswersJoinWait(t *testing.T) {
	var cl *cluster
	for attempt := 0; ; attempt++ {
		cl = newCluster(t, 2, true, func(i int, c *Config) {
			if i == 0 {
				c.Join = []string{"127.0.0.1:1"} // nobody there: node 0 searches
			}
		})
		if cl.nodes[0].Addr() < cl.nodes[1].Addr() {
			break
		}
		if attempt == 20 {
			t.Fatal("20 clusters, never the searching node at the smaller address")
		}
		cl.closeAll()
	}
	waitFor(t, 10*time.Second, "join-wait sent by the searching node", func() (bool, string) {
		s, _ := cl.nodes[0].Status()
		return s.Traffic.ByType["join-wait"] > 0, fmt.Sprintf("frames sent %v", s.Traffic.ByType)
	})
	cl.waitOneTree("one tree of the two", 60*time.Second)
	if cl.logged(cl.nodes[1].Addr(), "no tree found") {
		t.Error("the joining node started a tree of its own")
	}
}
