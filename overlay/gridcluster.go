package overlay

import (
	"container/heap"
	"math"
	"slices"
	"sync"
)

// gridMetric is a metric with the grid penalty: pairs in different cells
// are farther apart than any pair within a cell.
type gridMetric[C any] interface {
	metric[C]
	cellOf(c *C) uint32
}

// maxCellGroup bounds the size of a cell handled by brute force; a summary
// with a larger cell (very skewed data) falls back to agglomerate.
const maxCellGroup = 48

type cellGroup struct {
	lo, n    int // z[lo : lo+n]
	bi, bj   int // best pair (offsets in the group)
	best     float64
	position int
}

type groupHeap []*cellGroup

func (h groupHeap) Len() int { return len(h) }
func (h groupHeap) Less(a, b int) bool {
	if h[a].best != h[b].best {
		return h[a].best < h[b].best
	}
	return h[a].lo < h[b].lo
}
func (h groupHeap) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].position, h[b].position = a, b
}
func (h *groupHeap) Push(x any) { g := x.(*cellGroup); g.position = len(*h); *h = append(*h, g) }
func (h *groupHeap) Pop() any {
	old := *h
	g := old[len(old)-1]
	*h = old[:len(old)-1]
	return g
}

type gridWork[C any] struct {
	tmp    []C
	keys   []uint32
	idx    []int32
	groups []cellGroup
	heap   groupHeap
}

var gridPools sync.Map // *gridWork[C] per C

// agglomerateGrid gives the result of agglomerate (Fig. 3 with the grid
// penalty) much faster: since any pair within a grid cell is closer than
// any pair across cells, the global closest pair is the closest pair of
// the cell whose closest pair is smallest, and a merge only changes its
// own cell. So the sampled functions are grouped by cell, each cell finds
// its closest pair by brute force (cells hold a few functions), a heap
// orders the cells, and merging proceeds cell by cell until the summary
// fits or every cell holds one function; what remains (only when there are
// more occupied cells than SF_max) is clustered by agglomerate.
func agglomerateGrid[C any, M gridMetric[C]](z []C, k int, m M) []C {
	n := len(z)
	if k < 1 {
		k = 1
	}
	if n <= k {
		return z
	}
	wp, ok := gridPools.Load((*gridWork[C])(nil))
	if !ok {
		wp, _ = gridPools.LoadOrStore((*gridWork[C])(nil), &sync.Pool{New: func() any { return new(gridWork[C]) }})
	}
	pool := wp.(*sync.Pool)
	w := pool.Get().(*gridWork[C])
	defer pool.Put(w)
	if cap(w.keys) < n {
		w.keys, w.idx, w.tmp = make([]uint32, n), make([]int32, n), make([]C, n)
	}
	keys, idx, tmp := w.keys[:n], w.idx[:n], w.tmp[:n]
	for i := range z {
		keys[i], idx[i] = m.cellOf(&z[i]), int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if keys[a] != keys[b] {
			if keys[a] < keys[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	for i, x := range idx {
		tmp[i] = z[x]
	}
	copy(z, tmp)
	var zero C
	clear(tmp)
	w.groups = w.groups[:0]
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[idx[j]] == keys[idx[i]] {
			j++
		}
		if j-i > maxCellGroup {
			return agglomerate(z, k, m)
		}
		w.groups = append(w.groups, cellGroup{lo: i, n: j - i})
		i = j
	}
	bestPair := func(g *cellGroup) {
		g.best, g.bi, g.bj = math.Inf(1), -1, -1
		for a := 0; a < g.n; a++ {
			for b := a + 1; b < g.n; b++ {
				if d := m.dist(&z[g.lo+a], &z[g.lo+b]); d < g.best {
					g.best, g.bi, g.bj = d, a, b
				}
			}
		}
	}
	w.heap = w.heap[:0]
	for gi := range w.groups {
		g := &w.groups[gi]
		if g.n >= 2 {
			bestPair(g)
			w.heap = append(w.heap, g)
			g.position = len(w.heap) - 1
		}
	}
	heap.Init(&w.heap)
	count := n
	for count > k && len(w.heap) > 0 {
		g := w.heap[0]
		a, b := g.lo+g.bi, g.lo+g.bj
		z[a] = m.sum(&z[a], &z[b])
		last := g.lo + g.n - 1
		z[b] = z[last]
		z[last] = zero
		g.n--
		count--
		if g.n >= 2 {
			bestPair(g)
			heap.Fix(&w.heap, 0)
		} else {
			heap.Pop(&w.heap)
		}
	}
	// compact the survivors
	out := 0
	for gi := range w.groups {
		g := &w.groups[gi]
		for x := 0; x < g.n; x++ {
			z[out] = z[g.lo+x]
			out++
		}
	}
	for x := out; x < n; x++ {
		z[x] = zero
	}
	z = z[:out]
	if out > k {
		return agglomerate(z, k, m)
	}
	return z
}
