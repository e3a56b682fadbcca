// Package policytest checks a registered overlay policy against what
// every policy of package overlay must do, whatever its rules: a test of
// the policy's own package calls Check (docs/extending.md, "An overlay
// policy"); package overlay's tests call it for IBP, MMP and DP.
//
// It drives the policy only through its registration: executors built
// by Policy.NewExec with random hardware and offered random requests,
// summaries aggregated by its rules up random trees, the roles of package
// overlay on a synchronous network, the wire form and checkpoints. Every
// draw comes from a fixed seed: a failure repeats.
package policytest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/volsched/volsched/internal/ckpt"
	"github.com/volsched/volsched/overlay"
)

// Check runs every check on policy p, each a subtest:
//
//   - registry: p is found by its name (overlay.ParsePolicy), its rules by
//     overlay.NewRules of its default options, saying they are p's;
//   - executors: an executor accepts 0 to n of n tasks offered, its
//     summary covers no node or its one node and is p's, its wake-up is
//     not in the past, the tasks it reports finished were accepted;
//   - aggregation: up random trees, Aggregate covers the nodes of both
//     summaries in at most SF_max functions, changes neither, gives the
//     same summary again, and Equal holds of a summary and itself;
//   - placement: on a tree of random executors whose summaries are exact
//     (every update delivered at once, every node stepped at each
//     request's instant), every task of a request is accepted or
//     returned to its submitter, and no execution node refuses a task
//     forwarding sent it: the summaries never promise more than the nodes
//     accept (the property the model rests on, §5);
//   - wire: every summary built (the nodes' and the aggregates') is valid
//     (overlay.Msg.Validate), comes back from AppendMsg and DecodeMsg
//     Equal and re-encodes to the same bytes, and every prefix of its
//     encoding is refused with an error, not a panic;
//   - checkpoint: the same summaries come back from a checkpoint
//     (overlay.SummaryEncoder), and an executor that is an
//     overlay.SavedExec comes back in the same state and goes on the same
//     way.
func Check(t *testing.T, p overlay.Policy) {
	t.Helper()
	if !p.Valid() {
		t.Fatalf("policytest: the zero Policy")
	}
	t.Run("registry", func(t *testing.T) { checkRegistry(t, p) })
	t.Run("executors", func(t *testing.T) { checkExecs(t, p) })
	t.Run("aggregation", func(t *testing.T) { checkAggregation(t, p) })
	t.Run("placement", func(t *testing.T) { checkPlacement(t, p) })
	t.Run("wire", func(t *testing.T) { checkWire(t, p) })
	t.Run("checkpoint", func(t *testing.T) { checkCheckpoint(t, p) })
}

// rounds is how many random cases each check draws.
const rounds = 40

func checkRegistry(t *testing.T, p overlay.Policy) {
	q, err := overlay.ParsePolicy(p.String())
	if err != nil || q != p {
		t.Fatalf("ParsePolicy(%q) = %v, %v", p, q, err)
	}
	r, err := overlay.NewRules(overlay.DefaultOptions(p))
	if err != nil {
		t.Fatalf("NewRules of the default options: %v", err)
	}
	if r.Policy() != p || r.Options().Policy != p {
		t.Fatalf("the rules say they are %s's, with options of %s", r.Policy(), r.Options().Policy)
	}
}

// rules builds p's rules with SF_max k.
func rules(t *testing.T, p overlay.Policy, k int) overlay.Rules {
	t.Helper()
	o := overlay.DefaultOptions(p)
	o.SFMax = k
	r, err := overlay.NewRules(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// randomApp is an application a node of randomHardware may run: a task of
// 10^4 to 10^6 MFLOP, needing up to half the largest memory and disk, due
// 10 to 1000 s after now.
func randomApp(r *rand.Rand, id uint64, now float64) overlay.App {
	return overlay.App{ID: id, Length: 1e4 + r.Float64()*1e6, Mem: float64(r.IntN(3)) * 1024, Disk: float64(r.IntN(3)) * 2048,
		Deadline: now + 10 + r.Float64()*1000}
}

// randomHardware is a node of 1 to 4 GB of memory, 1 to 8 GB of disk, 1
// to 4 GFLOPS (a few distinct values, so that summaries have identical
// functions to merge).
func randomHardware(r *rand.Rand) overlay.Hardware {
	return overlay.Hardware{Mem: 1024 * float64(1+r.IntN(4)), Disk: 1024 * float64(1+r.IntN(8)), Power: 1000 * float64(1+r.IntN(4))}
}

// randomExec is an executor of p with random hardware, offered a few
// random requests before time 0.
func randomExec(r *rand.Rand, p overlay.Policy, o overlay.Options) overlay.Exec {
	e, _ := randomExecHW(r, p, o)
	return e
}

// randomExecHW is randomExec with the executor's hardware.
func randomExecHW(r *rand.Rand, p overlay.Policy, o overlay.Options) (overlay.Exec, overlay.Hardware) {
	hw := randomHardware(r)
	e := p.NewExec(hw, o)
	for k := range r.IntN(4) {
		now := -100 + 30*float64(k)
		e.Advance(now, nil)
		e.Accept(now, randomApp(r, uint64(k+1), now), 1+r.IntN(3), 0)
	}
	return e, hw
}

func checkExecs(t *testing.T, p overlay.Policy) {
	r := rand.New(rand.NewPCG(1, uint64(p.ID())))
	o := overlay.DefaultOptions(p)
	for round := range rounds {
		e := p.NewExec(randomHardware(r), o)
		if e == nil {
			t.Fatalf("NewExec gave no executor")
		}
		accepted := map[uint64]int{}
		now := 0.0
		for k := range 8 {
			now += r.Float64() * 200
			for _, d := range e.Advance(now, nil) {
				if d.N < 1 || accepted[d.App.ID] < d.N || d.Submitter != overlay.Addr((d.App.ID-1)%3) {
					t.Fatalf("round %d: %+v finished, %d tasks of application %d were accepted and not finished (submitted from %d)",
						round, d, accepted[d.App.ID], d.App.ID, (d.App.ID-1)%3)
				}
				accepted[d.App.ID] -= d.N
			}
			if s := e.Summary(now); s != nil {
				if s.Nodes() != 1 {
					t.Fatalf("round %d: an executor's summary covers %d nodes, want 1 (or no summary)", round, s.Nodes())
				}
				if ps, ok := s.(overlay.PolicySummary); !ok || ps.Policy() != p {
					t.Fatalf("round %d: an executor's summary of type %T is not %s's (overlay.PolicySummary)", round, s, p)
				}
			}
			n := 1 + r.IntN(5)
			app := randomApp(r, uint64(k+1), now)
			got := e.Accept(now, app, n, overlay.Addr(k%3))
			if got < 0 || got > n {
				t.Fatalf("round %d: %d of %d tasks accepted", round, got, n)
			}
			accepted[app.ID] += got
			if w := e.Wake(); w < now && !math.IsInf(w, 1) {
				t.Fatalf("round %d: wake-up at %g, before now (%g)", round, w, now)
			}
		}
	}
}

// aggregates aggregates leaves up a random binary tree with rules q and
// calls visit with each pair and its aggregate.
func aggregates(r *rand.Rand, q overlay.Rules, leaves []overlay.Summary, visit func(x, y, s overlay.Summary)) overlay.Summary {
	var rec func(lo, hi int) overlay.Summary
	rec = func(lo, hi int) overlay.Summary {
		if hi-lo == 1 {
			return leaves[lo]
		}
		mid := lo + 1 + r.IntN(hi-lo-1)
		x, y := rec(lo, mid), rec(mid, hi)
		s := q.Aggregate(x, y)
		visit(x, y, s)
		return s
	}
	return rec(0, len(leaves))
}

// summaries draws random executors' summaries and aggregates them up a
// random tree with q: every summary built, leaves first.
func summaries(r *rand.Rand, p overlay.Policy, q overlay.Rules) []overlay.Summary {
	leaves := make([]overlay.Summary, 1+r.IntN(40))
	for i := range leaves {
		leaves[i] = randomExec(r, p, q.Options()).Summary(0)
	}
	all := append([]overlay.Summary(nil), leaves...)
	aggregates(r, q, leaves, func(_, _, s overlay.Summary) { all = append(all, s) })
	return all
}

func nodes(s overlay.Summary) int {
	if s == nil {
		return 0
	}
	return s.Nodes()
}

// encoding is s's wire form (to compare summaries by value).
func encoding(t *testing.T, s overlay.Summary) []byte {
	t.Helper()
	b, err := overlay.AppendMsg(nil, &overlay.Msg{Kind: overlay.KindUpdate, Sum: s})
	if err != nil {
		t.Fatalf("a summary the policy built is not valid on the wire: %v", err)
	}
	return b
}

func checkAggregation(t *testing.T, p overlay.Policy) {
	r := rand.New(rand.NewPCG(2, uint64(p.ID())))
	for round := range rounds {
		k := 1 + r.IntN(12)
		q := rules(t, p, k)
		leaves := make([]overlay.Summary, 1+r.IntN(40))
		for i := range leaves {
			leaves[i] = randomExec(r, p, q.Options()).Summary(0)
		}
		aggregates(r, q, leaves, func(x, y, s overlay.Summary) {
			bx, by := encoding(t, x), encoding(t, y)
			if got, want := nodes(s), nodes(x)+nodes(y); got != want {
				t.Fatalf("round %d: the aggregate covers %d nodes, its parts %d", round, got, want)
			}
			if s != nil && s.Len() > k {
				t.Fatalf("round %d: an aggregate of %d functions, SF_max %d", round, s.Len(), k)
			}
			again := q.Aggregate(x, y)
			if !q.Equal(s, again) || !q.Equal(s, s) || !bytes.Equal(encoding(t, again), encoding(t, s)) {
				t.Fatalf("round %d: aggregating the same summaries twice gave two summaries (or Equal is not reflexive)", round)
			}
			if !bytes.Equal(bx, encoding(t, x)) || !bytes.Equal(by, encoding(t, y)) {
				t.Fatalf("round %d: Aggregate changed its arguments", round)
			}
		})
		if q.Aggregate(nil, nil) != nil {
			t.Fatalf("the aggregate of two empty summaries is not empty")
		}
	}
}

// net is a synchronous network of p's roles: every message delivered at
// once, in order.
type net struct {
	t                         *testing.T
	tree                      *overlay.Tree
	c                         *overlay.Config
	routers                   []overlay.Router
	leaves                    []overlay.Leaf
	accepted, returned        int
	leafReturns, misaddressed int
}

func (n *net) run(now float64, q []overlay.Msg) {
	for steps := 0; len(q) > 0; steps++ {
		if steps > 1e6 {
			n.t.Fatalf("the roles do not settle: %d messages and counting", steps)
		}
		m := q[0]
		q = q[1:]
		switch m.Kind {
		case overlay.KindReturn:
			n.returned += m.Req.N
			if n.tree.IsLeaf(m.From) {
				n.leafReturns += m.Req.N
			}
			if m.To != m.Req.Submitter {
				n.misaddressed++
			}
			continue
		case overlay.KindAccepted:
			n.accepted += m.Req.N
			if m.To != m.Req.Submitter {
				n.misaddressed++
			}
			continue
		case overlay.KindDone:
			continue
		}
		if n.tree.IsLeaf(m.To) {
			q = n.leaves[m.To].Step(n.c, now, m, q)
		} else {
			q = n.routers[m.To].Step(n.c, now, m, q)
		}
	}
}

// tick steps every leaf at now: the nodes' summaries are exact at now.
func (n *net) tick(now float64) {
	var q []overlay.Msg
	for i := range n.tree.Leaves() {
		q = append(q, overlay.Msg{Kind: overlay.KindTick, To: n.tree.Leaf(i)})
	}
	n.run(now, q)
}

func checkPlacement(t *testing.T, p overlay.Policy) {
	r := rand.New(rand.NewPCG(3, uint64(p.ID())))
	for round := range rounds / 4 {
		leaves := 2 + r.IntN(30)
		q := rules(t, p, 1+r.IntN(8))
		tr := overlay.NewTree(leaves)
		n := &net{t: t, tree: tr, c: &overlay.Config{Rules: q}, routers: make([]overlay.Router, tr.Vertices()),
			leaves: make([]overlay.Leaf, tr.Vertices())}
		for v := range tr.Vertices() {
			if !tr.IsLeaf(overlay.Addr(v)) {
				n.routers[v] = tr.Router(overlay.Addr(v))
			}
		}
		for i := range leaves {
			l, err := tr.NewLeaf(i, randomExec(r, p, q.Options()))
			if err != nil {
				t.Fatal(err)
			}
			n.leaves[tr.Leaf(i)] = l
		}
		now, requested := 0.0, 0
		for k := range 12 {
			now += r.Float64() * 100
			n.tick(now)
			tasks := 1 + r.IntN(2*leaves)
			requested += tasks
			sub := tr.Leaf(r.IntN(leaves))
			n.run(now, []overlay.Msg{overlay.NewRequest(tr, sub, randomApp(r, uint64(k+1), now), tasks)})
			if n.accepted+n.returned != requested {
				t.Fatalf("round %d, request %d: %d tasks accepted and %d returned of %d requested", round, k, n.accepted, n.returned, requested)
			}
		}
		if n.leafReturns > 0 {
			t.Fatalf("round %d: execution nodes refused %d tasks that forwarding sent them with exact summaries", round, n.leafReturns)
		}
		if n.misaddressed > 0 {
			t.Fatalf("round %d: %d acknowledgements or returns not sent to the request's submitter", round, n.misaddressed)
		}
		if n.accepted == 0 {
			t.Fatalf("round %d: no task placed in 12 requests: the check decides nothing", round)
		}
	}
}

func checkWire(t *testing.T, p overlay.Policy) {
	r := rand.New(rand.NewPCG(4, uint64(p.ID())))
	for round := range rounds {
		q := rules(t, p, 1+r.IntN(12))
		for _, s := range summaries(r, p, q) {
			m := overlay.Msg{Kind: overlay.KindUpdate, From: 3, To: 1, Sum: s}
			b, err := overlay.AppendMsg(nil, &m)
			if err != nil {
				t.Fatalf("round %d: a summary the policy built is not valid on the wire: %v", round, err)
			}
			got, err := overlay.DecodeMsg(b)
			if err != nil {
				t.Fatalf("round %d: decoding %x: %v", round, b, err)
			}
			again, err := overlay.AppendMsg(nil, &got)
			if err != nil || !bytes.Equal(again, b) || !q.Equal(got.Sum, s) {
				t.Fatalf("round %d: %x decodes to a summary that is not the one sent (re-encoded %x, %v)", round, b, again, err)
			}
			for k := range len(b) {
				if _, err := overlay.DecodeMsg(b[:k]); err == nil {
					t.Fatalf("round %d: the prefix %x of %x decodes", round, b[:k], b)
				}
			}
		}
	}
}

func checkCheckpoint(t *testing.T, p overlay.Policy) {
	r := rand.New(rand.NewPCG(5, uint64(p.ID())))
	for round := range rounds / 4 {
		q := rules(t, p, 1+r.IntN(12))
		all := summaries(r, p, q)
		var got []overlay.Summary
		saveLoad(t, func(w *ckpt.Writer) {
			enc := overlay.NewSummaryEncoder()
			for _, s := range all {
				enc.Write(w, s)
			}
		}, func(rd *ckpt.Reader) {
			var dec overlay.SummaryDecoder
			for range all {
				got = append(got, dec.Read(rd))
			}
		})
		for i, s := range all {
			if !q.Equal(got[i], s) || !bytes.Equal(encoding(t, got[i]), encoding(t, s)) {
				t.Fatalf("round %d: summary %d comes back from a checkpoint as another", round, i)
			}
		}
		e, hw := randomExecHW(r, p, q.Options())
		if _, ok := e.(overlay.SavedExec); !ok {
			t.Logf("%T is not an overlay.SavedExec: runs of %s cannot be checkpointed", e, p)
			continue
		}
		// The driver builds the executor again with the node's hardware
		// and loads the state over it.
		l, _ := overlay.NewLeaf(1, 0, e)
		fresh, _ := overlay.NewLeaf(1, 0, p.NewExec(hw, q.Options()))
		saveLoad(t, func(w *ckpt.Writer) { l.SaveState(w, overlay.NewSummaryEncoder()) },
			func(rd *ckpt.Reader) { fresh.LoadState(rd, &overlay.SummaryDecoder{}) })
		if a, b := execState(l.Exec), execState(fresh.Exec); !bytes.Equal(a, b) {
			t.Fatalf("round %d: executor %+v (state %x) comes back from a checkpoint as %+v (state %x)", round, l.Exec, a, fresh.Exec, b)
		}
		for _, at := range []float64{0, 100, 1e4, 1e7} {
			a, b := fmt.Sprint(l.Exec.Advance(at, nil)), fmt.Sprint(fresh.Exec.Advance(at, nil))
			if a != b {
				t.Fatalf("round %d: at %g the executor finished %s, restored %s", round, at, a, b)
			}
		}
	}
}

// execState is a SavedExec's state as it saves it.
func execState(e overlay.Exec) []byte {
	var enc overlay.Encoder
	e.(overlay.SavedExec).AppendState(&enc)
	return enc.Bytes()
}

// saveLoad writes what save writes into a checkpoint and reads it back
// with load.
func saveLoad(t *testing.T, save func(w *ckpt.Writer), load func(r *ckpt.Reader)) {
	t.Helper()
	var buf bytes.Buffer
	w := ckpt.NewWriter(&buf)
	save(w)
	if _, err := w.Finish(); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	rd := ckpt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	load(rd)
	if err := rd.End(); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
}
