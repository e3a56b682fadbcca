package overlay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/volsched/volsched/stream"
)

func TestMMPExecFCFS(t *testing.T) {
	e := &MMPExec{Mem: 10, Disk: 10, Power: 2}
	if k := e.Accept(0, App{ID: 1, Length: 4, Mem: 20}, 3, 7); k != 0 {
		t.Fatalf("accepted %d tasks needing too much memory", k)
	}
	if k := e.Accept(0, App{ID: 1, Length: 4}, 3, 7); k != 3 || e.Q != 6 {
		t.Fatalf("accepted %d, Q %g; want 3, 6", k, e.Q)
	}
	if k := e.Accept(1, App{ID: 2, Length: 2}, 2, 8); k != 2 || e.Q != 8 {
		t.Fatalf("accepted %d, Q %g; want 2, 8", k, e.Q)
	}
	if w := e.Wake(); w != 2 {
		t.Fatalf("wake %g, want 2", w)
	}
	done := e.Advance(5, nil)
	if len(done) != 1 || done[0].N != 2 || done[0].Submitter != 7 {
		t.Fatalf("at 5: %+v, want 2 tasks of app 1", done)
	}
	done = e.Advance(8, nil)
	if len(done) != 2 || done[0].N != 1 || done[1].N != 2 || e.Wake() != math.Inf(1) {
		t.Fatalf("at 8: %+v", done)
	}
	// queue end in the past: the summary keeps it, AF treats it as now
	c := e.Summary(100).(MMPSummary)[0]
	if c.Q != 8 || c.AF(App{Length: 2}, 104, 100) != 4 {
		t.Fatalf("summary %+v, AF %d", c, c.AF(App{Length: 2}, 104, 100))
	}
}

// TestDPExecMeetsDeadlines: whatever the offers, the EDF node only admits
// tasks it then finishes by their deadlines, and its l function agrees
// with the admission test.
func TestDPExecMeetsDeadlines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := &DPExec{Mem: 10, Disk: 10, Power: float64(rapid.IntRange(1, 4).Draw(t, "power"))}
		now := 0.0
		deadline := map[uint64]float64{}
		for i := range rapid.IntRange(1, 12).Draw(t, "offers") {
			now += float64(rapid.IntRange(0, 10).Draw(t, "gap"))
			// run to now, checking each completion against its deadline
			for e.running && e.end <= now {
				if e.end > deadline[e.cur.app]+1e-6 {
					t.Fatalf("task of app %d ends at %g after its deadline %g", e.cur.app, e.end, deadline[e.cur.app])
				}
				e.Advance(e.end, nil)
			}
			f := e.Function(now)
			for x := now; x < now+200; x += 3.3 {
				if a, b := f.At(x), e.LAt(now, x); math.Abs(a-b) > 1e-6*max(1, b) {
					t.Fatalf("l(%g) = %g from samples, %g from the queue", x, a, b)
				}
			}
			app := App{ID: uint64(i + 1), Length: float64(rapid.IntRange(1, 30).Draw(t, "len")),
				Deadline: now + float64(rapid.IntRange(1, 100).Draw(t, "dl"))}
			want := int(math.Floor(e.LAt(now, app.Deadline)/app.Length + 1e-9))
			n := rapid.IntRange(1, 5).Draw(t, "n")
			if k := e.Accept(now, app, n, 0); k != min(n, want) {
				t.Fatalf("accepted %d of %d, l/a = %d", k, n, want)
			}
			deadline[app.ID] = app.Deadline
		}
		// Run to the end, checking each completion time against its deadline.
		for e.running {
			end, id := e.end, e.cur.app
			if end > deadline[id]+1e-6 {
				t.Fatalf("task of app %d ends at %g after its deadline %g", id, end, deadline[id])
			}
			e.Advance(end, nil)
		}
	})
}

func TestRouterBandwidthGroupsUpdates(t *testing.T) {
	p, _ := newIBP(4)
	c := &Config{Rules: p, Bandwidth: 10} // bytes per second
	tr := NewTree(4)
	r := tr.Router(tr.Left(tr.Root())) // a router with a father
	out := r.Step(c, 0, Msg{Kind: KindUpdate, From: r.Left, Sum: IBPSummary{{Mem: 1, Disk: 1, V: 1}}}, nil)
	if len(out) != 1 || out[0].Kind != KindUpdate || out[0].To != r.Father {
		t.Fatalf("first update: %+v", out)
	}
	// 16 + 12 bytes at 10 B/s: next update not before 2.8 s.
	out = r.Step(c, 1, Msg{Kind: KindUpdate, From: r.Right, Sum: IBPSummary{{Mem: 2, Disk: 2, V: 1}}}, nil)
	if len(out) != 0 || math.Abs(r.Wake()-2.8) > 1e-9 {
		t.Fatalf("second update sent early: %+v, wake %g", out, r.Wake())
	}
	out = r.Step(c, 2, Msg{Kind: KindUpdate, From: r.Left, Sum: nil}, nil)
	if len(out) != 0 {
		t.Fatalf("third update sent early: %+v", out)
	}
	out = r.Step(c, 2.8, Msg{Kind: KindTick}, nil)
	if len(out) != 1 || out[0].Sum.Nodes() != 1 || asIBP(out[0].Sum)[0].Mem != 2 {
		t.Fatalf("grouped update: %+v", out)
	}
	if r.Wake() != math.Inf(1) {
		t.Fatalf("still pending")
	}
	// An unchanged summary is not sent again.
	out = r.Step(c, 100, Msg{Kind: KindUpdate, From: r.Left, Sum: nil}, nil)
	if len(out) != 0 {
		t.Fatalf("unchanged summary sent: %+v", out)
	}
}

func TestMMPBoundsPropagate(t *testing.T) {
	tr := NewTree(4)
	p, _ := newMMP(4, 0.5)
	c := &Config{Rules: p}
	execs := []Exec{&MMPExec{Mem: 1, Disk: 1, Power: 1, Q: 5}, &MMPExec{Mem: 1, Disk: 1, Power: 1, Q: 50},
		&MMPExec{Mem: 1, Disk: 1, Power: 1, Q: 7}, &MMPExec{Mem: 1, Disk: 1, Power: 1, Q: 9}}
	n := newNet(tr, c, execs)
	// The router over leaves 2 and 3 learns the queue end 50 of the other branch.
	v := tr.Right(tr.Root())
	if b := n.routers[v].Bound; b != 50 {
		t.Fatalf("bound of the right branch %g, want 50", b)
	}
	if b := n.routers[tr.Left(tr.Root())].Bound; b != 9 {
		t.Fatalf("bound of the left branch %g, want 9", b)
	}
}

func TestReferences(t *testing.T) {
	ibp, _ := newIBP(4)
	nodes := []Summary{IBPSummary{{Mem: 100, Disk: 100, V: 1}}, nil, IBPSummary{{Mem: 10, Disk: 10, V: 1}}, IBPSummary{{Mem: 50, Disk: 50, V: 1}}}
	got := Centralized{ibp}.Place(0, Request{App: App{Length: 1, Mem: 20, Disk: 20}, N: 5}, nodes, nil)
	// fitting idle: nodes 0 and 3; closest first: 3, then 0.
	if len(got) != 2 || got[0] != (Placement{3, 1}) || got[1] != (Placement{0, 1}) {
		t.Fatalf("centralized IBP: %+v", got)
	}
	mmp, _ := newMMP(4, 0.5)
	mn := []Summary{MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 0, V: 1}}, MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 10, V: 1}}}
	got = Centralized{mmp}.Place(0, Request{App: App{Length: 1}, N: 12}, mn, nil)
	if len(got) != 2 || got[0] != (Placement{0, 11}) || got[1] != (Placement{1, 1}) {
		t.Fatalf("centralized MMP: %+v", got)
	}
	r := Random{Rand: newTestRand()}
	got = r.Place(0, Request{N: 1000}, nodes, nil)
	count := make([]int, len(nodes))
	for _, pl := range got {
		count[pl.Node] += pl.N
	}
	for i, c := range count {
		if c < 200 || c > 300 { // 250 ± 50 (binomial sd ≈ 13.7)
			t.Fatalf("random: node %d got %d of 1000 tasks", i, c)
		}
	}
}

func newTestRand() *rand.Rand { return stream.New(1, 0x7e57) }

func TestNoBoundsToLeaves(t *testing.T) {
	tr := NewTree(2)
	p, _ := newMMP(4, 0.5)
	r := tr.Router(tr.Root())
	out := r.Step(&Config{Rules: p}, 0, Msg{Kind: KindUpdate, From: r.Left, Sum: MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 5, V: 1}}}, nil)
	for _, m := range out {
		if m.Kind == KindBound {
			t.Fatalf("bound sent to leaf %d", m.To)
		}
	}
	// A router whose children are routers does send them.
	tr = NewTree(4)
	r = tr.Router(tr.Root())
	out = r.Step(&Config{Rules: p}, 0, Msg{Kind: KindUpdate, From: r.Left, Sum: MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 5, V: 1}}}, nil)
	n := 0
	for _, m := range out {
		if m.Kind == KindBound && m.To == r.Right && m.Bound == 5 {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("want one bound 5 to the right child, got %+v", out)
	}
}

func TestCentralizedDP(t *testing.T) {
	dp, _ := newDP(4, 10, 1000)
	lf := func(s float64) LFunc { return LFunc{P: []LPoint{{0, 0}}, Slope: s} }
	nodes := []Summary{DPSummary{{Mem: 8, Disk: 8, V: 1, L: lf(3)}}, DPSummary{{Mem: 8, Disk: 8, V: 1, L: lf(1)}},
		DPSummary{{Mem: 1, Disk: 1, V: 1, L: lf(9)}}}
	// deadline 100, tasks of 40: node 1 takes 2, node 0 takes 7; node 2
	// lacks memory. Least available computation first: node 1.
	got := Centralized{dp}.Place(0, Request{App: App{Length: 40, Mem: 4, Deadline: 100}, N: 5}, nodes, nil)
	if len(got) != 2 || got[0] != (Placement{1, 2}) || got[1] != (Placement{0, 3}) {
		t.Fatalf("centralized DP: %+v", got)
	}
}

// TestRouterRestarted: KindRestarted from a child re-sends the MMP bound it
// lost; from the father, the current aggregate.
func TestRouterRestarted(t *testing.T) {
	tr := NewTree(4)
	p, _ := newMMP(4, 0.5)
	c := &Config{Rules: p}
	r := tr.Router(tr.Root())
	r.Step(c, 0, Msg{Kind: KindUpdate, From: r.Left, Sum: MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 5, V: 1}}}, nil)
	restarted := func(from Addr) []Msg { return r.Step(c, 1, Msg{Kind: KindRestarted, From: from, To: r.Self}, nil) }
	if out := restarted(r.Left); len(out) != 0 {
		t.Fatalf("no bound for the left child yet, got %+v", out) // the right branch is empty
	}
	out := restarted(r.Right)
	if len(out) != 1 || out[0].To != r.Right || out[0].Bound != 5 {
		t.Fatalf("want the bound 5 re-sent to the right child, got %+v", out)
	}
	if out := restarted(99); len(out) != 0 {
		t.Fatalf("not a neighbour: %+v", out)
	}
	// the root has no father to re-send to; an inner router re-sends its
	// current aggregate to a restarted father without recording it as sent
	if out := restarted(NoAddr); len(out) != 0 {
		t.Fatalf("the root re-sent to no father: %+v", out)
	}
	in := tr.Router(tr.Left(tr.Root()))
	in.Step(c, 0, Msg{Kind: KindUpdate, From: in.Left, Sum: MMPSummary{{Mem: 1, Disk: 1, Power: 1, Q: 7, V: 1}}}, nil)
	sent := in.Summary()
	out = in.Step(c, 2, Msg{Kind: KindRestarted, From: in.Father, To: in.Self}, nil)
	if len(out) != 1 || out[0].Kind != KindUpdate || out[0].To != in.Father || !p.Equal(out[0].Sum, in.Current(c)) || !p.Equal(in.Summary(), sent) {
		t.Fatalf("restarted father: %+v (sent %v)", out, sent)
	}
}

// TestLeafAcknowledgesAndRestarts: a leaf acknowledges the tasks it
// accepts (KindAccepted) and returns the others, and re-sends its summary
// to a restarted father, recording it as sent.
func TestLeafAcknowledgesAndRestarts(t *testing.T) {
	p, _ := newIBP(4)
	c := &Config{Rules: p}
	l, err := NewLeaf(3, 1, &IBPExec{Mem: 10, Disk: 10, Power: 1})
	if err != nil {
		t.Fatal(err)
	}
	l.Step(c, 0, Msg{Kind: KindTick}, nil)
	out := l.Step(c, 1, Msg{Kind: KindRequest, From: 1, To: 3, Req: Request{App: App{ID: 7, Length: 10}, Submitter: 5, Src: 1, N: 3}}, nil)
	var acc, ret, upd int
	for _, m := range out {
		switch m.Kind {
		case KindAccepted:
			acc += m.Req.N
			if m.To != 5 || m.From != 3 || m.Req.App.ID != 7 {
				t.Errorf("accepted %+v", m)
			}
		case KindReturn:
			ret += m.Req.N
		case KindUpdate:
			upd++
		}
	}
	if acc != 1 || ret != 2 || upd != 1 {
		t.Fatalf("accepted %d, returned %d, %d updates: want 1, 2, 1 (%+v)", acc, ret, upd, out)
	}
	out = l.Step(c, 2, Msg{Kind: KindRestarted, From: 1, To: 3}, nil)
	if len(out) != 1 || out[0].Kind != KindUpdate || out[0].Sum != nil || l.Summary() != nil {
		t.Fatalf("restarted father: %+v, want the busy node's empty summary", out)
	}
	if out := l.Step(c, 2, Msg{Kind: KindRestarted, From: 9, To: 3}, nil); len(out) != 0 {
		t.Fatalf("not the father: %+v", out)
	}
	for _, bad := range []struct {
		self, father Addr
		e            Exec
	}{{-1, 0, &IBPExec{}}, {2, 2, &IBPExec{}}, {2, 0, nil}} {
		if _, err := NewLeaf(bad.self, bad.father, bad.e); err == nil {
			t.Errorf("NewLeaf(%d, %d, %v) accepted", bad.self, bad.father, bad.e)
		}
	}
	for _, bad := range []Links{{Self: -1, Left: 1, Right: 2}, {Self: 0, Left: 1, Right: 1}, {Self: 0, Left: 0, Right: 2},
		{Self: 0, Father: 1, Left: 1, Right: 2}, {Self: 3, Father: 3, Left: 1, Right: 2}} {
		if _, err := NewRouter(bad); err == nil {
			t.Errorf("NewRouter(%+v) accepted", bad)
		}
	}
}

// countingPolicy counts the aggregations of the policy it wraps.
type countingPolicy struct {
	Rules
	n int
}

func (p *countingPolicy) Aggregate(x, y Summary) Summary {
	p.n++
	return p.Rules.Aggregate(x, y)
}

func TestRouterAggregatesOncePerSentUpdate(t *testing.T) {
	ibp, _ := newIBP(4)
	p := &countingPolicy{Rules: ibp}
	c := &Config{Rules: p, Bandwidth: 10}
	tr := NewTree(4)
	r := tr.Router(tr.Left(tr.Root()))
	out := r.Step(c, 0, Msg{Kind: KindUpdate, From: r.Left, Sum: IBPSummary{{Mem: 1, Disk: 1, V: 1}}}, nil)
	if len(out) != 1 || p.n != 1 {
		t.Fatalf("first update: %d messages, %d aggregations (want 1, 1)", len(out), p.n)
	}
	// Ten updates while the link is held: no aggregation until the tick.
	for i := range 10 {
		from := r.Left
		if i%2 == 1 {
			from = r.Right
		}
		out = r.Step(c, 0.1*float64(i+1), Msg{Kind: KindUpdate, From: from, Sum: IBPSummary{{Mem: float32(i + 2), Disk: 1, V: 1}}}, nil)
		if len(out) != 0 {
			t.Fatalf("update %d sent while the link is held: %+v", i, out)
		}
	}
	if p.n != 1 {
		t.Fatalf("%d aggregations while the link is held, want 1", p.n)
	}
	if cur := r.Current(c); cur.Nodes() != 2 || r.Summary().Nodes() != 1 {
		t.Fatalf("Current covers %d (want 2), Summary %d (want 1, the last sent)", cur.Nodes(), r.Summary().Nodes())
	}
	out = r.Step(c, 2.8, Msg{Kind: KindTick}, nil)
	if len(out) != 1 || p.n != 3 || out[0].Sum.Nodes() != 2 {
		t.Fatalf("tick: %+v, %d aggregations (want 1 message, 3 aggregations incl. Current)", out, p.n)
	}
	// Changes that cancel out while the link is held: aggregated at the
	// tick, found equal to the last sent summary, nothing sent.
	next := r.Wake()
	if !math.IsInf(next, 1) {
		t.Fatalf("wake %g after the grouped update, want +Inf", next)
	}
	last := r.nextSend
	left := r.LeftInfo
	r.Step(c, 3, Msg{Kind: KindUpdate, From: r.Left, Sum: nil}, nil)
	r.Step(c, 3.1, Msg{Kind: KindUpdate, From: r.Left, Sum: left}, nil)
	if r.Wake() != last {
		t.Fatalf("wake %g, want %g", r.Wake(), last)
	}
	if out = r.Step(c, last, Msg{Kind: KindTick}, nil); len(out) != 0 {
		t.Fatalf("unchanged aggregate sent: %+v", out)
	}
	if !math.IsInf(r.Wake(), 1) {
		t.Fatalf("still dirty after the tick")
	}
}

// TestRouterBandwidthProperty: whatever the children's updates and their
// timing, a router's updates to its father are spaced so that each
// message's bytes fit the bandwidth before the next leaves (§4.3), no
// update repeats the previous one, and once the ticks the router asks for
// are delivered, the last update sent is the aggregate of the children's
// latest summaries (grouping loses nothing).
func TestRouterBandwidthProperty(t *testing.T) {
	for _, pol := range []Policy{PolicyIBP, PolicyMMP, PolicyDP} {
		t.Run(pol.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p, _ := newRules(pol, rapid.IntRange(1, 6).Draw(t, "sfmax"))
				bw := float64(rapid.IntRange(1, 200).Draw(t, "bandwidth"))
				c := &Config{Rules: p, Bandwidth: bw}
				tr := NewTree(4)
				r := tr.Router(tr.Left(tr.Root()))
				_, leaves := drawNodes(t, pol)
				childSummary := func() Summary {
					var s Summary
					for k := rapid.IntRange(0, 4).Draw(t, "functions"); k > 0; k-- {
						x := leaves[rapid.IntRange(0, len(leaves)-1).Draw(t, "leaf")]
						if s == nil {
							s = x
						} else {
							s = p.Aggregate(s, x)
						}
					}
					return s
				}
				type sent struct {
					at  float64
					sum Summary
				}
				var sends []sent
				var left, right Summary
				record := func(now float64, out []Msg) {
					for _, m := range out {
						if m.Kind == KindUpdate {
							if m.To != r.Father {
								t.Fatalf("update sent to %d, not the father %d", m.To, r.Father)
							}
							sends = append(sends, sent{now, m.Sum})
						}
					}
				}
				now := 0.0
				for k := rapid.IntRange(1, 25).Draw(t, "updates"); k > 0; k-- {
					next := now + float64(rapid.IntRange(0, 40).Draw(t, "gap"))/4
					// the driver delivers the ticks the router asks for
					for w := r.Wake(); w <= next; w = r.Wake() {
						now = w
						record(now, r.Step(c, now, Msg{Kind: KindTick}, nil))
					}
					now = next
					from, s := r.Left, childSummary()
					if rapid.Bool().Draw(t, "right") {
						from = r.Right
						right = s
					} else {
						left = s
					}
					record(now, r.Step(c, now, Msg{Kind: KindUpdate, From: from, Sum: s}, nil))
				}
				for w := r.Wake(); !math.IsInf(w, 1); w = r.Wake() {
					if w < now {
						t.Fatalf("wake %g before now %g", w, now)
					}
					now = w
					record(now, r.Step(c, now, Msg{Kind: KindTick}, nil))
				}
				var prev Summary
				for i, s := range sends {
					if i > 0 {
						b := 16
						if prev != nil {
							b += prev.Bytes()
						}
						if gap := s.at - sends[i-1].at; gap < float64(b)/bw-1e-9 {
							t.Fatalf("update %d at %g, %g s after one of %d bytes: the bandwidth %g B/s needs %g s", i, s.at, gap, b, bw, float64(b)/bw)
						}
					}
					if i > 0 && p.Equal(s.sum, prev) {
						t.Fatalf("update %d repeats the previous one", i)
					}
					prev = s.sum
				}
				if want := p.Aggregate(left, right); !p.Equal(prev, want) {
					t.Fatalf("last update sent %v, children's latest aggregate %v", prev, want)
				}
			})
		})
	}
}

// TestLScanMatchesLAt: the one-pass evaluation of l gives LAt's bits for
// every δ — at the queue's deadlines (equal ones included), between them,
// before the node is free and beyond the last deadline — over random
// queues of random lengths (non-integer works, so that the order of the
// additions shows), with or without a running task.
func TestLScanMatchesLAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		e := &DPExec{Mem: 1, Disk: 1, Power: 0.1 + rng.Float64()*100}
		now := rng.Float64() * 1e5
		if rng.IntN(2) == 0 {
			e.running, e.end = true, now+rng.Float64()*1e3
		}
		var dls []float64
		for range rng.IntN(40) {
			d := now + rng.Float64()*1e5
			if len(dls) > 0 && rng.IntN(4) == 0 {
				d = dls[rng.IntN(len(dls))] // equal deadlines
			}
			dls = append(dls, d)
		}
		slices.Sort(dls)
		for _, d := range dls {
			e.runs = append(e.runs, dpRun{n: 1 + rng.IntN(5), deadline: d, dur: rng.Float64() * 500})
		}
		sc := e.scan(now)
		probes := append(slices.Clone(dls), now-1, now, e.base(now), now+2e5)
		for range 20 {
			probes = append(probes, now+rng.Float64()*1.2e5)
		}
		for _, d := range probes {
			if got, want := sc.at(d), e.LAt(now, d); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("queue %d (%d runs), δ %v: scan %v, LAt %v", i, len(e.runs), d, got, want)
			}
		}
	}
}
