package overlay

import (
	"fmt"
	"math"
)

// Summary is an availability summary: a set of sampled functions, each
// covering v execution nodes (§4.2). Summaries are immutable once built:
// routers, leaves and messages share them freely. A nil Summary is the
// empty summary (no available node, e.g. a busy IBP node).
type Summary interface {
	// Nodes is the number of nodes covered (the sum of v).
	Nodes() int
	// Len is the number of sampled functions.
	Len() int
	// Bytes is the size of the summary on the wire, used for the bandwidth
	// limit of update messages.
	Bytes() int
}

// Split is the result of one forwarding step (Figs. 5, 6): how many of the
// request's tasks go to the left child, the right child and the father.
// Left+Right+Father equals the request's N.
type Split struct{ Left, Right, Father int }

// Fork is what a routing node knows when it forwards: its links, the
// summaries its children reported and, for MMP, the maximum queue end time
// outside its branch that its father reported.
type Fork struct {
	Self, Father, Left, Right Addr
	LeftInfo, RightInfo       Summary
	Bound                     float64 // MMP: max queue end outside the branch (-Inf if unknown)
}

// Rules are a scheduling policy's rules (§6): its summaries' sum and
// distance (used by Aggregate, Fig. 3), its availability function and its
// forwarding algorithm. Implementations: *IBP, *MMP, *DP, and those of
// the policies other packages register (PolicyDef.Rules), built by
// NewRules. Rules are read-only and may be shared by any number of
// goroutines.
type Rules interface {
	// Policy is the policy these rules implement.
	Policy() Policy
	// Options are the (defaulted) options the rules were built with.
	Options() Options
	// Aggregate returns the summary of the union of x and y, clustered down
	// to SF_max sampled functions (Fig. 3). x and y are not modified.
	Aggregate(x, y Summary) Summary
	// Equal says whether two summaries carry the same information (an
	// update is only sent up when the summary changed, §4.3).
	Equal(x, y Summary) bool
	// Forward splits a request (Figs. 5, 6). It never returns more tasks
	// for a child than that child's summary admits.
	Forward(f *Fork, req Request, now float64) Split
	// MaxQueue returns the largest queue end time in s (MMP), or -Inf for
	// policies that do not propagate queue bounds.
	MaxQueue(s Summary) float64
}

// Config is shared by all routers of one overlay.
type Config struct {
	Rules Rules
	// Bandwidth limits update messages on each link, in bytes per second
	// (§4.3): after sending an update of b bytes a router waits b/Bandwidth
	// seconds before the next one, grouping the changes that arrive
	// meanwhile. 0 means unlimited.
	Bandwidth float64
}

// Router is the routing role of one internal vertex. Its zero value is not
// usable: build it with NewRouter (or Tree.Router). It holds about 120 bytes plus the
// summaries it points to (shared with the children that sent them).
//
// Aggregation is lazy (§4.3 only requires the summary a router sends to be
// the aggregate of its children's current summaries): a child's update only
// marks the router dirty; the router aggregates when an update may leave
// (at once if the bandwidth limit allows it, else at the tick it asks for
// through Wake), so there is one aggregation per update that can be sent,
// not one per update received. Forwarding does not need the aggregate (it
// uses the children's summaries).
type Router struct {
	Fork
	sent     Summary // last aggregate computed (sent to the father unless root)
	nextSend float64 // earliest time of the next update (bandwidth)
	boundL   float64 // last bound sent to the left child (MMP)
	boundR   float64 // last bound sent to the right child (MMP)
	dirty    bool    // a child's summary changed since sent was computed
	started  bool
	// leafL, leafR: the child is an execution node (no bound to send).
	leafL, leafR bool
}

// Links are an internal vertex's neighbours: what a driver tells a router
// when it builds it.
type Links struct {
	Self, Father, Left, Right Addr // Father is NoAddr at the root
	// LeftLeaf, RightLeaf: the child is an execution node (a leaf), which
	// gets no MMP bound.
	LeftLeaf, RightLeaf bool
}

// NewRouter builds the routing role of a vertex with links l and no
// availability information yet.
func NewRouter(l Links) (Router, error) {
	switch {
	case l.Self < 0:
		return Router{}, fmt.Errorf("router %d: want an address >= 0", l.Self)
	case l.Left < 0 || l.Right < 0 || l.Left == l.Right || l.Left == l.Self || l.Right == l.Self:
		return Router{}, fmt.Errorf("router %d: children %d and %d: want two other vertices", l.Self, l.Left, l.Right)
	case l.Father < NoAddr || l.Father == l.Self || l.Father == l.Left || l.Father == l.Right:
		return Router{}, fmt.Errorf("router %d: father %d: want another vertex than itself and its children, or NoAddr", l.Self, l.Father)
	}
	r := Router{Fork: Fork{Self: l.Self, Father: l.Father, Left: l.Left, Right: l.Right}, leafL: l.LeftLeaf, leafR: l.RightLeaf}
	r.init()
	return r, nil
}

func (r *Router) init() {
	if !r.started {
		r.started = true
		r.Bound, r.boundL, r.boundR = math.Inf(-1), math.Inf(-1), math.Inf(-1)
	}
}

// Summary returns the last aggregate the router computed (the summary it
// last sent to its father; for the root, its last aggregate). Children's
// updates received since then are not in it: see Current.
func (r *Router) Summary() Summary { return r.sent }

// Current returns the aggregate of the children's current summaries,
// computing it if a child's summary changed since the last aggregation. It
// does not change what the router sends.
func (r *Router) Current(c *Config) Summary {
	if !r.dirty {
		return r.sent
	}
	return c.Rules.Aggregate(r.LeftInfo, r.RightInfo)
}

// Wake returns when the router wants a KindTick (children's updates waiting
// for the bandwidth limit), or +Inf.
func (r *Router) Wake() float64 {
	if r.dirty {
		return r.nextSend
	}
	return math.Inf(1)
}

// Step consumes one message at time now and appends the messages to send.
func (r *Router) Step(c *Config, now float64, m Msg, out []Msg) []Msg {
	r.init()
	p := c.Rules
	switch m.Kind {
	case KindUpdate:
		switch m.From {
		case r.Left:
			r.LeftInfo = m.Sum
		case r.Right:
			r.RightInfo = m.Sum
		default:
			return out // not a child: ignore (stale link)
		}
		r.dirty = true
		out = r.flush(c, now, out)
		out = r.bounds(p, out)
	case KindBound:
		if m.From == r.Father {
			r.Bound = m.Bound
			out = r.bounds(p, out)
		}
	case KindTick:
		out = r.flush(c, now, out)
	case KindRestarted:
		switch m.From {
		case r.Father:
			// A fresh father lost what this router sent it: the current
			// aggregate goes up now (it does not change what the router
			// last sent, nor its bandwidth schedule).
			if r.Father != NoAddr {
				out = append(out, Msg{Kind: KindUpdate, From: r.Self, To: r.Father, Sum: r.Current(c)})
			}
		case r.Left, r.Right:
			out = r.childRestarted(c, m.From, out)
		}
	case KindRequest:
		req := m.Req
		if req.N <= 0 {
			return out
		}
		s := p.Forward(&r.Fork, req, now)
		fwd := req
		fwd.Src = r.Self
		if s.Left > 0 {
			fwd.N = s.Left
			out = append(out, Msg{Kind: KindRequest, From: r.Self, To: r.Left, Req: fwd})
		}
		if s.Right > 0 {
			fwd.N = s.Right
			out = append(out, Msg{Kind: KindRequest, From: r.Self, To: r.Right, Req: fwd})
		}
		if s.Father > 0 {
			fwd.N = s.Father
			if r.Father == NoAddr || req.Src == r.Father {
				// At the root, or tasks the father sent down that this
				// branch cannot take after all (stale information): back
				// to the submitter, which treats them as a failed search.
				out = append(out, Msg{Kind: KindReturn, From: r.Self, To: req.Submitter, Req: fwd})
			} else {
				out = append(out, Msg{Kind: KindRequest, From: r.Self, To: r.Father, Req: fwd})
			}
		}
	}
	return out
}

// flush aggregates the children's summaries and sends the result to the
// father if it changed, when a child's summary changed and the bandwidth
// limit lets an update leave.
func (r *Router) flush(c *Config, now float64, out []Msg) []Msg {
	if !r.dirty || now < r.nextSend {
		return out
	}
	r.dirty = false
	agg := c.Rules.Aggregate(r.LeftInfo, r.RightInfo)
	if c.Rules.Equal(agg, r.sent) {
		return out
	}
	r.sent = agg
	if r.Father == NoAddr {
		return out
	}
	if c.Bandwidth > 0 {
		b := 16
		if agg != nil {
			b += agg.Bytes()
		}
		r.nextSend = now + float64(b)/c.Bandwidth
	}
	return append(out, Msg{Kind: KindUpdate, From: r.Self, To: r.Father, Sum: agg})
}

// bounds sends each child the maximum queue end outside its branch (MMP).
func (r *Router) bounds(p Rules, out []Msg) []Msg {
	ql, qr := p.MaxQueue(r.LeftInfo), p.MaxQueue(r.RightInfo)
	if math.IsInf(ql, -1) && math.IsInf(qr, -1) && math.IsInf(r.Bound, -1) {
		return out
	}
	// Only routing nodes use the bound (Fig. 6); leaves get none.
	if b := max(r.Bound, qr); b != r.boundL && !r.leafL {
		r.boundL = b
		out = append(out, Msg{Kind: KindBound, From: r.Self, To: r.Left, Bound: b})
	}
	if b := max(r.Bound, ql); b != r.boundR && !r.leafR {
		r.boundR = b
		out = append(out, Msg{Kind: KindBound, From: r.Self, To: r.Right, Bound: b})
	}
	return out
}

// childRestarted is KindRestarted from a child: the router forgets the
// bound it last sent that child and appends it again (MMP; nothing for
// other policies or leaf children). The child's summary comes back by the
// child's own update.
func (r *Router) childRestarted(c *Config, child Addr, out []Msg) []Msg {
	switch child {
	case r.Left:
		r.boundL = math.Inf(-1)
	case r.Right:
		r.boundR = math.Inf(-1)
	default:
		return out
	}
	return r.bounds(c.Rules, out)
}
