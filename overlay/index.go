package overlay

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// IndexedPlacer is a Placer that keeps its own view of the execution
// nodes' summaries, told by the driver whenever a node's summary may have
// changed, so that placing a request need not read every node. Its
// placements are exactly those of the Placer it indexes given the same
// summaries.
//
// It is derived state: Reset and one Update per node rebuild it from the
// nodes' current summaries (what a driver does after restoring a
// checkpoint). It assumes a node's summary holds from one Update to the
// next, which is true of IBP, whose summary does not depend on time (MMP's
// and DP's do; they have no index).
type IndexedPlacer interface {
	// Reset forgets every node: n nodes without availability (nil
	// summaries).
	Reset(n int)
	// Update records node's current summary.
	Update(node int, s Summary)
	// PlaceIndexed is Placer.Place over the recorded summaries.
	PlaceIndexed(now float64, req Request, out []Placement) []Placement
}

// Index returns an IndexedPlacer for n nodes giving exactly c's
// placements, or nil when c's policy has none. Only IBP has one: an idle
// IBP node's summary is one sampled function (its memory, disk, v = 1) and
// depends only on the node's state. MMP's placement depends on the whole
// set of queues through Makespan's search and DP's on l(δ) at the
// request's deadline, both changing with time; see docs/overlay-sim.md.
func (c Centralized) Index(n int) IndexedPlacer {
	if _, ok := c.Rules.(*IBP); ok {
		x := &IBPIndex{ref: c}
		x.Reset(n)
		return x
	}
	return nil
}

// Node states of an IBPIndex.
const (
	ixNone uint8 = iota // no availability (busy, or nil summary)
	ixIdle              // one finite sampled function with v = 1: in its class's idle set
	ixOdd               // any other summary: kept whole, placed by the full scan
)

// IBPIndex is the centralized IBP reference's index: the idle nodes
// grouped by their class (distinct memory and disk), each class's idle
// nodes a hierarchical bitset over its members in node order. Placing a
// request costs the number of classes plus the tasks placed, not the
// number of nodes. Summaries of any other shape than nil or one finite
// sampled function with v = 1 (never sent by IBPExec) are kept whole and
// the placement falls back to Centralized.Place over every node, so the
// index is exact for any input.
type IBPIndex struct {
	ref     Centralized
	state   []uint8
	cls     []int32 // node -> class, -1 before it was first idle
	rank    []int32 // node -> position in its class's members
	classes []ibpClass
	classOf map[[2]float32]int32
	odd     map[int32]Summary
	fit     []ibpFit // scratch of PlaceIndexed
}

type ibpClass struct {
	mem, disk float32
	members   []int32 // node indices, increasing
	idle      hbits   // by position in members
	count     int     // idle members
}

type ibpFit struct {
	key  float64
	cls  int32
	next int // next idle position to look at (k-way merge of equal keys)
}

// Classes is the number of distinct (memory, disk) values seen.
func (x *IBPIndex) Classes() int { return len(x.classes) }

func (x *IBPIndex) Reset(n int) {
	x.state = make([]uint8, n)
	x.cls = make([]int32, n)
	x.rank = make([]int32, n)
	for i := range x.cls {
		x.cls[i] = -1
	}
	x.classes = nil
	x.classOf = map[[2]float32]int32{}
	x.odd = map[int32]Summary{}
}

func (x *IBPIndex) Update(node int, s Summary) {
	i := int32(node)
	switch x.state[i] {
	case ixIdle:
		c := &x.classes[x.cls[i]]
		c.idle.clear(int(x.rank[i]))
		c.count--
	case ixOdd:
		delete(x.odd, i)
	}
	x.state[i] = ixNone
	v := asIBP(s)
	if len(v) == 0 {
		return
	}
	if len(v) > 1 || v[0].V != 1 || !finite32(v[0].Mem) || !finite32(v[0].Disk) {
		x.state[i] = ixOdd
		x.odd[i] = s
		return
	}
	c := x.join(i, v[0].Mem, v[0].Disk)
	x.state[i] = ixIdle
	c.idle.set(int(x.rank[i]))
	c.count++
}

func finite32(f float32) bool { return !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) }

// join makes node i a member of class (mem, disk), leaving the class it
// was in (a node's hardware does not change in a simulation, so after the
// first time this is a lookup). Members stay in node order: a node joining
// in the middle rebuilds the class's positions and bitset.
func (x *IBPIndex) join(i int32, mem, disk float32) *ibpClass {
	k, ok := x.classOf[[2]float32{mem, disk}]
	if !ok {
		k = int32(len(x.classes))
		x.classes = append(x.classes, ibpClass{mem: mem, disk: disk})
		x.classOf[[2]float32{mem, disk}] = k
	}
	if x.cls[i] == k {
		return &x.classes[k]
	}
	if o := x.cls[i]; o >= 0 { // changed class (not idle: Update cleared it)
		c := &x.classes[o]
		c.members = slices.Delete(c.members, int(x.rank[i]), int(x.rank[i])+1)
		x.reindex(c)
	}
	c := &x.classes[k]
	x.cls[i] = k
	if n := len(c.members); n == 0 || c.members[n-1] < i {
		x.rank[i] = int32(n)
		c.members = append(c.members, i)
		c.idle.grow(n + 1)
		return c
	}
	p, _ := slices.BinarySearch(c.members, i)
	c.members = slices.Insert(c.members, p, i)
	x.reindex(c)
	return c
}

// reindex recomputes the positions and the idle bitset of c's members.
func (x *IBPIndex) reindex(c *ibpClass) {
	c.idle = hbits{}
	c.idle.grow(len(c.members))
	for r, m := range c.members {
		x.rank[m] = int32(r)
		if x.state[m] == ixIdle {
			c.idle.set(r)
		}
	}
}

// PlaceIndexed gives Centralized.Place's IBP placements: one task per idle
// fitting node, by increasing key (Σ (attr − req)/Δ_attr, Δ over the
// fitting candidates), equal keys in node order — placeSorted's stable
// sort of candidates listed in node order. Classes of equal keys are
// merged by node index.
func (x *IBPIndex) PlaceIndexed(now float64, req Request, out []Placement) []Placement {
	if req.N <= 0 {
		return out
	}
	if len(x.odd) > 0 {
		return x.scan(now, req, out)
	}
	fit := x.fit[:0]
	lm, hm, ld, hd := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for k := range x.classes {
		c := &x.classes[k]
		cl := IBPCluster{Mem: c.mem, Disk: c.disk, V: 1}
		if c.count == 0 || cl.AF(req.App) == 0 {
			continue
		}
		fit = append(fit, ibpFit{cls: int32(k)})
		lm, hm = min(lm, float64(c.mem)), max(hm, float64(c.mem))
		ld, hd = min(ld, float64(c.disk)), max(hd, float64(c.disk))
	}
	x.fit = fit
	im, id := inv(span(lm, hm)), inv(span(ld, hd))
	for f := range fit {
		c := &x.classes[fit[f].cls]
		fit[f].key = ibpKey(c.mem, c.disk, req.App, im, id)
		if math.IsNaN(fit[f].key) { // infinite requirements: keep the scan's semantics
			return x.scan(now, req, out)
		}
	}
	slices.SortFunc(fit, func(a, b ibpFit) int { // no NaN keys here
		return cmp.Or(cmp.Compare(a.key, b.key), int(a.cls-b.cls))
	})
	n := req.N
	for g := 0; g < len(fit) && n > 0; {
		h := g + 1
		for h < len(fit) && fit[h].key == fit[g].key {
			h++
		}
		if h == g+1 {
			c := &x.classes[fit[g].cls]
			for r := c.idle.next(0); r >= 0 && n > 0; r = c.idle.next(r + 1) {
				out = append(out, Placement{Node: int(c.members[r]), N: 1})
				n--
			}
		} else {
			out, n = x.merge(fit[g:h], out, n)
		}
		g = h
	}
	return out
}

// merge places up to n tasks on the idle nodes of classes of equal keys,
// in node order.
func (x *IBPIndex) merge(group []ibpFit, out []Placement, n int) ([]Placement, int) {
	for f := range group {
		group[f].next = x.classes[group[f].cls].idle.next(0)
	}
	for n > 0 {
		best, node := -1, int32(math.MaxInt32)
		for f := range group {
			if r := group[f].next; r >= 0 {
				if m := x.classes[group[f].cls].members[r]; best < 0 || m < node {
					best, node = f, m
				}
			}
		}
		if best < 0 {
			break
		}
		out = append(out, Placement{Node: int(node), N: 1})
		n--
		group[best].next = x.classes[group[best].cls].idle.next(group[best].next + 1)
	}
	return out, n
}

// scan is Centralized.Place over every node's recorded summary.
func (x *IBPIndex) scan(now float64, req Request, out []Placement) []Placement {
	sums := make([]Summary, len(x.state))
	for i, st := range x.state {
		switch st {
		case ixIdle:
			c := &x.classes[x.cls[i]]
			sums[i] = IBPSummary{{Mem: c.mem, Disk: c.disk, V: 1}}
		case ixOdd:
			sums[i] = x.odd[int32(i)]
		}
	}
	return x.ref.Place(now, req, sums, out)
}

// hbits is a set of small integers as a hierarchical bitset: level 0 has a
// bit per element, level l+1 a bit per non-zero word of level l, up to a
// level of one word; next finds the smallest element ≥ i in
// O(log_64 size).
type hbits struct {
	lv   [][]uint64
	size int
}

// grow makes room for elements 0..n-1 (capacity doubles; the upper levels
// are rebuilt when it does).
func (b *hbits) grow(n int) {
	if n <= b.size {
		return
	}
	size := max(n, 2*b.size, 64)
	var l0 []uint64
	if len(b.lv) > 0 {
		l0 = b.lv[0]
	}
	l0 = append(l0, make([]uint64, (size+63)/64-len(l0))...)
	b.lv = append(b.lv[:0], l0)
	for w := len(l0); w > 1; {
		lo := b.lv[len(b.lv)-1]
		w = (w + 63) / 64
		up := make([]uint64, w)
		for j, word := range lo {
			if word != 0 {
				up[j>>6] |= 1 << (j & 63)
			}
		}
		b.lv = append(b.lv, up)
	}
	b.size = size
}

func (b *hbits) set(i int) {
	for l := range b.lv {
		w := &b.lv[l][i>>6]
		was := *w
		*w |= 1 << (i & 63)
		if was != 0 {
			return
		}
		i >>= 6
	}
}

func (b *hbits) clear(i int) {
	for l := range b.lv {
		w := &b.lv[l][i>>6]
		*w &^= 1 << (i & 63)
		if *w != 0 {
			return
		}
		i >>= 6
	}
}

// next returns the smallest element ≥ i, or -1.
func (b *hbits) next(i int) int {
	for l := 0; l < len(b.lv); l++ {
		w := i >> 6
		if w >= len(b.lv[l]) {
			return -1
		}
		if word := b.lv[l][w] & (^uint64(0) << (i & 63)); word != 0 {
			i = w<<6 + bits.TrailingZeros64(word)
			for l > 0 {
				l--
				i = i<<6 + bits.TrailingZeros64(b.lv[l][i])
			}
			return i
		}
		i = w + 1
	}
	return -1
}
