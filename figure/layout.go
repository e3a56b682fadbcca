package figure

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Layout is where the parts of a figure are drawn, in points from the
// canvas's lower left corner.
type Layout struct {
	Canvas  vg.Rectangle // the whole image
	Plot    vg.Rectangle // the axes' box: axes, ticks, their labels and the data
	Data    vg.Rectangle // where the data are drawn (inside Plot)
	Legend  vg.Rectangle // the legend's frame, below Plot
	Caption vg.Rectangle // the caption's lines, below the legend
	// Columns and Rows of the legend's entries (filled column by column).
	Columns, Rows int
}

// Spacing, in points.
const (
	margin     = 10 // around everything
	gap        = 8  // between title, axes' box, legend and caption
	legendPad  = 5  // inside the legend's frame
	thumbWidth = 28 // a legend entry's line sample
	thumbGap   = 6  // between the sample and the name
	columnGap  = 14 // between legend columns
)

// layout is a figure ready to draw.
type layout struct {
	Layout
	W, H    vg.Length
	p       *plot.Plot
	entries []legendEntry
	title   []string
	source  []string
	caption []string
	colW    vg.Length
	entryH  vg.Length
}

// Layout returns where the figure's parts are drawn, after validating it.
func (f *Figure) Layout() (Layout, error) {
	l, err := f.layout()
	if err != nil {
		return Layout{}, err
	}
	return l.Layout, nil
}

func face(sty text.Style) font.Face {
	return sty.Handler.Cache().Lookup(sty.Font, sty.Font.Size)
}

func lineHeight(sty text.Style) vg.Length {
	ff := face(sty)
	return ff.Extents().Height
}

func (f *Figure) layout() (*layout, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	f, err := f.drawable()
	if err != nil {
		return nil, err
	}
	p, entries, err := f.newPlot()
	if err != nil {
		return nil, err
	}
	l := &layout{p: p, entries: entries}
	titleSty, sourceSty := style(titleSize, true, false), style(sourceSize, false, true)
	legendSty, captionSty := style(legendSize, false, false), style(captionSize, false, false)

	W := f.Width
	if W == 0 {
		W = DefaultWidth
	}
	plotH := f.PlotHeight
	if plotH == 0 {
		plotH = DefaultPlotHeight
	}
	// What cannot be seen is said: in the legend, the series a hidden
	// curve lies under; in the caption, the notes. The data area's height
	// does not depend on the canvas's width.
	read := f.readability(p, p.DataCanvas(draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: vg.Rectangle{Max: vg.Point{X: W, Y: plotH}}}).Rectangle)
	for _, g := range read.Coincide {
		top := f.Series[g[len(g)-1]].Label()
		for _, i := range g[:len(g)-1] {
			for k := range entries {
				if entries[k].series == i {
					entries[k].name += " (under " + top + ")"
				}
			}
		}
	}
	caption := f.fullCaption(read.Notes)
	// The canvas grows to hold the widest legend entry and the longest
	// word of the texts, with the fallback slack.
	var textW vg.Length
	lf := face(legendSty)
	for _, e := range entries {
		textW = max(textW, lf.Width(e.name))
	}
	entryW := thumbWidth + thumbGap + textW*fallbackSlack
	W = max(W, entryW+2*legendPad+2*margin)
	for _, t := range []struct {
		sty text.Style
		s   string
	}{{titleSty, f.Title}, {sourceSty, f.Source}, {captionSty, caption}} {
		ff := face(t.sty)
		for _, w := range strings.Fields(t.s) {
			W = max(W, ff.Width(w)*fallbackSlack+2*margin)
		}
	}
	inner := W - 2*margin
	l.title = wrap(face(titleSty), f.Title, inner)
	l.source = wrap(face(sourceSty), f.Source, inner)
	l.caption = wrap(face(captionSty), caption, inner)

	// Legend columns: as many as fit, then balanced.
	n := len(entries)
	l.colW = entryW + columnGap
	cols := int((inner - 2*legendPad + columnGap) / l.colW)
	cols = max(1, min(cols, n))
	rows := (n + cols - 1) / cols
	cols = (n + rows - 1) / rows
	l.Columns, l.Rows = cols, rows
	l.entryH = max(lineHeight(legendSty)*1.35, vg.Points(16))
	legW := vg.Length(cols)*l.colW - columnGap + 2*legendPad
	legH := vg.Length(rows)*l.entryH + 2*legendPad

	titleH := vg.Length(len(l.title)) * lineHeight(titleSty)
	sourceH := vg.Length(len(l.source)) * lineHeight(sourceSty)
	captionH := vg.Length(len(l.caption)) * lineHeight(captionSty)
	H := margin + titleH + sourceH + gap + plotH + gap + legH + gap + captionH + margin
	l.W, l.H = W, H
	l.Canvas = vg.Rectangle{Max: vg.Point{X: W, Y: H}}
	top := H - margin - titleH - sourceH - gap
	l.Plot = vg.Rectangle{Min: vg.Point{X: margin, Y: top - plotH}, Max: vg.Point{X: W - margin, Y: top}}
	top -= plotH + gap
	x0 := (W - legW) / 2
	l.Legend = vg.Rectangle{Min: vg.Point{X: x0, Y: top - legH}, Max: vg.Point{X: x0 + legW, Y: top}}
	top -= legH + gap
	l.Caption = vg.Rectangle{Min: vg.Point{X: margin, Y: top - captionH}, Max: vg.Point{X: W - margin, Y: top}}
	l.Data = p.DataCanvas(draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: l.Plot}).Rectangle
	if l.Data.Size().X <= 0 || l.Data.Size().Y <= 0 {
		return nil, fmt.Errorf("figure %q: no room left for the data (axes' box %v × %v)", f.Title, l.Plot.Size().X, l.Plot.Size().Y)
	}
	return l, nil
}

// wrap breaks s into lines no wider than width once widened by the
// fallback slack. A word wider than that stays whole on its own line (the
// canvas was grown for it).
func wrap(ff font.Face, s string, width vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			continue
		}
		line := words[0]
		for _, w := range words[1:] {
			if ff.Width(line+" "+w)*fallbackSlack <= width {
				line += " " + w
				continue
			}
			lines = append(lines, line)
			line = w
		}
		lines = append(lines, line)
	}
	return lines
}

// draw draws the figure on dc, whose size is l.W × l.H.
func (l *layout) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(l.Canvas.Path())

	titleSty, sourceSty := style(titleSize, true, false), style(sourceSize, false, true)
	legendSty, captionSty := style(legendSize, false, false), style(captionSize, false, false)
	y := l.H - margin
	y = drawLines(dc, titleSty, l.title, margin, y)
	drawLines(dc, sourceSty, l.source, margin, y)

	l.p.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: l.Plot})

	// The legend: a light frame, then the entries column by column.
	frame := draw.LineStyle{Color: color.Gray{0xAA}, Width: vg.Points(0.5)}
	r := l.Legend
	dc.StrokeLines(frame, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
	lf := face(legendSty)
	ext := (&lf).Extents()
	for i, e := range l.entries {
		col, row := i/l.Rows, i%l.Rows
		x := r.Min.X + legendPad + vg.Length(col)*l.colW
		rowTop := r.Max.Y - legendPad - vg.Length(row)*l.entryH
		icon := &draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: rowTop - l.entryH},
			Max: vg.Point{X: x + thumbWidth, Y: rowTop},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(icon)
		}
		mid := rowTop - l.entryH/2
		dc.SetColor(color.Black)
		dc.FillString(lf, vg.Point{X: x + thumbWidth + thumbGap, Y: mid - (ext.Ascent-ext.Descent)/2}, e.name)
	}

	drawLines(dc, captionSty, l.caption, margin, l.Caption.Max.Y)
}

// drawLines draws lines of text left-aligned at x, the first line's top at
// top, and returns the bottom of the last.
func drawLines(dc draw.Canvas, sty text.Style, lines []string, x, top vg.Length) vg.Length {
	ff := face(sty)
	ext := (&ff).Extents()
	dc.SetColor(sty.Color)
	for _, s := range lines {
		dc.FillString(ff, vg.Point{X: x, Y: top - ext.Ascent}, s)
		top -= ext.Height
	}
	return top
}
