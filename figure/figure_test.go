package figure

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// sample is a figure like seed 001's Figure 2: many series, long names, a
// series of published values, error bars.
func sample(names ...string) Figure {
	f := Figure{
		Title:   "Figure 2: average dfb against w_min",
		Source:  "Casanova, Dufossé, Robert, Vivien — Scheduling Parallel Iterative Applications on Volatile Resources",
		X:       Axis{Label: "w_min", Unit: "slots"},
		Y:       Axis{Label: "average dfb", Unit: "%", Zero: true},
		Caption: "Seed 1; p = 20, n ∈ {5, 10, 20}; 2 scenarios × 2 trials (synthetic values for a test)",
		Paper:   PaperValues,
	}
	for i, n := range names {
		s := Series{Name: n}
		for w := 1; w <= 10; w++ {
			s.X = append(s.X, float64(w))
			s.Y = append(s.Y, 40*math.Exp(-float64(i)/3)+float64(w)/2)
			s.Err = append(s.Err, 0.5+float64(i%3)/4)
		}
		f.Series = append(f.Series, s)
	}
	f.Series = append(f.Series, Series{Name: names[0], Paper: true, X: []float64{1, 5, 10}, Y: []float64{41, 43, 45}})
	return f
}

var heuristics = []string{"RANDOM", "RANDOM1", "RANDOM2", "RANDOM3", "RANDOM4", "RANDOM1W", "RANDOM2W", "RANDOM3W", "RANDOM4W", "MCT", "MCT*", "EMCT", "EMCT*", "LW", "LW*", "UD", "UD*"}

func TestRenderDeterministic(t *testing.T) {
	for _, format := range []string{"svg", "png"} {
		f := sample(heuristics...)
		a, err := f.Render(format)
		if err != nil {
			t.Fatal(err)
		}
		g := sample(heuristics...) // a fresh, equal figure
		b, err := g.Render(format)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renderings of the same figure differ (%d and %d bytes)", format, len(a), len(b))
		}
		if len(a) < 1000 {
			t.Errorf("%s: %d bytes, want a drawn figure", format, len(a))
		}
	}
}

func TestSVGContent(t *testing.T) {
	f := sample("MCT", "EMCT & <friends>")
	b, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"Figure 2: average dfb against w_min",
		"Scheduling Parallel Iterative",
		"average dfb (%)", "w_min (slots)",
		"EMCT &amp; &lt;friends&gt;", // escaped
		"MCT (paper)",
		"n in {5, 10, 20}", // ∈ has no glyph in the font: substituted
		"hollow markers",   // the note on the paper's values
		"font-family:'Liberation Sans',Arial,Helvetica,sans-serif;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(s, "font-family:Liberation Sans;") {
		t.Error("SVG names Liberation Sans without fallbacks")
	}
}

func TestPNG(t *testing.T) {
	f := sample("MCT", "EMCT")
	b, err := f.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	lay, err := f.Layout()
	if err != nil {
		t.Fatal(err)
	}
	wantW := int(math.Ceil(lay.Canvas.Max.X.Points() / 72 * PNGDPI))
	if got := img.Bounds().Dx(); got < wantW-1 || got > wantW+1 {
		t.Errorf("PNG is %d px wide, want %d (%v pt at %d dpi)", got, wantW, lay.Canvas.Max.X, PNGDPI)
	}
}

// TestTicksOnAxes: the axes of drawn figures carry MinTicks to MaxTicks
// labelled ticks, for the ranges of the project's figures.
// plotOf is the gonum plot of f's axes' box.
func plotOf(t *testing.T, f Figure) *plot.Plot {
	t.Helper()
	g, err := f.drawable()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := g.newPlot()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTicksOnAxes(t *testing.T) {
	cases := []struct {
		x, y []float64
		logX bool
	}{
		{[]float64{1, 2, 3, 5, 8}, []float64{4.77, 47.87, 12, 5, 8}, false},
		{[]float64{9, 64, 225}, []float64{3.9e6, 4.306204e6, 4.4e6}, false},
		{[]float64{1000, 10000, 100000}, []float64{0.001, 0.12, 12.2}, true},
		{[]float64{0.5, 0.51}, []float64{0.5932, 0.5886}, false},
	}
	for _, c := range cases {
		f := Figure{Title: "t", Caption: "c", X: Axis{Label: "x", Log: c.logX}, Y: Axis{Label: "y"}, Series: []Series{{Name: "s", X: c.x, Y: c.y}}}
		p := plotOf(t, f)
		for _, a := range []struct {
			name     string
			min, max float64
			ticks    int
		}{
			{"x", p.X.Min, p.X.Max, len(p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max))},
			{"y", p.Y.Min, p.Y.Max, len(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max))},
		} {
			if a.ticks < MinTicks || a.ticks > MaxTicks {
				t.Errorf("x %v y %v: %s axis [%g, %g] has %d ticks, want %d to %d", c.x, c.y, a.name, a.min, a.max, a.ticks, MinTicks, MaxTicks)
			}
		}
	}
}

// TestIntegerAxis: an axis of whole values has whole ticks only, spanning
// the data; with a wide range, the usual ticks.
func TestIntegerAxis(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want []float64
	}{
		{[]float64{1, 2}, []float64{1, 2}},
		{[]float64{2, 4, 5}, []float64{2, 3, 4, 5}},
		{[]float64{3}, []float64{2, 3, 4}},
		{[]float64{1, 10}, LinearTicks(1, 10)},
	} {
		f := Figure{Title: "t", Caption: "c", X: Axis{Label: "w_min", Unit: "slots", Integer: true}, Y: Axis{Label: "y"},
			Series: []Series{{Name: "s", X: c.x, Y: make([]float64, len(c.x))}}}
		p := plotOf(t, f)
		var got []float64
		for _, k := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			got = append(got, k.Value)
			if k.Value != math.Round(k.Value) || strings.Contains(k.Label, ".") {
				t.Errorf("x %v: tick %v %q is not whole", c.x, k.Value, k.Label)
			}
		}
		if !slices.Equal(got, c.want) || p.X.Min > c.x[0] || p.X.Max < c.x[len(c.x)-1] {
			t.Errorf("x %v: ticks %v on [%g, %g], want %v covering the data", c.x, got, p.X.Min, p.X.Max, c.want)
		}
	}
}

// TestMarkers: published values are drawn with hollow markers, as the
// caption's note says, and the first five of our series with filled or
// line markers, none hollow; the eight shapes differ.
func TestMarkers(t *testing.T) {
	hollow := func(g draw.GlyphDrawer) bool {
		switch g.(type) {
		case draw.RingGlyph, draw.SquareGlyph, draw.TriangleGlyph:
			return true
		}
		return false
	}
	for i, g := range paperMarkers {
		if !hollow(g) {
			t.Errorf("paper marker %d (%T) is not hollow", i, g)
		}
	}
	for i, g := range markers[:5] {
		if hollow(g) {
			t.Errorf("marker %d (%T) of our series is hollow, like the paper's", i, g)
		}
	}
	// None of our first 28 series looks like the paper's values: outline
	// markers on a line of long dashes only.
	for i := range 28 {
		d := dashes[(i/len(Palette))%len(dashes)]
		if hollow(markers[i%len(markers)]) && len(d) == 2 && d[0] >= 5 {
			t.Errorf("our series %d: outline %T on dashes %v, like the paper's values", i, markers[i%len(markers)], d)
		}
	}
	seen := map[string]bool{}
	for _, g := range markers {
		seen[fmt.Sprintf("%T", g)] = true
	}
	if len(seen) != len(markers) {
		t.Errorf("%d distinct shapes among %d markers", len(seen), len(markers))
	}
}

// TestLegendPlacement: for long legend names and many series, the legend's
// frame lies inside the canvas and outside the axes' box (so outside the
// data area), every entry's text — measured with the fallback slack — lies
// inside the frame, and nothing is drawn off the canvas.
func TestLegendPlacement(t *testing.T) {
	long := strings.Repeat("a very long heuristic name ", 6) + "end"
	cases := map[string][]string{
		"17 heuristics":   heuristics,
		"one long name":   {"MCT", long, "UD*"},
		"long words only": {strings.Repeat("W", 120), strings.Repeat("x", 90)},
		"one series":      {"overlay"},
		"28 series":       append(append([]string{}, heuristics...), heuristics[:11]...),
	}
	for name, names := range cases {
		t.Run(name, func(t *testing.T) {
			f := sample(names...)
			lay, err := f.Layout()
			if err != nil {
				t.Fatal(err)
			}
			if !inside(lay.Legend, lay.Canvas) {
				t.Errorf("legend %v not inside the canvas %v", lay.Legend, lay.Canvas)
			}
			if overlap(lay.Legend, lay.Plot) || overlap(lay.Legend, lay.Data) {
				t.Errorf("legend %v overlaps the axes' box %v or the data area %v", lay.Legend, lay.Plot, lay.Data)
			}
			if !inside(lay.Data, lay.Plot) || !inside(lay.Plot, lay.Canvas) || !inside(lay.Caption, lay.Canvas) {
				t.Errorf("data %v, axes' box %v, caption %v not nested in the canvas %v", lay.Data, lay.Plot, lay.Caption, lay.Canvas)
			}
			if lay.Data.Size().X < 200 || lay.Data.Size().Y < 150 {
				t.Errorf("data area %v × %v pt, want room for the data", lay.Data.Size().X, lay.Data.Size().Y)
			}

			// What is actually drawn.
			g, _ := f.drawable()
			l, err := g.layout()
			if err != nil {
				t.Fatal(err)
			}
			rec := new(recorder.Canvas)
			l.draw(draw.Canvas{Canvas: rec, Rectangle: l.Canvas})
			seen := map[string]bool{}
			rotated := 0
			for _, a := range rec.Actions {
				switch a := a.(type) {
				case *recorder.Rotate:
					rotated++
				case *recorder.Pop:
					if rotated > 0 {
						rotated--
					}
				case *recorder.FillString:
					if rotated > 0 {
						continue // the y label, drawn in rotated coordinates
					}
					box := textBox(a)
					if !inside(box, lay.Canvas) {
						t.Errorf("text %q at %v extends off the canvas %v", a.String, box, lay.Canvas)
					}
					for _, e := range l.entries {
						if a.String == e.name {
							seen[e.name] = true
							if !inside(box, lay.Legend) {
								t.Errorf("legend entry %q at %v (with slack) outside the legend %v", a.String, box, lay.Legend)
							}
						}
					}
				case *recorder.Stroke:
					if rotated == 0 {
						checkPath(t, a.Path, lay.Canvas)
					}
				case *recorder.Fill:
					if rotated == 0 {
						checkPath(t, a.Path, lay.Canvas)
					}
				}
			}
			for _, e := range l.entries {
				if !seen[e.name] {
					t.Errorf("legend entry %q not drawn", e.name)
				}
			}
		})
	}
}

// textBox is the extent of a drawn string, its width widened by the
// fallback slack.
func textBox(a *recorder.FillString) vg.Rectangle {
	fnt := a.Font
	fnt.Size = a.Size
	ff := font.DefaultCache.Lookup(fnt, a.Size)
	if ff.Face == nil {
		ff = face(style(a.Size, fnt.Weight != 0, fnt.Style != 0))
	}
	ext := ff.Extents()
	return vg.Rectangle{
		Min: vg.Point{X: a.Point.X, Y: a.Point.Y - ext.Descent},
		Max: vg.Point{X: a.Point.X + ff.Width(a.String)*fallbackSlack, Y: a.Point.Y + ext.Ascent},
	}
}

func checkPath(t *testing.T, p vg.Path, c vg.Rectangle) {
	t.Helper()
	for _, pc := range p {
		if pc.Type == vg.CloseComp {
			continue
		}
		r := vg.Rectangle{Min: pc.Pos, Max: pc.Pos}
		if pc.Type == vg.ArcComp {
			d := vg.Point{X: pc.Radius, Y: pc.Radius}
			r = vg.Rectangle{Min: pc.Pos.Sub(d), Max: pc.Pos.Add(d)}
		}
		if !inside(r, c) {
			t.Errorf("a path reaches %v, off the canvas %v", r, c)
			return
		}
	}
}

const eps = 1e-6

func inside(a, b vg.Rectangle) bool {
	return a.Min.X >= b.Min.X-eps && a.Min.Y >= b.Min.Y-eps && a.Max.X <= b.Max.X+eps && a.Max.Y <= b.Max.Y+eps
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func TestCanvasGrowsForLongNames(t *testing.T) {
	short, err := (&Figure{Title: "t", Caption: "c", X: Axis{Label: "x"}, Y: Axis{Label: "y"}, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}).Layout()
	if err != nil {
		t.Fatal(err)
	}
	if short.Canvas.Max.X != DefaultWidth {
		t.Errorf("short legend: canvas %v wide, want the default %v", short.Canvas.Max.X, DefaultWidth)
	}
	f := sample(strings.Repeat("x", 200))
	long, err := f.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if long.Canvas.Max.X <= DefaultWidth {
		t.Errorf("a 200-character legend entry: canvas %v wide, want wider than %v", long.Canvas.Max.X, DefaultWidth)
	}
	many := sample(heuristics...)
	lm, _ := many.Layout()
	if lm.Columns < 2 || lm.Columns*lm.Rows < 18 {
		t.Errorf("18 entries in %d columns × %d rows, want several columns holding all", lm.Columns, lm.Rows)
	}
	if lm.Canvas.Max.Y <= short.Canvas.Max.Y {
		t.Errorf("18 legend entries: canvas %v tall, want taller than with one (%v)", lm.Canvas.Max.Y, short.Canvas.Max.Y)
	}
}

func TestFullCaption(t *testing.T) {
	cases := []struct {
		caption string
		kind    PaperKind
		want    string
	}{
		{"Seed 1; 4 instances", PaperPicture, "Seed 1; 4 instances. " + NotePicture},
		{"Seed 1.", PaperValues, "Seed 1. " + NoteValues},
		{"", PaperNone, NoteNone},
	}
	for _, c := range cases {
		f := Figure{Caption: c.caption, Paper: c.kind}
		if got := f.FullCaption(); got != c.want {
			t.Errorf("FullCaption(%q, %v) = %q, want %q", c.caption, c.kind, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := func() Figure {
		return Figure{Title: "t", Caption: "seed 1", X: Axis{Label: "x"}, Y: Axis{Label: "y"}, Series: []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{3, 4}}}}
	}
	base := ok()
	if err := base.Validate(); err != nil {
		t.Fatalf("a valid figure: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Figure)
		want string
	}{
		{"no title", func(f *Figure) { f.Title = " " }, "Title is empty"},
		{"no caption", func(f *Figure) { f.Caption = "" }, "Caption is empty, want the run"},
		{"no source", func(f *Figure) { f.Paper = PaperPicture }, "Source is empty but Paper is picture"},
		{"no x label", func(f *Figure) { f.X.Label = "" }, "want both axes labelled"},
		{"no series", func(f *Figure) { f.Series = nil }, "no series"},
		{"lengths", func(f *Figure) { f.Series[0].Y = []float64{1} }, "2 x and 1 y values"},
		{"empty", func(f *Figure) { f.Series[0].X, f.Series[0].Y = nil, nil }, "is empty"},
		{"NaN", func(f *Figure) { f.Series[0].Y[1] = math.NaN() }, "point 1 is (2, NaN), want finite values"},
		{"Inf", func(f *Figure) { f.Series[0].X[0] = math.Inf(1) }, "want finite values"},
		{"log x ≤ 0", func(f *Figure) { f.X.Log = true; f.Series[0].X[0] = 0 }, "x = 0 on a logarithmic axis"},
		{"log and zero", func(f *Figure) { f.Y.Log = true; f.Y.Zero = true }, "logarithmic and asks to include 0"},
		{"fixed reversed", func(f *Figure) { f.Y.Fixed, f.Y.Min, f.Y.Max = true, 1, 0 }, "fixed to [1, 0]"},
		{"error bars count", func(f *Figure) { f.Series[0].Err = []float64{1} }, "1 error bars for 2 points"},
		{"negative error", func(f *Figure) { f.Series[0].Err = []float64{1, -1} }, "error bar 1 is -1"},
		{"unnamed series", func(f *Figure) { f.Series[0].Name = "" }, "has no name"},
		{"values without paper series", func(f *Figure) { f.Paper, f.Source = PaperValues, "A Paper" }, "no series has Paper set"},
		{"paper series, kind picture", func(f *Figure) {
			f.Paper, f.Source = PaperPicture, "A Paper"
			f.Series = append(f.Series, Series{Paper: true, X: []float64{1}, Y: []float64{1}})
		}, "Paper is picture, want PaperValues"},
		{"bad kind", func(f *Figure) { f.Paper = 7 }, "Paper = 7"},
		{"glyph", func(f *Figure) { f.Caption = "x ⊕ y" }, `Caption "x ⊕ y": character '⊕' (U+2295) is not in the font`},
		{"negative width", func(f *Figure) { f.Width = -1 }, "want ≥ 0"},
	}
	for _, c := range cases {
		f := ok()
		c.edit(&f)
		err := f.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
		if _, rerr := f.Render("svg"); rerr == nil {
			t.Errorf("%s: Render accepted an invalid figure", c.name)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	f := sample("MCT", "UD*")
	paths, err := f.WriteFiles(filepath.Join(dir, "figure2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("wrote %v, want an SVG and a PNG", paths)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := f.Render(strings.TrimPrefix(filepath.Ext(p), "."))
		if !bytes.Equal(b, want) {
			t.Errorf("%s differs from Render's output", p)
		}
	}
	if err := f.WriteFile(filepath.Join(dir, "figure2.pdf")); err == nil || !strings.Contains(err.Error(), `extension ".pdf", want .svg or .png`) {
		t.Errorf("WriteFile(.pdf) = %v, want an error naming the extension", err)
	}
	if _, err := f.Render("eps"); err == nil || !strings.Contains(err.Error(), `format "eps"`) {
		t.Errorf("Render(eps) = %v, want an error naming the format", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d files, want 2 (no temporary left)", len(entries))
	}
}
