package node

import (
	"fmt"
	"testing"
	"time"

	"github.com/volsched/volsched/overlay"
)

// maxDepthSpread returns the leaves' minimum and maximum depth.
func depthRange(d map[string]int) (lo, hi int) {
	lo = 1 << 30
	for _, x := range d {
		lo, hi = min(lo, x), max(hi, x)
	}
	return
}

func TestJoinBuildsBalancedTree(t *testing.T) {
	n := 24
	cl := newCluster(t, n, true, nil)
	var depth map[string]int
	waitFor(t, 30*time.Second, "tree of joined nodes", func() (bool, string) {
		d, err := treeCheck(cl.nodes)
		if err != nil {
			return false, err.Error()
		}
		if len(d) != n {
			return false, fmt.Sprintf("%d leaves", len(d))
		}
		lo, hi := depthRange(d)
		depth = d
		routers := 0
		for _, nd := range cl.nodes {
			s, _ := nd.Status()
			if len(s.Routers) > 1 {
				return false, fmt.Sprintf("%s plays %d routing vertices", nd.Addr(), len(s.Routers))
			}
			routers += len(s.Routers)
		}
		return hi-lo <= 1 && routers == n-1, fmt.Sprintf("depths %d..%d, %d routers", lo, hi, routers)
	})
	lo, hi := depthRange(depth)
	t.Logf("%d nodes joined: leaf depths %d..%d", n, lo, hi)
}

// rootPlayer returns the index of the node that plays the root.
func (cl *cluster) rootPlayer(live []*Node) int {
	for _, nd := range live {
		s, ok := nd.Status()
		if !ok {
			continue
		}
		for _, r := range s.Routers {
			if r.View.Father.None() {
				for i, x := range cl.nodes {
					if x == nd {
						return i
					}
				}
			}
		}
	}
	return -1
}

func TestTreeRecoversFromKilledNodes(t *testing.T) {
	n := 16
	cl := newCluster(t, n, false, nil)
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	// Kill the root's player, one of the root's children's and another.
	victims := map[int]bool{cl.rootPlayer(cl.nodes): true}
	s, _ := cl.nodes[0].Status()
	_ = s
	for _, nd := range cl.nodes {
		st, _ := nd.Status()
		for _, r := range st.Routers {
			if !r.View.Father.None() && r.View.Father.ID == 0 && len(victims) < 2 {
				for i, x := range cl.nodes {
					if x == nd {
						victims[i] = true
					}
				}
			}
		}
	}
	victims[7] = true
	var live []*Node
	for i, nd := range cl.nodes {
		if victims[i] {
			nd.Kill()
		} else {
			live = append(live, nd)
		}
	}
	t.Logf("killed %d nodes", len(victims))
	defer func() {
		if t.Failed() {
			dumpTree(t, live)
		}
	}()
	waitFor(t, 20*time.Second, "tree repaired", func() (bool, string) {
		d, err := treeCheck(live)
		if err != nil {
			return false, err.Error()
		}
		return len(d) == len(live), fmt.Sprintf("%d leaves of %d", len(d), len(live))
	})
}

// dumpTree logs every live node's vertices.
func dumpTree(t testing.TB, nodes []*Node) {
	for _, nd := range nodes {
		s, ok := nd.Status()
		if !ok {
			continue
		}
		t.Logf("%s: leaf %v father %v root %v joining %v", s.Node, s.Leaf, s.Father, s.Root, s.Joining)
		for _, r := range s.Routers {
			t.Logf("    router %v father %v left %v right %v kids %+v %+v lost %v detached %v", r.View.Self, r.View.Father, r.View.Left, r.View.Right, r.Kids[0], r.Kids[1], r.Lost, r.Detached)
		}
	}
}

// TestRootTakeoverFromStaleView: a leaf whose father is the root, silent,
// takes the root over with the root's last view; when that view is stale
// (it still names, in self's place, a vertex of this node that has since
// removed itself — seen under load in TestProcessesWithSIGKILL, where the
// adopted root then knew neither child and was adopted again forever), the
// taken-over root has self as its child; with a view naming neither self
// nor such a vertex, nothing is taken over (the leaf waits to be cut off).
func TestRootTakeoverFromStaleView(t *testing.T) {
	n := unstartedNode(t)
	other := "127.0.0.1:1"
	self := Ref{ID: 7, Node: n.self}
	root := Ref{ID: 0, Node: other}
	for _, c := range []struct {
		name  string
		right Ref
		moved bool
		want  bool
	}{
		{"current view", self, false, true},
		{"stale view, the vertex self replaced removed itself", Ref{ID: 6, Node: n.self}, true, true},
		{"stale view naming something else", Ref{ID: 9, Node: other}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n.routers = map[overlay.Addr]*routerRole{}
			n.moved = map[overlay.Addr]string{}
			if c.moved {
				n.moved[c.right.ID] = ""
			}
			n.leaf = n.newLeaf(self, root)
			fv := View{Self: root, Left: Ref{ID: 1, Node: other}, Right: c.right, RightLeaf: c.right.Same(self)}
			now := time.Now()
			cut := false
			n.fatherLost(now, self, root, fv, now.Add(-3*n.adoptWait()), func() { cut = true })
			r := n.routers[0]
			switch {
			case cut:
				t.Fatal("cut off before the orphan wait")
			case !c.want && r != nil:
				t.Fatalf("took the root over with a view that does not name self: %+v", r.view)
			case c.want && r == nil:
				t.Fatal("the root was not taken over")
			case c.want && (!r.view.Right.Same(self) || !r.view.RightLeaf || !r.view.Left.Same(fv.Left) || r.view.Self.Node != n.self):
				t.Fatalf("taken-over root %+v: want self %v as its right child (a leaf), left %v", r.view, self, fv.Left)
			}
		})
	}
}

// TestLateWelcomeDeclined: a welcome for a join already answered (seen in
// TestManyDaemons under load: a node's second join split a leaf again, and
// the new vertex, played by nobody, was taken over and removed forever)
// is declined: the splitter is told to put the leaf back in the new
// vertex's place.
func TestLateWelcomeDeclined(t *testing.T) {
	n := unstartedNode(t)
	other := "127.0.0.1:1"
	splitter := Ref{ID: 3, Node: n.self} // the split happened at this node's own router
	l := Ref{ID: 5, Node: other}
	v := Ref{ID: 1 << 25, Node: n.self}
	w := &Welcome{Leaf: Ref{ID: 1<<25 + 1, Node: n.self},
		Router: View{Self: v, Father: splitter, Left: l, LeftLeaf: true, Right: Ref{ID: 1<<25 + 1, Node: n.self}, RightLeaf: true}}
	n.leaf = n.newLeaf(Ref{ID: 9, Node: n.self}, Ref{ID: 3, Node: n.self}) // joined already
	n.onWelcome(other, w)
	if n.routers[v.ID] != nil {
		t.Fatal("took the vertex of a late welcome")
	}
	var rc *ReplaceChild
	for _, c := range n.localCtl {
		if x, ok := c.m.(*ReplaceChild); ok {
			rc = x
		}
	}
	if rc == nil || !rc.Vertex.Same(splitter) || !rc.Old.Same(v) || !rc.New.Same(l) || !rc.NewView.IsLeaf() {
		t.Fatalf("declined welcome: %+v; want the splitter %v told to replace %v by leaf %v", rc, splitter, v, l)
	}
}

// unstartedNode is a node made but never started (a test calls its
// handlers itself); it is closed at the end of the test.
// soleRoot makes never-started node n play routing vertex v, the root,
// and nothing else.
func soleRoot(t *testing.T, n *Node, v View) *routerRole {
	t.Helper()
	vr, err := newRouter(linksOf(v))
	if err != nil {
		t.Fatal(err)
	}
	r := &routerRole{view: v, r: vr}
	n.routers = map[overlay.Addr]*routerRole{v.Self.ID: r}
	n.root = v.Self
	return r
}

func unstartedNode(t *testing.T) *Node {
	t.Helper()
	cr := sharedCreds(t)
	lns, _ := listeners(t, 1)
	n, err := New(Config{Listener: lns[0], Options: overlay.Options{Policy: overlay.PolicyIBP}, State: t.TempDir(), Cert: cr.cert, CA: cr.ca,
		Heartbeat: 50 * time.Millisecond, DeadAfter: time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Kill) // never started: closes its transport and store
	return n
}

// TestHandoverRelinksOwnRoles: a node X hands the routing vertex it made
// when it joined — the father of its own leaf — over to a node Y that
// plays none (what the root's balancing does). Y adopts it and tells its
// neighbours, X among them; X drops its copy and must relink its own leaf
// under Y's copy at once. (It returned after dropping its copy: its leaf
// kept sending to the vertex at X, "not played here", and X's other
// roles refused Y's messages as from a non-neighbour, until silence
// detection rebuilt the links, DeadAfter later; heart-beats relinked the
// leaf, but its summary was not sent again.) DeadAfter is 20 s here, so
// that only the relinking can make the tree consistent within the test's
// few seconds. No message may be counted invalid: an update X's copy sent
// before it heard of the hand-over is stale, not invalid (1 run in 30
// counted one as invalid before Stale existed).
func TestHandoverRelinksOwnRoles(t *testing.T) {
	cl := newCluster(t, 3, true, func(i int, c *Config) { c.DeadAfter, c.Detect = 20*time.Second, 20*time.Second })
	waitFor(t, 10*time.Second, "tree of 3 joined nodes", func() (bool, string) {
		d, err := treeCheck(cl.nodes)
		return err == nil && len(d) == 3, fmt.Sprint(len(d), err)
	})
	var x, y *Node
	var id overlay.Addr
	for _, nd := range cl.nodes {
		s, _ := nd.Status()
		switch {
		case len(s.Routers) == 0:
			y = nd
		case len(s.Routers) == 1 && s.Routers[0].View.Self.Same(s.Father):
			x, id = nd, s.Routers[0].View.Self.ID
		}
	}
	if x == nil || y == nil {
		t.Fatal("no node plays exactly its own leaf's father, or none plays no router: the joins built another shape")
	}
	before := cl.traffic().Invalid
	x.call(func() {
		v := x.routers[id].view
		x.sendCtl(y.Addr(), &Handoff{View: &v})
	})
	waitFor(t, 3*time.Second, "the vertex played by Y, X's leaf under it, the tree consistent", func() (bool, string) {
		xs, _ := x.Status()
		ys, _ := y.Status()
		if len(xs.Routers) != 0 || len(ys.Routers) != 1 || ys.Routers[0].View.Self.ID != id {
			return false, fmt.Sprintf("X plays %d routers, Y %d", len(xs.Routers), len(ys.Routers))
		}
		if !xs.Father.Same(ys.Routers[0].View.Self) {
			return false, fmt.Sprintf("X's leaf's father %v, want %v", xs.Father, ys.Routers[0].View.Self)
		}
		// Y's copy starts with no summary from its children: X's leaf
		// must send its own again (as for any new father), or the branch
		// never offers X's slots.
		if a := ys.Routers[0].Available; a != 2 {
			return false, fmt.Sprintf("Y's router's summary covers %d nodes, want its 2 leaves", a)
		}
		d, err := treeCheck(cl.nodes)
		return err == nil && len(d) == 3, fmt.Sprint(len(d), err)
	})
	tr := cl.traffic()
	if got := tr.Invalid - before; got != 0 {
		t.Errorf("%d messages counted invalid during the hand-over, want 0", got)
	}
	t.Logf("stale messages: %d", tr.Stale)
	if cl.logged(x.Addr(), "not played here") {
		t.Error("X's leaf sent to the vertex X no longer plays")
	}
}

// TestFormerNeighbourIsStale: after a join splits a router's leaf child,
// an update still sent by that leaf to its former father (in flight
// during the split: the two-host check counted one as invalid at join
// time) is stale, not invalid; the same vertex id from another node, and
// a vertex never linked, stay invalid. A leaf given a new father counts
// its former father's messages as stale too.
func TestFormerNeighbourIsStale(t *testing.T) {
	n := unstartedNode(t)
	old := Ref{ID: 3, Node: "127.0.0.1:1"}
	v := View{Self: Ref{ID: 1, Node: n.self}, Left: old, LeftLeaf: true, Right: Ref{ID: 2, Node: n.self}, RightLeaf: true}
	r := soleRoot(t, n, v)
	n.routeJoin(r, &Join{Node: "127.0.0.1:2", To: v.Self})
	if r.view.Left.Same(old) {
		t.Fatalf("the join did not split leaf %v", old)
	}
	sum := overlay.IBPSummary{{Mem: 1, Disk: 1, V: 1}}
	counts := func() (uint64, uint64) { return n.ctr.stale.Load(), n.ctr.invalid.Load() }
	for _, c := range []struct {
		what       string
		from       string
		m          overlay.Msg
		stale, inv uint64
	}{
		{"the split leaf's update", old.Node, overlay.Msg{Kind: overlay.KindUpdate, From: old.ID, To: v.Self.ID, Sum: sum}, 1, 0},
		{"its vertex id from another node", "127.0.0.1:9", overlay.Msg{Kind: overlay.KindUpdate, From: old.ID, To: v.Self.ID, Sum: sum}, 1, 1},
		{"a vertex never linked", old.Node, overlay.Msg{Kind: overlay.KindUpdate, From: 12345, To: v.Self.ID, Sum: sum}, 1, 2},
	} {
		n.deliver(c.from, "", c.m)
		if s, i := counts(); s != c.stale || i != c.inv {
			t.Errorf("%s: stale %d invalid %d, want %d and %d", c.what, s, i, c.stale, c.inv)
		}
	}
	f0, f1 := Ref{ID: 20, Node: "127.0.0.1:5"}, Ref{ID: 21, Node: "127.0.0.1:6"}
	n.leaf = n.newLeaf(Ref{ID: 10, Node: n.self}, f0)
	n.setLeafFather(f1, View{}, false)
	n.deliver(f0.Node, "", overlay.Msg{Kind: overlay.KindBound, From: f0.ID, To: 10})
	if s, i := counts(); s != 2 || i != 2 {
		t.Errorf("a message from the leaf's former father: stale %d invalid %d, want 2 and 2", s, i)
	}
}
