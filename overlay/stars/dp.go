// Package stars holds the authors' implementation choices (their tool,
// STaRS, read in the versions named in docs/reproduction-004.md) that
// depart from the paper's text, so that the §7.1 experiment can measure
// what they change (docs/reproduction-004.md): their approximate
// clustering (KNN), their grid cells (Cells) and their DP l clustering
// (DP). They plug into package overlay through its extension points
// (overlay.Options.Clustering and .Cells, overlay.Items,
// overlay.Agglomerate); the overlay's routers always run Fig. 3 exactly
// unless given one of these.
package stars

import (
	"fmt"
	"math"
	"slices"

	"github.com/volsched/volsched/overlay"
)

// DP is policy DP with the authors' l clustering (their
// DPAvailabilityInformation and LDeltaFunction), for the §7.1 experiment:
// it departs from the paper's text, which it is used to explain, so it is
// not the default. Per cluster c it keeps
// the pointwise maximum M_c of its nodes' l and an accumulated l loss A_c.
// The sum of a and b has the exact minimum h = min(l_a, l_b) (not reduced
// to a number of samples: the authors' reduction was commented out) and
//
//	A = A_a + A_b + Σ over [t0, H], where I is the higher of a and b:
//	    v_I ∫(l_I − h)² + ∫(l_I − h)·M_I
//
// (each piece clamped at 0), the authors' approximation of the nodes'
// squared deviation Σ_u ∫(l_u − h)² (the exact cross term would be
// 2∫(l_I − h)·Σ_{u∈I}(l_u − l_I)). [t0, H] runs from the summary's
// earliest sample to its latest breakpoint (at least t0 + 1 s). The
// distance is, with the nodes' ranges of memory and disk as for overlay.DistMSE,
//
//	Sq_M/(v·Δm²) + Sq_D/(v·Δd²) + A/(v·R),   R = ∫(max_u l_u − min_u l_u)²
//
// and two functions are "far" (in different grid cells, floor(SF_max^(1/3))
// intervals per axis) when their memory or disk cells differ, when one is a
// free node's ramp and the other not, or when their l cells differ, the l
// cell of c being floor(n·∫(l_c − min_u l_u)²/R). Integrals are exact for
// the piecewise-linear functions.
//
// min_u l_u and max_u l_u are the summary's minimum and maximum functions
// as the authors kept them: folded over the joins of the tree (left
// first), each join's result exact up to the left function's last sample
// (the right one's when the left is a free node's ramp) and continued
// after it with the smaller (minimum) or larger (maximum) final slope.
// Not reproduced: their sum's minimum also continues with the smaller
// slope after H (ours is exact there; it is outside every integral).
//
// Leaves are plain overlay.DPSummary values whose l is not reduced (the
// authors did not reduce it); the summaries DP builds are *Summary.
// Forwarding is overlay's DP on their plain functions. A free node's l is
// a ramp from time 0, the accuracy test's now (free).
type DP struct {
	o     overlay.Options
	inner overlay.Rules // overlay's DP, for forwarding
}

// NewDP builds DP from o: policy dp, distance mse (memory and disk are
// measured as overlay.DistMSE measures them); o.Clustering (e.g. KNN) and
// o.Cells (e.g. Cells) apply to it as to overlay's policies.
func NewDP(o overlay.Options) (*DP, error) {
	if o.Policy != overlay.PolicyDP {
		return nil, fmt.Errorf("distance stars is the authors' DP l clustering, for policy dp only (for %s the authors' distance is mse)", o.Policy)
	}
	if o.Distance != overlay.DistMSE {
		return nil, fmt.Errorf("distance stars: memory and disk are measured as by distance mse, not %s", o.Distance)
	}
	inner, err := overlay.NewRules(o)
	if err != nil {
		return nil, err
	}
	return &DP{o: o, inner: inner}, nil
}

func (*DP) Policy() overlay.Policy     { return overlay.PolicyDP }
func (p *DP) Options() overlay.Options { return p.o }

// Equal compares two of DP's summaries (functions and what the distance
// keeps) or two plain ones.
func (p *DP) Equal(x, y overlay.Summary) bool {
	sx, okx := x.(*Summary)
	sy, oky := y.(*Summary)
	if okx || oky {
		return okx && oky && sx.equal(sy)
	}
	return p.inner.Equal(x, y)
}

// Forward is overlay's DP forwarding on the summaries' plain functions.
func (p *DP) Forward(f *overlay.Fork, req overlay.Request, now float64) overlay.Split {
	g := *f
	g.LeftInfo, g.RightInfo = overlay.Plain(f.LeftInfo), overlay.Plain(f.RightInfo)
	return p.inner.Forward(&g, req, now)
}

func (*DP) MaxQueue(overlay.Summary) float64 { return math.Inf(-1) }

// Plain returns the summary's plain functions (overlay.Plain).
func (s *Summary) Plain() overlay.Summary { return s.vals }

// Summary is a DP summary clustered by DP: the plain functions (what
// forwarding reads) and, per function, what the distance needs. It is
// immutable, like every summary.
type Summary struct {
	vals   overlay.DPSummary
	ext    []ext
	lo, hi overlay.LFunc // the nodes' minimum and maximum l, as the authors' (see DistStars)
	hz     float64       // the nodes' horizon: the latest of their last samples (a free node's: now + 1 s)
}

// ext is what DP keeps per function beyond its value.
type ext struct {
	sm, sd overlay.Spread // memory and disk spreads (as DistMSE)
	max    overlay.LFunc  // pointwise maximum of the nodes' l
	asq    float64        // the authors' accumulated l loss
}

func (s *Summary) equal(t *Summary) bool {
	if len(s.vals) != len(t.vals) {
		return false
	}
	for i := range s.vals {
		a, b, e, f := &s.vals[i], &t.vals[i], &s.ext[i], &t.ext[i]
		if a.Mem != b.Mem || a.Disk != b.Disk || a.V != b.V || !a.L.Equal(&b.L) ||
			e.sm != f.sm || e.sd != f.sd || e.asq != f.asq || !e.max.Equal(&f.max) {
			return false
		}
	}
	return true
}

func (s *Summary) Nodes() int { return s.vals.Nodes() }
func (s *Summary) Len() int   { return len(s.vals) }

// Bytes adds the spreads, the maximum function and the loss.
func (s *Summary) Bytes() int {
	b := s.vals.Bytes()
	for i := range s.ext {
		b += 24 + 8 + 8 + 12*len(s.ext[i].max.P)
	}
	return b
}

// item is a function during DP's clustering.
type item struct {
	c    overlay.DPCluster
	e    ext
	cell uint32
}

// starsItems appends the functions of x to dst (a plain
// overlay.DPSummary's functions are sets of identical nodes: max = l, no
// loss).
func starsItems(dst []item, x overlay.Summary) []item {
	switch v := x.(type) {
	case nil:
	case *Summary:
		for i := range v.vals {
			dst = append(dst, item{c: v.vals[i], e: v.ext[i]})
		}
	case overlay.DPSummary:
		for i := range v {
			dst = append(dst, item{c: v[i], e: ext{max: v[i].L}})
		}
	default:
		panic(fmt.Sprintf("stars: a summary of type %T: want a plain overlay.DPSummary or a *stars.Summary", x))
	}
	return dst
}

// metric is DistStars with the summary's window, ranges and grid
// fixed.
type metric struct {
	t0, h    float64
	wm2, wd2 float64       // 1/Δ² of memory and disk (0 for a zero range)
	ra       float64       // 1/R (0 when R = 0)
	lo       overlay.LFunc // the nodes' minimum l
	g        grid
	ts       []float64 // scratch breakpoints
}

func (m *metric) computeCell(c *item) uint32 {
	if m.g.base < 2 {
		return 0
	}
	var free uint32
	if starsFree(&c.c.L) {
		free = 1
	}
	lc := m.g.cell(2, sqdiffLFunc(&c.c.L, &m.lo, m.t0, m.h, &m.ts))
	return uint32(m.g.cell(0, float64(c.c.Mem))) | uint32(m.g.cell(1, float64(c.c.Disk)))<<8 |
		uint32(lc)<<16 | free<<24
}

// loss is A of the sum of x and y.
func (m *metric) loss(x, y *item) float64 {
	return x.e.asq + y.e.asq + starsLoss(&x.c.L, &y.c.L, float64(x.c.V), float64(y.c.V), &x.e.max, &y.e.max, m.t0, m.h, &m.ts)
}

func (m *metric) plain(x, y *item) float64 {
	a, b := &x.c, &y.c
	va, vb := float64(a.V), float64(b.V)
	hm, hd := min(a.Mem, b.Mem), min(a.Disk, b.Disk)
	sm := overlay.CombinedSq(x.e.sm, va, float64(a.Mem)-float64(hm), y.e.sm, vb, float64(b.Mem)-float64(hm))
	sd := overlay.CombinedSq(x.e.sd, va, float64(a.Disk)-float64(hd), y.e.sd, vb, float64(b.Disk)-float64(hd))
	return (sm*m.wm2 + sd*m.wd2 + m.loss(x, y)*m.ra) / (va + vb)
}

func (m *metric) dist(x, y *item) float64 {
	d := m.plain(x, y)
	if x.cell != y.cell {
		d += m.g.pen
	}
	return d
}

func (m *metric) sum(x, y *item) item {
	a, b := &x.c, &y.c
	va, vb := float64(a.V), float64(b.V)
	l := overlay.MinLFunc(&a.L, &b.L)
	h := item{c: overlay.DPCluster{Mem: min(a.Mem, b.Mem), Disk: min(a.Disk, b.Disk), V: a.V + b.V, L: truncAt(&l, m.h, min(a.L.Slope, b.L.Slope))}}
	h.e.sm = overlay.CombineSpreads(x.e.sm, va, float64(a.Mem)-float64(h.c.Mem), y.e.sm, vb, float64(b.Mem)-float64(h.c.Mem))
	h.e.sd = overlay.CombineSpreads(x.e.sd, va, float64(a.Disk)-float64(h.c.Disk), y.e.sd, vb, float64(b.Disk)-float64(h.c.Disk))
	h.e.max = truncEnvelope(&x.e.max, &y.e.max, true)
	h.e.asq = m.loss(x, y)
	h.cell = m.computeCell(&h)
	return h
}

// starsRange returns the authors' minimum and maximum l of the nodes of x
// and their horizon (false for the empty summary).
func starsRange(x overlay.Summary) (lo, hi overlay.LFunc, hz float64, ok bool) {
	if v, ok := x.(*Summary); ok {
		return v.lo, v.hi, v.hz, true
	}
	vals, _ := x.(overlay.DPSummary)
	hz = math.Inf(-1)
	for i := range vals {
		if i == 0 {
			lo, hi = vals[i].L, vals[i].L
		} else {
			lo, hi = truncEnvelope(&lo, &vals[i].L, false), truncEnvelope(&hi, &vals[i].L, true)
		}
		hz = max(hz, starsHorizon(&vals[i].L))
	}
	return lo, hi, hz, len(vals) > 0
}

// starsHorizon is a node's horizon as the authors' LDeltaFunction::getHorizon:
// its last sample, or now + 1 s for a free node.
func starsHorizon(f *overlay.LFunc) float64 {
	if starsFree(f) {
		return starsNow + 1
	}
	return f.P[len(f.P)-1].T
}

// truncEnvelope is the authors' minimum (upper: maximum) of f and g kept
// for a summary: exact up to f's last sample (g's when f is a free node's
// ramp), then linear with the smaller (larger) slope.
func truncEnvelope(f, g *overlay.LFunc, upper bool) overlay.LFunc {
	var e overlay.LFunc
	if upper {
		e = overlay.MaxLFunc(f, g)
	} else {
		e = overlay.MinLFunc(f, g)
	}
	h := f
	if starsFree(f) {
		h = g
	}
	if starsFree(h) || len(e.P) == 0 {
		return e // two free nodes' ramps: their envelope is a ramp
	}
	t := h.P[len(h.P)-1].T
	v := e.At(t)
	k := 0
	for k < len(e.P) && e.P[k].T < t {
		k++
	}
	out := overlay.LFunc{P: append(slices.Clone(e.P[:k]), overlay.LPoint{T: t, L: v}), Slope: min(f.Slope, g.Slope)}
	if upper {
		out.Slope = max(f.Slope, g.Slope)
	}
	return keepLast(out)
}

// keepLast compacts f but keeps its last sample, which marks the horizon
// the authors' functions end at (and tells a busy envelope from a free
// node's ramp: see starsFree).
func keepLast(f overlay.LFunc) overlay.LFunc {
	last := f.P[len(f.P)-1]
	f.Compact()
	if f.P[len(f.P)-1].T < last.T {
		f.P = append(f.P, last)
	}
	return f
}

// starsNow is the time of the accuracy test, the only place DistStars
// runs (a free node's l is a ramp from it).
const starsNow = 0.0

// starsFree says whether f is a free node's l as the authors' code tells
// it (LDeltaFunction::isFree: no sample, available from now on): a single
// sample at now. A node whose only task is running also has a single
// sample, at that task's end, and is not free.
func starsFree(f *overlay.LFunc) bool {
	return len(f.P) == 0 || len(f.P) == 1 && f.P[0].L == 0 && f.P[0].T <= starsNow
}

// truncAt is f kept up to h, then linear from f(h) with the given slope:
// the authors' minimum of two cluster functions (LDeltaFunction::minAndLoss)
// steps up to the summary's horizon h, ends with the point (h, min) and
// takes the smaller final slope, which under-estimates the minimum beyond
// h when the lower function at h is the steeper one.
func truncAt(f *overlay.LFunc, h, slope float64) overlay.LFunc {
	if starsFree(f) {
		return *f // free nodes only (or nothing): a ramp from now
	}
	k := 0
	for k < len(f.P) && f.P[k].T < h {
		k++
	}
	return keepLast(overlay.LFunc{P: append(f.P[:k:k], overlay.LPoint{T: h, L: f.At(h)}), Slope: slope})
}

// Aggregate is Fig. 3 with the authors' distance (or o.Clustering) over
// the union of x and y (x's functions, then y's).
func (p *DP) Aggregate(x, y overlay.Summary) overlay.Summary {
	if x == nil && y == nil {
		return nil
	}
	z := starsItems(starsItems(make([]item, 0, lenOf(x)+lenOf(y)), x), y)
	lo, hi, hz, okx := starsRange(x)
	if ly, hy, hzy, oky := starsRange(y); !okx {
		lo, hi, hz = ly, hy, hzy
	} else if oky {
		lo, hi, hz = truncEnvelope(&lo, &ly, false), truncEnvelope(&hi, &hy, true), max(hz, hzy)
	}
	keep := make([]int, len(z))
	for i := range keep {
		keep[i] = i
	}
	if len(z) > p.o.SFMax {
		it := &items{z: z, m: p.prepare(z, lo, hi, hz)}
		switch {
		case p.o.Clustering != nil:
			keep = p.o.Clustering.Cluster(it, p.o.SFMax)
		case it.m.g.base >= 2:
			keep = overlay.AgglomerateGrid(it, p.o.SFMax)
		default:
			keep = overlay.Agglomerate(it, p.o.SFMax)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	s := &Summary{vals: make(overlay.DPSummary, len(keep)), ext: make([]ext, len(keep)), lo: lo, hi: hi, hz: hz}
	for i, k := range keep {
		s.vals[i], s.ext[i] = z[k].c, z[k].e
	}
	return s
}

// prepare fixes the window, the ranges and the grid of z (lo and hi: the
// nodes' minimum and maximum l) and sets the items' cells.
func (p *DP) prepare(z []item, lo, hi overlay.LFunc, hz float64) *metric {
	inf := math.Inf(1)
	lm, hm, ld, hd, t0 := inf, -inf, inf, -inf, inf
	nodes := 0
	m := &metric{lo: lo}
	for i := range z {
		c := &z[i].c
		nodes += int(c.V)
		lm, hm = min(lm, float64(c.Mem)), max(hm, float64(c.Mem)+float64(z[i].e.sm.Far))
		ld, hd = min(ld, float64(c.Disk)), max(hd, float64(c.Disk)+float64(z[i].e.sd.Far))
		for _, f := range []*overlay.LFunc{&c.L, &z[i].e.max} {
			if len(f.P) > 0 {
				t0 = min(t0, f.P[0].T)
			}
		}
	}
	if math.IsInf(t0, 1) {
		t0 = 0
	}
	// up to the nodes' horizon (the authors' reference->horizon), a window
	// of at least a second
	m.t0, m.h = t0, max(hz, t0+1)
	im, id := inv(span(lm, hm)), inv(span(ld, hd))
	m.wm2, m.wd2 = im*im, id*id
	r := sqdiffLFunc(&hi, &m.lo, m.t0, m.h, &m.ts)
	m.ra = inv(r)
	if !p.o.NoGrid {
		m.g = newGrid(p.o.SFMax, p.o.Cells, [3]float64{lm, ld, 0}, [3]float64{im, id, m.ra}, [3]float64{span(lm, hm), span(ld, hd), r})
	}
	for i := range z {
		z[i].cell = m.computeCell(&z[i])
	}
	return m
}

// breaks returns in *buf the sorted distinct sample times of fs strictly
// inside (t0, h), with t0 and h at the ends.
func breaks(buf *[]float64, t0, h float64, fs ...*overlay.LFunc) []float64 {
	ts := append((*buf)[:0], t0, h)
	for _, f := range fs {
		for _, q := range f.P {
			if q.T > t0 && q.T < h {
				ts = append(ts, q.T)
			}
		}
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	*buf = ts
	return ts
}

// sqdiffLFunc is ∫(f − g)² over [t0, h] (exact: f − g is linear between
// breakpoints).
func sqdiffLFunc(f, g *overlay.LFunc, t0, h float64, buf *[]float64) float64 {
	if !(h > t0) {
		return 0
	}
	ts := breaks(buf, t0, h, f, g)
	wf, wg := lwalk{f: f}, lwalk{f: g}
	d0 := wf.at(ts[0]) - wg.at(ts[0])
	s := 0.0
	for _, t := range ts[1:] {
		d1 := wf.at(t) - wg.at(t)
		s += (t - ts[0]) * (d0*d0 + d0*d1 + d1*d1) / 3
		ts[0], d0 = t, d1
	}
	return s
}

// starsLoss is the authors' l loss of summing a (va nodes, maximum ma)
// and b (vb, mb) over [t0, h]: on each piece where I is the higher of the
// two and D = l_I − min(a, b) and M_I are linear, v_I∫D² + ∫D·M_I, each
// clamped at 0 (see DP).
func starsLoss(a, b *overlay.LFunc, va, vb float64, ma, mb *overlay.LFunc, t0, h float64, buf *[]float64) float64 {
	if !(h > t0) {
		return 0
	}
	ts := breaks(buf, t0, h, a, b, ma, mb)
	wa, wb, wma, wmb := lwalk{f: a}, lwalk{f: b}, lwalk{f: ma}, lwalk{f: mb}
	u := ts[0]
	fa, fb, ca, cb := wa.at(u), wb.at(u), wma.at(u), wmb.at(u)
	s := 0.0
	piece := func(dt, fa0, fb0, ca0, cb0, fa1, fb1, ca1, cb1 float64) {
		// I: the higher over the piece (they do not cross inside), told by
		// the midpoint: at a crossing the two are equal up to rounding
		d0, d1, c0, c1, v := fa0-fb0, fa1-fb1, ca0, ca1, va
		if fa0+fa1 < fb0+fb1 {
			d0, d1, c0, c1, v = -d0, -d1, cb0, cb1, vb
		}
		s += max(0, v*dt*(d0*d0+d0*d1+d1*d1)/3)
		s += max(0, dt*(2*d0*c0+d0*c1+d1*c0+2*d1*c1)/6)
	}
	for _, w := range ts[1:] {
		ga, gb, da, db := wa.at(w), wb.at(w), wma.at(w), wmb.at(w)
		if e0, e1 := fa-fb, ga-gb; e0*e1 < 0 {
			x := e0 / (e0 - e1) // crossing at u + x·(w − u)
			lerp := func(p, q float64) float64 { return p + x*(q-p) }
			xa, xb, xma, xmb := lerp(fa, ga), lerp(fb, gb), lerp(ca, da), lerp(cb, db)
			piece(x*(w-u), fa, fb, ca, cb, xa, xb, xma, xmb)
			piece((1-x)*(w-u), xa, xb, xma, xmb, ga, gb, da, db)
		} else {
			piece(w-u, fa, fb, ca, cb, ga, gb, da, db)
		}
		u, fa, fb, ca, cb = w, ga, gb, da, db
	}
	return s
}

// items are DP's functions during a clustering, as overlay.Items.
type items struct {
	z []item
	m *metric
}

func (x *items) Len() int               { return len(x.z) }
func (x *items) Dist(i, j int) float64  { return x.m.dist(&x.z[i], &x.z[j]) }
func (x *items) Plain(i, j int) float64 { return x.m.plain(&x.z[i], &x.z[j]) }
func (x *items) Cell(i int) uint32      { return x.z[i].cell }
func (x *items) Nodes(i int) float64    { return float64(x.z[i].c.V) }
func (x *items) Merge(i, j int)         { x.z[i] = x.m.sum(&x.z[i], &x.z[j]) }
func (x *items) Attr(i, a int) float64 {
	if a == 0 {
		return float64(x.z[i].c.Mem)
	}
	return float64(x.z[i].c.Disk)
}

// lenOf is x.Len(), 0 for the empty summary.
func lenOf(x overlay.Summary) int {
	if x == nil {
		return 0
	}
	return x.Len()
}

// span returns max − min, or 0 (as overlay's).
func span(lo, hi float64) float64 {
	if hi > lo {
		return hi - lo
	}
	return 0
}

// inv returns 1/x, or 0 when x is 0 (as overlay's).
func inv(x float64) float64 {
	if x > 0 {
		return 1 / x
	}
	return 0
}

// lwalk evaluates an l function at nondecreasing times in one pass
// (LFunc.At's values).
type lwalk struct {
	f *overlay.LFunc
	i int // samples with T <= the last t
}

func (w *lwalk) at(t float64) float64 {
	p := w.f.P
	for w.i < len(p) && p[w.i].T <= t {
		w.i++
	}
	var v float64
	switch {
	case w.i == 0:
		return 0
	case w.i == len(p):
		v = p[w.i-1].L + w.f.Slope*(t-p[w.i-1].T)
	default:
		a, b := p[w.i-1], p[w.i]
		if b.T > a.T {
			v = a.L + (b.L-a.L)*(t-a.T)/(b.T-a.T)
		} else {
			v = a.L
		}
	}
	return max(v, 0)
}
