package redundant

import (
	"strings"
	"testing"
)

// TestParseAlgorithmPaperNames: the names the paper uses (EA, PPB, EPB,
// SAB, in its capitals) and this project's (GLS, exact) parse, in any
// case; anything else is refused with the name and the list.
func TestParseAlgorithmPaperNames(t *testing.T) {
	for in, want := range map[string]string{
		"EA": "ea", "PPB": "ppb", "EPB": "epb", "SAB": "sab", "GLS": "gls", "exact": "exact",
		"ea": "ea", " Sab ": "sab", "Exact": "exact",
	} {
		got, err := ParseAlgorithm(in)
		if err != nil || got != want {
			t.Errorf("ParseAlgorithm(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "nope", "ppb,ea", "sa"} {
		_, err := ParseAlgorithm(in)
		if err == nil || !strings.Contains(err.Error(), `"`+in+`"`) || !strings.Contains(err.Error(), "ea, ppb, epb, sab, gls, exact") {
			t.Errorf("ParseAlgorithm(%q): %v, want an error naming it and the algorithms", in, err)
		}
	}
	if Allocator(SAB) != "ppb" || Allocator("epb") != "epb" {
		t.Errorf("Allocator: sab → %q, epb → %q", Allocator(SAB), Allocator("epb"))
	}
}

// TestValidateLabFigureRefusesSAB: SAB needs ages, which the laboratory
// figures do not have; the configuration itself (used by the trace study)
// accepts it.
func TestValidateLabFigureRefusesSAB(t *testing.T) {
	cfg := LabConfig{Algos: []string{"ea", SAB}, Reps: 1}
	if err := cfg.Validate(); err != nil {
		t.Errorf("LabConfig with sab: %v", err)
	}
	err := ValidateLabFigure(1, PaperGrid(1, true), cfg)
	if err == nil || !strings.Contains(err.Error(), `"sab"`) || !strings.Contains(err.Error(), "Figure 4") {
		t.Errorf("figure 1 with sab: %v, want SAB refused, pointing to Figure 4", err)
	}
	cfg.Algos = []string{"ea", "ppb"}
	if err := ValidateLabFigure(1, PaperGrid(1, true), cfg); err != nil {
		t.Errorf("figure 1 with ea, ppb: %v", err)
	}
	for _, bad := range []struct {
		fig  int
		grid LabGrid
		cfg  LabConfig
		want string
	}{
		{4, PaperGrid(1, true), cfg, "figure 4"},
		{3, LabGrid{Ms: []int{1}, R0s: []float64{0.4}}, cfg, "1 hosts"},
		{1, PaperGrid(1, true), LabConfig{Algos: []string{"EA"}, Reps: 1}, `algorithm "EA"`},
		{1, PaperGrid(1, true), LabConfig{Algos: []string{"ea"}, Reps: 0}, "reps = 0"},
		{1, PaperGrid(1, true), LabConfig{Algos: []string{"ea"}, Reps: 1, Workers: -1}, "workers = -1"},
		{1, PaperGrid(1, true), LabConfig{Algos: []string{"ea"}, Reps: 1, Anneal: AnnealOptions{MovesPerHost: -2}}, "moves per host = -2"},
	} {
		if err := ValidateLabFigure(bad.fig, bad.grid, bad.cfg); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("figure %d, %+v: %v, want an error containing %q", bad.fig, bad.cfg, err, bad.want)
		}
	}
}
