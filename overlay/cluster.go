package overlay

import (
	"math"
	"sync"
)

// metric is a policy's sum and distance of sampled functions of type C,
// with the per-attribute ranges Δ of the summary being clustered fixed.
type metric[C any] interface {
	dist(a, b *C) float64
	sum(a, b *C) C
}

// nnWork is the scratch space of agglomerate, pooled so that aggregation
// does not allocate in steady state.
type nnWork struct {
	nn  []int32
	nd  []float64
	bad []bool
	d   []float64 // distance matrix, row-major, stride n
}

var nnPool = sync.Pool{New: func() any { return new(nnWork) }}

// agglomerate clusters z in place down to k sampled functions by
// agglomerative hierarchical clustering (Fig. 3): repeatedly replace the
// closest pair by its sum. It returns z[:k] (or z when len(z) <= k).
//
// The closest pair is found with nearest-neighbour lists over a distance
// matrix: every sampled function keeps its nearest neighbour and the
// distance to it (n²/2 distance evaluations to start). After a merge, the
// merged function's row is evaluated (n distances) and the rows of the
// functions whose nearest neighbour was one of the merged pair are
// re-scanned in the matrix (no distance evaluation). A merge thus costs
// O(n) distance evaluations, and the whole clustering O(n²) evaluations
// instead of the O(n³) of a naive closest-pair scan. Ties are broken by the
// lowest index, so the result is deterministic.
func agglomerate[C any, M metric[C]](z []C, k int, m M) []C {
	n := len(z)
	if k < 1 {
		k = 1
	}
	if n <= k {
		return z
	}
	w := nnPool.Get().(*nnWork)
	defer nnPool.Put(w)
	if cap(w.nn) < n {
		w.nn, w.nd, w.bad = make([]int32, n), make([]float64, n), make([]bool, n)
	}
	if cap(w.d) < n*n {
		w.d = make([]float64, n*n)
	}
	stride := n
	nn, nd, bad, dm := w.nn[:n], w.nd[:n], w.bad[:n], w.d[:n*n]
	for i := range nd {
		nd[i], nn[i], bad[i] = math.Inf(1), -1, false
	}
	for i := 0; i < n; i++ {
		row := dm[i*stride : i*stride+n]
		for j := i + 1; j < n; j++ {
			d := m.dist(&z[i], &z[j])
			row[j] = d
			dm[j*stride+i] = d
			if d < nd[i] {
				nd[i], nn[i] = d, int32(j)
			}
			if d < nd[j] {
				nd[j], nn[j] = d, int32(i)
			}
		}
	}
	for n > k {
		i := 0
		for x := 1; x < n; x++ {
			if nd[x] < nd[i] {
				i = x
			}
		}
		j := int(nn[i])
		if j < i {
			i, j = j, i
		}
		z[i] = m.sum(&z[i], &z[j])
		for x := 0; x < n; x++ {
			bad[x] = nn[x] == int32(i) || nn[x] == int32(j)
		}
		last := n - 1
		if j != last {
			// move last into j (i < j, so i does not move)
			z[j], nn[j], nd[j], bad[j] = z[last], nn[last], nd[last], bad[last]
			copy(dm[j*stride:j*stride+last], dm[last*stride:last*stride+last])
			for y := 0; y < last; y++ {
				dm[y*stride+j] = dm[y*stride+last]
				if nn[y] == int32(last) {
					nn[y] = int32(j)
				}
			}
			dm[j*stride+j] = 0
		}
		n--
		bad[i] = false
		nd[i], nn[i] = math.Inf(1), -1
		ri := dm[i*stride : i*stride+n]
		for y := 0; y < n; y++ {
			if y == i {
				continue
			}
			d := m.dist(&z[i], &z[y])
			ri[y] = d
			dm[y*stride+i] = d
			if d < nd[i] {
				nd[i], nn[i] = d, int32(y)
			}
			if !bad[y] && d < nd[y] {
				nd[y], nn[y] = d, int32(i)
			}
		}
		for x := 0; x < n; x++ {
			if !bad[x] {
				continue
			}
			bad[x] = false
			rx := dm[x*stride : x*stride+n]
			best, bi := math.Inf(1), int32(-1)
			for y, d := range rx {
				if d < best && y != x {
					best, bi = d, int32(y)
				}
			}
			nd[x], nn[x] = best, bi
		}
	}
	var zero C
	for x := n; x < len(z); x++ {
		z[x] = zero
	}
	return z[:n]
}

// span returns max-min, or 0.
func span(lo, hi float64) float64 {
	if hi > lo {
		return hi - lo
	}
	return 0
}

// inv returns 1/x, or 0 when x is 0 (an attribute without spread adds no
// distance).
func inv(x float64) float64 {
	if x > 0 {
		return 1 / x
	}
	return 0
}

// grid is the equal-width grid of the distance: each attribute's range is
// cut in base = round(SF_max^(1/d)) cells, and a pair of sampled functions
// in different cells of an attribute pays a penalty larger than any loss
// within cells (the loss per attribute is at most the number of nodes), so
// clustering first merges inside cells and the summary keeps one sampled
// function per occupied cell as long as it can. This is what the authors'
// simulator did (SF_max = base^d); docs/overlay.md compares with and
// without it.
type grid struct {
	cells Cells      // nil: ours (gridCell); else the rule of Options.Cells
	span  [4]float64 // Δ per axis, for a Cells rule
	base  int
	lo    [4]float64
	inv   [4]float64 // base/Δ
	pen   float64
}

func newGrid(b, d, nodes int, lo, inv []float64) grid {
	if b < 2 {
		return grid{}
	}
	g := grid{base: b, pen: float64(nodes)*float64(d+1) + 1}
	for i := range lo {
		g.lo[i], g.inv[i] = lo[i], inv[i]*float64(b)
	}
	return g
}

func (g *grid) cell(i int, x float64) int {
	if g.cells != nil {
		return g.cells.Cell(x-g.lo[i], g.span[i], g.base)
	}
	c := int((x - g.lo[i]) * g.inv[i])
	return max(0, min(c, g.base-1))
}

// gridSpec is how a clustering uses the grid of SF_max^(1/d) equal
// intervals per attribute: not at all (Options.NoGrid), or with our cells
// (cells nil: b intervals, an attribute's maximum in the last) or the rule
// of Options.Cells.
type gridSpec struct {
	none  bool
	cells Cells
}

// gridCell is our cell of a value at the fraction n of its attribute's
// range, with b intervals: in [0, b−1], the maximum in the last.
func gridCell(n float64, b int) int {
	return max(0, min(int(n*float64(b)), b-1))
}

// compactAlive keeps the elements of z whose alive flag is set, in order,
// zeroes the rest (they may hold references) and returns the prefix.
func compactAlive[C any](z []C, alive []bool) []C {
	out := 0
	for i := range z {
		if alive[i] {
			z[out] = z[i]
			out++
		}
	}
	clear(z[out:])
	return z[:out]
}
