package overlay

import (
	"math"
	"sync"
)

// vec is the clustering representation of a sampled function whose
// attributes are scalars summed by a minimum or a maximum (IBP, MMP):
// each attribute is normalized to [0, 1] by the summary's range and
// oriented so that the conservative sum is always the minimum (a maximum
// attribute, like MMP's queue end, is flipped). o keeps the original values
// so that sums stay exact.
type vec struct {
	n    [4]float64 // normalized, oriented: sum = min
	o    [4]float64 // original values
	lin  [4]float64 // Spread.Lin per attribute (original units)
	sq   [4]float64 // Spread.Sq per attribute
	far  [4]float64 // Spread.Far per attribute
	v    float64
	cell uint32 // grid cell, one byte per attribute
	id   int32
}

// vecMetric is the distance on vecs. DistMSE: Σ_attr Sq_h/(v_h·Δ²), the
// mean squared deviation of the nodes from the sum h (see Distance), plus
// one penalty if the grid cells differ. DistLoss: the availability the sum
// loses, Σ_attr v_a(a − h) + v_b(b − h) with h = min(a, b) in normalized
// units, plus the grid penalty per attribute whose cells differ. isMax marks
// the attributes whose original sum is a maximum.
type vecMetric struct {
	d     int
	isMax [4]bool
	base  int
	pen   float64
	mse   bool
	w2    [4]float64 // 1/Δ² per attribute (original units)
	// cells is the grid's cell rule of Options.Cells (nil: gridCell on the
	// normalized value); it is given the value x − lo and the span Δ of
	// each attribute, whatever the attribute's direction.
	cells    Cells
	lo, span [4]float64
}

func (m *vecMetric) dist(a, b *vec) float64 {
	if m.mse {
		return m.distMSE(a, b)
	}
	var s float64
	for k := 0; k < m.d; k++ {
		x, y := a.n[k], b.n[k]
		if x > y {
			s += a.v * (x - y)
		} else {
			s += b.v * (y - x)
		}
	}
	if a.cell != b.cell {
		diff := a.cell ^ b.cell
		for k := 0; k < m.d; k++ {
			if diff&(0xff<<(8*k)) != 0 {
				s += m.pen
			}
		}
	}
	return s
}

// distMSE is the DistMSE distance: the sum's spread in every attribute
// (spreadSum, in float64), normalized.
func (m *vecMetric) distMSE(a, b *vec) float64 {
	var s float64
	for k := 0; k < m.d; k++ {
		x, y := a.o[k], b.o[k]
		var da, db float64
		if m.isMax[k] == (x > y) {
			db = math.Abs(x - y) // a holds the sum's value
		} else {
			da = math.Abs(x - y)
		}
		_, sa := spreadSide(a.lin[k], a.sq[k], a.v, da)
		_, sb := spreadSide(b.lin[k], b.sq[k], b.v, db)
		s += (sa + sb) * m.w2[k]
	}
	s /= a.v + b.v
	if a.cell != b.cell {
		s += m.pen
	}
	return s
}

func (m *vecMetric) sum(a, b *vec) vec {
	var h vec
	h.v = a.v + b.v
	h.id = -1
	for k := 0; k < m.d; k++ {
		h.n[k] = min(a.n[k], b.n[k])
		if m.isMax[k] {
			h.o[k] = max(a.o[k], b.o[k])
		} else {
			h.o[k] = min(a.o[k], b.o[k])
		}
		da, db := math.Abs(a.o[k]-h.o[k]), math.Abs(b.o[k]-h.o[k])
		la, sa := spreadSide(a.lin[k], a.sq[k], a.v, da)
		lb, sb := spreadSide(b.lin[k], b.sq[k], b.v, db)
		h.lin[k], h.sq[k], h.far[k] = la+lb, sa+sb, max(a.far[k]+da, b.far[k]+db)
	}
	h.cell = m.computeCell(&h)
	return h
}

func (m *vecMetric) cellOf(c *vec) uint32 { return c.cell }

func (m *vecMetric) computeCell(c *vec) uint32 {
	if m.base < 2 {
		return 0
	}
	var code uint32
	for k := 0; k < m.d; k++ {
		var x int
		if m.cells != nil {
			x = m.cells.Cell(c.o[k]-m.lo[k], m.span[k], m.base)
		} else {
			x = gridCell(c.n[k], m.base)
		}
		code |= uint32(x) << (8 * k)
	}
	return code
}

// clusterVecs normalizes the d attributes of vs (o, lin, sq and v set),
// clusters them down to k and returns the result (a prefix of vs).
func clusterVecs(vs []vec, d, k int, isMax [4]bool, gs gridSpec, dist Distance) []vec {
	if len(vs) <= k {
		return vs
	}
	m := prepareVecs(vs, d, k, isMax, gs, dist)
	if m.base >= 2 {
		return agglomerateGrid(vs, k, &m)
	}
	return agglomerate(vs, k, &m)
}

// prepareVecs normalizes vs and returns the metric of the clustering.
func prepareVecs(vs []vec, d, k int, isMax [4]bool, gs gridSpec, dist Distance) vecMetric {
	var lo, hi [4]float64
	for j := 0; j < d; j++ {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	nodes := 0.0
	for i := range vs {
		for j := 0; j < d; j++ {
			lo[j], hi[j] = min(lo[j], vs[i].o[j]), max(hi[j], vs[i].o[j])
			if dist == DistMSE {
				// the range of the nodes' values, not of the functions'
				if isMax[j] {
					lo[j] = min(lo[j], vs[i].o[j]-vs[i].far[j])
				} else {
					hi[j] = max(hi[j], vs[i].o[j]+vs[i].far[j])
				}
			}
		}
		nodes += vs[i].v
	}
	m := vecMetric{d: d, isMax: isMax, mse: dist == DistMSE, cells: gs.cells, lo: lo}
	if !gs.none {
		b := gridBase(k, d, dist)
		if b >= 2 && b <= 255 {
			m.base = b
			m.pen = nodes*float64(d+1) + 1 // above any loss within cells
			if m.mse {
				m.pen = msePenalty
			}
		}
	}
	var ws [4]float64
	for j := 0; j < d; j++ {
		ws[j] = inv(span(lo[j], hi[j]))
		m.w2[j] = ws[j] * ws[j]
		m.span[j] = span(lo[j], hi[j])
	}
	for i := range vs {
		c := &vs[i]
		for j := 0; j < d; j++ {
			w := ws[j]
			if isMax[j] {
				c.n[j] = (hi[j] - c.o[j]) * w
			} else {
				c.n[j] = (c.o[j] - lo[j]) * w
			}
		}
		c.cell = m.computeCell(c)
	}
	return m
}

// setSpreads and getSpreads copy a function's spreads to and from v.
func (v *vec) setSpreads(s []Spread) {
	for k := range s {
		v.lin[k], v.sq[k], v.far[k] = float64(s[k].Lin), float64(s[k].Sq), float64(s[k].Far)
	}
}

func (v *vec) getSpreads(s []Spread) {
	for k := range s {
		s[k] = toSpread(v.lin[k], v.sq[k], v.far[k])
	}
}

type vecWork struct{ vs []vec }

var vecPool = sync.Pool{New: func() any { return new(vecWork) }}

func (w *vecWork) get(n int) []vec {
	if cap(w.vs) < n {
		w.vs = make([]vec, n)
	}
	return w.vs[:n]
}

// vecKind is what aggregateVecs needs of a policy whose functions are
// clustered as vecs (IBP, MMP): the number of attributes, those summed by
// a maximum, the conversions (in place), the scratch pool and the
// comparison and merges of identical functions.
type vecKind[C any] struct {
	d       int
	isMax   [4]bool
	pool    *sync.Pool
	ops     *fnOps[C]
	cmpVals func(a, b C) int
	add     func(a, b *C)
	toVec   func(v *vec, f *fn[C])
	fromVec func(f *fn[C], v *vec, spread bool)
}

// aggregateVecs is Aggregate for a vecKind policy: the union of x and y
// (merged directly when both are plain and fit k), clustered down to k
// functions when it holds more.
func aggregateVecs[S plainSummary[C], C any](kd *vecKind[C], x, y Summary, k int, gs gridSpec, dist Distance) Summary {
	if s, ok := plainUnion[S](x, y, k, kd.cmpVals, kd.add); ok {
		return s
	}
	z, scratch := unionOf[S](kd.pool, x, y, kd.d, kd.ops, dist)
	defer scratch.done()
	if len(z) <= k {
		return summaryOf[S](z, kd.d)
	}
	w := vecPool.Get().(*vecWork)
	defer vecPool.Put(w)
	vs := w.get(len(z))
	for i := range z {
		kd.toVec(&vs[i], &z[i])
	}
	vs = clusterVecs(vs, kd.d, k, kd.isMax, gs, dist)
	out := z[:len(vs)]
	for i := range vs {
		kd.fromVec(&out[i], &vs[i], dist == DistMSE)
	}
	return summaryOf[S](sortDedup(out, kd.ops.cmp, kd.ops.sortBy, kd.ops.mergeFor(dist)), kd.d)
}
