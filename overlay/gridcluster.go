package overlay

import (
	"cmp"
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

// maxCellGroup bounds the size of a cell whose closest pair is found by
// brute force after each merge; larger cells (skewed data: many nodes with
// the same memory and disk) keep each member's nearest neighbour in the
// cell instead, so that a merge costs O(cell size) distances.
const maxCellGroup = 2

type cellGroup struct {
	key      uint32
	members  []int32 // positions in z
	bi, bj   int     // best pair (offsets in members)
	best     float64
	position int  // in the heap, -1 when out
	nnValid  bool // nn/nd of the members are up to date (large cells)
}

// groupHeap orders group indices by their closest pair (then cell key).
type groupHeap struct {
	idx    []int32
	groups *[]cellGroup
}

func (h *groupHeap) Len() int { return len(h.idx) }
func (h *groupHeap) Less(a, b int) bool {
	ga, gb := &(*h.groups)[h.idx[a]], &(*h.groups)[h.idx[b]]
	if ga.best != gb.best {
		return ga.best < gb.best
	}
	return ga.key < gb.key
}
func (h *groupHeap) Swap(a, b int) {
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
	(*h.groups)[h.idx[a]].position = a
	(*h.groups)[h.idx[b]].position = b
}

// init, push, remove, fix, up and down are those of container/heap, on
// the concrete type (no interface calls).
func (h *groupHeap) init() {
	n := h.Len()
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *groupHeap) push(g int32) {
	(*h.groups)[g].position = len(h.idx)
	h.idx = append(h.idx, g)
	h.up(h.Len() - 1)
}

func (h *groupHeap) remove(i int) {
	n := h.Len() - 1
	if n != i {
		h.Swap(i, n)
		if !h.down(i, n) {
			h.up(i)
		}
	}
	g := h.idx[n]
	h.idx = h.idx[:n]
	(*h.groups)[g].position = -1
}

func (h *groupHeap) fix(i int) {
	if !h.down(i, h.Len()) {
		h.up(i)
	}
}

func (h *groupHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		j = i
	}
}

func (h *groupHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.Less(j2, j1) {
			j = j2 // right child
		}
		if !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		i = j
	}
	return i > i0
}

type gridWork struct {
	nn     []int32   // large cells: nearest neighbour in the cell (position in z)
	nd     []float64 // and the distance to it
	keys   []uint32
	sk     []uint64 // key<<32 | position, to sort
	idx    []int32
	alive  []bool
	groups []cellGroup
	heap   groupHeap
}

var gridPool = sync.Pool{New: func() any { return new(gridWork) }}

// agglomerateGrid gives the result of agglomerate (Fig. 3 with the grid
// penalty) much faster: since any pair within a grid cell is closer than
// any pair across cells, the global closest pair is the closest pair of
// the cell whose closest pair is smallest, and a merge only changes its
// own cell (and the cell the sum lands in, if it leaves its own: DP's
// pointwise minimum can fall into a lower l-cell). So the sampled
// functions are grouped by cell, each cell finds its closest pair by brute
// force (cells hold a few functions), a heap orders the cells, and merging
// proceeds cell by cell until the summary fits or every cell holds one
// function; what remains (only when more cells are occupied than SF_max)
// is clustered by agglomerate. Ties are broken by cell key and position,
// so the result is deterministic.
func agglomerateGrid[C any, M gridMetric[C]](z []C, k int, m M) []C {
	n := len(z)
	if k < 1 {
		k = 1
	}
	if n <= k {
		return z
	}
	w := gridPool.Get().(*gridWork)
	defer gridPool.Put(w)
	if cap(w.keys) < n {
		w.keys, w.idx, w.alive = make([]uint32, n), make([]int32, n), make([]bool, n)
		w.nn, w.nd, w.sk = make([]int32, n), make([]float64, n), make([]uint64, n)
	}
	keys, idx, alive, sk := w.keys[:n], w.idx[:n], w.alive[:n], w.sk[:n]
	nn, nd := w.nn[:n], w.nd[:n]
	for i := range z {
		keys[i], alive[i] = m.cellOf(&z[i]), true
		sk[i] = uint64(keys[i])<<32 | uint64(i)
	}
	slices.Sort(sk) // by key, then position
	for i, x := range sk {
		idx[i] = int32(uint32(x))
	}
	// groups, reusing the member slices of earlier calls: the first ng0
	// are the occupied cells in key order, those after them cells that
	// sums fell in later.
	ng, ng0 := 0, 0
	newGroup := func(key uint32) int32 {
		if ng == len(w.groups) {
			w.groups = append(w.groups, cellGroup{})
		}
		g := &w.groups[ng]
		g.key, g.members, g.position, g.nnValid = key, g.members[:0], -1, false
		ng++
		return int32(ng - 1)
	}
	group := func(key uint32) int32 {
		if gi, ok := slices.BinarySearchFunc(w.groups[:ng0], key, func(g cellGroup, k uint32) int {
			return cmp.Compare(g.key, k)
		}); ok {
			return int32(gi)
		}
		for gi := ng0; gi < ng; gi++ {
			if w.groups[gi].key == key {
				return int32(gi)
			}
		}
		return newGroup(key)
	}
	for _, x := range idx {
		if ng == 0 || w.groups[ng-1].key != keys[x] {
			newGroup(keys[x])
		}
		w.groups[ng-1].members = append(w.groups[ng-1].members, x)
	}
	ng0 = ng
	// rescan sets x's nearest neighbour among the members of g.
	rescan := func(g *cellGroup, x int32) {
		nn[x], nd[x] = -1, math.Inf(1)
		for _, y := range g.members {
			if y == x {
				continue
			}
			if d := m.dist(&z[x], &z[y]); d < nd[x] {
				nn[x], nd[x] = y, d
			}
		}
	}
	bestPair := func(g *cellGroup) {
		g.best, g.bi, g.bj = math.Inf(1), -1, -1
		if len(g.members) > maxCellGroup {
			if !g.nnValid {
				for _, x := range g.members {
					nn[x], nd[x] = -1, math.Inf(1)
				}
				for a, x := range g.members {
					for _, y := range g.members[a+1:] {
						d := m.dist(&z[x], &z[y])
						if d < nd[x] {
							nn[x], nd[x] = y, d
						}
						if d < nd[y] {
							nn[y], nd[y] = x, d
						}
					}
				}
				g.nnValid = true
			}
			for a, x := range g.members {
				if nd[x] < g.best {
					g.best, g.bi = nd[x], a
				}
			}
			if g.bi >= 0 {
				g.bj = slices.Index(g.members, nn[g.members[g.bi]])
			}
			return
		}
		g.nnValid = false
		for a := 0; a < len(g.members); a++ {
			for b := a + 1; b < len(g.members); b++ {
				if d := m.dist(&z[g.members[a]], &z[g.members[b]]); d < g.best {
					g.best, g.bi, g.bj = d, a, b
				}
			}
		}
	}
	w.heap.groups = &w.groups
	w.heap.idx = w.heap.idx[:0]
	for gi := 0; gi < ng; gi++ {
		if g := &w.groups[gi]; len(g.members) >= 2 {
			bestPair(g)
			g.position = len(w.heap.idx)
			w.heap.idx = append(w.heap.idx, int32(gi))
		}
	}
	w.heap.init()
	// update puts group gi back in order after its members changed.
	update := func(gi int32) {
		g := &w.groups[gi]
		switch {
		case len(g.members) >= 2:
			bestPair(g)
			if g.position >= 0 {
				w.heap.fix(g.position)
			} else {
				w.heap.push(gi)
			}
		case g.position >= 0:
			w.heap.remove(g.position)
		}
	}
	count := n
	var zero C
	for count > k && w.heap.Len() > 0 {
		gi := w.heap.idx[0]
		g := &w.groups[gi]
		a, b := g.members[g.bi], g.members[g.bj]
		z[a] = m.sum(&z[a], &z[b])
		z[b], alive[b] = zero, false
		count--
		g.members = slices.Delete(g.members, g.bj, g.bj+1)
		if key := m.cellOf(&z[a]); key != g.key {
			g.nnValid = false
			// the sum left its cell: move it to the cell it fell in
			g.members = slices.DeleteFunc(g.members, func(x int32) bool { return x == a })
			hi := group(key)
			g = &w.groups[gi] // group may have grown w.groups
			h := &w.groups[hi]
			h.members = append(h.members, a)
			h.nnValid = false
			update(gi)
			update(hi)
			continue
		}
		if g.nnValid && len(g.members) > maxCellGroup {
			// a changed and b is gone: update the nearest neighbours.
			nn[a], nd[a] = -1, math.Inf(1)
			for _, y := range g.members {
				if y == a {
					continue
				}
				d := m.dist(&z[a], &z[y])
				if d < nd[a] {
					nn[a], nd[a] = y, d
				}
				switch {
				case nn[y] == a || nn[y] == b:
					rescan(g, y)
				case d < nd[y]:
					nn[y], nd[y] = a, d
				}
			}
		} else {
			g.nnValid = false
		}
		update(gi)
	}
	z = compactAlive(z, alive)
	if len(z) > k {
		return agglomerate(z, k, m)
	}
	return z
}
