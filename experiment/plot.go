package experiment

// Series is one line of a figure's data: the points (X[i], Y[i]) in order,
// named. The figures themselves are drawn by package figure (one style
// for the project); Series only carries the values gathered for them.
type Series struct {
	Name string
	X, Y []float64
}
