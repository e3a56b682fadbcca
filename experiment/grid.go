package experiment

import "fmt"

// Grid numbers the points of a Cartesian product of parameter lists, in
// row-major order (the last dimension varies fastest), so that a campaign's
// unit number maps to one combination and back. For the seed-001 campaign,
// Grid{4, 3, 10, 247} is (n, n_com, w_min, scenario) with 29,640 units:
//
//	g := experiment.Grid{len(ns), len(ncoms), len(wmins), scenarios}
//	c := g.Coords(unit) // n = ns[c[0]], n_com = ncoms[c[1]], ...
type Grid []int

// Validate checks that every dimension has at least one value and that
// the product fits in an int.
func (g Grid) Validate() error {
	if len(g) == 0 {
		return fmt.Errorf("grid: no dimensions")
	}
	size := 1
	for i, n := range g {
		if n < 1 {
			return fmt.Errorf("grid: dimension %d has %d values, want ≥ 1", i, n)
		}
		if size > (1<<62)/n {
			return fmt.Errorf("grid: %v has too many points", []int(g))
		}
		size *= n
	}
	return nil
}

// Size returns the number of points (the product of the dimensions).
func (g Grid) Size() int {
	size := 1
	for _, n := range g {
		size *= n
	}
	return size
}

// Coords returns the coordinates of point u (0 ≤ u < Size()).
func (g Grid) Coords(u int) []int {
	c := make([]int, len(g))
	for i := len(g) - 1; i >= 0; i-- {
		c[i] = u % g[i]
		u /= g[i]
	}
	return c
}

// Index returns the number of the point with coordinates c; it is the
// inverse of Coords.
func (g Grid) Index(c ...int) int {
	u := 0
	for i, n := range g {
		u = u*n + c[i]
	}
	return u
}
