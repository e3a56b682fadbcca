package overlay

import (
	"fmt"
	"math"
)

// Exec is the local scheduler of an execution node (§3.2): it says what the
// node can take (its summary, one sampled function or none), accepts
// tasks and runs them. Implementations: *IBPExec, *MMPExec, *DPExec.
type Exec interface {
	// Summary is the node's availability at time now.
	Summary(now float64) Summary
	// Accept offers n tasks of app, submitted from sub, at time now, and
	// returns how many the local policy admits (0..n).
	Accept(now float64, app App, n int, sub Addr) int
	// Advance runs the node up to now and appends the tasks finished by
	// then (grouped per application).
	Advance(now float64, done []Request) []Request
	// Wake is the time of the next task completion, or +Inf.
	Wake() float64
}

// StableSummary is implemented by an Exec whose Summary, once computed at
// an instant, stays the summary it would compute at any later instant
// until its state next changes (Accept, Advance): the centralized
// reference may then keep it instead of recomputing it per request.
type StableSummary interface {
	// SummaryStable says whether Summary(now) holds from now on, until
	// the next change of state.
	SummaryStable(now float64) bool
}

// Leaf is the execution role at a leaf of the tree. Tasks are started and
// finished by its Exec; the Leaf turns that into messages.
type Leaf struct {
	Self, Father Addr
	Exec         Exec
	sent         Summary
	started      bool
}

// Summary returns the summary the leaf last sent to its father (nil before
// its first step).
func (l *Leaf) Summary() Summary { return l.sent }

// NewLeaf builds the execution role of leaf self, whose father is father
// (NoAddr for a one-node overlay), over its local scheduler e.
func NewLeaf(self, father Addr, e Exec) (Leaf, error) {
	switch {
	case self < 0:
		return Leaf{}, fmt.Errorf("leaf %d: want an address >= 0", self)
	case father == self || father < NoAddr:
		return Leaf{}, fmt.Errorf("leaf %d: father %d: want another vertex or NoAddr", self, father)
	case e == nil:
		return Leaf{}, fmt.Errorf("leaf %d: no execution node (Exec)", self)
	}
	return Leaf{Self: self, Father: father, Exec: e}, nil
}

// Wake returns when the leaf wants a KindTick (next task completion).
func (l *Leaf) Wake() float64 {
	if l.Exec == nil {
		return math.Inf(1)
	}
	return l.Exec.Wake()
}

// Step consumes one message at time now and appends the messages to send:
// KindDone for finished tasks, KindAccepted and KindReturn for the tasks of
// an assignment it accepted and refused, KindUpdate to the father when the
// node's summary changed. A KindTick at start-up sends the first summary.
// KindRestarted from the father (a fresh father that lost what the leaf
// sent, §3.5) makes it send its current summary again, recorded as sent so
// that its later decisions to update compare against what the new father
// holds.
func (l *Leaf) Step(c *Config, now float64, m Msg, out []Msg) []Msg {
	if m.Kind == KindRestarted {
		if m.From == l.Father && l.Father != NoAddr {
			l.started = true
			l.sent = l.Exec.Summary(now)
			out = append(out, Msg{Kind: KindUpdate, From: l.Self, To: l.Father, Sum: l.sent})
		}
		return out
	}
	// No scratch kept per leaf: Advance allocates only when tasks finished.
	for _, d := range l.Exec.Advance(now, nil) {
		out = append(out, Msg{Kind: KindDone, From: l.Self, To: d.Submitter, Req: d})
	}
	if m.Kind == KindRequest && m.Req.N > 0 {
		k := l.Exec.Accept(now, m.Req.App, m.Req.N, m.Req.Submitter)
		if k > 0 {
			r := m.Req
			r.N, r.Src = k, l.Self
			out = append(out, Msg{Kind: KindAccepted, From: l.Self, To: r.Submitter, Req: r})
		}
		if rest := m.Req.N - k; rest > 0 {
			r := m.Req
			r.N, r.Src = rest, l.Self
			out = append(out, Msg{Kind: KindReturn, From: l.Self, To: r.Submitter, Req: r})
		}
	}
	s := l.Exec.Summary(now)
	if !l.started || !c.Rules.Equal(s, l.sent) {
		l.started = true
		l.sent = s
		if l.Father != NoAddr {
			out = append(out, Msg{Kind: KindUpdate, From: l.Self, To: l.Father, Sum: s})
		}
	}
	return out
}
