package overlay

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func TestForwardIBPHand(t *testing.T) {
	p, _ := newIBP(8)
	f := &Fork{Self: 10, Father: 5, Left: 11, Right: 12,
		LeftInfo:  IBPSummary{{Mem: 100, Disk: 100, V: 2}, {Mem: 300, Disk: 300, V: 1}},
		RightInfo: IBPSummary{{Mem: 200, Disk: 200, V: 1}}}
	app := App{Length: 1, Mem: 150, Disk: 150}
	// Candidates: left (300,300) key (150/100 + 150/100) = 3; right
	// (200,200) key 0.5 + 0.5 = 1. Right first. (100,100) does not fit.
	cases := []struct {
		src  Addr
		n    int
		want Split
	}{
		{5, 1, Split{Right: 1}},
		{5, 2, Split{Left: 1, Right: 1}},
		{5, 3, Split{Left: 1, Right: 1, Father: 1}},
		{11, 3, Split{Right: 1, Father: 2}}, // from the left child: not back there
		{12, 1, Split{Left: 1}},
	}
	for _, c := range cases {
		if got := p.Forward(f, Request{App: app, Src: c.src, N: c.n}, 0); got != c.want {
			t.Errorf("src %d n %d: %+v, want %+v", c.src, c.n, got, c.want)
		}
	}
}

func TestForwardMMPHand(t *testing.T) {
	p, _ := newMMP(8, 0.5)
	f := &Fork{Self: 10, Father: 5, Left: 11, Right: 12, Bound: math.Inf(-1),
		LeftInfo:  MMPSummary{{Mem: 10, Disk: 10, Power: 1, Q: 0, V: 1}},
		RightInfo: MMPSummary{{Mem: 10, Disk: 10, Power: 1, Q: 10, V: 1}}}
	app := App{Length: 1, Mem: 1, Disk: 1}
	// AF(q) = ⌊q⌋ + ⌊q − 10⌋: 12 tasks need q = 11 (11 + 1).
	if q := Makespan(app, 12, 0, asMMP(f.LeftInfo), asMMP(f.RightInfo)); math.Abs(q-11) > 1e-6 {
		t.Fatalf("makespan %g, want 11", q)
	}
	// From the father: allocate here, left takes ⌊11⌋ = 11, right 1.
	if got := p.Forward(f, Request{App: app, Src: 5, N: 12}, 0); got != (Split{Left: 11, Right: 1}) {
		t.Errorf("from father: %+v", got)
	}
	// From a child: 11 − 0 > 0.5·(10 − 0): up to the father.
	if got := p.Forward(f, Request{App: app, Src: 11, N: 12}, 0); got != (Split{Father: 12}) {
		t.Errorf("from child: %+v", got)
	}
	// A longer queue elsewhere (bound 30): 11 <= 0.5·30, allocate here.
	f.Bound = 30
	if got := p.Forward(f, Request{App: app, Src: 11, N: 12}, 0); got != (Split{Left: 11, Right: 1}) {
		t.Errorf("with bound 30: %+v", got)
	}
	// 4 tasks: q = 4, all on the left (empty queue).
	if got := p.Forward(f, Request{App: app, Src: 11, N: 4}, 0); got != (Split{Left: 4}) {
		t.Errorf("4 tasks: %+v", got)
	}
	// Nobody has the memory: up.
	if got := p.Forward(f, Request{App: App{Length: 1, Mem: 100}, Src: 11, N: 4}, 0); got != (Split{Father: 4}) {
		t.Errorf("no memory: %+v", got)
	}
}

func TestForwardDPHand(t *testing.T) {
	p, _ := newDP(8, 10, 1000)
	// l = power × time from 0: left power 1 (l(100) = 100), right power 3
	// (l(100) = 300). Tasks of 40 MFLOP, deadline 100: left takes 2 tasks,
	// right 7. Least available computation first: left.
	f := &Fork{Self: 10, Father: 5, Left: 11, Right: 12,
		LeftInfo:  DPSummary{{Mem: 10, Disk: 10, V: 1, L: LFunc{P: []LPoint{{0, 0}}, Slope: 1}}},
		RightInfo: DPSummary{{Mem: 10, Disk: 10, V: 1, L: LFunc{P: []LPoint{{0, 0}}, Slope: 3}}}}
	app := App{Length: 40, Deadline: 100}
	for _, c := range []struct {
		n    int
		want Split
	}{{1, Split{Left: 1}}, {3, Split{Left: 2, Right: 1}}, {9, Split{Left: 2, Right: 7}}, {10, Split{Left: 2, Right: 7, Father: 1}}} {
		if got := p.Forward(f, Request{App: app, Src: 5, N: c.n}, 0); got != c.want {
			t.Errorf("n %d: %+v, want %+v", c.n, got, c.want)
		}
	}
}

type countingExec struct {
	Exec
	accepted *int
}

func (c countingExec) Accept(now float64, app App, n int, sub Addr) int {
	k := c.Exec.Accept(now, app, n, sub)
	*c.accepted += k
	return k
}

// TestForwardingProperties: over random trees, node states and requests,
// no forwarding step loses or duplicates a task, no child is sent more
// than its summary admits, leaves never refuse tasks (summaries are
// conservative), and what is not placed returns to the submitter.
func TestForwardingProperties(t *testing.T) {
	for _, pol := range []Policy{PolicyIBP, PolicyMMP, PolicyDP} {
		t.Run(pol.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				nl := rapid.IntRange(1, 40).Draw(t, "leaves")
				k := rapid.IntRange(1, 10).Draw(t, "sfmax")
				p, _ := newRules(pol, k)
				tr := NewTree(nl)
				accepted := 0
				execs := make([]Exec, nl)
				for i := range execs {
					m, d := float64(rapid.IntRange(1, 8).Draw(t, "mem")), float64(rapid.IntRange(1, 8).Draw(t, "disk"))
					pw := float64(rapid.IntRange(1, 4).Draw(t, "power"))
					var e Exec
					switch pol {
					case PolicyIBP:
						e = &IBPExec{Mem: m, Disk: d, Power: pw}
					case PolicyMMP:
						e = &MMPExec{Mem: m, Disk: d, Power: pw, Q: float64(rapid.IntRange(0, 20).Draw(t, "q"))}
					case PolicyDP:
						de := &DPExec{Mem: m, Disk: d, Power: pw}
						// some work already queued
						if rapid.Bool().Draw(t, "busy") {
							de.Accept(0, App{ID: 99, Length: float64(rapid.IntRange(1, 40).Draw(t, "len")), Deadline: float64(rapid.IntRange(20, 80).Draw(t, "dl"))}, 3, 0)
						}
						e = de
					}
					execs[i] = countingExec{Exec: e, accepted: &accepted}
				}
				n := newNet(tr, &Config{Rules: p}, execs)
				n.steps = nil
				app := App{ID: 1, Length: float64(rapid.IntRange(1, 30).Draw(t, "a")),
					Mem: float64(rapid.IntRange(0, 8).Draw(t, "m")), Disk: float64(rapid.IntRange(0, 8).Draw(t, "d")),
					Deadline: float64(rapid.IntRange(1, 200).Draw(t, "δ"))}
				want := rapid.IntRange(1, 60).Draw(t, "tasks")
				sub := tr.Leaf(rapid.IntRange(0, nl-1).Draw(t, "submitter"))
				if nl == 1 {
					// a single node has no router: the submitter is the node
					return
				}
				n.run([]Msg{NewRequest(tr, sub, app, want)})
				if accepted+n.returned != want || n.acked != accepted {
					t.Fatalf("accepted %d (acknowledged %d) + returned %d != %d tasks", accepted, n.acked, n.returned, want)
				}
				if n.leafReturns != 0 {
					t.Fatalf("leaves refused %d tasks", n.leafReturns)
				}
				if n.badReturns != 0 {
					t.Fatalf("%d returns not sent to the submitter", n.badReturns)
				}
				for _, s := range n.steps {
					out := 0
					var toL, toR int
					for _, m := range s.out {
						if m.Kind == KindRequest || m.Kind == KindReturn {
							out += m.Req.N
						}
						if m.Kind == KindRequest && m.To == s.f.Left {
							toL += m.Req.N
						}
						if m.Kind == KindRequest && m.To == s.f.Right {
							toR += m.Req.N
						}
					}
					if out != s.in.N {
						t.Fatalf("router %d: %d tasks in, %d out", s.at, s.in.N, out)
					}
					var admL, admR int
					switch pol {
					case PolicyIBP:
						admL, admR = asIBP(s.f.LeftInfo).Admits(app), asIBP(s.f.RightInfo).Admits(app)
					case PolicyDP:
						admL, admR = asDP(s.f.LeftInfo).Admits(app), asDP(s.f.RightInfo).Admits(app)
					case PolicyMMP:
						q := Makespan(app, s.in.N, 0, asMMP(s.f.LeftInfo), asMMP(s.f.RightInfo))
						admL, admR = asMMP(s.f.LeftInfo).Admits(app, q, 0), asMMP(s.f.RightInfo).Admits(app, q, 0)
					}
					if toL > admL || toR > admR {
						t.Fatalf("router %d sent %d/%d tasks, summaries admit %d/%d", s.at, toL, toR, admL, admR)
					}
				}
			})
		})
	}
}

// TestIBPFindsAllWithFullSummaries: with SF_max large enough that nothing
// is aggregated, IBP places min(N, fitting idle nodes) tasks.
func TestIBPFindsAllWithFullSummaries(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nl := rapid.IntRange(2, 30).Draw(t, "leaves")
		p, _ := newIBP(1000)
		tr := NewTree(nl)
		execs := make([]Exec, nl)
		fit := 0
		app := App{ID: 1, Length: 1, Mem: 4, Disk: 4}
		for i := range execs {
			e := &IBPExec{Mem: float64(rapid.IntRange(1, 8).Draw(t, "mem")), Disk: float64(rapid.IntRange(1, 8).Draw(t, "disk")), Power: 1}
			if e.Mem >= app.Mem && e.Disk >= app.Disk {
				fit++
			}
			execs[i] = e
		}
		n := newNet(tr, &Config{Rules: p}, execs)
		want := rapid.IntRange(1, 40).Draw(t, "tasks")
		n.run([]Msg{NewRequest(tr, tr.Leaf(rapid.IntRange(0, nl-1).Draw(t, "sub")), app, want)})
		if placed := want - n.returned; placed != min(want, fit) {
			t.Fatalf("placed %d, want min(%d, %d)", placed, want, fit)
		}
	})
}

// TestDPMaxPerNode: the paper's rule packs a request onto the node with
// the least computation before the deadline, as many tasks as it can
// finish (the slowest idle node first); MaxPerNode 1 spreads it, one task
// per node, a function of v nodes taking v.
func TestDPMaxPerNode(t *testing.T) {
	lf := func(s float64) LFunc { return LFunc{P: []LPoint{{0, 0}}, Slope: s} }
	f := &Fork{Self: 10, Father: 5, Left: 11, Right: 12,
		LeftInfo:  DPSummary{{Mem: 10, Disk: 10, V: 1, L: lf(1)}},
		RightInfo: DPSummary{{Mem: 10, Disk: 10, V: 3, L: lf(3)}}}
	nodes := []Summary{DPSummary{{Mem: 10, Disk: 10, V: 1, L: lf(3)}}, DPSummary{{Mem: 10, Disk: 10, V: 1, L: lf(1)}},
		DPSummary{{Mem: 10, Disk: 10, V: 1, L: lf(2)}}}
	app := App{Length: 10, Deadline: 100} // l(100)/10 = 10, 30 tasks per node
	for _, c := range []struct {
		max   int
		fwd   Split
		place []Placement
	}{
		{0, Split{Left: 5}, []Placement{{1, 5}}},
		{1, Split{Left: 1, Right: 3, Father: 1}, []Placement{{1, 1}, {2, 1}, {0, 1}}},
		{2, Split{Left: 2, Right: 3}, []Placement{{1, 2}, {2, 2}, {0, 1}}},
	} {
		p, _ := newDP(8, 10, 1000)
		p.o.MaxPerNode = c.max
		if got := p.Forward(f, Request{App: app, Src: 5, N: 5}, 0); got != c.fwd {
			t.Errorf("MaxPerNode %d: forward %+v, want %+v", c.max, got, c.fwd)
		}
		if got := (Centralized{p}).Place(0, Request{App: app, N: 5}, nodes, nil); !slices.Equal(got, c.place) {
			t.Errorf("MaxPerNode %d: centralized %+v, want %+v", c.max, got, c.place)
		}
	}
}
