// Package figure draws the project's figures in one style: line plots of
// our results beside the paper's published values, with readable text,
// five to eight round ticks per axis, units on the axes, a colour-blind
// safe palette (Okabe–Ito) with distinct markers and dashes, a legend
// below the axes that never covers data and is never clipped (the canvas
// grows to fit it), the paper's title under the figure's, and a caption
// with the run's seed and parameters. Output is SVG or PNG, and the same
// Figure always gives the same bytes.
//
// docs/report.md states the style rules.
package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/volsched/volsched/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a figure: the points (X[i], Y[i]) joined in order.
type Series struct {
	// Name is the legend entry. For published values it names what they
	// are the paper's values of (the legend says "Name (paper)"), or is
	// empty (the legend says "paper").
	Name string
	X, Y []float64
	// Err, when not nil, holds the half-width of an error bar at each
	// point (e.g. of a 95 % confidence interval), in Y's unit, ≥ 0.
	Err []float64
	// XErr is Err for horizontal error bars, in X's unit (e.g. intervals
	// on a plot whose Y axis has Categories).
	XErr []float64
	// Group, when set, puts the series in a group (e.g. "µ=0.151" of
	// curves drawn for two values of µ): the legend says "Name Group",
	// series of the same Name share a colour and a marker in every group,
	// and series of the same Group share a dash pattern, so that a colour
	// always means one name.
	Group string
	// Paper marks the paper's published values: drawn with hollow markers
	// joined by a dashed line, in the colour of our series of the same
	// Name (black when there is none).
	Paper bool
}

// Axis describes one axis.
type Axis struct {
	// Categories, when set, makes the axis show named categories instead
	// of a quantity: a value i on it is Categories[i], each category has
	// a tick labelled with its name, and on a Y axis the first category
	// is at the top. The series' values on the axis must be whole numbers
	// in [0, len(Categories)); Log, Zero, Integer and Fixed do not apply.
	Categories []string
	Label      string // the quantity, e.g. "average dfb"
	Unit       string // its unit, e.g. "%", "s", "tasks/h"; empty for counts and ratios
	Log        bool   // logarithmic scale (all values must be > 0)
	// Zero makes the axis include 0 (linear axes only).
	Zero bool
	// Integer says the quantity takes whole values only (e.g. w_min in
	// slots): a linear axis then has ticks at whole numbers only, so a
	// narrow range (w_min in {1, 2}) gets fewer than MinTicks ticks
	// rather than fractions no point can take.
	Integer bool
	// Fixed sets the axis to exactly [Min, Max] instead of the data's
	// range rounded out to ticks.
	Fixed    bool
	Min, Max float64
}

// Text returns the axis title: "label (unit)" or "label".
func (a Axis) Text() string {
	if a.Unit == "" {
		return a.Label
	}
	return a.Label + " (" + a.Unit + ")"
}

// PaperKind says what the paper publishes for a figure.
type PaperKind int

const (
	// PaperNone: the figure has no counterpart in the paper.
	PaperNone PaperKind = iota
	// PaperValues: the paper gives numbers for (some of) the figure, drawn
	// as series with Paper set.
	PaperValues
	// PaperPicture: the paper gives the figure only as a picture, so there
	// is nothing to draw beside ours; the caption says so.
	PaperPicture
	// NoPaper: the figure is of a user's own run (volsched simulate), not
	// of a reproduction: its caption says nothing about a paper and it
	// needs no Source.
	NoPaper
)

func (k PaperKind) String() string {
	switch k {
	case PaperNone:
		return "none"
	case PaperValues:
		return "values"
	case PaperPicture:
		return "picture"
	case NoPaper:
		return "no paper"
	}
	return fmt.Sprintf("PaperKind(%d)", int(k))
}

// Figure is one figure: data in, a file out.
type Figure struct {
	// Title says what the figure shows, with the paper's figure or table
	// number, e.g. "Figure 2: average dfb against w_min".
	Title string
	// Source is the paper by its title (and authors), drawn in italics
	// under Title, e.g. "Casanova et al., Scheduling Parallel Iterative
	// Applications on Volatile Resources".
	Source string
	X, Y   Axis
	Series []Series
	// Caption describes the run: seed, parameters, instances. A sentence
	// on the paper's values (from Paper) follows it (see FullCaption).
	Caption string
	Paper   PaperKind
	// Width of the canvas and height of the axes' box, 0 for the defaults
	// (17 cm and 9 cm). The canvas grows wider for a long legend entry and
	// taller for the legend and the caption.
	Width, PlotHeight vg.Length
}

// Default sizes.
const (
	DefaultWidth      = 17 * vg.Centimeter
	DefaultPlotHeight = 9 * vg.Centimeter
	// PNGDPI is the resolution of PNG output: twice a screen's 96, so that
	// the image stays sharp on high-density displays and in print.
	PNGDPI = 192
)

// Notes appended to the caption, by PaperKind.
const (
	NoteValues  = `Published values are drawn with hollow markers joined by dashed lines, named "(paper)" in the legend.`
	NotePicture = "The paper gives this figure only as a picture: its values cannot be drawn here; compare by eye."
	NoteNone    = "The paper has no counterpart of this figure."
)

// FullCaption is Caption followed by what the figure itself says of its
// drawing (curves that coincide, error bars hidden by their markers:
// Readability) and the note on the paper's values.
func (f *Figure) FullCaption() string {
	r, err := f.Readability()
	if err != nil {
		r = Readability{} // an invalid figure: the notes need its drawing
	}
	return f.fullCaption(r.Notes)
}

func (f *Figure) fullCaption(notes []string) string {
	var parts []string
	if c := strings.TrimSpace(f.Caption); c != "" {
		if !strings.HasSuffix(c, ".") {
			c += "."
		}
		parts = append(parts, c)
	}
	parts = append(parts, notes...)
	switch f.Paper {
	case PaperNone:
		parts = append(parts, NoteNone)
	case PaperValues:
		parts = append(parts, NoteValues)
	case PaperPicture:
		parts = append(parts, NotePicture)
	}
	return strings.Join(parts, " ")
}

// Validate checks the figure: a title, the paper's title (Source) when
// the paper has a counterpart, a caption, axis labels, at least one series,
// matching lengths, finite values (positive on a log axis), error bars ≥ 0,
// and paper series exactly when Paper is PaperValues. Errors name the
// field, the value and what was expected.
func (f *Figure) Validate() error {
	name := f.Title
	if strings.TrimSpace(f.Title) == "" {
		return errors.New("figure: Title is empty, want what the figure shows (e.g. \"Figure 2: average dfb against w_min\")")
	}
	switch f.Paper {
	case PaperNone, PaperValues, PaperPicture, NoPaper:
	default:
		return fmt.Errorf("figure %q: Paper = %d, want PaperNone, PaperValues, PaperPicture or NoPaper", name, int(f.Paper))
	}
	if (f.Paper == PaperValues || f.Paper == PaperPicture) && strings.TrimSpace(f.Source) == "" {
		return fmt.Errorf("figure %q: Source is empty but Paper is %s, want the paper's title", name, f.Paper)
	}
	if strings.TrimSpace(f.Caption) == "" {
		return fmt.Errorf("figure %q: Caption is empty, want the run: seed and parameters", name)
	}
	if strings.TrimSpace(f.X.Label) == "" || strings.TrimSpace(f.Y.Label) == "" {
		return fmt.Errorf("figure %q: X.Label %q, Y.Label %q, want both axes labelled", name, f.X.Label, f.Y.Label)
	}
	if len(f.Series) == 0 {
		return fmt.Errorf("figure %q: no series", name)
	}
	for _, a := range []struct {
		n string
		a Axis
	}{{"X", f.X}, {"Y", f.Y}} {
		if a.a.Fixed && (bad(a.a.Min) || bad(a.a.Max) || !(a.a.Min < a.a.Max)) {
			return fmt.Errorf("figure %q: %s axis fixed to [%g, %g], want finite Min < Max", name, a.n, a.a.Min, a.a.Max)
		}
		if a.a.Log && a.a.Fixed && a.a.Min <= 0 {
			return fmt.Errorf("figure %q: %s axis is logarithmic with Min = %g, want Min > 0", name, a.n, a.a.Min)
		}
		if a.a.Log && a.a.Zero {
			return fmt.Errorf("figure %q: %s axis is logarithmic and asks to include 0", name, a.n)
		}
		if len(a.a.Categories) > 0 && (a.a.Log || a.a.Zero || a.a.Integer || a.a.Fixed) {
			return fmt.Errorf("figure %q: %s axis has Categories and Log, Zero, Integer or Fixed, want categories alone", name, a.n)
		}
		for i, c := range a.a.Categories {
			if strings.TrimSpace(c) == "" {
				return fmt.Errorf("figure %q: %s axis: category %d is empty, want a name", name, a.n, i)
			}
		}
	}
	if f.Width < 0 || f.PlotHeight < 0 {
		return fmt.Errorf("figure %q: Width %v, PlotHeight %v, want ≥ 0 (0 for the default)", name, f.Width, f.PlotHeight)
	}
	papers := 0
	for i, s := range f.Series {
		id := fmt.Sprintf("series %d (%q)", i, s.Name)
		if s.Paper {
			papers++
		} else if strings.TrimSpace(s.Name) == "" {
			return fmt.Errorf("figure %q: %s has no name, want a legend entry", name, id)
		}
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("figure %q: %s has %d x and %d y values, want as many", name, id, len(s.X), len(s.Y))
		}
		if len(s.X) == 0 {
			return fmt.Errorf("figure %q: %s is empty", name, id)
		}
		if s.Err != nil && len(s.Err) != len(s.Y) {
			return fmt.Errorf("figure %q: %s has %d error bars for %d points, want one per point", name, id, len(s.Err), len(s.Y))
		}
		if s.XErr != nil && len(s.XErr) != len(s.X) {
			return fmt.Errorf("figure %q: %s has %d horizontal error bars for %d points, want one per point", name, id, len(s.XErr), len(s.X))
		}
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if bad(x) || bad(y) {
				return fmt.Errorf("figure %q: %s point %d is (%g, %g), want finite values", name, id, j, x, y)
			}
			if f.X.Log && x <= 0 {
				return fmt.Errorf("figure %q: %s point %d has x = %g on a logarithmic axis, want x > 0", name, id, j, x)
			}
			if f.Y.Log && y <= 0 {
				return fmt.Errorf("figure %q: %s point %d has y = %g on a logarithmic axis, want y > 0", name, id, j, y)
			}
			for _, b := range []struct {
				kind string
				err  []float64
				log  bool
				v    float64
			}{{"", s.Err, f.Y.Log, y}, {"horizontal ", s.XErr, f.X.Log, x}} {
				if b.err == nil {
					continue
				}
				e := b.err[j]
				if bad(e) || e < 0 {
					return fmt.Errorf("figure %q: %s %serror bar %d is %g, want a finite value ≥ 0", name, id, b.kind, j, e)
				}
				if b.log && b.v-e <= 0 {
					return fmt.Errorf("figure %q: %s %serror bar %d reaches %g on a logarithmic axis, want > 0", name, id, b.kind, j, b.v-e)
				}
			}
			for _, a := range []struct {
				n string
				a Axis
				v float64
			}{{"x", f.X, x}, {"y", f.Y, y}} {
				if n := len(a.a.Categories); n > 0 && (a.v != math.Round(a.v) || a.v < 0 || a.v >= float64(n)) {
					return fmt.Errorf("figure %q: %s point %d has %s = %g on an axis of %d categories, want a whole number in [0, %d)", name, id, j, a.n, a.v, n, n)
				}
			}
		}
	}
	switch {
	case f.Paper == PaperValues && papers == 0:
		return fmt.Errorf("figure %q: Paper is PaperValues but no series has Paper set, want the published values as a series", name)
	case f.Paper != PaperValues && papers > 0:
		return fmt.Errorf("figure %q: %d series have Paper set but Paper is %s, want PaperValues", name, papers, f.Paper)
	}
	_, err := f.drawable()
	return err
}

// drawable returns a copy of f whose texts have the substitutes of
// characters the font lacks, or an error naming the text that has one
// without a substitute.
func (f *Figure) drawable() (*Figure, error) {
	g := *f
	g.Series = append([]Series(nil), f.Series...)
	fields := []struct {
		name string
		sty  text.Style
		s    *string
	}{
		{"Title", style(titleSize, true, false), &g.Title},
		{"Source", style(sourceSize, false, true), &g.Source},
		{"Caption", style(captionSize, false, false), &g.Caption},
		{"X.Label", style(labelSize, false, false), &g.X.Label},
		{"X.Unit", style(labelSize, false, false), &g.X.Unit},
		{"Y.Label", style(labelSize, false, false), &g.Y.Label},
		{"Y.Unit", style(labelSize, false, false), &g.Y.Unit},
	}
	g.X.Categories = append([]string(nil), f.X.Categories...)
	g.Y.Categories = append([]string(nil), f.Y.Categories...)
	for _, a := range []*Axis{&g.X, &g.Y} {
		for i := range a.Categories {
			fields = append(fields, struct {
				name string
				sty  text.Style
				s    *string
			}{fmt.Sprintf("Categories[%d]", i), style(tickSize, false, false), &a.Categories[i]})
		}
	}
	for i := range g.Series {
		fields = append(fields, struct {
			name string
			sty  text.Style
			s    *string
		}{fmt.Sprintf("Series[%d].Name", i), style(legendSize, false, false), &g.Series[i].Name},
			struct {
				name string
				sty  text.Style
				s    *string
			}{fmt.Sprintf("Series[%d].Group", i), style(legendSize, false, false), &g.Series[i].Group})
	}
	for _, fl := range fields {
		s, err := drawable(fl.sty, *fl.s)
		if err != nil {
			return nil, fmt.Errorf("figure %q: %s %q: %w", f.Title, fl.name, *fl.s, err)
		}
		*fl.s = s
	}
	return &g, nil
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// FullName is the series' name with its group: "EA µ=0.151".
func (s Series) FullName() string {
	if s.Group == "" {
		return s.Name
	}
	return strings.TrimSpace(s.Name + " " + s.Group)
}

// Label is the series' legend entry: FullName, "FullName (paper)" for
// published values, "paper" for unnamed ones.
func (s Series) Label() string {
	name := s.FullName()
	switch {
	case !s.Paper:
		return name
	case name == "":
		return "paper"
	}
	return name + " (paper)"
}

// Render draws the figure in format "svg" or "png".
func (f *Figure) Render(format string) ([]byte, error) {
	lay, err := f.layout()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	switch format {
	case "svg":
		c := vgsvg.New(lay.W, lay.H)
		lay.draw(draw.New(c))
		if _, err := c.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("figure %q: svg: %w", f.Title, err)
		}
		return fontFallback(b.Bytes()), nil
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(lay.W, lay.H), vgimg.UseDPI(PNGDPI), vgimg.UseBackgroundColor(color.White))
		lay.draw(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
			return nil, fmt.Errorf("figure %q: png: %w", f.Title, err)
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("figure %q: format %q, want \"svg\" or \"png\"", f.Title, format)
}

// fontFallback names fallbacks for the SVG's font: Arial and Helvetica
// have Liberation Sans's metrics, so where it is missing text keeps its
// size; any other sans-serif is covered by the layout's slack.
func fontFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// WriteFile renders the figure to path, in the format of its extension
// (.svg or .png), atomically (a temporary file renamed into place).
func (f *Figure) WriteFile(path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "svg" && format != "png" {
		return fmt.Errorf("figure %q: file %s: extension %q, want .svg or .png", f.Title, path, filepath.Ext(path))
	}
	b, err := f.Render(format)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o644)
}

// WriteFiles writes base+".svg" and base+".png" and returns their paths.
func (f *Figure) WriteFiles(base string) ([]string, error) {
	var out []string
	for _, ext := range []string{".svg", ".png"} {
		if err := f.WriteFile(base + ext); err != nil {
			return out, err
		}
		out = append(out, base+ext)
	}
	return out, nil
}

// newPlot builds the gonum plot of the axes' box: grid, series, error
// bars, ticks; no title and no legend (drawn by the layout). The entries
// are our series in order, then the paper's.
func (f *Figure) newPlot() (*plot.Plot, []legendEntry, error) {
	p := plot.New()
	p.BackgroundColor = nil
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = style(labelSize, false, false)
		a.Tick.Label = style(tickSize, false, false)
		a.Tick.Length = vg.Points(5)
		a.Padding = vg.Points(3)
		a.Label.Padding = vg.Points(4)
		a.LineStyle.Width = vg.Points(0.75)
		a.Tick.LineStyle.Width = vg.Points(0.75)
	}
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Label.TextStyle.XAlign, p.X.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
	p.Y.Label.TextStyle.XAlign, p.Y.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom

	// Ranges and ticks.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		for j := range s.X {
			e, ex := 0.0, 0.0
			if s.Err != nil {
				e = s.Err[j]
			}
			if s.XErr != nil {
				ex = s.XErr[j]
			}
			xlo, xhi = min(xlo, s.X[j]-ex), max(xhi, s.X[j]+ex)
			ylo, yhi = min(ylo, s.Y[j]-e), max(yhi, s.Y[j]+e)
		}
	}
	px, err := setAxis(&p.X, f.X, xlo, xhi)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %q: x axis: %w", f.Title, err)
	}
	py, err := setAxis(&p.Y, f.Y, ylo, yhi)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %q: y axis: %w", f.Title, err)
	}
	if len(f.Y.Categories) > 0 {
		p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}} // the first category at the top
	}
	p.X.Label.Text, p.Y.Label.Text = axisTitle(f.X, px), axisTitle(f.Y, py)

	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{0xDD}
	grid.Horizontal.Color = color.Gray{0xDD}
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)

	// Our series first, then the paper's on top.
	colorOf := map[string]color.Color{}
	var entries []legendEntry
	for _, st := range f.ourStyles() {
		s := f.Series[st.series]
		if _, dup := colorOf[s.Name]; !dup {
			colorOf[s.Name] = st.color
		}
		e, err := addSeries(p, s, st.color, st.marker, st.dash, vg.Points(1.25), MarkerRadius)
		if err != nil {
			return nil, nil, fmt.Errorf("figure %q: %w", f.Title, err)
		}
		e.series = st.series
		entries = append(entries, e)
	}
	k := 0
	for i, s := range f.Series {
		if !s.Paper {
			continue
		}
		c, ok := colorOf[s.Name]
		if !ok {
			c = PaperColor
		}
		e, err := addSeries(p, s, c, paperMarkers[k%len(paperMarkers)], paperDashes, vg.Points(1), PaperMarkerRadius)
		if err != nil {
			return nil, nil, fmt.Errorf("figure %q: %w", f.Title, err)
		}
		e.series = i
		k++
		entries = append(entries, e)
	}
	return p, entries, nil
}

// Marker radii: our values', and the paper's (larger, hollow).
const (
	MarkerRadius      = vg.Length(2.75)
	PaperMarkerRadius = vg.Length(3.75)
)

// seriesStyle is how one of our series is drawn.
type seriesStyle struct {
	series int // index in Figure.Series
	color  color.RGBA
	marker draw.GlyphDrawer
	dash   []vg.Length
}

// ourStyles gives our series (not the paper's), in order, their colour,
// marker and dash. Without groups, the i-th series has the i-th colour
// and marker, and a new dash pattern every len(Palette) series. With
// groups (Series.Group), the colour and marker follow the name and the
// dash the group, so that a colour means one name in every group.
func (f *Figure) ourStyles() []seriesStyle {
	grouped := false
	for _, s := range f.Series {
		grouped = grouped || (!s.Paper && s.Group != "")
	}
	var out []seriesStyle
	names, groups := map[string]int{}, map[string]int{}
	for j, s := range f.Series {
		if s.Paper {
			continue
		}
		i := len(out)
		st := seriesStyle{series: j}
		if grouped {
			n, ok := names[s.Name]
			if !ok {
				n = len(names)
				names[s.Name] = n
			}
			g, ok := groups[s.Group]
			if !ok {
				g = len(groups)
				groups[s.Group] = g
			}
			// More names than colours: the dash changes with them too.
			st.color, st.marker = Palette[n%len(Palette)], markers[n%len(markers)]
			st.dash = dashes[(g+n/len(Palette))%len(dashes)]
		} else {
			st.color, st.marker, st.dash = Palette[i%len(Palette)], markers[i%len(markers)], dashes[(i/len(Palette))%len(dashes)]
		}
		out = append(out, st)
	}
	return out
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
	series int // index in Figure.Series
}

func addSeries(p *plot.Plot, s Series, c color.Color, shape draw.GlyphDrawer, dash []vg.Length, width, radius vg.Length) (legendEntry, error) {
	xys := make(plotter.XYs, len(s.X))
	for j := range s.X {
		xys[j].X, xys[j].Y = s.X[j], s.Y[j]
	}
	pts, err := plotter.NewScatter(xys)
	if err != nil {
		return legendEntry{}, fmt.Errorf("series %q: %w", s.Name, err)
	}
	pts.Color, pts.Shape, pts.Radius = c, shape, radius
	e := legendEntry{name: s.Label()}
	if s.Err != nil {
		eb, err := plotter.NewYErrorBars(errXYs{xys, s.Err})
		if err != nil {
			return legendEntry{}, fmt.Errorf("series %q: error bars: %w", s.Name, err)
		}
		eb.Color, eb.Width, eb.CapWidth = c, vg.Points(0.75), vg.Points(5)
		p.Add(eb)
	}
	if s.XErr != nil {
		eb, err := plotter.NewXErrorBars(errXYs{xys, s.XErr})
		if err != nil {
			return legendEntry{}, fmt.Errorf("series %q: horizontal error bars: %w", s.Name, err)
		}
		eb.Color, eb.Width, eb.CapWidth = c, vg.Points(1), vg.Points(5)
		p.Add(eb)
		e.thumbs = append(e.thumbs, &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1)}})
	}
	switch {
	case len(xys) > 1 && s.XErr == nil:
		l, err := plotter.NewLine(xys)
		if err != nil {
			return legendEntry{}, fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.Color, l.Width, l.Dashes = c, width, dash
		p.Add(l)
		e.thumbs = append(e.thumbs, l)
	case s.XErr == nil:
		// A lone point still shows its dash pattern in the legend.
		l := &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: width, Dashes: dash}}
		e.thumbs = append(e.thumbs, l)
	}
	// Points with horizontal intervals (a dot plot) are not joined: each
	// stands for its own category.
	p.Add(pts)
	e.thumbs = append(e.thumbs, pts)
	return e, nil
}

// errXYs gives plotter.NewYErrorBars and NewXErrorBars symmetric errors.
type errXYs struct {
	plotter.XYs
	err []float64
}

func (e errXYs) YError(i int) (float64, float64) { return e.err[i], e.err[i] }
func (e errXYs) XError(i int) (float64, float64) { return e.err[i], e.err[i] }

// setAxis sets a's range and ticks from the data range [lo, hi] and spec,
// and returns the power of ten its tick labels are divided by (0 when
// they are not; see ScaleOf).
func setAxis(a *plot.Axis, spec Axis, lo, hi float64) (int, error) {
	if n := len(spec.Categories); n > 0 {
		a.Min, a.Max = -0.5, float64(n)-0.5
		ticks := make([]plot.Tick, n)
		for i, c := range spec.Categories {
			ticks[i] = plot.Tick{Value: float64(i), Label: c}
		}
		a.Tick.Marker = fixedTicks(ticks)
		return 0, nil
	}
	if spec.Fixed {
		lo, hi = spec.Min, spec.Max
	} else {
		if spec.Zero {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		if lo == hi { // one value: give it room
			d := math.Abs(lo) / 10
			if d == 0 {
				d = 1
			}
			if spec.Log {
				lo, hi = lo/2, hi*2
			} else {
				lo, hi = lo-d, hi+d
			}
		}
	}
	var values []float64
	if spec.Log {
		a.Scale = plot.LogScale{}
		values = LogTicks(lo, hi)
	} else {
		values = LinearTicks(lo, hi)
		if spec.Integer && len(values) > 1 && values[1]-values[0] < 1 {
			values = values[:0]
			for v := math.Floor(lo); v <= math.Ceil(hi); v++ {
				values = append(values, v)
			}
		}
	}
	if len(values) < 2 {
		return 0, fmt.Errorf("no ticks for [%g, %g]", lo, hi)
	}
	if spec.Fixed {
		a.Min, a.Max = lo, hi
	} else {
		// The ticks' span, or the data's where a narrow log range has
		// ticks inside it only.
		a.Min, a.Max = min(values[0], lo), max(values[len(values)-1], hi)
	}
	if spec.Log {
		a.Tick.Marker = fixedTicks(logLabelled(values))
		return 0, nil
	}
	power := ScaleOf(values)
	a.Tick.Marker = fixedTicks(labelledScaled(values, power))
	return power, nil
}
