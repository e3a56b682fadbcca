package campaign

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsSection reads the committed full run (results/003) back and
// checks the section against what docs/reproduction-003.md states of it:
// the five figures redrawn, seed 1, Figure 3's PPB over EA +23.4 % (R0 =
// 0.4) beside the paper's +24 %, Figure 2's PPB over EA at µ = 0.6 +62.1 %,
// the UCB fit µ = 16.517, σ = 2.480 on 80 hosts.
func TestResultsSection(t *testing.T) {
	r, err := ReadResults(filepath.Join("..", "..", "results", ResultsDir))
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != 1 || len(r.Figures) != 5 {
		t.Fatalf("seed %d, %d figures; want seed 1 and 5 figures", r.Seed, len(r.Figures))
	}
	for _, o := range r.Figures {
		if err := o.Drawn.Validate(); err != nil {
			t.Errorf("%s: %v", o.Figure.Name, err)
		}
		if !strings.Contains(o.Drawn.Caption, "results/003/"+o.Figure.Name+".csv") {
			t.Errorf("%s: caption %q does not name the committed file", o.Figure.Name, o.Drawn.Caption)
		}
	}
	s, err := ResultsSection(filepath.Join("..", "..", "results"))
	if err != nil || s == nil {
		t.Fatalf("ResultsSection: %v, %v", s, err)
	}
	if len(s.Figures) != 5 || len(s.Tables) != 2 || !strings.Contains(s.Reproduced, "Nothing was run") {
		t.Fatalf("%d figures, %d tables, text %.200q; want 5, 2 and the note that nothing was run", len(s.Figures), len(s.Tables), s.Reproduced)
	}
	gain := func(label string) float64 {
		for _, row := range s.Tables[0].Rows {
			if row.Label == label {
				return row.Cells[0].Ours
			}
		}
		t.Fatalf("no claim %q in %+v", label, s.Tables[0].Rows)
		return 0
	}
	if g := gain("Figure 3: R0=0.4: application scale of PPB over EA (mean over m)"); math.Abs(g-23.4) > 0.05 {
		t.Errorf("Figure 3 PPB over EA: %.2f %%, want 23.4 %% (docs/reproduction-003.md)", g)
	}
	if g := gain("Figure 2: µ=0.6: PPB over EA"); math.Abs(g-62.1) > 0.05 {
		t.Errorf("Figure 2 PPB over EA at µ=0.6: %.2f %%, want 62.1 %%", g)
	}
	ucb := s.Tables[1].Rows[0]
	if ucb.Label != "ucb" || ucb.Cells[0].Ours != 16.517 || ucb.Cells[1].Ours != 2.480 || ucb.Cells[2].Ours != 80 {
		t.Errorf("Table 1 row %+v, want ucb µ 16.517, σ 2.480, 80 hosts", ucb)
	}
}

// TestResultsMissingOrBroken: no results/003, no section; a broken CSV or
// text file, an error naming it.
func TestResultsMissingOrBroken(t *testing.T) {
	root := t.TempDir()
	if s, err := ResultsSection(root); s != nil || err != nil {
		t.Fatalf("no results/003: %v, %v; want nil, nil", s, err)
	}
	dir := filepath.Join(root, ResultsDir)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "fig1.csv"), []byte("x,EA,EA se\n0,0.9,zero\n"), 0o644)
	_, err := ResultsSection(root)
	if err == nil || !strings.Contains(err.Error(), "fig1.csv") || !strings.Contains(err.Error(), `"zero"`) {
		t.Fatalf("broken CSV: %v; want an error naming fig1.csv and the field", err)
	}
	os.WriteFile(filepath.Join(dir, "fig1.csv"), []byte("x,EA,EA se\n0,0.9,0.01\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "fig1.txt"), []byte("something else\n"), 0o644)
	_, err = ResultsSection(root)
	if err == nil || !strings.Contains(err.Error(), "fig1.txt") {
		t.Fatalf("text without the figure's block: %v; want an error naming fig1.txt", err)
	}
}
