package figure

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"
)

// ticksOf returns the labels of the x and y ticks of f's plot and the
// axes' titles.
func ticksOf(t *testing.T, f Figure) (x, y []string, xTitle, yTitle string) {
	t.Helper()
	p := plotOf(t, f)
	for _, k := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		x = append(x, k.Label)
	}
	for _, k := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		y = append(y, k.Label)
	}
	return x, y, p.X.Label.Text, p.Y.Label.Text
}

// TestScaledTicks (issue 28): seed 004's Figs. 13 and 17 labelled their
// axis "500,000,000,000,000,000"; labels beyond a million (or below a
// thousandth) are divided by a power of ten that the axis's title states.
func TestScaledTicks(t *testing.T) {
	cases := []struct {
		y      []float64
		unit   string
		log    bool
		title  string
		labels []string
	}{
		{[]float64{3.7e14, 4.04e14}, "MI", false, "finished computation (×10^12 MI)", []string{"0", "100", "200", "300", "400", "500"}},
		{[]float64{2.58e7, 3.86e7}, "", false, "finished computation (×10^6)", []string{"0", "10", "20", "30", "40"}},
		{[]float64{1e-5, 4.5e-5}, "%", false, "finished computation (×10^-6 %)", []string{"0", "10", "20", "30", "40", "50"}},
		{[]float64{12, 47.9}, "%", false, "finished computation (%)", []string{"0", "10", "20", "30", "40", "50"}},
		{[]float64{100000, 500000}, "", false, "finished computation", []string{"0", "100,000", "200,000", "300,000", "400,000", "500,000"}}, // below a million: as they are
		{[]float64{1e3, 1e9}, "MI", true, "finished computation (MI)", []string{"1,000", "10,000", "100,000", "10^6", "10^7", "10^8", "10^9"}},
		{[]float64{2e-5, 2e-3}, "", true, "finished computation", []string{"2×10^-5", "5×10^-5", "10^-4", "2×10^-4", "5×10^-4", "0.001", "0.002"}},
	}
	for _, c := range cases {
		f := Figure{Title: "t", Caption: "c", X: Axis{Label: "SF_max"}, Y: Axis{Label: "finished computation", Unit: c.unit, Log: c.log, Zero: !c.log},
			Series: []Series{{Name: "overlay", X: []float64{9, 225}, Y: c.y}}}
		_, y, _, title := ticksOf(t, f)
		if title != c.title {
			t.Errorf("%v: axis title %q, want %q", c.y, title, c.title)
		}
		if c.labels != nil && !slices.Equal(y, c.labels) {
			t.Errorf("%v: tick labels %q, want %q", c.y, y, c.labels)
		}
		for _, l := range y {
			if strings.Count(l, "")-1-strings.Count(l, ",") > 7 {
				t.Errorf("%v: tick label %q is longer than 7 characters", c.y, l)
			}
		}
	}
	for _, c := range []struct {
		values []float64
		want   int
	}{
		{[]float64{0, 1e5, 9e5}, 0}, {[]float64{0, 1e6}, 6}, {[]float64{0, 5e14}, 12}, {[]float64{-2e9, 0}, 9},
		{[]float64{0, 0.002}, 0}, {[]float64{0, 0.0005}, -6}, {[]float64{0, 0}, 0},
	} {
		if got := ScaleOf(c.values); got != c.want {
			t.Errorf("ScaleOf(%v) = %d, want %d", c.values, got, c.want)
		}
	}
}

// TestCoincidingCurves (issue 28): curves drawn one over the other (MCT
// under MCT* in seed 001's Fig. 2, EPB, PPB and GLS in seed 003's Fig. 1,
// the overlay under a flat centralized reference) are named in the legend
// and the caption; curves apart, or apart at one point, are not.
func TestCoincidingCurves(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	f := Figure{Title: "Figure 2: average dfb against w_min", Caption: "Seed 1", X: Axis{Label: "w_min"}, Y: Axis{Label: "average dfb", Unit: "%", Zero: true},
		Series: []Series{
			{Name: "MCT", X: x, Y: []float64{3, 3.1, 3.2, 3.3, 3.4}},
			{Name: "MCT*", X: x, Y: []float64{3.02, 3.1, 3.2, 3.31, 3.4}}, // within 1 % of the axis (0 to 20)
			{Name: "LW", X: x, Y: []float64{16, 12, 10, 8, 6}},
			{Name: "LW*", X: x, Y: []float64{16, 12, 10, 8, 8}}, // apart at the last point
			{Name: "EMCT", X: x, Y: []float64{2.5, 2.5, 2.5, 2.5, 2.5}},
			{Name: "flat", X: []float64{1, 5}, Y: []float64{2.55, 2.55}}, // another x grid, on EMCT's line
		}}
	r, err := f.Readability()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Coincide) != "[[0 1] [4 5]]" {
		t.Fatalf("Coincide = %v, want [[0 1] [4 5]] (MCT with MCT*, EMCT with flat)", r.Coincide)
	}
	caption := f.FullCaption()
	if !strings.Contains(caption, "drawn one over the other: MCT under MCT*; EMCT under flat.") {
		t.Errorf("caption %q does not name the coinciding curves", caption)
	}
	b, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">MCT (under MCT*)<", ">MCT*<", ">LW<", ">LW*<", ">EMCT (under flat)<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the SVG has no legend entry %s", want)
		}
	}
	// Three curves of one group: the first two under the last.
	g := Figure{Title: "t", Caption: "c", X: Axis{Label: "σ"}, Y: Axis{Label: "p", Fixed: true, Min: 0, Max: 1}, Paper: PaperNone,
		Series: []Series{
			{Name: "EPB", X: x, Y: []float64{0.9, 0.8, 0.7, 0.6, 0.5}},
			{Name: "PPB", X: x, Y: []float64{0.9, 0.805, 0.7, 0.6, 0.5}},
			{Name: "GLS", X: x, Y: []float64{0.9, 0.805, 0.7, 0.6, 0.505}},
			{Name: "EA", X: x, Y: []float64{0.9, 0.7, 0.5, 0.3, 0.2}},
		}}
	if r, _ := g.Readability(); fmt.Sprint(r.Coincide) != "[[0 1 2]]" || !strings.Contains(strings.Join(r.Notes, " "), "EPB and PPB under GLS") {
		t.Errorf("Coincide = %v, notes %q; want EPB and PPB under GLS", r.Coincide, r.Notes)
	}
}

// TestHiddenErrorBars (issue 28): error bars shorter than their marker are
// hidden by it, and the caption says so.
func TestHiddenErrorBars(t *testing.T) {
	x := []float64{0, 0.5, 1}
	fig := func(errs []float64) Figure {
		return Figure{Title: "t", Caption: "c", X: Axis{Label: "σ"}, Y: Axis{Label: "p", Fixed: true, Min: 0, Max: 1},
			Series: []Series{{Name: "EA", X: x, Y: []float64{0.9, 0.5, 0.2}, Err: errs}}}
	}
	for _, c := range []struct {
		errs         []float64
		hidden, bars int
		note         string
	}{
		{[]float64{0.002, 0.005, 0.003}, 3, 3, "Every error bar is shorter than its marker and hidden by it."},
		{[]float64{0.002, 0.1, 0}, 1, 2, "1 of the 2 error bars are shorter than their marker and hidden by it."},
		{[]float64{0.05, 0.1, 0.2}, 0, 3, ""},
	} {
		f := fig(c.errs)
		r, err := f.Readability()
		if err != nil {
			t.Fatal(err)
		}
		if r.HiddenBars != c.hidden || r.Bars != c.bars {
			t.Errorf("errors %v: %d of %d bars hidden, want %d of %d", c.errs, r.HiddenBars, r.Bars, c.hidden, c.bars)
		}
		if got := f.FullCaption(); (c.note == "") != !strings.Contains(got, "hidden") || !strings.Contains(got, c.note) {
			t.Errorf("errors %v: caption %q, want the note %q", c.errs, got, c.note)
		}
	}
}

// TestGroupColours (issue 28): in seed 003's Fig. 1 (five algorithms for
// two values of µ), colours were reused across the groups; with groups, a
// colour means one name and a dash one group, and without groups the
// first len(Palette) series have distinct colours.
func TestGroupColours(t *testing.T) {
	var f Figure
	for _, g := range []string{"µ=0.151", "µ=0.556"} {
		for _, n := range []string{"EA", "EPB", "PPB", "GLS", "EA Eq.5"} {
			f.Series = append(f.Series, Series{Name: n, Group: g, X: []float64{0, 1}, Y: []float64{0, 1}})
		}
	}
	st := f.ourStyles()
	nameOf := map[color.RGBA]string{}
	dashOf := map[string]string{}
	for _, s := range st {
		sr := f.Series[s.series]
		if n, ok := nameOf[s.color]; ok && n != sr.Name {
			t.Errorf("colour %v is used by %s and %s", s.color, n, sr.Name)
		}
		nameOf[s.color] = sr.Name
		d := fmt.Sprint(s.dash)
		if prev, ok := dashOf[sr.Group]; ok && prev != d {
			t.Errorf("group %s has dashes %s and %s", sr.Group, prev, d)
		}
		dashOf[sr.Group] = d
	}
	if len(nameOf) != 5 || dashOf["µ=0.151"] == dashOf["µ=0.556"] {
		t.Errorf("%d colours for 5 names; dashes %v, want one per group", len(nameOf), dashOf)
	}
	if got := f.Series[9].Label(); got != "EA Eq.5 µ=0.556" {
		t.Errorf("Label = %q", got)
	}
	var plain Figure
	for i := range len(Palette) {
		plain.Series = append(plain.Series, Series{Name: fmt.Sprint("s", i), X: []float64{0}, Y: []float64{0}})
	}
	seen := map[color.RGBA]bool{}
	for _, s := range plain.ourStyles() {
		if seen[s.color] {
			t.Errorf("colour %v used twice among %d series", s.color, len(Palette))
		}
		seen[s.color] = true
	}
}

// TestCategories: a Y axis of named categories (the what-if figure: one
// row per heuristic, the first at the top) with horizontal intervals.
func TestCategories(t *testing.T) {
	f := Figure{Title: "What-if run", Caption: "c", Paper: NoPaper,
		X: Axis{Label: "mean makespan", Unit: "slots"},
		Y: Axis{Label: "heuristic", Categories: []string{"EMCT", "MCT*", "RANDOM"}},
		Series: []Series{
			{Name: "best", X: []float64{78}, Y: []float64{0}, XErr: []float64{0.8}},
			{Name: "worse", X: []float64{81, 122}, Y: []float64{1, 2}, XErr: []float64{0.6, 1.1}},
		}}
	_, y, _, _ := ticksOf(t, f)
	if !slices.Equal(y, []string{"EMCT", "MCT*", "RANDOM"}) {
		t.Errorf("y ticks %q, want the categories", y)
	}
	if p := plotOf(t, f); p.Y.Norm(0) <= p.Y.Norm(2) {
		t.Errorf("the first category is not at the top: %v, %v", p.Y.Norm(0), p.Y.Norm(2))
	}
	caption := f.FullCaption()
	if strings.Contains(strings.ToLower(caption), "paper") {
		t.Errorf("a NoPaper figure's caption speaks of a paper: %q", caption)
	}
	if _, err := f.Render("svg"); err != nil {
		t.Fatal(err)
	}
	bad := f
	bad.Series = []Series{{Name: "s", X: []float64{1}, Y: []float64{1.5}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "want a whole number in [0, 3)") {
		t.Errorf("y = 1.5 on 3 categories: %v", err)
	}
	bad = f
	bad.Y.Log = true
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Categories and Log") {
		t.Errorf("categories on a log axis: %v", err)
	}
	bad = f
	bad.Series = []Series{{Name: "s", X: []float64{1}, Y: []float64{0}, XErr: []float64{math.NaN()}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "horizontal error bar 0 is NaN") {
		t.Errorf("NaN horizontal error bar: %v", err)
	}
}
