package stars

import (
	"math"

	"github.com/volsched/volsched/overlay"
)

// Cells is the authors' grid cell rule (overlay.Options.Cells): a value d
// above an attribute's minimum, in a range of width span cut in b
// intervals, is in cell ⌊d·b/span⌋ (0 for an empty range), computed with a
// division so that the values at the attribute's maximum form a cell b of
// their own (b + 1 cells; d·(1/span)·b can round below b). Overlay's rule
// puts the maximum in the last of the b intervals.
type Cells struct{}

// Cell implements overlay.Cells.
func (Cells) Cell(d, span float64, b int) int {
	if !(span > 0) {
		return 0
	}
	return max(0, min(int(d*float64(b)/span), b))
}

// msePenalty is overlay's penalty of two functions in different cells
// under distance mse: above any within-cell distance.
const msePenalty = 1e6

// grid is DP's grid (the authors' "far"): floor(SF_max^(1/3)) intervals
// per axis over memory and disk from their minima and over an l measure
// from 0, with the rule cells (nil: overlay's, the maximum in the last
// interval).
type grid struct {
	base          int
	lo, inv, span [3]float64 // inv: b/Δ
	pen           float64
	cells         overlay.Cells
}

// newGrid is the grid of SF_max sfmax: lo the minima, inv 1/Δ and span Δ
// per axis (no grid below 2 intervals).
func newGrid(sfmax int, cells overlay.Cells, lo, inv, span [3]float64) grid {
	b := int(math.Floor(math.Pow(float64(sfmax), 1/float64(3)) + 1e-9)) // the authors' setNumClusters
	if b < 2 {
		return grid{}
	}
	g := grid{base: b, lo: lo, span: span, pen: msePenalty, cells: cells}
	for i := range inv {
		g.inv[i] = inv[i] * float64(b)
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
