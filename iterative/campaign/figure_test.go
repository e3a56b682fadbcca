package campaign

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFigure2File: the campaign's figure2.svg is the report's Figure 2 in
// the project's figure style (package figure): the paper's title, the
// axes with their units, the seed in the caption and the note that the
// paper gives the figure only as a picture.
func TestFigure2File(t *testing.T) {
	c := small()
	var results []UnitResult
	for u := range c.Units() {
		r, err := c.RunUnit(context.Background(), 3, u)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	s, err := c.Summarize(results)
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewReport(3, s)
	dir := t.TempDir()
	if err := c.writeTables(dir, &r, results, s); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "figure2.svg"))
	if err != nil {
		t.Fatal(err)
	}
	f := r.Figure2()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	want, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("figure2.svg (%d bytes) is not the report's Figure 2 (%d bytes)", len(got), len(want))
	}
	svg := svgText(got)
	for _, w := range []string{"Figure 2: average dfb against w_min", "Scheduling Parallel Iterative", "w_min (slots)", "average dfb (%)", "Seed 3;", "only as a picture"} {
		if !strings.Contains(svg, w) {
			t.Errorf("figure2.svg lacks %q", w)
		}
	}
	for _, h := range Figure2Heuristics {
		// "MCT (under MCT*)" when its curve coincides with another's.
		if !regexp.MustCompile(">" + regexp.QuoteMeta(h.String()) + `( \(under [^<]+\))?<`).Match(got) {
			t.Errorf("figure2.svg has no legend entry %s", h)
		}
	}
}

// svgText is the text drawn in an SVG, its pieces joined by spaces (a
// caption is wrapped into several lines).
func svgText(b []byte) string {
	var parts []string
	for _, m := range regexp.MustCompile(`>([^<]+)<`).FindAllSubmatch(b, -1) {
		if s := strings.TrimSpace(string(m[1])); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}
