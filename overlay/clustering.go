package overlay

import "math"

// Extension points of the clustering. Aggregate runs Fig. 3 exactly with
// our grid cells; Options.Clustering and Options.Cells replace the
// algorithm and the cell rule, so that variants (the authors' approximate
// clustering and cells, package overlay/stars) live outside the core and
// the default path pays one nil check for them.

// Items is a set of sampled functions being clustered, seen by position
// 0..Len()−1. Positions do not move: Merge replaces an item in place.
type Items interface {
	Len() int
	// Dist is the distance of Fig. 3 between items i and j, with the grid
	// penalty when they lie in different grid cells.
	Dist(i, j int) float64
	// Plain is Dist without the grid penalty.
	Plain(i, j int) float64
	// Cell is item i's grid cell (0 for every item without a grid).
	Cell(i int) uint32
	// Nodes is the number of nodes item i covers (its v).
	Nodes(i int) float64
	// Attr is attribute a of item i's value: IBP memory, disk; MMP
	// memory, disk, power, queue end; DP memory, disk.
	Attr(i, a int) float64
	// Merge replaces item i by the sum of items i and j (the policy's
	// conservative sum); item j must not be used after.
	Merge(i, j int)
}

// Clustering is an algorithm that reduces a set of sampled functions by
// merging pairs. With Options.Clustering set, Aggregate hands it the union
// of the two summaries as it arrives (x's functions, then y's; identical
// functions not merged first) and keeps the items it returns in the order
// it returns them, whether or not the union exceeds SF_max.
type Clustering interface {
	// Cluster merges items of it until at most k are left (or no pair can
	// be merged) and returns the positions of the items left, in the order
	// of the summary.
	Cluster(it Items, k int) []int
}

// Cells is a grid's cell rule (Options.Cells): the cell, among b intervals
// of an attribute's range of width span, of a value d above the range's
// minimum (d is in [0, span] for the values of the summary). Codes pack a
// cell per attribute in 8 bits: a rule must return 0 to 255. Without a
// rule, a value is in cell ⌊d·b/span⌋ clamped to [0, b−1] (the maximum in
// the last interval).
type Cells interface {
	Cell(d, span float64, b int) int
}

// Agglomerate is Fig. 3 exactly: it merges the closest pair of items until
// at most k are left, and returns the positions of those left (ties broken
// by the lowest position: deterministic). O(n²) distance evaluations.
func Agglomerate(it Items, k int) []int {
	return survivors(agglomerate(positions(it.Len()), k, itemsMetric{it}))
}

// AgglomerateGrid gives Agglomerate's result for items whose grid makes
// any pair within a cell closer than any pair across cells (Dist adds a
// penalty above every within-cell distance): merging proceeds cell by
// cell, much faster. A sum may move to another cell (Cell is asked again
// after each Merge).
func AgglomerateGrid(it Items, k int) []int {
	return survivors(agglomerateGrid(positions(it.Len()), k, itemsMetric{it}))
}

func positions(n int) []int32 {
	z := make([]int32, n)
	for i := range z {
		z[i] = int32(i)
	}
	return z
}

func survivors(z []int32) []int {
	out := make([]int, len(z))
	for i, x := range z {
		out[i] = int(x)
	}
	return out
}

// itemsMetric runs the generic clustering on positions into an Items: a
// sum is the Merge into the first position.
type itemsMetric struct{ it Items }

func (m itemsMetric) dist(a, b *int32) float64 { return m.it.Dist(int(*a), int(*b)) }
func (m itemsMetric) sum(a, b *int32) int32 {
	m.it.Merge(int(*a), int(*b))
	return *a
}
func (m itemsMetric) cellOf(c *int32) uint32 { return m.it.Cell(int(*c)) }

// vecItems are IBP or MMP functions (vecs) with their metric, as Items.
type vecItems struct {
	vs []vec
	m  *vecMetric
}

func (x *vecItems) Len() int               { return len(x.vs) }
func (x *vecItems) Dist(i, j int) float64  { return x.m.dist(&x.vs[i], &x.vs[j]) }
func (x *vecItems) Plain(i, j int) float64 { return x.m.plain(&x.vs[i], &x.vs[j]) }
func (x *vecItems) Cell(i int) uint32      { return x.vs[i].cell }
func (x *vecItems) Nodes(i int) float64    { return x.vs[i].v }
func (x *vecItems) Attr(i, a int) float64  { return x.vs[i].o[a] }
func (x *vecItems) Merge(i, j int)         { x.vs[i] = x.m.sum(&x.vs[i], &x.vs[j]) }
func (x *dpItems) Len() int                { return len(x.items) }
func (x *dpItems) Dist(i, j int) float64   { return x.m.dist(&x.items[i], &x.items[j]) }
func (x *dpItems) Plain(i, j int) float64  { return x.m.plain(&x.items[i], &x.items[j]) }
func (x *dpItems) Cell(i int) uint32       { return x.items[i].cell }
func (x *dpItems) Nodes(i int) float64     { return float64(x.items[i].c.V) }
func (x *dpItems) Merge(i, j int)          { x.items[i] = x.m.sum(&x.items[i], &x.items[j]) }
func (x *dpItems) Attr(i, a int) float64 {
	if a == 0 {
		return float64(x.items[i].c.Mem)
	}
	return float64(x.items[i].c.Disk)
}

// dpItems are DP functions with their metric, as Items.
type dpItems struct {
	items []dpItem
	m     *dpMetric
}

// plain is the vec distance without the grid penalty.
func (m *vecMetric) plain(a, b *vec) float64 {
	d := m.dist(a, b)
	if a.cell != b.cell && m.base >= 2 {
		if m.mse {
			d -= m.pen
		} else {
			for x := 0; x < m.d; x++ {
				if (a.cell^b.cell)&(0xff<<(8*x)) != 0 {
					d -= m.pen
				}
			}
		}
	}
	return math.Max(d, 0)
}

// plain is the DP distance without the grid penalty.
func (m *dpMetric) plain(a, b *dpItem) float64 {
	d := m.dist(a, b)
	if a.cell != b.cell && m.g.base >= 2 {
		if m.mse {
			d -= m.g.pen
		} else {
			for x := 0; x < 3; x++ {
				if (a.cell^b.cell)&(0xff<<(8*x)) != 0 {
					d -= m.g.pen
				}
			}
		}
	}
	return math.Max(d, 0)
}

// aggregateVecsWith is Aggregate for IBP or MMP with a Clustering: the
// union as it arrives, every function converted and the metric prepared,
// then the functions the clustering keeps, in its order.
func aggregateVecsWith[S plainSummary[C], C any](kd *vecKind[C], x, y Summary, o *Options) Summary {
	z := fnsOf[S](fnsOf[S](nil, x, kd.d), y, kd.d)
	vs := make([]vec, len(z))
	for i := range z {
		kd.toVec(&vs[i], &z[i])
	}
	m := prepareVecs(vs, kd.d, o.SFMax, kd.isMax, gridSpec{none: o.NoGrid, cells: o.Cells}, o.Distance)
	keep := o.Clustering.Cluster(&vecItems{vs: vs, m: &m}, o.SFMax)
	out := make([]fn[C], len(keep))
	for i, k := range keep {
		kd.fromVec(&out[i], &vs[k], true)
	}
	return summaryOf[S](out, kd.d)
}

// aggregateWith is DP's Aggregate with a Clustering (see
// aggregateVecsWith).
func (p *DP) aggregateWith(x, y Summary) Summary {
	z := fnsOf[DPSummary](fnsOf[DPSummary](nil, x, 3), y, 3)
	m, items := p.prepare(z, &dpWork{})
	keep := p.o.Clustering.Cluster(&dpItems{items: items, m: &m}, p.o.SFMax)
	out := make([]dpFn, len(keep))
	for i, k := range keep {
		out[i] = dpFn{c: items[k].c}
		copy(out[i].s[:3], items[k].s[:])
	}
	return summaryOf[DPSummary](out, 3)
}
