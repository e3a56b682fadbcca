package node

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/volsched/volsched/overlay"
)

// The tree protocol. Every physical node plays one leaf (its execution
// and submission roles) and the routing vertices the tree gives it
// (normally one: n leaves, n−1 routers). Each vertex knows its father and
// children by Ref (vertex id, player, epoch) and exchanges heartbeats with
// them. See docs/overlay-node.md for the whole protocol; in short:
//
//   - join: a Join goes up to the root, then down towards the child of
//     smaller minimum leaf height, until it reaches a leaf ℓ; ℓ's father
//     replaces ℓ by a new routing vertex V, played by the joining node,
//     whose children are ℓ and the joining node's leaf;
//   - a dead leaf (its node failed or left): its father F removes itself
//     (its other child takes its place under F's father), and F's player,
//     which now plays one routing vertex less, takes over the dead node's
//     routing vertices (it learnt them from the dead leaf's heartbeats):
//     the dead node is replaced, and every node still plays one leaf and
//     one routing vertex;
//   - a dead routing vertex nobody took over within AdoptWait is taken
//     over by its father's player (by its left, then right child's player
//     if it was the root);
//   - a vertex whose father stays dead (nobody took it over) is cut off
//     after OrphanWait and joins again with its subtree;
//   - the root moves a deepest leaf to the shallowest place whenever the
//     leaves' heights differ by more than one.

// leafRole is this node's leaf.
type leafRole struct {
	self   Ref
	father Ref // none: the leaf is the root (a one-node tree) or detached
	l      overlay.Leaf
	heard  time.Time // last heartbeat from the father
	lost   time.Time // when the father was found silent (zero: alive)
	fview  View      // the father's links, from its heartbeats
	depth  int       // from the father's heartbeats
	former formerLinks
}

// formerLinks are the last neighbours a vertex was linked to before a
// relink: a message from one of them (the same vertex id, from the node
// that played it) is one sent before its sender heard of the change —
// stale, not invalid.
type formerLinks [4]Ref

// add records r (if it is a link) as the latest former neighbour.
func (f *formerLinks) add(r Ref) {
	if r.None() {
		return
	}
	copy(f[1:], f[:len(f)-1])
	f[0] = r
}

// has reports whether vertex id played by node is a former neighbour.
func (f *formerLinks) has(id overlay.Addr, node string) bool {
	for _, r := range f {
		if !r.None() && r.ID == id && r.Node == node {
			return true
		}
	}
	return false
}

// kid is what a router knows of one child.
type kid struct {
	heard, lost time.Time
	stats       Stats
	hasStats    bool
	view        View   // the child's links, from its heartbeats
	routers     []View // a leaf child: the routing vertices its node plays
}

// routerRole is one routing vertex played here.
type routerRole struct {
	view   View
	r      overlay.Router
	kids   [2]kid
	fheard time.Time
	flost  time.Time
	fview  View
	// detached: cut off the tree (father dead, nobody took it over); it is
	// joining again with its subtree.
	detached bool
	depth    int // from the father's heartbeats (root: 0)
	former   formerLinks
}

func (r *routerRole) child(i int) Ref {
	if i == 0 {
		return r.view.Left
	}
	return r.view.Right
}

func (r *routerRole) setChild(i int, c Ref, leaf bool) {
	if old := r.child(i); !old.Same(c) {
		r.former.add(old)
	}
	if i == 0 {
		r.view.Left, r.view.LeftLeaf = c, leaf
	} else {
		r.view.Right, r.view.RightLeaf = c, leaf
	}
}

func (r *routerRole) childLeaf(i int) bool {
	if i == 0 {
		return r.view.LeftLeaf
	}
	return r.view.RightLeaf
}

// slot returns which child has vertex id a (-1: none).
func (r *routerRole) slot(a overlay.Addr) int {
	switch a {
	case r.view.Left.ID:
		return 0
	case r.view.Right.ID:
		return 1
	}
	return -1
}

// neighbour returns the Ref of the neighbour with vertex id a.
func (r *routerRole) neighbour(a overlay.Addr) Ref {
	switch {
	case !r.view.Father.None() && r.view.Father.ID == a:
		return r.view.Father
	case r.view.Left.ID == a:
		return r.view.Left
	case r.view.Right.ID == a:
		return r.view.Right
	}
	return Ref{}
}

func (r *routerRole) links() links {
	f := overlay.NoAddr
	if !r.view.Father.None() {
		f = r.view.Father.ID
	}
	return links{self: r.view.Self.ID, father: f, left: r.view.Left.ID, right: r.view.Right.ID,
		leftLeaf: r.view.LeftLeaf, rightLeaf: r.view.RightLeaf}
}

// better reports whether a claim to play a vertex wins over b: a higher
// epoch, or the same epoch and the smaller node address.
func better(a, b Ref) bool {
	return a.Epoch > b.Epoch || a.Epoch == b.Epoch && a.Node < b.Node
}

// acceptable: a neighbour announced as played by w replaces the link cur.
func acceptable(w, cur Ref) bool { return w.Node == cur.Node || better(w, cur) }

func (n *Node) adoptWait() time.Duration  { return n.cfg.DeadAfter }
func (n *Node) orphanWait() time.Duration { return 3*n.cfg.DeadAfter + 2*n.adoptWait() }

// newID draws a vertex id not used by any of the given neighbours (ids of
// the deterministic bootstrap are 0..2n−2; drawn ones are >= 2^24).
func (n *Node) newID(avoid ...Ref) overlay.Addr {
	for {
		id := overlay.Addr(1<<24 + n.rng.Int32N(1<<31-1-1<<24))
		ok := n.routers[id] == nil && (n.leaf == nil || n.leaf.self.ID != id)
		for _, a := range avoid {
			if a.ID == id {
				ok = false
			}
		}
		if ok {
			return id
		}
	}
}

// joined reports whether this node's leaf is in the tree.
func (n *Node) joined() bool {
	return n.leaf != nil && (!n.leaf.father.None() || n.root.Same(n.leaf.self))
}

// bootstrap places the node: from the known membership (the simulator's
// tree over the sorted addresses), by joining, or alone.
func (n *Node) bootstrap() {
	now := time.Now()
	if len(n.cfg.Peers) > 0 && !n.wasMember {
		peers := slices.Clone(n.cfg.Peers)
		sort.Strings(peers)
		peers = slices.Compact(peers)
		me := slices.Index(peers, n.self)
		if me < 0 {
			n.logf("not in the peers list: joining through it")
		} else {
			n.placeFromPeers(peers, me, now)
			return
		}
	}
	if len(n.cfg.Join) == 0 && len(n.cfg.Peers) == 0 && len(n.remembered) > 0 {
		// A restart of a node started alone: its tree goes on without
		// it; it rejoins through the members it remembers.
		n.logf("rejoining through remembered members %v", n.remembered)
		n.rejoining = true
		n.startJoin(Ref{}, true)
		return
	}
	if len(n.cfg.Join) == 0 && len(n.cfg.Peers) == 0 {
		id := n.newID()
		leaf := n.newLeaf(Ref{ID: id, Node: n.self}, Ref{})
		n.leaf = leaf
		n.root = leaf.self
		n.markMember()
		n.stepLeafTick()
		return
	}
	n.startJoin(Ref{}, true)
}

// placeFromPeers builds overlay.NewTree over the sorted peers: peer i
// plays leaf i and the i-th internal vertex in pre-order, as in oversim.
func (n *Node) placeFromPeers(peers []string, me int, now time.Time) {
	// Neighbours not heard from yet get the start grace.
	now = now.Add(max(n.cfg.StartGrace-n.cfg.DeadAfter, 0))
	t := overlay.NewTree(len(peers))
	nv := t.Vertices()
	leafOf := make([]int, nv)
	rankOf := make([]int, nv)
	var routerV []overlay.Addr
	for v := 0; v < nv; v++ {
		leafOf[v], rankOf[v] = -1, -1
		if !t.IsLeaf(overlay.Addr(v)) {
			rankOf[v] = len(routerV)
			routerV = append(routerV, overlay.Addr(v))
		}
	}
	for i := range peers {
		leafOf[t.Leaf(i)] = i
	}
	ref := func(v overlay.Addr) Ref {
		if v == overlay.NoAddr {
			return Ref{}
		}
		if l := leafOf[v]; l >= 0 {
			return Ref{ID: v, Node: peers[l]}
		}
		return Ref{ID: v, Node: peers[rankOf[v]]}
	}
	viewOf := func(v overlay.Addr) View {
		w := View{Self: ref(v), Father: ref(t.Father(v))}
		if !t.IsLeaf(v) {
			w.Left, w.Right = ref(t.Left(v)), ref(t.Right(v))
			w.LeftLeaf, w.RightLeaf = t.IsLeaf(t.Left(v)), t.IsLeaf(t.Right(v))
		}
		return w
	}
	n.root = ref(t.Root())
	lv := t.Leaf(me)
	n.leaf = n.newLeaf(ref(lv), ref(t.Father(lv)))
	if f := t.Father(lv); f != overlay.NoAddr { // none in a membership of one
		n.leaf.fview = viewOf(f)
	}
	if me < len(routerV) {
		rv := routerV[me]
		role := &routerRole{view: viewOf(rv), r: t.Router(rv), fheard: now}
		if f := t.Father(rv); f != overlay.NoAddr {
			role.fview = viewOf(f)
		}
		for i, c := range []overlay.Addr{t.Left(rv), t.Right(rv)} {
			k := kid{heard: now, view: viewOf(c)}
			if l := leafOf[c]; l >= 0 && l < len(routerV) {
				k.routers = []View{viewOf(routerV[l])}
			}
			role.kids[i] = k
		}
		n.routers[rv] = role
	}
	n.markMember()
	// Every execution node reports its first summary at once (as the
	// simulator's time-0 step).
	n.stepLeafTick()
}

// newLeaf builds this node's leaf role over its execution role.
func (n *Node) newLeaf(self, father Ref) *leafRole {
	f := overlay.NoAddr
	if !father.None() {
		f = father.ID
	}
	return &leafRole{self: self, father: father, heard: time.Now(),
		l: overlay.Leaf{Self: self.ID, Father: f, Exec: n.exec}}
}

// startJoin begins (or repeats) joining the tree: this node's new leaf
// (attach none) or a vertex of it cut off the tree.
func (n *Node) startJoin(attach Ref, leaf bool) {
	n.joinAttach, n.joinLeaf, n.joinMaxDepth, n.joinK = attach, leaf, 0, 0
	n.joinAt = time.Now()
	n.joinStarted = n.joinAt
}

// joinSeeds are the nodes a join is sent through, in turn.
func (n *Node) joinSeeds() []string {
	var s []string
	add := func(a string) {
		if a != "" && a != n.self && !slices.Contains(s, a) {
			s = append(s, a)
		}
	}
	add(n.root.Node)
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		if !r.detached && r.flost.IsZero() {
			add(r.view.Father.Node)
		}
		for i := 0; i < 2; i++ {
			if r.kids[i].lost.IsZero() {
				add(r.child(i).Node)
			}
		}
	}
	for _, a := range n.cfg.Join {
		add(a)
	}
	for _, a := range n.cfg.Peers {
		add(a)
	}
	for _, a := range n.remembered {
		add(a)
	}
	return s
}

// sendJoin sends the pending join through the next seed.
func (n *Node) sendJoin(t time.Time) {
	seeds := n.joinSeeds()
	n.joinAt = t.Add(4 * n.cfg.Heartbeat)
	if len(seeds) == 0 {
		if n.joinAttach.None() && n.leaf == nil && len(n.cfg.Join) == 0 {
			// Nobody to join: start a tree.
			n.joinAt = time.Time{}
			n.bootstrapAlone()
		}
		return
	}
	n.joinK++
	seed := seeds[n.joinK%len(seeds)]
	if n.joinMaxDepth == 0 && n.joinK >= 2*len(seeds) && n.formTree(t) {
		return
	}
	if n.joinMaxDepth > 0 && n.joinK > 3 {
		n.joinAt, n.joinAttach, n.joinLeaf, n.joinMaxDepth = time.Time{}, Ref{}, false, 0
		return // a move that found no better place: the leaf stays
	}
	n.sendCtl(seed, &Join{Node: n.self, Attach: n.joinAttach, AttachLeaf: n.joinLeaf, MaxDepth: n.joinMaxDepth})
}

// formTree: every known node was asked twice and none placed this one:
// if no node heard from lately has a smaller address (those joining too,
// whose joins reach this one, and those this one's joins reached, which
// answer JoinWait), there is no tree any more and this node starts one
// (the others then join it).
func (n *Node) formTree(t time.Time) bool {
	if t.Sub(n.joinStarted) < n.orphanWait() || t.Sub(n.memberSeen) < 2*n.orphanWait() {
		return false // a tree may still answer, or exists
	}
	for a, h := range n.heardFrom {
		if a < n.self && t.Sub(h) < n.heardWindow() {
			return false
		}
	}
	n.joinAt = time.Time{}
	switch {
	case n.joinAttach.None() && n.rejoining:
		n.logf("no remembered member answered: starting a new overlay")
		n.rejoining = false
		n.bootstrapAlone()
	case n.joinAttach.None():
		n.logf("no tree found: starts one")
		n.bootstrapAlone()
	case n.joinLeaf:
		n.logf("no tree found: leaf %v is the root of a new one", n.leaf.self)
		n.setLeafFather(Ref{}, View{}, false)
		n.root = n.leaf.self
	default:
		r := n.routers[n.joinAttach.ID]
		if r == nil {
			return false
		}
		n.logf("no tree found: router %v is the root", r.view.Self)
		r.detached = false
		n.setRouterFather(r, Ref{}, View{})
	}
	n.joinAttach, n.joinLeaf = Ref{}, false
	return true
}

func (n *Node) bootstrapAlone() {
	n.leaf = n.newLeaf(Ref{ID: n.newID(), Node: n.self}, Ref{})
	n.root = n.leaf.self
	n.markMember()
	n.stepLeafTick()
}

// onJoin routes a join (see Join).
func (n *Node) onJoin(from string, j *Join) {
	j.Hops++
	if j.Hops > 128 || j.Node == n.self && j.To.None() {
		return
	}
	if j.To.None() {
		// Entry: start from this node's leaf, or a router in the tree.
		// (The root acknowledges it: a member whose branch is cut off
		// from its root would say that a tree exists when none does,
		// and keep every joining node from starting one.)
		if n.joined() {
			if n.leaf.father.None() {
				n.splitRootLeaf(j)
				return
			}
			if n.leaf.lost.IsZero() {
				j.To = n.leaf.father
				n.sendCtl(j.To.Node, j)
				return
			}
		}
		for _, id := range n.routerIDs() {
			r := n.routers[id]
			if !r.detached && r.flost.IsZero() {
				j.To = r.view.Self
				n.routeJoin(r, j)
				return
			}
		}
		// Not in a position to place it: the joining node retries
		// elsewhere, and hears that this node exists (see JoinWait).
		if from == j.Node {
			n.sendCtl(from, &JoinWait{})
		}
		return
	}
	if j.To.Node != n.self {
		return
	}
	if j.Node == n.self && j.Attach.None() && n.joined() {
		return // this node's own join, answered meanwhile
	}
	if n.leaf != nil && n.leaf.self.ID == j.To.ID {
		if n.leaf.father.None() && n.joined() {
			n.splitRootLeaf(j)
		} else if !n.leaf.father.None() && n.leaf.lost.IsZero() {
			j.To = n.leaf.father
			n.sendCtl(j.To.Node, j)
		}
		return
	}
	if r := n.routers[j.To.ID]; r != nil {
		n.routeJoin(r, j)
	}
}

func (n *Node) routeJoin(r *routerRole, j *Join) {
	if r.view.Self.Same(j.Attach) || r.detached {
		return
	}
	if !j.Down {
		if !r.view.Father.None() {
			if !r.flost.IsZero() {
				return // cut off from the root for now
			}
			j.To = r.view.Father
			n.sendCtl(j.To.Node, j)
			return
		}
		j.Down = true
		n.sendCtl(j.Node, &JoinAck{Root: r.view.Self})
	}
	// Down: towards the shallowest leaf.
	s := 0
	h0, h1 := r.kidStats(0).MinH, r.kidStats(1).MinH
	if h1 < h0 || h1 == h0 && r.kidStats(1).Leaves < r.kidStats(0).Leaves {
		s = 1
	}
	if !r.kids[s].lost.IsZero() {
		s = 1 - s
		if !r.kids[s].lost.IsZero() {
			return
		}
	}
	c := r.child(s)
	if r.childLeaf(s) {
		if c.Same(j.Attach) || j.MaxDepth > 0 && r.depth+2 > j.MaxDepth {
			return
		}
		if j.Attach.None() && c.Node == j.Node {
			// A new leaf for a node that plays this one: the leaf of its
			// previous run (it was restarted before its neighbours took
			// it for dead), or its join answered already. Not split: the
			// join is tried again once this leaf is removed.
			return
		}
		n.split(r, s, j)
		return
	}
	j.To = c
	n.sendCtl(c.Node, j)
}

// kidStats is what a router knows of a child's subtree (defaults before
// the first heartbeat).
func (r *routerRole) kidStats(i int) Stats {
	if r.kids[i].hasStats {
		return r.kids[i].stats
	}
	if r.childLeaf(i) {
		return Stats{Leaves: 1, Deep: r.child(i)}
	}
	return Stats{Leaves: 2, MinH: 1, MaxH: 1, Partial: true}
}

// split replaces router r's leaf child s by a new routing vertex played by
// the joining node.
func (n *Node) split(r *routerRole, s int, j *Join) {
	l := r.child(s)
	attach, attachLeaf := j.Attach, j.AttachLeaf
	v := Ref{ID: n.newID(r.view.Self, r.view.Father, r.view.Left, r.view.Right, attach), Node: j.Node}
	if attach.None() {
		attach = Ref{ID: n.newID(r.view.Self, r.view.Father, r.view.Left, r.view.Right, v), Node: j.Node}
		attachLeaf = true
	}
	vv := View{Self: v, Father: r.view.Self, Left: l, Right: attach, LeftLeaf: true, RightLeaf: attachLeaf}
	n.logf("join of %s: vertex %v splits leaf %v under %v", j.Node, v, l, r.view.Self)
	n.relinkChild(r, s, v, false, vv)
	n.sendCtl(j.Node, &Welcome{Leaf: attach, Router: vv, Root: n.root})
}

// splitRootLeaf: the tree is this node's leaf alone; the joining node's
// new routing vertex becomes the root.
func (n *Node) splitRootLeaf(j *Join) {
	n.sendCtl(j.Node, &JoinAck{Root: n.leaf.self})
	attach, attachLeaf := j.Attach, j.AttachLeaf
	v := Ref{ID: n.newID(n.leaf.self, attach), Node: j.Node}
	if attach.None() {
		attach = Ref{ID: n.newID(n.leaf.self, v), Node: j.Node}
		attachLeaf = true
	}
	vv := View{Self: v, Left: n.leaf.self, Right: attach, LeftLeaf: true, RightLeaf: attachLeaf}
	n.logf("join of %s: vertex %v becomes the root over leaf %v", j.Node, v, n.leaf.self)
	n.root = v
	n.setLeafFather(v, vv, false)
	n.sendCtl(j.Node, &Welcome{Leaf: attach, Router: vv, Root: v})
}

// onWelcome: this node's join succeeded.
func (n *Node) onWelcome(from string, w *Welcome) {
	if w.Router.Self.Node != n.self || w.Leaf.Node != n.self || !w.Router.Right.Same(w.Leaf) {
		n.invalid(from, "welcome", errString2("vertices not played by this node"))
		return
	}
	if n.joinAt.IsZero() {
		n.declineWelcome(w) // not joining (a late duplicate)
		return
	}
	if !n.joinAttach.None() && !w.Leaf.Same(n.joinAttach) {
		n.declineWelcome(w) // the answer to an earlier join
		return
	}
	now := time.Now()
	v := w.Router
	vr, err := newRouter(linksOf(v))
	if err != nil {
		n.invalid(from, "welcome", err)
		return
	}
	fresh := n.joinAttach.None()
	switch {
	case fresh:
		if n.leaf != nil {
			n.declineWelcome(w)
			return
		}
		n.leaf = n.newLeaf(w.Leaf, v.Self)
		n.leaf.fview = v
	case n.joinLeaf:
		if n.leaf == nil || !n.leaf.self.Same(w.Leaf) {
			n.declineWelcome(w)
			return
		}
		if old := n.leaf.father; !old.None() {
			// A move: the old place is given up now that the new one
			// exists.
			n.sendCtl(old.Node, &ReplaceChild{Vertex: old, Old: n.leaf.self})
		}
		n.setLeafFather(v.Self, v, true)
	default:
		r := n.routers[w.Leaf.ID]
		if r == nil {
			n.declineWelcome(w)
			return
		}
		r.detached = false
		n.setRouterFather(r, v.Self, v)
	}
	n.joinAt = time.Time{}
	role := &routerRole{view: v, r: vr, fheard: now}
	role.kids[0] = kid{heard: now, view: View{Self: v.Left, Father: v.Self}}
	role.kids[1] = kid{heard: now, view: View{Self: w.Leaf, Father: v.Self}}
	if fresh || n.joinLeaf {
		role.kids[1].routers = n.myRouterViews()
	} else {
		role.kids[1].view = n.routers[w.Leaf.ID].view
	}
	n.routers[v.Self.ID] = role
	switch {
	case v.Father.None():
		n.root = v.Self
	case !w.Root.None():
		n.root = w.Root
	}
	n.joinAttach, n.joinLeaf, n.joinMaxDepth = Ref{}, false, 0
	n.rejoining = false
	n.markMember()
	n.logf("joined: leaf %v, router %v", w.Leaf, v.Self)
	// The old leaf at this place now has V as its father.
	n.sendCtl(v.Left.Node, &SetFather{Vertex: v.Left, Father: v.Self})
	if fresh {
		n.stepLeafTick()
	}
}

// declineWelcome undoes the split a welcome this node does not take
// stands for (a join answered twice: the splitter has already put the new
// vertex, played by nobody, in the leaf's place): the leaf goes back
// under the splitter, or is the root again if it was the root.
func (n *Node) declineWelcome(w *Welcome) {
	v := w.Router
	n.logf("declines vertex %v (a join already answered): leaf %v goes back under %v", v.Self, v.Left, v.Father)
	if v.Father.None() {
		n.sendCtl(v.Left.Node, &SetFather{Vertex: v.Left, Father: Ref{}})
		return
	}
	n.sendCtl(v.Father.Node, &ReplaceChild{Vertex: v.Father, Old: v.Self, New: v.Left, NewView: View{Self: v.Left, Father: v.Father}})
}

type errString2 string

func (e errString2) Error() string { return string(e) }

func linksOf(v View) links {
	f := overlay.NoAddr
	if !v.Father.None() {
		f = v.Father.ID
	}
	return links{self: v.Self.ID, father: f, left: v.Left.ID, right: v.Right.ID, leftLeaf: v.LeftLeaf, rightLeaf: v.RightLeaf}
}

// relinkChild replaces router r's child s by c (its view cv) and rebuilds
// its routing state, keeping what it knew of its other neighbours.
func (n *Node) relinkChild(r *routerRole, s int, c Ref, leaf bool, cv View) {
	oldView := r.view
	r.setChild(s, c, leaf)
	nr, err := rebuildRouter(&r.r, r.links())
	if err != nil {
		n.logf("router %v: child %v refused: %v", r.view.Self, c, err)
		r.view = oldView
		return
	}
	r.kids[s] = kid{heard: time.Now(), view: cv}
	r.r = nr
	// The new child gets the MMP bound.
	out := routerChildRestarted(&n.oc, n.now(), &r.r, c.ID, n.out[:0])
	n.dispatchRouter(r, out, "")
}

// setLeafFather gives this node's leaf a new father; resend: the leaf
// sends it its summary (a fresh father knows nothing of it).
func (n *Node) setLeafFather(f Ref, fv View, resend bool) {
	l := n.leaf
	if !l.father.Same(f) {
		l.former.add(l.father)
	}
	l.father = f
	l.heard, l.lost = time.Now(), time.Time{}
	l.fview = fv
	if f.None() {
		l.l.Father = overlay.NoAddr
	} else {
		l.l.Father = f.ID
	}
	if resend {
		out := leafFatherRestarted(&n.oc, n.now(), &l.l, n.out[:0])
		n.dispatchLeaf(out, "")
	}
}

// setRouterFather gives router r a new father, which gets r's aggregate.
func (n *Node) setRouterFather(r *routerRole, f Ref, fv View) {
	if !r.view.Father.Same(f) {
		r.former.add(r.view.Father)
	}
	r.view.Father = f
	r.fheard, r.flost = time.Now(), time.Time{}
	r.fview = fv
	if f.None() {
		r.r.Father = overlay.NoAddr
		n.root = r.view.Self
		r.depth = 0
	} else {
		r.r.Father = f.ID
	}
	r.r.Bound = math.Inf(-1)
	out := routerFatherRestarted(&n.oc, n.now(), &r.r, n.out[:0])
	n.dispatchRouter(r, out, "")
}

// myRouterViews are the routing vertices this node plays (what its leaf
// tells its father).
func (n *Node) myRouterViews() []View {
	var vs []View
	for _, id := range n.routerIDs() {
		if r := n.routers[id]; !r.detached {
			vs = append(vs, r.view)
		}
	}
	return vs
}

// heartbeats sends one heartbeat along each edge of each vertex.
func (n *Node) heartbeats() {
	if l := n.leaf; l != nil && !l.father.None() {
		st := Stats{Leaves: 1, Deep: l.self}
		switch {
		case len(n.routers) == 0:
			st.Spare = n.self
		case len(n.routers) > 1:
			st.Extra = n.self
		}
		n.sendCtl(l.father.Node, &Heartbeat{From: View{Self: l.self, Father: l.father}, To: l.father, Stats: &st,
			Routers: n.myRouterViews()})
	}
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		if !r.view.Father.None() && !r.detached {
			st := n.subStats(r)
			n.sendCtl(r.view.Father.Node, &Heartbeat{From: r.view, To: r.view.Father, Stats: &st})
		}
		for i := 0; i < 2; i++ {
			c := r.child(i)
			n.sendCtl(c.Node, &Heartbeat{From: r.view, To: c, Root: n.root, Depth: r.depth})
		}
	}
}

// subStats combines the children's stats.
func (n *Node) subStats(r *routerRole) Stats {
	a, b := r.kidStats(0), r.kidStats(1)
	s := Stats{Leaves: a.Leaves + b.Leaves, MinH: 1 + min(a.MinH, b.MinH), MaxH: 1 + max(a.MaxH, b.MaxH), Partial: a.Partial || b.Partial}
	s.Leaves = min(s.Leaves, 1<<26)
	s.MaxH = min(s.MaxH, 64)
	s.MinH = min(s.MinH, s.MaxH)
	s.Spare = a.Spare
	if s.Spare == "" {
		s.Spare = b.Spare
	}
	s.Extra = a.Extra
	if s.Extra == "" {
		s.Extra = b.Extra
	}
	s.Deep = a.Deep
	if b.MaxH > a.MaxH {
		s.Deep = b.Deep
	}
	return s
}

// onHeartbeat records a neighbour's heartbeat.
func (n *Node) onHeartbeat(from string, hb *Heartbeat) {
	if hb.To.Node != n.self || hb.From.Self.Node != from {
		return
	}
	now := time.Now()
	w := hb.From.Self
	if l := n.leaf; l != nil && l.self.ID == hb.To.ID {
		if !l.father.None() && w.ID == l.father.ID && (w.Node == l.father.Node || better(w, l.father)) {
			if !l.father.Same(w) {
				l.former.add(l.father)
			}
			l.father = w
			l.heard, l.lost = now, time.Time{}
			l.fview = hb.From
			l.depth = hb.Depth + 1
			if !hb.Root.None() {
				n.root = hb.Root
			}
		}
		return
	}
	r := n.routers[hb.To.ID]
	if r == nil {
		return
	}
	if !r.view.Father.None() && w.ID == r.view.Father.ID && (w.Node == r.view.Father.Node || better(w, r.view.Father)) {
		if !r.view.Father.Same(w) {
			r.former.add(r.view.Father)
		}
		r.view.Father = w
		r.fheard, r.flost = now, time.Time{}
		r.fview = hb.From
		r.depth = hb.Depth + 1
		if !hb.Root.None() {
			n.root = hb.Root
		}
		return
	}
	s := r.slot(w.ID)
	if s < 0 {
		return
	}
	c := r.child(s)
	if w.Node != c.Node && !better(w, c) {
		return
	}
	if w.Node != c.Node {
		r.setChild(s, w, r.childLeaf(s))
	}
	k := &r.kids[s]
	k.heard, k.lost = now, time.Time{}
	k.view = hb.From
	if hb.Stats != nil {
		k.stats, k.hasStats = *hb.Stats, true
	}
	if hb.From.IsLeaf() {
		k.routers = hb.Routers
	}
}

// treeTimers detects silent neighbours and repairs the tree.
func (n *Node) treeTimers(t time.Time) {
	dead := n.cfg.DeadAfter
	if n.joinAt != (time.Time{}) && !t.Before(n.joinAt) {
		n.sendJoin(t)
	}
	if l := n.leaf; l != nil && !l.father.None() {
		if l.lost.IsZero() && t.Sub(l.heard) > dead {
			l.lost = t
			n.logf("father %v of leaf %v is silent", l.father, l.self)
		}
		if !l.lost.IsZero() {
			n.fatherLost(t, l.self, l.father, l.fview, l.lost, func() {
				n.logf("leaf %v cut off: joining again", l.self)
				n.setLeafFather(Ref{}, View{}, false)
				n.startJoin(l.self, true)
			})
		}
	}
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		if r == nil {
			continue
		}
		if !r.view.Father.None() && !r.detached {
			if r.flost.IsZero() && t.Sub(r.fheard) > dead {
				r.flost = t
				n.logf("father %v of router %v is silent", r.view.Father, r.view.Self)
			}
			if !r.flost.IsZero() {
				n.fatherLost(t, r.view.Self, r.view.Father, r.fview, r.flost, func() {
					n.logf("router %v cut off: joining again with its subtree", r.view.Self)
					r.detached = true
					r.former.add(r.view.Father)
					r.view.Father = Ref{}
					r.r.Father = overlay.NoAddr
					n.startJoin(r.view.Self, false)
				})
			}
		}
		if n.routers[id] != r {
			continue
		}
		for i := 0; i < 2; i++ {
			k := &r.kids[i]
			if k.lost.IsZero() && t.Sub(k.heard) > dead {
				k.lost = t
				n.logf("child %v of router %v is silent", r.child(i), r.view.Self)
				if r.childLeaf(i) {
					n.dissolve(r, i, k.routers, r.child(i).Node)
					break
				}
			}
			if !k.lost.IsZero() && !r.childLeaf(i) && t.Sub(k.lost) > n.adoptWait() {
				if k.view.Self.ID == r.child(i).ID && !k.view.IsLeaf() {
					v := k.view
					v.Self = r.child(i)
					v.Father = r.view.Self
					k.lost = time.Time{}
					k.heard = t
					n.adopt(v, v.Self.Node, nil)
				} else {
					// Nothing known of it to take it over with: the
					// branch is dropped (its live vertices, cut off,
					// join again).
					n.logf("child %v of router %v: silent and unknown: dropped", r.child(i), r.view.Self)
					n.dissolve(r, i, nil, "")
					break
				}
			}
		}
	}
	n.balance(t)
}

// fatherLost: vertex self's father f has been silent since lost. If f was
// the root, its children take it over (left first); if nobody has taken
// f over after the orphan wait, cut (self joins again).
func (n *Node) fatherLost(t time.Time, self, f Ref, fv View, lost time.Time, cut func()) {
	if fv.Self.ID == f.ID && fv.Father.None() && !fv.IsLeaf() {
		wait := n.adoptWait()
		if fv.Right.ID == self.ID {
			wait *= 2
		}
		if t.Sub(lost) > wait {
			v := fv
			v.Self = f
			isLeaf := n.leaf != nil && n.leaf.self.Same(self)
			switch {
			case v.Left.ID == self.ID:
				v.Left = self
			case v.Right.ID == self.ID:
				v.Right = self
			case n.gone(v.Left):
				// A stale view: self took the place of a vertex of this
				// node that has since removed itself (its father's
				// heartbeat naming self never came).
				v.Left, v.LeftLeaf = self, isLeaf
			case n.gone(v.Right):
				v.Right, v.RightLeaf = self, isLeaf
			default:
				// self is not f's child in the view: taking f over with
				// it would make a root that does not know self; wait for
				// the cut instead.
				v.Self = Ref{}
			}
			if !v.Self.None() {
				n.adopt(v, f.Node, nil)
				return
			}
		}
	}
	if t.Sub(lost) > n.orphanWait() {
		cut()
	}
}

// gone says whether v was a routing vertex of this node that removed
// itself (not one handed to another node).
func (n *Node) gone(v Ref) bool {
	to, ok := n.moved[v.ID]
	return v.Node == n.self && ok && to == "" && n.routers[v.ID] == nil
}

// dissolve removes router r, whose child s is gone (deadNode: the node of
// a dead leaf child, whose routing vertices this node then takes over;
// routers: what that leaf reported of them).
func (n *Node) dissolve(r *routerRole, s int, routers []View, deadNode string) {
	o := 1 - s
	other := r.child(o)
	f := r.view.Father
	n.logf("router %v removes itself (child %v gone), %v takes its place", r.view.Self, r.child(s), other)
	delete(n.routers, r.view.Self.ID)
	n.moved[r.view.Self.ID] = ""
	otherDead := !r.kids[o].lost.IsZero() || other.Node == deadNode && deadNode != ""
	switch {
	case !r.kids[o].lost.IsZero() && other.Node != deadNode:
		// No live child: the father loses this child too.
		if !f.None() {
			n.sendCtl(f.Node, &ReplaceChild{Vertex: f, Old: r.view.Self})
		}
	case f.None():
		if !otherDead {
			n.sendCtl(other.Node, &SetFather{Vertex: other, Father: Ref{}})
		}
	default:
		ov := r.kids[o].view
		if !ov.Self.Same(other) {
			ov = View{Self: other, Father: f}
		}
		ov.Father = f
		n.sendCtl(f.Node, &ReplaceChild{Vertex: f, Old: r.view.Self, New: other, NewView: ov})
		if !otherDead {
			n.sendCtl(other.Node, &SetFather{Vertex: other, Father: f})
		}
	}
	if deadNode == "" {
		return
	}
	// Take over the dead node's routing vertices, with the links this
	// removal changed.
	for _, v := range routers {
		if v.Self.Node != deadNode || n.routers[v.Self.ID] != nil {
			continue
		}
		if v.Father.ID == r.view.Self.ID {
			v.Father = f
		}
		if v.Left.ID == r.view.Self.ID {
			v.Left, v.LeftLeaf = other, r.childLeaf(o)
		}
		if v.Right.ID == r.view.Self.ID {
			v.Right, v.RightLeaf = other, r.childLeaf(o)
		}
		n.adopt(v, deadNode, nil)
	}
}

// adopt makes this node the player of routing vertex v (from prev).
func (n *Node) adopt(v View, prev string, _ func()) {
	if v.IsLeaf() || n.routers[v.Self.ID] != nil {
		return
	}
	now := time.Now()
	v.Self = Ref{ID: v.Self.ID, Node: n.self, Epoch: v.Self.Epoch + 1}
	vr, err := newRouter(linksOf(v))
	if err != nil {
		n.logf("cannot take over router %v: %v", v.Self, err)
		return
	}
	role := &routerRole{view: v, r: vr, fheard: now}
	for i := range role.kids {
		role.kids[i] = kid{heard: now}
	}
	n.routers[v.Self.ID] = role
	delete(n.moved, v.Self.ID)
	if v.Father.None() {
		n.root = v.Self
	}
	n.logf("takes over router %v (from %s)", v.Self, prev)
	a := &Adopt{View: v, Prev: prev}
	sent := map[string]bool{}
	for _, to := range []string{v.Father.Node, v.Left.Node, v.Right.Node, prev} {
		if to != "" && !sent[to] {
			sent[to] = true
			n.sendCtl(to, a)
		}
	}
}

// onAdopt: a vertex has a new player (or fresh state).
func (n *Node) onAdopt(from string, a *Adopt) {
	w := a.View.Self
	if w.Node != from {
		n.invalid(from, "adopt", errString2("announces a vertex played by another node"))
		return
	}
	if r := n.routers[w.ID]; r != nil && r.view.Self.Node != w.Node {
		if !better(w, r.view.Self) {
			n.sendCtl(w.Node, &Adopt{View: View{Self: r.view.Self}})
			return
		}
		// Dropped here; this node's own roles linked to it (its leaf
		// under it, its routers above or below it: a node hands over the
		// router it made when it joined, its own leaf's father) are
		// relinked below like any other neighbour's. (They were not: the
		// leaf kept sending to the vertex here, the new player's updates
		// were refused as from a non-neighbour, until silence detection
		// rebuilt the links.)
		n.logf("router %v is now played by %s: dropped here", r.view.Self, w.Node)
		delete(n.routers, w.ID)
		n.moved[w.ID] = w.Node
	}
	if l := n.leaf; l != nil && !l.father.None() && l.father.ID == w.ID {
		if acceptable(w, l.father) {
			n.setLeafFather(w, a.View, true)
		} else {
			n.sendCtl(w.Node, &Adopt{View: View{Self: l.father}})
		}
	}
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		if !r.view.Father.None() && r.view.Father.ID == w.ID {
			if acceptable(w, r.view.Father) {
				r.detached = false
				n.setRouterFather(r, w, a.View)
			} else {
				n.sendCtl(w.Node, &Adopt{View: View{Self: r.view.Father}})
			}
		}
		if s := r.slot(w.ID); s >= 0 {
			c := r.child(s)
			if acceptable(w, c) {
				r.setChild(s, w, r.childLeaf(s))
				k := &r.kids[s]
				k.heard, k.lost = time.Now(), time.Time{}
				k.view = a.View
				out := routerChildRestarted(&n.oc, n.now(), &r.r, w.ID, n.out[:0])
				n.dispatchRouter(r, out, "")
			} else {
				n.sendCtl(w.Node, &Adopt{View: View{Self: c}})
			}
		}
	}
}

// onSetFather relinks a vertex of this node under a new father.
func (n *Node) onSetFather(from string, s *SetFather) {
	if s.Vertex.Node != n.self {
		return
	}
	if l := n.leaf; l != nil && l.self.ID == s.Vertex.ID {
		if from != l.father.Node && from != s.Father.Node && from != n.self {
			n.stale(from, "set-father", errString2("not from the leaf's father, old or new"))
			return
		}
		if s.Father.Same(l.father) && l.lost.IsZero() {
			out := leafFatherRestarted(&n.oc, n.now(), &l.l, n.out[:0])
			n.dispatchLeaf(out, "")
			return
		}
		n.setLeafFather(s.Father, View{}, true)
		if s.Father.None() {
			n.root = l.self
		}
		return
	}
	r := n.routers[s.Vertex.ID]
	if r == nil {
		return
	}
	if from != r.view.Father.Node && from != s.Father.Node && from != n.self {
		n.stale(from, "set-father", errString2("not from the router's father, old or new"))
		return
	}
	r.detached = false
	n.setRouterFather(r, s.Father, View{})
}

// onReplaceChild relinks a router's child.
func (n *Node) onReplaceChild(from string, rc *ReplaceChild) {
	if rc.Vertex.Node != n.self {
		return
	}
	r := n.routers[rc.Vertex.ID]
	if r == nil {
		return
	}
	s := r.slot(rc.Old.ID)
	if s < 0 {
		return
	}
	if from != rc.Old.Node && from != n.self {
		n.invalid(from, "replace-child", errString2("not from the child's node"))
		return
	}
	if rc.New.None() {
		n.dissolve(r, s, nil, "")
		return
	}
	n.relinkChild(r, s, rc.New, rc.NewView.IsLeaf(), rc.NewView)
	n.sendCtl(rc.New.Node, &SetFather{Vertex: rc.New, Father: r.view.Self})
}

// onLeave: a node said it is going: its vertices are taken for dead now.
func (n *Node) onLeave(from string, l *Leave) {
	if l.Node != from {
		return
	}
	var zero time.Time
	if n.leaf != nil && n.leaf.father.Node == from {
		n.leaf.heard = zero
	}
	for _, r := range n.routers {
		if r.view.Father.Node == from {
			r.fheard = zero
		}
		for i := 0; i < 2; i++ {
			if r.child(i).Node == from {
				r.kids[i].heard = zero
			}
		}
	}
}

// onDissolve: the root asks this node's leaf to move (it is among the
// deepest): it leaves its place and joins again, at the shallowest.
func (n *Node) onDissolve(from string, d *Dissolve) {
	l := n.leaf
	if l == nil || !l.self.Same(d.Vertex) || l.father.None() || from != n.root.Node || !n.joinAt.IsZero() {
		return
	}
	if l.depth < 2 {
		return
	}
	n.logf("leaf %v at depth %d moves (the tree is unbalanced)", l.self, l.depth)
	n.startJoin(l.self, true)
	n.joinMaxDepth = l.depth - 1
}

// leave tells every neighbour that this node goes.
func (n *Node) leave() {
	n.leaving = true
	sent := map[string]bool{n.self: true}
	tell := func(a string) {
		if a != "" && !sent[a] {
			sent[a] = true
			n.sendCtl(a, &Leave{Node: n.self})
		}
	}
	if n.leaf != nil {
		tell(n.leaf.father.Node)
	}
	for _, r := range n.routers {
		tell(r.view.Father.Node)
		tell(r.view.Left.Node)
		tell(r.view.Right.Node)
	}
}

// balance: at the root, moves a deepest leaf when the leaves' heights
// differ by more than one.
func (n *Node) balance(t time.Time) {
	r := n.routers[n.root.ID]
	if r == nil || !r.view.Self.Same(n.root) || t.Sub(n.lastBal) < 2*n.cfg.Heartbeat {
		return
	}
	if !r.kids[0].hasStats || !r.kids[1].hasStats || !r.kids[0].lost.IsZero() || !r.kids[1].lost.IsZero() {
		return
	}
	s := n.subStats(r)
	if s.Spare != "" && s.Extra != "" && s.Spare != s.Extra {
		n.lastBal = t
		n.sendCtl(s.Extra, &Handoff{Spare: s.Spare})
		return
	}
	// Heights counted in part from placeholders (the stats have not come
	// up from every vertex yet: a tree just built or relinked, whose
	// deeper vertices count as one level until their heartbeats come up;
	// 256 nodes with heartbeats of a second take 8 s) are not an
	// unbalanced tree: no leaf moves on them.
	if s.Partial || s.MaxH-s.MinH <= 1 || s.Deep.None() {
		return
	}
	n.lastBal = t
	n.sendCtl(s.Deep.Node, &Dissolve{Vertex: s.Deep})
}

// onHandoff: hand a routing vertex to a spare (from the root), or take
// one over (from its player).
func (n *Node) onHandoff(from string, h *Handoff) {
	if h.View == nil {
		if from != n.root.Node || len(n.routers) < 2 {
			return
		}
		ids := n.routerIDs()
		for i := len(ids) - 1; i >= 0; i-- {
			r := n.routers[ids[i]]
			if !r.detached && r.flost.IsZero() && r.kids[0].lost.IsZero() && r.kids[1].lost.IsZero() {
				v := r.view
				n.logf("hands router %v over to %s", v.Self, h.Spare)
				n.sendCtl(h.Spare, &Handoff{View: &v})
				return
			}
		}
		return
	}
	if h.View.Self.Node != from || len(n.routers) > 0 || h.View.IsLeaf() {
		return
	}
	n.adopt(*h.View, from, nil)
}

// stalled moves every "last heard" time forward by d, the time this node
// itself did not run.
func (n *Node) stalled(d time.Duration) {
	if l := n.leaf; l != nil {
		l.heard = l.heard.Add(d)
	}
	for _, r := range n.routers {
		r.fheard = r.fheard.Add(d)
		for i := range r.kids {
			r.kids[i].heard = r.kids[i].heard.Add(d)
		}
	}
	for _, b := range n.bags {
		for i := range b.tasks {
			s := &b.tasks[i]
			s.at, s.lease = s.at.Add(d), s.lease.Add(d)
		}
	}
}
