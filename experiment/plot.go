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
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a LinePlot: the points (X[i], Y[i]) joined in
// order, named in the legend.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot draws series as lines with point markers (one colour, marker and
// dash pattern per series, a legend with their names and a grid) and writes
// the figure to path: axes 16 × 10 cm (taller if the legend needs it), the
// legend on their right. The format comes from the extension:
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
	// The legend is drawn outside the axes, on the right, so that it never
	// hides data (the reproductions plot up to 17 series).
	leg := p.Legend
	leg.Top, leg.Left = true, true
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
		leg.Add(s.Name, l, pts)
	}
	var legW vg.Length
	for _, s := range series {
		legW = max(legW, leg.TextStyle.Width(s.Name))
	}
	legW += leg.ThumbnailWidth + leg.TextStyle.Width("m") + vg.Points(8)
	entryH := leg.TextStyle.FontExtents().Height
	width := 16*vg.Centimeter + legW
	height := max(10*vg.Centimeter, entryH*vg.Length(len(series))+2*vg.Centimeter)
	cw, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return fmt.Errorf("line plot %s: %w", path, err)
	}
	dc := draw.New(cw)
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	leg.Draw(draw.Crop(dc, width-legW+vg.Points(4), 0, 0, -vg.Points(20)))
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return fmt.Errorf("line plot %s: %w", path, err)
	}
	if b.Len() == 0 {
		return errors.New("line plot " + path + ": empty output")
	}
	return writeFileAtomic(path, b.Bytes())
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
