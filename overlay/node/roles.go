package node

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/overlay"
)

// This file is the daemon's only contact with how package overlay builds
// its roles and tells them about replaced neighbours: everything else
// drives Router.Step and Leaf.Step exactly as the simulator does.

// newRules builds the policy's rules.
func newRules(policy string, sfmax int, beta float64) (overlay.Policy, error) {
	switch policy {
	case "ibp":
		return overlay.NewIBP(sfmax)
	case "mmp":
		return overlay.NewMMP(sfmax, beta)
	case "dp":
		return overlay.NewDP(sfmax, 0, 0)
	}
	return nil, fmt.Errorf("policy %q: want ibp, mmp or dp", policy)
}

// links are a routing vertex's neighbours.
type links struct {
	self, father, left, right overlay.Addr
	leftLeaf, rightLeaf       bool
}

// newRouter builds a routing role with links l and no information.
func newRouter(l links) overlay.Router {
	// A tree whose root has the children's kinds: 2 leaves, or a router
	// and a leaf, or two routers. (A leaf on the left and a router on the
	// right has no such tree; its router sends a bound to its leaf, which
	// ignores it.)
	n := 4
	switch {
	case l.leftLeaf && l.rightLeaf:
		n = 2
	case !l.leftLeaf && l.rightLeaf:
		n = 3
	}
	r := overlay.NewTree(n).Router(0)
	r.Self, r.Father, r.Left, r.Right = l.self, l.father, l.left, l.right
	return r
}

// rebuildRouter returns a fresh router with links l that keeps what old
// knew of the neighbours that did not change (its children's summaries,
// its father's bound).
func rebuildRouter(old *overlay.Router, l links) overlay.Router {
	r := newRouter(l)
	if old.Left == l.left {
		r.LeftInfo = old.LeftInfo
	}
	if old.Right == l.right {
		r.RightInfo = old.RightInfo
	}
	if old.Father == l.father {
		r.Bound = old.Bound
	} else {
		r.Bound = math.Inf(-1)
	}
	return r
}

// fatherRestarted: a router's father lost what the router sent it (a new
// or replaced father): the router's current aggregate goes up.
func routerFatherRestarted(c *overlay.Config, r *overlay.Router, out []overlay.Msg) []overlay.Msg {
	if r.Father == overlay.NoAddr {
		return out
	}
	return append(out, overlay.Msg{Kind: overlay.KindUpdate, From: r.Self, To: r.Father, Sum: r.Current(c)})
}

// childRestarted: a router's child lost the bound it was sent.
func routerChildRestarted(c *overlay.Config, r *overlay.Router, child overlay.Addr, out []overlay.Msg) []overlay.Msg {
	return r.ChildRestarted(c, child, out)
}

// leafFatherRestarted: a leaf's father lost the leaf's summary.
func leafFatherRestarted(now float64, l *overlay.Leaf, out []overlay.Msg) []overlay.Msg {
	if l.Father == overlay.NoAddr {
		return out
	}
	s := l.Resend(now)
	return append(out, overlay.Msg{Kind: overlay.KindUpdate, From: l.Self, To: l.Father, Sum: s})
}

// defaultCodec is the overlay messages' wire form. Until package overlay
// has its own, only the in-process stand-in exists: a daemon of the
// command line cannot run without the real one.
func defaultCodec() (MsgCodec, bool) { return handleCodec{}, false }
