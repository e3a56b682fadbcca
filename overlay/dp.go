package overlay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// PolicyDP is the deadline policy (§6.3): EDF queues.
var PolicyDP = MustRegisterPolicy(PolicyDef{Name: "dp", ID: 3, SFMax: 216, Bandwidth: 1000, Deadlines: true,
	Rules: func(o Options) (Rules, error) { return &DP{o: o}, nil },
	Exec: func(hw Hardware, o Options) Exec {
		return &DPExec{Mem: hw.Mem, Disk: hw.Disk, Power: hw.Power, Samples: o.Samples, Horizon: o.Horizon}
	},
	Codec: dpCodec{}})

// dpRefs is the number of reference deadlines at which the DP distance
// compares l functions.
const dpRefs = 16

// DPCluster is a sampled function of the DP policy (§6.3.1): V nodes with
// at least Mem MB and Disk MB and at least L(δ) MFLOP available before any
// deadline δ.
type DPCluster struct {
	Mem, Disk float32 // rounded down from the node's values (f32down)
	V         int32
	L         LFunc
}

// dpFn is a DP function with its nodes' spread in memory, disk and l
// (DistMSE; see spread.go). For l, a node's deviation is the mean over the
// reference deadlines of the aggregation that formed the function (dpRefs
// deadlines evenly spaced over the summary's window) of l_u(δ_k) − l(δ_k),
// and Sq the sum of the mean squares; the cross term of the combination is
// approximated (dpMetric.sum). Far is kept for memory and disk only.
type dpFn = fn[DPCluster]

// dpOps are the comparison and merges of identical DP functions.
var dpOps = newFnOps(cmpDP, addDP)

var dpFnPool = sync.Pool{New: func() any { return new(fnWork[DPCluster]) }}

// dpItem is a DPCluster during clustering, with its spread, its l at the
// reference deadlines and its grid cell (kept out of DPCluster to keep
// stored summaries small).
type dpItem struct {
	c    DPCluster
	s    [3]Spread
	ref  [dpRefs]float64
	cell uint32
}

// DPSummary is a DP availability summary (wrapped with spreads above the
// level where clustering starts, see spread.go; asDP reads both).
type DPSummary []DPCluster

func (s DPSummary) Nodes() int {
	n := 0
	for i := range s {
		n += int(s[i].V)
	}
	return n
}
func (s DPSummary) Len() int       { return len(s) }
func (DPSummary) Policy() Policy   { return PolicyDP }
func (s DPSummary) Plain() Summary { return s }
func (s DPSummary) Bytes() int {
	b := 0
	for i := range s {
		b += 16 + 12*len(s[i].L.P) // M, D, v, slope; (float64 δ, float32 l) per sample
	}
	return b
}

// dpCodec is DP's encoding (wire.go): per function mem:f32 disk:f32
// v:uvarint slope:f64 and its l samples (Encoder.LPoints), then with the
// flag its 3 spreads.
type dpCodec struct{}

func (dpCodec) Flag(s Summary) bool { return spreadFlag[DPSummary](s) }

func (dpCodec) Append(e *Encoder, s Summary) {
	v, sp := plainOf[DPSummary](s)
	b := binary.AppendUvarint(e.b, uint64(len(v)))
	for i := range v {
		b = appendF32(b, v[i].Mem)
		b = appendF32(b, v[i].Disk)
		b = binary.AppendUvarint(b, uint64(v[i].V))
		b = appendF64(b, v[i].L.Slope)
		b = e.appendLPoints(b, v[i].L.P)
		if sp != nil {
			b = appendSpreads(b, sp[3*i:3*i+3])
		}
	}
	e.b = b
}

func (dpCodec) Read(d *Decoder, flag bool) Summary {
	return readFns[DPSummary](d, flag, 3, 18, func(d *Decoder, c *DPCluster) {
		*c = DPCluster{Mem: d.F32("memory"), Disk: d.F32("disk"), V: readV(d)}
		c.L.Slope = d.F64("l slope")
		c.L.P = d.LPoints("l samples")
	})
}

func (dpCodec) Validate(s Summary) error {
	v, err := validWrap[DPSummary](s, 3)
	if err != nil {
		return err
	}
	for i := range v {
		if err := errors.Join(validF32("memory", i, v[i].Mem), validF32("disk", i, v[i].Disk), validV(i, v[i].V),
			validL(i, &v[i].L)); err != nil {
			return err
		}
	}
	return nil
}

// DP is the deadline policy: EDF local queues with an admission test;
// sampled functions carry l(δ); the sum is the pointwise minimum reduced
// to Samples samples without ever over-estimating; forwarding prefers the
// nodes with the least computation available before the deadline.
type DP struct {
	o Options
}

func (*DP) Policy() Policy     { return PolicyDP }
func (p *DP) Options() Options { return p.o }

func asDP(s Summary) DPSummary {
	v, _ := plainOf[DPSummary, DPCluster](s)
	return v
}

// Sum is the conservative sum of two DP sampled functions.
func (p *DP) Sum(a, b *DPCluster) DPCluster {
	h := DPCluster{Mem: min(a.Mem, b.Mem), Disk: min(a.Disk, b.Disk), V: a.V + b.V, L: MinLFunc(&a.L, &b.L)}
	h.L.Reduce(p.o.Samples, p.o.Horizon)
	return h
}

// dpMetric is the DP distance with the summary's ranges fixed.
//
// DistMSE (the authors' measure): memory and disk as for IBP; for l, the
// mean squared deviation of the nodes' l from the sum's over the window
// [t0, H] of the summary (t0 its earliest sample, H its latest breakpoint;
// the authors integrate over [now, horizon], we average at dpRefs evenly
// spaced deadlines), normalized by the mean squared range of l over the
// summary (the authors' availRange, ∫(max − min)²). The grid (authors'
// "far"): memory and disk cells, whether l is a plain ramp (a free node),
// and an l cell by the mean squared difference from the summary's
// pointwise minimum.
//
// DistLoss: memory and disk as for IBP; for l, the availability the
// minimum loses at dpRefs reference deadlines over the horizon after t0,
// normalized by the range of Σ_k l_k, which is also the grid's l axis.
type dpMetric struct {
	p          *DP
	im, id, il float64
	t0, dt     float64
	g          grid
	mse        bool
	wm2, wd2   float64         // DistMSE: 1/Δ² of memory and disk
	rl         float64         // DistMSE: 1/(mean squared range of l)
	lmin       [dpRefs]float64 // DistMSE: the summary's minimum l at the refs
	refT       [dpRefs]float64 // the reference deadlines
}

func (m *dpMetric) sum(a, b *dpItem) dpItem {
	h := dpItem{c: m.p.Sum(&a.c, &b.c)}
	m.fill(&h)
	if m.mse {
		x, y, c := &a.c, &b.c, &h.c
		va, vb := float64(x.V), float64(y.V)
		h.s[0] = spreadSum(a.s[0], va, float64(x.Mem)-float64(c.Mem), b.s[0], vb, float64(y.Mem)-float64(c.Mem))
		h.s[1] = spreadSum(a.s[1], va, float64(x.Disk)-float64(c.Disk), b.s[1], vb, float64(y.Disk)-float64(c.Disk))
		ea, ea2 := refDev(a, &h)
		eb, eb2 := refDev(b, &h)
		lin, sq := spreadSumL(a.s[2], va, ea, ea2, b.s[2], vb, eb, eb2)
		h.s[2] = toSpread(lin, sq, 0) // Far unused for l (see prepareMSE)
	}
	h.cell = m.computeCell(&h)
	return h
}

// refDev returns the mean and mean square over the references of x − h
// (h ≤ x: the sum never exceeds a term).
func refDev(x, h *dpItem) (e, e2 float64) {
	for k := range x.ref {
		d := max(x.ref[k]-h.ref[k], 0)
		e += d
		e2 += d * d
	}
	return e / dpRefs, e2 / dpRefs
}

// spreadSumL combines l spreads like spreadSum, for deviations that vary
// over the deadlines: a side's new Sq is Sq + v·mean(e²) + 2·mean(e·D),
// D(δ) the sum of its nodes' deviations; mean(e·D) is approximated by
// mean(e)·Lin (exact when e or D is constant over the window).
func spreadSumL(a Spread, va, ea, ea2 float64, b Spread, vb, eb, eb2 float64) (lin, sq float64) {
	la := float64(a.Lin) + va*ea
	sa := float64(a.Sq) + va*ea2 + 2*ea*float64(a.Lin)
	lb := float64(b.Lin) + vb*eb
	sb := float64(b.Sq) + vb*eb2 + 2*eb*float64(b.Lin)
	return la + lb, sa + sb
}

func (m *dpMetric) cellOf(c *dpItem) uint32 { return c.cell }

func (m *dpMetric) computeCell(c *dpItem) uint32 {
	if m.g.base < 2 {
		return 0
	}
	if m.mse {
		var free uint32
		if len(c.c.L.P) <= 1 {
			free = 1
		}
		return uint32(m.g.cell(0, float64(c.c.Mem))) | uint32(m.g.cell(1, float64(c.c.Disk)))<<8 |
			uint32(m.g.cell(2, m.msdMin(c)))<<16 | free<<24
	}
	return uint32(m.g.cell(0, float64(c.c.Mem))) | uint32(m.g.cell(1, float64(c.c.Disk)))<<8 | uint32(m.g.cell(2, refSum(c)))<<16
}

// msdMin is the mean squared difference of c's l from the summary's
// minimum at the references.
func (m *dpMetric) msdMin(c *dpItem) float64 {
	s := 0.0
	for k, v := range c.ref {
		d := v - m.lmin[k]
		s += d * d
	}
	return s / dpRefs
}

func (m *dpMetric) fill(c *dpItem) {
	c.c.L.AtSorted(m.refT[:], c.ref[:])
}

// setRefs sets the reference deadlines t0 + k·dt, k = 1..dpRefs.
func (m *dpMetric) setRefs(t0, dt float64) {
	m.t0, m.dt = t0, dt
	for k := range m.refT {
		m.refT[k] = t0 + float64(k+1)*dt
	}
}

// dist: memory and disk as in IBP; for l, the availability the minimum
// loses at the reference deadlines, Σ_k v_a(a_k − h_k) + v_b(b_k − h_k),
// normalized by the range of Σ_k l_k over the summary. (The extra loss of
// the sample reduction is not included: it is small and costly to get.)
func (m *dpMetric) dist(x, y *dpItem) float64 {
	if m.mse {
		return m.distMSE(x, y)
	}
	a, b := &x.c, &y.c
	hm, hd := float64(min(a.Mem, b.Mem)), float64(min(a.Disk, b.Disk))
	va, vb := float64(a.V), float64(b.V)
	d := (va*(float64(a.Mem)-hm)+vb*(float64(b.Mem)-hm))*m.im + (va*(float64(a.Disk)-hd)+vb*(float64(b.Disk)-hd))*m.id
	var l float64
	for k := range x.ref {
		p, q := x.ref[k], y.ref[k]
		if p < q {
			l += vb * (q - p)
		} else {
			l += va * (p - q)
		}
	}
	d += l * m.il
	if diff := x.cell ^ y.cell; diff != 0 {
		for k := 0; k < 3; k++ {
			if diff&(0xff<<(8*k)) != 0 {
				d += m.g.pen
			}
		}
	}
	return d
}

// distMSE: the spread of the sum (memory, disk exact; l from the minimum of
// the two at the references, before the sample reduction), normalized and
// averaged over its nodes, plus the grid penalty.
func (m *dpMetric) distMSE(x, y *dpItem) float64 {
	a, b := &x.c, &y.c
	va, vb := float64(a.V), float64(b.V)
	hm, hd := min(a.Mem, b.Mem), min(a.Disk, b.Disk)
	_, sm := spreadLinSq(x.s[0], va, float64(a.Mem)-float64(hm), y.s[0], vb, float64(b.Mem)-float64(hm))
	_, sd := spreadLinSq(x.s[1], va, float64(a.Disk)-float64(hd), y.s[1], vb, float64(b.Disk)-float64(hd))
	var ea, ea2, eb, eb2 float64
	for k := range x.ref {
		p, q := x.ref[k], y.ref[k]
		if p > q {
			ea += p - q
			ea2 += (p - q) * (p - q)
		} else {
			eb += q - p
			eb2 += (q - p) * (q - p)
		}
	}
	_, sl := spreadSumL(x.s[2], va, ea/dpRefs, ea2/dpRefs, y.s[2], vb, eb/dpRefs, eb2/dpRefs)
	d := (sm*m.wm2 + sd*m.wd2 + sl*m.rl) / (va + vb)
	if x.cell != y.cell {
		d += m.g.pen
	}
	return d
}

func refSum(c *dpItem) float64 {
	s := 0.0
	for _, v := range c.ref {
		s += v
	}
	return s
}

func (p *DP) Aggregate(x, y Summary) Summary {
	if x == nil && y == nil {
		return nil
	}
	if p.o.Clustering != nil {
		return p.aggregateWith(x, y)
	}
	if s, ok := plainUnion[DPSummary](x, y, p.o.SFMax, cmpDP, addDP); ok {
		return s
	}
	z, scratch := unionOf[DPSummary](&dpFnPool, x, y, 3, &dpOps, p.o.Distance)
	defer scratch.done()
	cmp, merge := dpOps.cmp, dpOps.mergeFor(p.o.Distance)
	if len(z) <= p.o.SFMax {
		return summaryOf[DPSummary](z, 3)
	}
	w := dpPool.Get().(*dpWork)
	defer dpPool.Put(w)
	m, items := p.prepare(z, w)
	if m.g.base >= 2 {
		items = agglomerateGrid(items, p.o.SFMax, &m)
	} else {
		items = agglomerate(items, p.o.SFMax, &m)
	}
	out := z[:len(items)]
	for i := range items {
		out[i] = dpFn{c: items[i].c}
		copy(out[i].s[:3], items[i].s[:])
	}
	clear(w.items[:cap(w.items)])
	return summaryOf[DPSummary](sortDedup(out, cmp, dpOps.sortBy, merge), 3)
}

// prepare computes the clustering metric of z (ranges, reference
// deadlines, grid) and its items, in w.
func (p *DP) prepare(z []dpFn, w *dpWork) (dpMetric, []dpItem) {
	if p.o.Distance == DistMSE {
		return p.prepareMSE(z, w)
	}
	inf := math.Inf(1)
	lm, hm, ld, hd, t0 := inf, -inf, inf, -inf, inf
	nodes := 0
	for i := range z {
		c := &z[i].c
		nodes += int(c.V)
		lm, hm = min(lm, float64(c.Mem)), max(hm, float64(c.Mem))
		ld, hd = min(ld, float64(c.Disk)), max(hd, float64(c.Disk))
		if len(c.L.P) > 0 {
			t0 = min(t0, c.L.P[0].T)
		}
	}
	if math.IsInf(t0, 1) {
		t0 = 0
	}
	m := dpMetric{p: p, im: inv(span(lm, hm)), id: inv(span(ld, hd))}
	m.setRefs(t0, p.o.Horizon/dpRefs)
	if cap(w.items) < len(z) {
		w.items = make([]dpItem, len(z))
	}
	items := w.items[:len(z)]
	ll, hl := inf, -inf
	for i := range z {
		items[i] = dpItem{c: z[i].c, s: [3]Spread(z[i].s[:3])}
		m.fill(&items[i])
		s := refSum(&items[i])
		ll, hl = min(ll, s), max(hl, s)
	}
	m.il = inv(span(ll, hl))
	if !p.o.NoGrid {
		m.g = newGrid(gridBase(p.o.SFMax, 3, DistLoss), 3, nodes, []float64{lm, ld, ll}, []float64{m.im, m.id, m.il})
		m.g.cells = p.o.Cells
		m.g.span = [4]float64{span(lm, hm), span(ld, hd), span(ll, hl)}
	}
	for i := range items {
		items[i].cell = m.computeCell(&items[i])
	}
	return m, items
}

// prepareMSE is prepare for DistMSE: the window [t0, H] of the summary,
// the references, the ranges and the grid (see dpMetric).
func (p *DP) prepareMSE(z []dpFn, w *dpWork) (dpMetric, []dpItem) {
	inf := math.Inf(1)
	lm, hm, ld, hd, t0, h := inf, -inf, inf, -inf, inf, -inf
	nodes := 0
	for i := range z {
		c := &z[i].c
		nodes += int(c.V)
		// the range of the nodes' memory and disk (value + Far)
		lm, hm = min(lm, float64(c.Mem)), max(hm, float64(c.Mem)+float64(z[i].s[0].Far))
		ld, hd = min(ld, float64(c.Disk)), max(hd, float64(c.Disk)+float64(z[i].s[1].Far))
		if n := len(c.L.P); n > 0 {
			t0 = min(t0, c.L.P[0].T)
			h = max(h, c.L.P[n-1].T)
		}
	}
	if math.IsInf(t0, 1) {
		t0 = 0
	}
	// a window of at least a second, as the authors' horizon of a free
	// node (now + 1 s)
	h = max(h, t0+1)
	im, id := inv(span(lm, hm)), inv(span(ld, hd))
	m := dpMetric{p: p, im: im, id: id, mse: true, wm2: im * im, wd2: id * id}
	m.setRefs(t0, (h-t0)/dpRefs)
	if cap(w.items) < len(z) {
		w.items = make([]dpItem, len(z))
	}
	items := w.items[:len(z)]
	var lmax [dpRefs]float64
	for k := range m.lmin {
		m.lmin[k], lmax[k] = inf, -inf
	}
	for i := range z {
		items[i] = dpItem{c: z[i].c, s: [3]Spread(z[i].s[:3])}
		m.fill(&items[i])
		for k, v := range items[i].ref {
			m.lmin[k], lmax[k] = min(m.lmin[k], v), max(lmax[k], v)
		}
	}
	r := 0.0
	for k := range lmax {
		d := lmax[k] - m.lmin[k]
		r += d * d
	}
	m.rl = inv(r / dpRefs)
	m.g = p.mseGrid(nodes, lm, ld, im, id, m.rl, [3]float64{span(lm, hm), span(ld, hd), r / dpRefs})
	for i := range items {
		items[i].cell = m.computeCell(&items[i])
	}
	return m, items
}

// mseGrid is the grid of DistMSE (none with NoGrid):
// floor(SF_max^(1/3)) intervals per axis over memory and disk from their
// minima lm, ld (scales im, id = 1/Δ) and over an l measure from 0 (scale
// rl), with the penalty msePenalty.
func (p *DP) mseGrid(nodes int, lm, ld, im, id, rl float64, spans [3]float64) grid {
	if p.o.NoGrid {
		return grid{}
	}
	g := newGrid(gridBase(p.o.SFMax, 3, DistMSE), 3, nodes, []float64{lm, ld, 0}, []float64{im, id, rl})
	if g.base >= 2 {
		g.pen = msePenalty
	}
	g.cells = p.o.Cells
	copy(g.span[:], spans[:])
	return g
}

type dpWork struct{ items []dpItem }

var dpPool = sync.Pool{New: func() any { return new(dpWork) }}

func (*DP) Equal(x, y Summary) bool {
	return equalSummaries[DPSummary, DPCluster](x, y, func(a, b *DPCluster) bool {
		return a.Mem == b.Mem && a.Disk == b.Disk && a.V == b.V && a.L.Equal(&b.L)
	})
}

func (*DP) MaxQueue(Summary) float64 { return math.Inf(-1) }

// AF is the number of tasks of app (deadline app.Deadline) the nodes of c
// can finish in time.
func (c *DPCluster) AF(app App) int {
	if float64(c.Mem) < app.Mem || float64(c.Disk) < app.Disk {
		return 0
	}
	t := c.L.At(app.Deadline) / app.Length
	if !(t >= 1) {
		return 0
	}
	return int(c.V) * int(min(math.Floor(t), 1<<40))
}

// Admits is the number of tasks of app that s can finish by the deadline.
func (s DPSummary) Admits(app App) int {
	n := 0
	for i := range s {
		n += s[i].AF(app)
	}
	return n
}

// capped is k tasks for a function of v nodes under MaxPerNode.
func (p *DP) capped(k int, v int32) int {
	if p.o.MaxPerNode > 0 {
		return min(k, int(v)*p.o.MaxPerNode)
	}
	return k
}

// Forward is Fig. 5 with the DP order: candidates that can finish at least
// one task by the deadline, least computation available before the
// deadline first (the smallest clearance after the task), then closest in
// memory and disk.
func (p *DP) Forward(f *Fork, req Request, _ float64) Split {
	var cand []candidate
	ls, rs := asDP(f.LeftInfo), asDP(f.RightInfo)
	add := func(s DPSummary, left bool) {
		for i := range s {
			if k := p.capped(s[i].AF(req.App), s[i].V); k > 0 {
				l := s[i].L.At(req.App.Deadline)
				// l in units of tasks; memory/disk closeness breaks ties
				key := l/req.App.Length + 1e-9*((float64(s[i].Mem)-req.App.Mem)+(float64(s[i].Disk)-req.App.Disk))
				cand = append(cand, candidate{key: key, left: left, index: i, n: k})
			}
		}
	}
	if req.Src != f.Left {
		add(ls, true)
	}
	if req.Src != f.Right {
		add(rs, false)
	}
	return distribute(cand, req.N)
}

// Central is the centralized DP reference (Centralized): least
// computation available before the deadline first, over every node's
// exact summary.
func (p *DP) Central(_ float64, req Request, nodes []Summary, out []Placement) []Placement {
	var cand []candidate
	for i, s := range nodes {
		ds := asDP(s)
		for x := range ds {
			if k := p.capped(ds[x].AF(req.App), ds[x].V); k > 0 {
				l := ds[x].L.At(req.App.Deadline)
				cand = append(cand, candidate{index: i, n: k,
					key: l/req.App.Length + 1e-9*((float64(ds[x].Mem)-req.App.Mem)+(float64(ds[x].Disk)-req.App.Disk))})
			}
		}
	}
	return placeSorted(cand, req.N, out)
}

// dpRun is a group of tasks of one application in an EDF queue.
type dpRun struct {
	app      uint64
	sub      Addr
	n        int
	deadline float64
	dur      float64 // seconds per task on this node
}

// DPExec is a DP execution node: an EDF queue without preemption that
// admits a task only if every queued task still meets its deadline.
type DPExec struct {
	Mem, Disk, Power float64
	Samples          int     // samples of the reported l (0: DefaultSamples)
	Horizon          float64 // seconds, for the sample reduction (0: DefaultHorizon)
	runs             []dpRun // waiting, by deadline (FIFO among equal deadlines)
	running          bool
	cur              dpRun // the running task (n = 1)
	end              float64
}

// base is when the node is free to start a waiting task.
func (e *DPExec) base(now float64) float64 {
	if e.running {
		return max(e.end, now)
	}
	return now
}

// LAt returns l(δ) at time now: the MFLOP a new task of deadline δ can use
// (EDF admission: for every deadline d >= δ, the work due by d fits).
func (e *DPExec) LAt(now, d float64) float64 {
	b := e.base(now)
	if d <= b {
		return 0
	}
	work := 0.0
	l := math.Inf(1)
	for _, r := range e.runs {
		w := float64(r.n) * r.dur * e.Power
		if r.deadline <= d {
			work += w
			continue
		}
		if math.IsInf(l, 1) {
			l = e.Power*(d-b) - work
		}
		work += w
		l = min(l, e.Power*(r.deadline-b)-work)
	}
	if math.IsInf(l, 1) {
		l = e.Power*(d-b) - work
	}
	return max(l, 0)
}

// lScan evaluates LAt at one instant for many δ: one pass over the queue
// (the work of each prefix of the queue and the suffix minima of LAt's
// terms), then a binary search per δ, instead of a pass over the queue per
// δ (Function evaluates l at every deadline: quadratic in the queue). The
// additions are LAt's, in its order, and the minimum is exact, so at gives
// the same bits as LAt (TestLScanMatchesLAt).
type lScan struct {
	e    *DPExec
	now  float64
	b    float64
	work []float64 // work[k]: the work of runs[0..k], summed in queue order
	suf  []float64 // suf[k]: the minimum over i >= k of Power·(runs[i].deadline − b) − work[i]
	slow bool      // a NaN deadline: the queue is not a sorted order, use LAt
}

func (e *DPExec) scan(now float64) lScan {
	s := lScan{e: e, now: now, b: e.base(now)}
	n := len(e.runs)
	buf := make([]float64, 2*n)
	s.work, s.suf = buf[:n], buf[n:]
	acc := 0.0
	for k, r := range e.runs {
		if math.IsNaN(r.deadline) {
			s.slow = true
			return s
		}
		acc += float64(r.n) * r.dur * e.Power
		s.work[k] = acc
	}
	for k := n - 1; k >= 0; k-- {
		s.suf[k] = e.Power*(e.runs[k].deadline-s.b) - s.work[k]
		if k+1 < n {
			s.suf[k] = min(s.suf[k], s.suf[k+1])
		}
	}
	return s
}

// at is e.LAt(now, d) for the scan's instant now.
func (s *lScan) at(d float64) float64 {
	if s.slow {
		return s.e.LAt(s.now, d)
	}
	if d <= s.b {
		return 0
	}
	runs := s.e.runs
	// The runs with a deadline <= d are a prefix of the queue (it is sorted
	// by deadline), those LAt adds before its minimum.
	j, hi := 0, len(runs)
	for j < hi {
		m := int(uint(j+hi) >> 1)
		if runs[m].deadline <= d {
			j = m + 1
		} else {
			hi = m
		}
	}
	w := 0.0
	if j > 0 {
		w = s.work[j-1]
	}
	l := s.e.Power*(d-s.b) - w
	if j < len(runs) {
		l = min(l, s.suf[j])
	}
	return max(l, 0)
}

// Function returns l as an LFunc with samples at its breakpoints.
func (e *DPExec) Function(now float64) LFunc {
	b := e.base(now)
	ts := make([]float64, 1, len(e.runs)+1)
	ts[0] = b
	for _, r := range e.runs {
		if r.deadline > b {
			ts = append(ts, r.deadline)
		}
	}
	// Candidate breakpoints: deadlines and the points where the slope-s
	// ramp reaches a cap; sample l densely at those and compact (l at each
	// deadline evaluated once).
	pts := make([]LPoint, 0, 2*len(ts))
	slices.Sort(ts)
	sc := e.scan(now)
	v0 := sc.at(ts[0])
	for k, t := range ts {
		pts = append(pts, LPoint{t, v0})
		if k+1 < len(ts) {
			// ramp from t with slope s until it meets the value at ts[k+1]
			v1 := sc.at(ts[k+1])
			if x := t + (v1-v0)/e.Power; x > t && x < ts[k+1] {
				pts = append(pts, LPoint{x, sc.at(x)})
			}
			v0 = v1
		}
	}
	f := LFunc{P: pts, Slope: e.Power}
	f.Compact()
	return f
}

// SummaryStable: while a task runs, l is measured from the end of that
// task (base), not from now, so the summary holds until the next change of
// state (the task's completion at end is one). An idle node's l starts at
// now: it changes with time.
func (e *DPExec) SummaryStable(now float64) bool { return e.running && e.end >= now }

func (e *DPExec) Summary(now float64) Summary {
	f := e.Function(now)
	k, h := e.Samples, e.Horizon
	if k <= 0 {
		k = DefaultSamples
	}
	if h <= 0 {
		h = DefaultHorizon
	}
	f.Reduce(k, h)
	return DPSummary{{Mem: f32down(e.Mem), Disk: f32down(e.Disk), V: 1, L: f}}
}

func (e *DPExec) Accept(now float64, app App, n int, sub Addr) int {
	if n < 1 || e.Mem < app.Mem || e.Disk < app.Disk {
		return 0
	}
	k := min(n, int(math.Floor(e.LAt(now, app.Deadline)/app.Length+1e-9)))
	if k <= 0 {
		return 0
	}
	r := dpRun{app: app.ID, sub: sub, n: k, deadline: app.Deadline, dur: app.Length / e.Power}
	i := len(e.runs)
	for i > 0 && e.runs[i-1].deadline > r.deadline {
		i--
	}
	e.runs = slices.Insert(e.runs, i, r)
	if !e.running {
		e.start(now)
	}
	return k
}

func (e *DPExec) start(t float64) {
	if len(e.runs) == 0 {
		e.running = false
		e.runs = nil // an idle node keeps no queue storage
		return
	}
	r := &e.runs[0]
	e.cur = *r
	e.cur.n = 1
	e.running, e.end = true, t+r.dur
	r.n--
	if r.n == 0 {
		e.runs = slices.Delete(e.runs, 0, 1)
	}
}

func (e *DPExec) Advance(now float64, done []Request) []Request {
	for e.running && e.end <= now {
		done = append(done, Request{App: App{ID: e.cur.app}, Submitter: e.cur.sub, Src: NoAddr, N: 1})
		e.start(e.end)
	}
	return done
}

func (e *DPExec) Wake() float64 {
	if e.running {
		return e.end
	}
	return math.Inf(1)
}

// DPTasks are N tasks of one application in a DP node's EDF queue.
type DPTasks struct {
	App       uint64
	Submitter Addr
	N         int
	Deadline  float64 // absolute, seconds
	Duration  float64 // seconds per task on this node
}

// Restore sets the node's queue: with running, the task it runs (N 1)
// until end, and the tasks waiting, by deadline (first come first among
// equal deadlines). A driver restores a node's state with it; the §7.1
// experiment builds random queues. It refuses a queue out of deadline
// order, a group of less than one task or a duration that is not > 0.
func (e *DPExec) Restore(running *DPTasks, end float64, waiting []DPTasks) error {
	check := func(what string, t *DPTasks) error {
		if t.N < 1 || !(t.Duration > 0) || math.IsNaN(t.Deadline) {
			return fmt.Errorf("dp node: %s task group of %d tasks of %g s due %g: want >= 1 task of > 0 s and a deadline", what, t.N, t.Duration, t.Deadline)
		}
		return nil
	}
	if running != nil {
		if err := check("running", running); err != nil {
			return err
		}
		if running.N != 1 {
			return fmt.Errorf("dp node: %d tasks running, want 1", running.N)
		}
	}
	for i := range waiting {
		if err := check("waiting", &waiting[i]); err != nil {
			return err
		}
		if i > 0 && waiting[i].Deadline < waiting[i-1].Deadline {
			return fmt.Errorf("dp node: waiting tasks out of deadline order (%g after %g)", waiting[i].Deadline, waiting[i-1].Deadline)
		}
	}
	e.runs = make([]dpRun, len(waiting))
	for i, t := range waiting {
		e.runs[i] = dpRun{app: t.App, sub: t.Submitter, n: t.N, deadline: t.Deadline, dur: t.Duration}
	}
	e.running, e.cur, e.end = false, dpRun{}, 0
	if running != nil {
		e.running, e.end = true, end
		e.cur = dpRun{app: running.App, sub: running.Submitter, n: 1, deadline: running.Deadline, dur: running.Duration}
	}
	return nil
}

// Queue returns the node's queue as Restore takes it: the task running
// (nil when idle) until end, and the tasks waiting, by deadline.
func (e *DPExec) Queue() (running *DPTasks, end float64, waiting []DPTasks) {
	if e.running {
		c := e.cur
		running, end = &DPTasks{App: c.app, Submitter: c.sub, N: 1, Deadline: c.deadline, Duration: c.dur}, e.end
	}
	waiting = make([]DPTasks, len(e.runs))
	for i, r := range e.runs {
		waiting[i] = DPTasks{App: r.app, Submitter: r.sub, N: r.n, Deadline: r.deadline, Duration: r.dur}
	}
	return running, end, waiting
}

// Running returns the application of the task the node is running, with
// the time it started and the time it will end (ok false when idle).
func (e *DPExec) Running() (app uint64, start, end float64, ok bool) {
	return e.cur.app, e.end - e.cur.dur, e.end, e.running
}

// AppendState writes the node's state (SavedExec): its waiting runs, the
// running task and its end.
func (e *DPExec) AppendState(w *Encoder) {
	w.Uvarint(uint64(len(e.runs)))
	for i := range e.runs {
		e.runs[i].append(w)
	}
	w.Bool(e.running)
	e.cur.append(w)
	w.F64(e.end)
}

// ReadState reads what AppendState wrote.
func (e *DPExec) ReadState(d *Decoder) {
	e.runs = nil
	if n := d.Count("runs", 19); n > 0 {
		e.runs = make([]dpRun, n)
		for i := range e.runs {
			e.runs[i].read(d)
		}
	}
	e.running = d.Bool("running")
	e.cur.read(d)
	e.end = d.F64("end")
}

func (r *dpRun) append(w *Encoder) {
	w.Uvarint(r.app)
	w.Varint(int64(r.sub))
	w.Varint(int64(r.n))
	w.F64(r.deadline)
	w.F64(r.dur)
}

func (r *dpRun) read(d *Decoder) {
	r.app, r.sub, r.n, r.deadline, r.dur = d.Uvarint("application", math.MaxUint64), d.addr("submitter"), readTasks(d), d.F64("deadline"), d.F64("duration")
}
