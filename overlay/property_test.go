package overlay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// randomTreeAggregate aggregates leaves over a random binary tree shape
// (random split points) and calls visit on every internal summary.
func randomTreeAggregate(t *rapid.T, p Rules, leaves []Summary, visit func(lo, hi int, s Summary)) Summary {
	var rec func(lo, hi int) Summary
	rec = func(lo, hi int) Summary {
		if hi-lo == 1 {
			return leaves[lo]
		}
		mid := rapid.IntRange(lo+1, hi-1).Draw(t, "split")
		s := p.Aggregate(rec(lo, mid), rec(mid, hi))
		visit(lo, hi, s)
		return s
	}
	return rec(0, len(leaves))
}

type nodeState struct {
	mem, disk, power, q float64
	l                   LFunc
}

func drawNodes(t *rapid.T, pol Policy) ([]nodeState, []Summary) {
	n := rapid.IntRange(1, 60).Draw(t, "nodes")
	ns := make([]nodeState, n)
	ss := make([]Summary, n)
	for i := range ns {
		s := nodeState{
			mem:   float64(rapid.IntRange(1, 64).Draw(t, "mem")),
			disk:  float64(rapid.IntRange(1, 64).Draw(t, "disk")),
			power: float64(rapid.IntRange(1, 8).Draw(t, "power")),
			q:     float64(rapid.IntRange(0, 50).Draw(t, "q")),
		}
		switch pol {
		case PolicyIBP:
			ss[i] = IBPSummary{{Mem: float32(s.mem), Disk: float32(s.disk), V: 1}}
		case PolicyMMP:
			ss[i] = MMPSummary{{Mem: float32(s.mem), Disk: float32(s.disk), Power: float32(s.power), Q: s.q, V: 1}}
		case PolicyDP:
			s.l = drawLFunc(t, s.power)
			ss[i] = DPSummary{{Mem: float32(s.mem), Disk: float32(s.disk), V: 1, L: s.l}}
		}
		ns[i] = s
	}
	return ns, ss
}

// drawLFunc draws a node's l: busy/free intervals then free, power s.
// tieBreaker returns a source of small pseudo-random offsets, seeded by a
// drawn value. The exactness tests compare two clustering algorithms that
// may merge different pairs when two candidate distances are exactly equal;
// rapid's generator and shrinker favour boundary values (every attribute
// 1, say), which makes such ties common. Adding an offset drawn from a
// PRNG keeps the values continuous even when the drawn values are equal
// (the PRNG's output does not shrink to a pattern), so exact ties have
// negligible probability and a failure means a real difference.
func tieBreaker(t *rapid.T) func() float64 {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "jitter"), 0x9e3779b97f4a7c15))
	return r.Float64
}

func drawLFunc(t *rapid.T, s float64) LFunc {
	pts := []LPoint{{0, 0}}
	tm, l := 0.0, 0.0
	for k := rapid.IntRange(0, 6).Draw(t, "tasks"); k > 0; k-- {
		tm += float64(rapid.IntRange(1, 20).Draw(t, "busy"))
		pts = append(pts, LPoint{tm, l})
		h := float64(rapid.IntRange(1, 20).Draw(t, "hole"))
		tm += h
		l += s * h
		pts = append(pts, LPoint{tm, l})
	}
	f := LFunc{P: pts, Slope: s}
	f.Compact()
	return f
}

// TestSummaryConservative: over random trees and states, every summary
// covers exactly its nodes (v conserved) and never says its nodes can take
// more tasks than they can (for random requirements).
func TestSummaryConservative(t *testing.T) {
	for _, pol := range []Policy{PolicyIBP, PolicyMMP, PolicyDP} {
		t.Run(pol.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				k := rapid.IntRange(1, 12).Draw(t, "sfmax")
				p, _ := newRules(pol, k)
				if rapid.Bool().Draw(t, "nogrid") {
					switch q := p.(type) {
					case *IBP:
						q.o.NoGrid = true
					case *MMP:
						q.o.NoGrid = true
					case *DP:
						q.o.NoGrid = true
					}
				}
				if dp, ok := p.(*DP); ok {
					dp.o.Samples = rapid.IntRange(2, 6).Draw(t, "samples")
				}
				ns, leaves := drawNodes(t, pol)
				if dp, ok := p.(*DP); ok {
					for i := range leaves {
						c := leaves[i].(DPSummary)[0]
						c.L = LFunc{P: slices.Clone(c.L.P), Slope: c.L.Slope}
						c.L.Reduce(dp.o.Samples, dp.o.Horizon)
						leaves[i] = DPSummary{c}
					}
				}
				apps := make([]App, 8)
				for i := range apps {
					apps[i] = App{Length: float64(rapid.IntRange(1, 30).Draw(t, "a")),
						Mem: float64(rapid.IntRange(0, 64).Draw(t, "m")), Disk: float64(rapid.IntRange(0, 64).Draw(t, "d")),
						Deadline: float64(rapid.IntRange(0, 300).Draw(t, "δ"))}
				}
				qs := []float64{0, 10, 37.5, 100, 1000}
				randomTreeAggregate(t, p, leaves, func(lo, hi int, s Summary) {
					if s.Nodes() != hi-lo {
						t.Fatalf("summary of nodes [%d,%d) covers %d", lo, hi, s.Nodes())
					}
					if s.Len() > k {
						t.Fatalf("summary has %d sampled functions, SF_max %d", s.Len(), k)
					}
					for _, a := range apps {
						switch ss := s.(type) {
						case IBPSummary:
							want := 0
							for _, u := range ns[lo:hi] {
								if u.mem >= a.Mem && u.disk >= a.Disk {
									want++
								}
							}
							if got := ss.Admits(a); got > want {
								t.Fatalf("IBP summary admits %d tasks of %+v, nodes take %d", got, a, want)
							}
						case MMPSummary:
							for _, q := range qs {
								want := 0
								for _, u := range ns[lo:hi] {
									c := MMPCluster{Mem: float32(u.mem), Disk: float32(u.disk), Power: float32(u.power), Q: u.q, V: 1}
									want += c.AF(a, q, 0)
								}
								if got := ss.Admits(a, q, 0); got > want {
									t.Fatalf("MMP summary admits %d tasks by %g, nodes take %d", got, q, want)
								}
							}
						case DPSummary:
							want := 0
							for _, u := range ns[lo:hi] {
								c := DPCluster{Mem: float32(u.mem), Disk: float32(u.disk), V: 1, L: u.l}
								want += c.AF(a)
							}
							if got := ss.Admits(a); got > want {
								t.Fatalf("DP summary admits %d tasks of %+v, nodes take %d", got, a, want)
							}
							for i := range ss {
								if len(ss[i].L.P) > p.(*DP).o.Samples {
									t.Fatalf("l has %d samples, limit %d", len(ss[i].L.P), p.(*DP).o.Samples)
								}
							}
						}
					}
				})
			})
		})
	}
}

// TestMinLFuncSymmetric: the minimum, and so the DP sum and its reduction,
// does not depend on the order of its arguments, to the bit. (A crossing
// point rounded from one side or the other once made the reduction drop
// different samples, so two clusterings that merged the same pair in
// opposite orders disagreed.)
func TestMinLFuncSymmetric(t *testing.T) {
	// the case that exposed it
	a := LFunc{P: []LPoint{{18, 0}, {23, 22.727002204348963}, {24, 22.727002204348963}, {32, 40.90860396782813}}, Slope: 4.545400440869793}
	b := LFunc{P: []LPoint{{0, 0}, {1, 0}, {2, 3.5741689061940316}, {19, 3.5741689061940316}}, Slope: 3.5741689061940316}
	dp := &DP{o: Options{Policy: PolicyDP, Samples: 4, Horizon: 100}}
	x, y := dp.Sum(&DPCluster{L: a, V: 1}, &DPCluster{L: b, V: 1}), dp.Sum(&DPCluster{L: b, V: 1}, &DPCluster{L: a, V: 1})
	if !x.L.Equal(&y.L) {
		t.Fatalf("sum(a, b) = %v, sum(b, a) = %v", x.L, y.L)
	}
	rapid.Check(t, func(t *rapid.T) {
		f := drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "sf"))
		g := drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "sg"))
		h, h2 := MinLFunc(&f, &g), MinLFunc(&g, &f)
		if !h.Equal(&h2) {
			t.Fatalf("min(f, g) = %v, min(g, f) = %v", h, h2)
		}
		k := rapid.IntRange(2, 5).Draw(t, "k")
		h.Reduce(k, 100)
		h2.Reduce(k, 100)
		if !h.Equal(&h2) {
			t.Fatalf("reduced: %v and %v", h, h2)
		}
	})
}

// TestLFuncMinAndReduce: the minimum is exact, the reduction never raises
// the function and respects the sample limit.
func TestLFuncMinAndReduce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := drawLFunc(t, float64(rapid.IntRange(1, 5).Draw(t, "sf")))
		g := drawLFunc(t, float64(rapid.IntRange(1, 5).Draw(t, "sg")))
		h := MinLFunc(&f, &g)
		k := rapid.IntRange(2, 5).Draw(t, "k")
		r := LFunc{P: slices.Clone(h.P), Slope: h.Slope}
		r.Reduce(k, 100)
		if len(r.P) > k {
			t.Fatalf("reduced to %d samples, want <= %d", len(r.P), k)
		}
		for x := 0.0; x < 400; x += 0.7 {
			want := min(f.At(x), g.At(x))
			if math.Abs(h.At(x)-want) > 1e-9*max(1, want) {
				t.Fatalf("min at %g = %g, want %g (f %v g %v h %v)", x, h.At(x), want, f, g, h)
			}
			if r.At(x) > h.At(x)+1e-9*max(1, want) {
				t.Fatalf("reduced l at %g = %g > %g", x, r.At(x), h.At(x))
			}
			if x > 0 && r.At(x) < r.At(x-0.7)-1e-9 {
				t.Fatalf("reduced l decreases at %g", x)
			}
		}
	})
}

// TestAgglomerateMatchesNaive: the nearest-neighbour clustering and the
// cell-grouped clustering give the same summary as the naive closest-pair
// scan of Fig. 3.
func TestAgglomerateMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// skew: most functions in one grid cell (more than maxCellGroup),
		// as with many nodes of the same hardware.
		skew := rapid.Bool().Draw(t, "skew")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		if skew {
			n = rapid.IntRange(maxCellGroup, 100).Draw(t, "n")
		}
		k := rapid.IntRange(1, 16).Draw(t, "k")
		var grid gridSpec
		switch rapid.IntRange(0, 2).Draw(t, "grid") {
		case 1:
			grid.none = true
		case 2:
			grid.cells = divCells{}
		}
		dist := Distance(rapid.IntRange(0, 1).Draw(t, "dist"))
		vs := make([]vec, n)
		jit := tieBreaker(t)
		for i := range vs {
			hi := 100.0
			if skew && i%8 != 0 {
				hi = 10
			}
			vs[i] = vec{o: [4]float64{rapid.Float64Range(0, hi).Draw(t, "m") + jit(), rapid.Float64Range(0, hi).Draw(t, "d") + jit(),
				rapid.Float64Range(0, hi).Draw(t, "s") + jit(), rapid.Float64Range(0, hi).Draw(t, "q") + jit()},
				v: float64(rapid.IntRange(1, 5).Draw(t, "v"))}
			if vs[i].v > 1 && dist == DistMSE {
				// a function that already covers several nodes: some spread
				for a := range vs[i].lin {
					l := rapid.Float64Range(0, hi).Draw(t, "lin")
					vs[i].lin[a], vs[i].sq[a], vs[i].far[a] = l, l*l/vs[i].v*rapid.Float64Range(1, 2).Draw(t, "sq"), l
				}
			}
		}
		got := clusterVecs(slices.Clone(vs), 4, k, [4]bool{3: true}, grid, dist)
		// naive: same normalization, closest pair by full scan
		ref := slices.Clone(vs)
		m := prepareVecs(ref, 4, k, [4]bool{3: true}, grid, dist)
		for len(ref) > k {
			bi, bj, bd := -1, -1, math.Inf(1)
			for i := range ref {
				for j := i + 1; j < len(ref); j++ {
					if d := m.dist(&ref[i], &ref[j]); d < bd {
						bi, bj, bd = i, j, d
					}
				}
			}
			ref[bi] = m.sum(&ref[bi], &ref[bj])
			ref = slices.Delete(ref, bj, bj+1)
		}
		key := func(a, b vec) int {
			for x := range a.o {
				if a.o[x] != b.o[x] {
					if a.o[x] < b.o[x] {
						return -1
					}
					return 1
				}
			}
			return int(a.v - b.v)
		}
		slices.SortFunc(got, key)
		slices.SortFunc(ref, key)
		if len(got) != len(ref) {
			t.Fatalf("got %d clusters, naive %d", len(got), len(ref))
		}
		for i := range got {
			if got[i].o != ref[i].o || got[i].v != ref[i].v || got[i].lin != ref[i].lin || got[i].sq != ref[i].sq || got[i].far != ref[i].far {
				t.Fatalf("cluster %d: got %v, naive %v", i, got[i], ref[i])
			}
		}
	})
}

// TestDPGridClusteringExact: for DP, where a sum can leave its grid cell,
// the cell-grouped clustering still equals the global algorithm.
func TestDPGridClusteringExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 12).Draw(t, "k")
		p, _ := newDP(k, rapid.IntRange(2, 6).Draw(t, "samples"), 100)
		n := rapid.IntRange(k+1, 50).Draw(t, "n")
		p.o.Distance = Distance(rapid.IntRange(0, 1).Draw(t, "dist"))
		z := make([]dpFn, n)
		jit := tieBreaker(t)
		for i := range z {
			// continuous values: ties would let the two algorithms pick
			// different (equally close) pairs
			z[i].c = DPCluster{Mem: float32(rapid.Float64Range(1, 64).Draw(t, "mem") + jit()), Disk: float32(rapid.Float64Range(1, 64).Draw(t, "disk") + jit()),
				V: int32(rapid.IntRange(1, 4).Draw(t, "v")), L: drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "s")+jit())}
			z[i].c.L.Reduce(p.o.Samples, p.o.Horizon)
			if z[i].c.V > 1 && p.o.Distance == DistMSE {
				for a := range 3 {
					l := rapid.Float64Range(0, 50).Draw(t, "lin")
					z[i].s[a] = Spread{float32(l), float32(l * l), float32(l)}
				}
			}
		}
		m, items := p.prepare(z, &dpWork{})
		if m.g.base < 2 {
			return
		}
		a := agglomerateGrid(slices.Clone(items), k, &m)
		b := agglomerate(slices.Clone(items), k, &m)
		key := func(x, y dpItem) int {
			if x.c.Mem != y.c.Mem {
				if x.c.Mem < y.c.Mem {
					return -1
				}
				return 1
			}
			if x.c.Disk != y.c.Disk {
				if x.c.Disk < y.c.Disk {
					return -1
				}
				return 1
			}
			if x.c.V != y.c.V {
				return int(x.c.V - y.c.V)
			}
			sx, sy := refSum(&x), refSum(&y)
			switch {
			case sx < sy:
				return -1
			case sx > sy:
				return 1
			}
			return 0
		}
		slices.SortFunc(a, key)
		slices.SortFunc(b, key)
		if len(a) != len(b) {
			t.Fatalf("grid %d clusters, global %d", len(a), len(b))
		}
		for i := range a {
			if a[i].c.Mem != b[i].c.Mem || a[i].c.Disk != b[i].c.Disk || a[i].c.V != b[i].c.V || !closeL(&a[i].c.L, &b[i].c.L) {
				t.Fatalf("cluster %d: grid %+v, global %+v", i, a[i].c, b[i].c)
			}
		}
	})
}

// closeL compares two l functions up to rounding (the minimum of two
// functions is computed with the arguments in either order).
func closeL(f, g *LFunc) bool {
	if len(f.P) != len(g.P) || math.Abs(f.Slope-g.Slope) > 1e-9*max(1, f.Slope) {
		return false
	}
	for i := range f.P {
		if math.Abs(f.P[i].T-g.P[i].T) > 1e-9*max(1, math.Abs(f.P[i].T)) || math.Abs(f.P[i].L-g.P[i].L) > 1e-9*max(1, math.Abs(f.P[i].L)) {
			return false
		}
	}
	return true
}

// TestAggregateToOneIsSum: clustering two sampled functions into one gives
// the policy's sum.
func TestAggregateToOneIsSum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := func(name string) float64 { return float64(rapid.IntRange(0, 100).Draw(t, name)) }
		a := IBPCluster{Mem: float32(f("m1")), Disk: float32(f("d1")), V: int32(rapid.IntRange(1, 5).Draw(t, "v1"))}
		b := IBPCluster{Mem: float32(f("m2")), Disk: float32(f("d2")), V: int32(rapid.IntRange(1, 5).Draw(t, "v2"))}
		ibp := &IBP{o: Options{Policy: PolicyIBP, SFMax: 1}}
		if got := asIBP(ibp.Aggregate(IBPSummary{a}, IBPSummary{b})); len(got) != 1 || got[0] != ibp.Sum(&a, &b) {
			t.Fatalf("IBP: %v, want %v", got, ibp.Sum(&a, &b))
		}
		c := MMPCluster{Mem: float32(f("m1")), Disk: float32(f("d1")), Power: float32(f("s1")), Q: f("q1"), V: 1}
		d := MMPCluster{Mem: float32(f("m2")), Disk: float32(f("d2")), Power: float32(f("s2")), Q: f("q2"), V: 2}
		mmp := &MMP{o: Options{Policy: PolicyMMP, SFMax: 1, Beta: 0.5}}
		want := MMPCluster{Mem: min(c.Mem, d.Mem), Disk: min(c.Disk, d.Disk), Power: min(c.Power, d.Power), Q: max(c.Q, d.Q), V: 3}
		// the nodes' spread: c covers 1 node, d 2; deviations from the sum
		dev := [4][2]float64{{float64(c.Mem - want.Mem), float64(d.Mem - want.Mem)}, {float64(c.Disk - want.Disk), float64(d.Disk - want.Disk)},
			{float64(c.Power - want.Power), float64(d.Power - want.Power)}, {want.Q - c.Q, want.Q - d.Q}}
		var wantS []Spread
		for _, e := range dev {
			wantS = append(wantS, Spread{float32(e[0] + 2*e[1]), float32(e[0]*e[0] + 2*e[1]*e[1]), float32(max(e[0], e[1]))})
		}
		if mmp.Sum(&c, &d) != want {
			t.Fatalf("MMP sum %v, want %v", mmp.Sum(&c, &d), want)
		}
		got, gotS := plainOf[MMPSummary](mmp.Aggregate(MMPSummary{c}, MMPSummary{d}))
		if gotS == nil {
			gotS = make([]Spread, 4)
		}
		if len(got) != 1 || got[0] != want || !slices.Equal(gotS, wantS) {
			t.Fatalf("MMP: %v %v, want %v %v", got, gotS, want, wantS)
		}
	})
}
