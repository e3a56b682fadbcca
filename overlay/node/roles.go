package node

import (
	"math"

	"github.com/volsched/volsched/overlay"
)

// This file is the daemon's only contact with how package overlay builds
// its roles and tells them about replaced neighbours: everything else
// drives Router.Step and Leaf.Step exactly as the simulator does.

// links are a routing vertex's neighbours.
type links struct {
	self, father, left, right overlay.Addr
	leftLeaf, rightLeaf       bool
}

// newRouter builds a routing role with links l and no information. The
// tree protocol never builds invalid links; if it did, the error says
// which.
func newRouter(l links) (overlay.Router, error) {
	return overlay.NewRouter(overlay.Links{Self: l.self, Father: l.father, Left: l.left, Right: l.right,
		LeftLeaf: l.leftLeaf, RightLeaf: l.rightLeaf})
}

// rebuildRouter returns a fresh router with links l that keeps what old
// knew of the neighbours that did not change (its children's summaries,
// its father's bound).
func rebuildRouter(old *overlay.Router, l links) (overlay.Router, error) {
	r, err := newRouter(l)
	if err != nil {
		return r, err
	}
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
	return r, nil
}

// restarted is the recovery message (§3.5) a vertex gets when its
// neighbour from lost its state or was replaced: a child sends its
// summary again, a father its MMP bound.
func restarted(from, to overlay.Addr) overlay.Msg {
	return overlay.Msg{Kind: overlay.KindRestarted, From: from, To: to}
}

// routerFatherRestarted: a router's father lost what the router sent it
// (a new or replaced father): the router's current aggregate goes up.
func routerFatherRestarted(c *overlay.Config, now float64, r *overlay.Router, out []overlay.Msg) []overlay.Msg {
	if r.Father == overlay.NoAddr {
		return out
	}
	return r.Step(c, now, restarted(r.Father, r.Self), out)
}

// routerChildRestarted: a router's child lost the bound it was sent.
func routerChildRestarted(c *overlay.Config, now float64, r *overlay.Router, child overlay.Addr, out []overlay.Msg) []overlay.Msg {
	return r.Step(c, now, restarted(child, r.Self), out)
}

// leafFatherRestarted: a leaf's father lost the leaf's summary.
func leafFatherRestarted(c *overlay.Config, now float64, l *overlay.Leaf, out []overlay.Msg) []overlay.Msg {
	if l.Father == overlay.NoAddr {
		return out
	}
	return l.Step(c, now, restarted(l.Father, l.Self), out)
}

// wireCodec is package overlay's versioned wire form.
type wireCodec struct{}

func (wireCodec) Append(dst []byte, m *overlay.Msg) ([]byte, error) { return overlay.AppendMsg(dst, m) }
func (wireCodec) Decode(b []byte) (overlay.Msg, error)              { return overlay.DecodeMsg(b) }

// defaultCodec is the overlay messages' wire form.
func defaultCodec() MsgCodec { return wireCodec{} }
