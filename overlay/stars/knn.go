package stars

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/volsched/volsched/overlay"
)

// KNN is the authors' approximate clustering (STaRS
// include/ClusteringList.hpp, cluster()), an overlay.Clustering: it does
// not run Fig. 3 literally. It keeps, for each sampled function i in the
// summary's order, a list of its K nearest functions among those after it
// (j > i) in the same grid cell, and merges pairs in the order of the
// lists' heads, recomputing a head's distance only when the head or the
// list's owner changed; a round ends when the summary fits or the lists
// run out, and the next round rebuilds the lists (across cells too, once a
// round found fewer than K pairs per function). It is faster than Fig. 3
// but does not always merge the closest pair; the §7.1 experiment uses it
// to measure how far the approximation moves Table 2.
type KNN struct {
	// K is the length of each function's list of nearest functions.
	K int
	// OrderBy, when >= 0, is the attribute (overlay.Items.Attr) by which
	// the summary is ordered, stably, before and after the clustering (the
	// authors' MMP summaries: by queue end, attribute 3); -1 keeps the
	// union's order.
	OrderBy int
}

// NewKNN is the authors' clustering for policy p: lists of 10 functions
// (their ClusteringList) in the union's order, with what their tool
// changed for its policies (knnOf): 20 for DP (their DP aggregation test),
// MMP summaries ordered by queue end.
func NewKNN(p overlay.Policy) KNN {
	if k, ok := knnOf[p.String()]; ok {
		return k
	}
	return KNN{K: 10, OrderBy: -1}
}

// knnOf are the authors' settings of their clustering for the paper's
// policies that differ from the default, by the policy's name.
var knnOf = map[string]KNN{
	"mmp": {K: 10, OrderBy: 3},
	"dp":  {K: 20, OrderBy: -1},
}

// knnEntry is one candidate partner of a list's owner.
type knnEntry struct {
	d  float64
	to int32
	v  float64 // the partner's node count when d was computed
}

type knnList struct {
	src   int32
	es    []knnEntry // ascending d
	head  int
	dirty bool // the owner changed since the list was built
}

type knnHeap []*knnList

func (h knnHeap) Len() int { return len(h) }
func (h knnHeap) Less(a, b int) bool {
	la, lb := h[a], h[b]
	ea, eb := la.head < len(la.es), lb.head < len(lb.es)
	if ea != eb {
		return ea // lists with a head first
	}
	if !ea {
		return la.src < lb.src
	}
	if la.es[la.head].d != lb.es[lb.head].d {
		return la.es[la.head].d < lb.es[lb.head].d
	}
	return la.src < lb.src
}
func (h knnHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *knnHeap) Push(x any)   { *h = append(*h, x.(*knnList)) }
func (h *knnHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Cluster implements overlay.Clustering: the positions left, in the
// summary's order. Far pairs (in different grid cells) are skipped, not
// penalized: distances are it.Plain.
func (c KNN) Cluster(it overlay.Items, k int) []int {
	z := make([]int, it.Len()) // the summary's order: positions in it
	for i := range z {
		z[i] = i
	}
	byAttr := func(a, b int) int { return cmp.Compare(it.Attr(a, c.OrderBy), it.Attr(b, c.OrderBy)) }
	if c.OrderBy >= 0 {
		slices.SortStableFunc(z, byAttr)
	}
	if len(z) > k {
		z = c.cluster(it, z, max(k, 1))
		if c.OrderBy >= 0 {
			slices.SortStableFunc(z, byAttr)
		}
	}
	return z
}

// cluster runs the rounds over z (positions in it, in the summary's
// order) and returns what is left, in order.
func (c KNN) cluster(it overlay.Items, z []int, k int) []int {
	K := max(c.K, 1)
	alive := make([]bool, len(z))
	useFar := false
	for len(z) > k {
		n := len(z)
		for i := range alive[:n] {
			alive[i] = true
		}
		lists := make([]*knnList, 0, n-1)
		additions := 0
		for i := 0; i < n-1; i++ {
			l := &knnList{src: int32(i)}
			for j := i + 1; j < n; j++ {
				if !useFar && it.Cell(z[i]) != it.Cell(z[j]) {
					continue
				}
				additions++
				d := it.Plain(z[i], z[j])
				if len(l.es) == K && d >= l.es[K-1].d {
					continue
				}
				e := knnEntry{d: d, to: int32(j), v: it.Nodes(z[j])}
				p, _ := slices.BinarySearchFunc(l.es, d, func(x knnEntry, d float64) int {
					if x.d <= d {
						return -1
					}
					return 1
				})
				l.es = slices.Insert(l.es, p, e)
				if len(l.es) > K {
					l.es = l.es[:K]
				}
			}
			lists = append(lists, l)
		}
		if additions < (n-1)*K {
			useFar = true
		}
		h := knnHeap(lists)
		heap.Init(&h)
		need, count := n-k, 0
		for h.Len() > 0 && count < need {
			l := h[0]
			if l.head >= len(l.es) {
				break // the best list is empty: the round is over
			}
			if !alive[l.src] {
				heap.Pop(&h)
				continue
			}
			e := &l.es[l.head]
			if alive[e.to] {
				if e.v != it.Nodes(z[e.to]) { // the partner changed: refresh
					e.d, e.v = it.Plain(z[l.src], z[e.to]), it.Nodes(z[e.to])
					heap.Fix(&h, 0)
					continue
				}
				it.Merge(z[l.src], z[e.to])
				alive[e.to] = false
				l.dirty = true
				count++
			}
			for l.head < len(l.es) && !alive[l.es[l.head].to] {
				l.head++
			}
			if l.head < len(l.es) {
				e := &l.es[l.head]
				if l.dirty || e.v != it.Nodes(z[e.to]) {
					e.d, e.v = it.Plain(z[l.src], z[e.to]), it.Nodes(z[e.to])
				}
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
		}
		out := 0
		for i := range z {
			if alive[i] {
				z[out] = z[i]
				out++
			}
		}
		z = z[:out]
		if count == 0 && useFar && len(z) > k {
			// cannot happen with finite distances; guard against a loop
			keep := overlay.Agglomerate(subset{it, z}, k)
			for i, p := range keep {
				keep[i] = z[p]
			}
			return keep
		}
	}
	return z
}

// subset is the items of it at positions z, as overlay.Items.
type subset struct {
	it overlay.Items
	z  []int
}

func (s subset) Len() int               { return len(s.z) }
func (s subset) Dist(i, j int) float64  { return s.it.Dist(s.z[i], s.z[j]) }
func (s subset) Plain(i, j int) float64 { return s.it.Plain(s.z[i], s.z[j]) }
func (s subset) Cell(i int) uint32      { return s.it.Cell(s.z[i]) }
func (s subset) Nodes(i int) float64    { return s.it.Nodes(s.z[i]) }
func (s subset) Attr(i, a int) float64  { return s.it.Attr(s.z[i], a) }
func (s subset) Merge(i, j int)         { s.it.Merge(s.z[i], s.z[j]) }
