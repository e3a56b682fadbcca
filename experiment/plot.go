package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a LinePlot: the points (X[i], Y[i]) joined in
// order, named in the legend.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot draws series as lines with point markers (one colour, marker and
// dash pattern per series, a legend with their names and a grid) and writes
// the figure to path, 16 × 10 cm. The format comes from the extension:
// .svg, .png or .pdf. The file is written atomically.
func LinePlot(path, title, xlabel, ylabel string, series []Series) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch format {
	case "svg", "png", "pdf":
	default:
		return fmt.Errorf("line plot %s: format %q, want a .svg, .png or .pdf file", path, format)
	}
	if len(series) == 0 {
		return fmt.Errorf("line plot %s: no series", path)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("line plot %s: series %q has %d x and %d y values", path, s.Name, len(s.X), len(s.Y))
		}
		if len(s.X) == 0 {
			return fmt.Errorf("line plot %s: series %q is empty", path, s.Name)
		}
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			if bad(s.X[j]) || bad(s.Y[j]) {
				return fmt.Errorf("line plot %s: series %q point %d is (%g, %g), want finite values", path, s.Name, j, s.X[j], s.Y[j])
			}
			xys[j].X, xys[j].Y = s.X[j], s.Y[j]
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("line plot %s: series %q: %w", path, s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7) // colours repeat after 7
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		pts.Radius = vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	wt, err := p.WriterTo(16*vg.Centimeter, 10*vg.Centimeter, format)
	if err != nil {
		return fmt.Errorf("line plot %s: %w", path, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return fmt.Errorf("line plot %s: %w", path, err)
	}
	if b.Len() == 0 {
		return errors.New("line plot " + path + ": empty output")
	}
	return writeFileAtomic(path, b.Bytes())
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
