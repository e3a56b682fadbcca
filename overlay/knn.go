package overlay

import (
	"container/heap"
	"math"
	"slices"
)

// The authors' simulator did not run Fig. 3 literally: its clustering
// (STaRS include/ClusteringList.hpp, cluster()) keeps, for each sampled
// function i in the summary's order, a list of its K nearest functions
// among those after it (j > i) in the same grid cell, and merges pairs in
// the order of the lists' heads, recomputing a head's distance only when
// the head or the list's owner changed; a round ends when the summary fits
// or the lists run out, and the next round rebuilds the lists (across cells
// too, once a round found fewer than K pairs per function). It is faster
// than Fig. 3 but does not always merge the closest pair. agglomerateKNN
// is our implementation of that description, used only to measure how far
// the approximation moves Table 2 (AccuracyConfig.Clustering "stars");
// Aggregate always runs Fig. 3 exactly.

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

// agglomerateKNN clusters z down to k functions the authors' way (see
// above), keeping the order of z. vOf returns a function's node count;
// plain returns the distance without the grid penalty (their "far" pairs
// are skipped, not penalized).
func agglomerateKNN[C any, M gridMetric[C]](z []C, k, K int, m M, vOf func(*C) float64, plain func(a, b *C) float64) []C {
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
				if !useFar && m.cellOf(&z[i]) != m.cellOf(&z[j]) {
					continue
				}
				additions++
				d := plain(&z[i], &z[j])
				if len(l.es) == K && d >= l.es[K-1].d {
					continue
				}
				e := knnEntry{d: d, to: int32(j), v: vOf(&z[j])}
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
				if e.v != vOf(&z[e.to]) { // the partner changed: refresh
					e.d, e.v = plain(&z[l.src], &z[e.to]), vOf(&z[e.to])
					heap.Fix(&h, 0)
					continue
				}
				z[l.src] = m.sum(&z[l.src], &z[e.to])
				alive[e.to] = false
				l.dirty = true
				count++
			}
			for l.head < len(l.es) && !alive[l.es[l.head].to] {
				l.head++
			}
			if l.head < len(l.es) {
				e := &l.es[l.head]
				if l.dirty || e.v != vOf(&z[e.to]) {
					e.d, e.v = plain(&z[l.src], &z[e.to]), vOf(&z[e.to])
				}
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
		}
		z = compactAlive(z, alive[:n])
		if count == 0 && useFar && len(z) > k {
			// cannot happen with finite distances; guard against a loop
			return agglomerate(z, k, m)
		}
	}
	return z
}

// plainVec is the vec distance without the grid penalty.
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

// plainDP is the DP distance without the grid penalty.
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
