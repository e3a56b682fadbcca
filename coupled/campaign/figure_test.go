package campaign

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFigure2Files: the figure2-m<M>.svg files written beside the summary
// are the report's figures in the project's figure style (package figure):
// m = 10 is the paper's Figure 2 (a picture in the paper), m = 5 has no
// counterpart; the caption gives the seed, and a partial summary says so
// in the figure.
func TestFigure2Files(t *testing.T) {
	r, err := ReadReport(filepath.Join("..", "..", "results", ResultsDir))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m     int
		wants []string
	}{
		{10, []string{"Figure 2: %diff against w_min, m = 10", "only as a picture"}},
		{5, []string{"m = 5 (as Figure 2, which shows m = 10)", "no counterpart"}},
	} {
		got, err := os.ReadFile(filepath.Join(dir, "figure2-m"+map[int]string{5: "5", 10: "10"}[c.m]+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		f := r.Figure2For(c.m)
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		want, err := f.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("m = %d: the file is not the report's figure", c.m)
		}
		for _, w := range append(c.wants, "w_min (slots)", "%diff against IE (%)", "Seed ") {
			if !strings.Contains(svgText(got), w) {
				t.Errorf("m = %d: the figure lacks %q", c.m, w)
			}
		}
		for _, h := range Figure2Heuristics {
			if !strings.Contains(string(got), ">"+h+"<") {
				t.Errorf("m = %d: no legend entry %s", c.m, h)
			}
		}
	}
	r.Partial = &PartialInfo{Units: 40, Present: []int{0, 1, 2}}
	if err := r.WriteFilesAs(dir, "partial-"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "partial-figure2-m10.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svgText(got), "PARTIAL: 3 of the campaign") {
		t.Error("the figure of a partial summary does not say it is partial")
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
