package figure

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Tick labels stay between these magnitudes; beyond, a linear axis's
// labels are divided by a power of ten that its title states ("finished
// computation (×10^12 MI)" with ticks 0 to 500, not 500,000,000,000,000),
// and a logarithmic axis's are written as powers of ten ("10^20",
// "2×10^-5").
const (
	scaleAbove = 1e6
	scaleBelow = 1e-3
)

// ScaleOf is the power of ten, a multiple of 3, that the tick labels of a
// linear axis with ticks values are divided by: 0 while the largest tick
// (in absolute value) lies in [1e-3, 1e6) or all are 0, otherwise the one
// that brings it into [1, 1000).
func ScaleOf(values []float64) int {
	m := 0.0
	for _, v := range values {
		m = max(m, math.Abs(v))
	}
	if m == 0 || (m >= scaleBelow && m < scaleAbove) {
		return 0
	}
	return 3 * int(math.Floor(math.Log10(m)/3+1e-9))
}

// labelledScaled is labelled for the values divided by 10^power.
func labelledScaled(values []float64, power int) []plot.Tick {
	if power == 0 {
		return labelled(values)
	}
	f := math.Pow(10, float64(power))
	scaled := make([]float64, len(values))
	for i, v := range values {
		scaled[i] = roundTo(v/f, 9)
	}
	ticks := labelled(scaled)
	for i := range ticks {
		ticks[i].Value = values[i]
	}
	return ticks
}

// logLabelled labels the ticks of a logarithmic axis: as numbers within
// [1e-3, 1e6), as powers of ten ("10^20", "2×10^-5") beyond.
func logLabelled(values []float64) []plot.Tick {
	// The numbers share their decimals, the powers are written apart.
	d := 0
	for _, v := range values {
		if v >= scaleBelow && v < scaleAbove {
			d = max(d, decimals(v))
		}
	}
	ticks := make([]plot.Tick, len(values))
	for i, v := range values {
		ticks[i] = plot.Tick{Value: v, Label: FormatTick(v, d)}
		if v >= scaleBelow && v < scaleAbove {
			continue
		}
		e := math.Floor(math.Log10(v) + 1e-9)
		m := roundTo(v/math.Pow(10, e), 6)
		label := "10^" + strconv.Itoa(int(e))
		if m != 1 {
			label = strconv.FormatFloat(m, 'g', -1, 64) + "×" + label
		}
		ticks[i].Label = label
	}
	return ticks
}

// axisTitle is the axis's title with the power of ten its tick labels are
// divided by: "finished computation (×10^12 MI)", "tasks finished (×10^6)".
func axisTitle(a Axis, power int) string {
	if power == 0 {
		return a.Text()
	}
	unit := "×10^" + strconv.Itoa(power)
	if a.Unit != "" {
		unit += " " + a.Unit
	}
	return a.Label + " (" + unit + ")"
}

// CoincideFraction is how close, as a fraction of the axis's span (of its
// logarithm on a logarithmic axis), two of our series must be at every
// point to be drawn one over the other: about a marker's width on the
// default axes' box.
const CoincideFraction = 0.01

// Readability is what a figure says of its own drawing, so that the
// reader is told what cannot be seen.
type Readability struct {
	// Coincide lists the groups of our series (indices into
	// Figure.Series, in drawing order) that lie within CoincideFraction
	// of the y axis of each other, every point of each on the other's
	// line: each is drawn over the others, the last one on top. The legend names the series each
	// hidden one lies under.
	Coincide [][]int
	// Bars counts the error bars with a positive half-width, HiddenBars
	// those of them shorter than their marker's radius (so hidden by it).
	Bars, HiddenBars int
	// Notes are the sentences FullCaption adds for them.
	Notes []string
}

// Readability computes what the figure says of its own drawing, for the
// axes' box of the default size (the data area's height does not depend
// on the canvas's width).
func (f *Figure) Readability() (Readability, error) {
	if err := f.Validate(); err != nil {
		return Readability{}, err
	}
	g, err := f.drawable()
	if err != nil {
		return Readability{}, err
	}
	p, _, err := g.newPlot()
	if err != nil {
		return Readability{}, err
	}
	plotH := f.PlotHeight
	if plotH == 0 {
		plotH = DefaultPlotHeight
	}
	data := p.DataCanvas(draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: vg.Rectangle{Max: vg.Point{X: DefaultWidth, Y: plotH}}})
	return g.readability(p, data.Rectangle), nil
}

func (f *Figure) readability(p *plot.Plot, data vg.Rectangle) Readability {
	var r Readability
	if len(f.X.Categories) == 0 && len(f.Y.Categories) == 0 {
		r.Coincide = f.coincide(p)
	}
	// Error bars: the bar's half-height in points against the marker's
	// radius (points are drawn over their bars).
	yPos := func(v float64) vg.Length {
		return data.Min.Y + vg.Length(p.Y.Norm(v))*data.Size().Y
	}
	xPos := func(v float64) vg.Length {
		return data.Min.X + vg.Length(p.X.Norm(v))*data.Size().X
	}
	for _, s := range f.Series {
		radius := MarkerRadius
		if s.Paper {
			radius = PaperMarkerRadius
		}
		for j := range s.Y {
			if s.Err != nil && s.Err[j] > 0 {
				r.Bars++
				if yPos(s.Y[j]+s.Err[j])-yPos(s.Y[j]) < radius && yPos(s.Y[j])-yPos(s.Y[j]-s.Err[j]) < radius {
					r.HiddenBars++
				}
			}
			if s.XErr != nil && s.XErr[j] > 0 {
				r.Bars++
				if xPos(s.X[j]+s.XErr[j])-xPos(s.X[j]) < radius && xPos(s.X[j])-xPos(s.X[j]-s.XErr[j]) < radius {
					r.HiddenBars++
				}
			}
		}
	}
	if len(r.Coincide) > 0 {
		var groups []string
		for _, g := range r.Coincide {
			var under []string
			for _, i := range g[:len(g)-1] {
				under = append(under, f.Series[i].Label())
			}
			groups = append(groups, joinAnd(under)+" under "+f.Series[g[len(g)-1]].Label())
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Curves within %g %% of the y axis of each other at every point are drawn one over the other: %s.",
			100*CoincideFraction, strings.Join(groups, "; ")))
	}
	switch {
	case r.HiddenBars == 0:
	case r.HiddenBars == r.Bars:
		r.Notes = append(r.Notes, "Every error bar is shorter than its marker and hidden by it.")
	default:
		r.Notes = append(r.Notes, fmt.Sprintf("%d of the %d error bars are shorter than their marker and hidden by it.", r.HiddenBars, r.Bars))
	}
	return r
}

// coincide finds the groups of our series that lie within
// CoincideFraction of the y axis of each other: each one's points on the
// other's line, over the same x range.
func (f *Figure) coincide(p *plot.Plot) [][]int {
	var ours []int
	for i, s := range f.Series {
		if !s.Paper {
			ours = append(ours, i)
		}
	}
	// on reports whether every point of a lies on b's line (within
	// CoincideFraction of the y axis, in normalized coordinates), inside
	// b's x range.
	on := func(a, b Series) bool {
		for j := range a.X {
			x, y := p.X.Norm(a.X[j]), p.Y.Norm(a.Y[j])
			found := false
			for k := range b.X {
				x0, y0 := p.X.Norm(b.X[k]), p.Y.Norm(b.Y[k])
				if math.Abs(x-x0) <= 1e-9 {
					found = math.Abs(y-y0) <= CoincideFraction
					break
				}
				if k+1 < len(b.X) {
					x1, y1 := p.X.Norm(b.X[k+1]), p.Y.Norm(b.Y[k+1])
					if (x0 < x && x < x1) || (x1 < x && x < x0) {
						found = math.Abs(y-(y0+(y1-y0)*(x-x0)/(x1-x0))) <= CoincideFraction
						break
					}
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	same := func(a, b Series) bool { return on(a, b) && on(b, a) }
	// Union-find over our series, joined pairwise.
	parent := map[int]int{}
	var find func(int) int
	find = func(i int) int {
		if p, ok := parent[i]; ok && p != i {
			parent[i] = find(p)
			return parent[i]
		}
		return i
	}
	for a := range ours {
		for b := a + 1; b < len(ours); b++ {
			if same(f.Series[ours[a]], f.Series[ours[b]]) {
				ra, rb := find(ours[a]), find(ours[b])
				if ra != rb {
					parent[max(ra, rb)] = min(ra, rb)
				}
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for _, i := range ours {
		r := find(i)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i)
	}
	var out [][]int
	for _, r := range roots {
		if len(byRoot[r]) > 1 {
			out = append(out, byRoot[r])
		}
	}
	return out
}

// joinAnd lists names: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
