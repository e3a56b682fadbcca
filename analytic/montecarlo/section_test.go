package montecarlo

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// TestSection: the section's tables have one row per row of the
// reproduction, the formula, simulation and standard error as computed,
// and z classified against 0 with the ZLimit band (a formula within 4
// standard errors close, the printed E(S)(W) far); its documents' anchors
// are headings of docs/analytic.md; the page is written and checked.
func TestSection(t *testing.T) {
	r := &Reproduction{Seed: 7, Chains: 1, Runs: 20000, W: 10, K: 20,
		Single: []Row{
			{Subject: "#1", Quantity: "P+ (Lemma 1)", Formula: 0.9, Simulation: 0.901, SE: 0.001, Expect: Holds},
			{Subject: "#1", Quantity: "P_UD(k) as printed", Formula: 0.5, Simulation: 0.6, SE: 0.01, Expect: AsPrinted},
		},
		Sets: []Row{
			{Subject: "S=#1..#2", Quantity: "E(S)(W) conditional", Formula: 12, Simulation: 12.05, SE: 0.02, Expect: Holds},
			{Subject: "S=#1..#2", Quantity: "E(S)(W) as printed", Formula: 30, Simulation: 12.05, SE: 0.02, Expect: AsPrinted},
		}}
	s := r.Section()
	if s.Paper != reproduction.IterativePaper || !strings.Contains(s.Reproduced, "Seed 7; 1 chains") || !strings.Contains(s.Reproduced, "20,000 Monte Carlo runs") {
		t.Errorf("section %q", s.Reproduced)
	}
	if len(s.Tables) != 2 || len(s.Tables[0].Rows) != 2 || len(s.Tables[1].Rows) != 2 {
		t.Fatalf("tables %+v", s.Tables)
	}
	want := []struct {
		tab, row int
		label    string
		z        float64
		class    string
	}{
		{0, 0, "#1 P+ (Lemma 1) (expected: holds)", 1, report.ClassClose},
		{0, 1, "#1 P_UD(k) as printed (expected: off, as printed)", 10, report.ClassNear},
		{1, 0, "S=#1..#2 E(S)(W) conditional (expected: holds)", 2.5, report.ClassClose},
		{1, 1, "S=#1..#2 E(S)(W) as printed (expected: off, as printed)", (30 - 12.05) / 0.02, report.ClassFar},
	}
	for _, w := range want {
		tab := s.Tables[w.tab]
		row := tab.Rows[w.row]
		src := r.Single
		if w.tab == 1 {
			src = r.Sets
		}
		x := src[w.row]
		c := row.Cells
		if row.Label != w.label || c[0].Ours != x.Formula || c[1].Ours != x.Simulation || c[2].Ours != x.SE || math.Abs(c[3].Ours-w.z) > 1e-6 || c[3].Paper != 0 {
			t.Errorf("row %q %+v, want %q with z %v", row.Label, c, w.label, w.z)
		}
		if !math.IsNaN(c[0].Paper) || !math.IsNaN(c[1].Paper) {
			t.Errorf("row %q: formula or simulation compared: %+v", row.Label, c)
		}
		if got := report.Classify(c[3].Ours, c[3].Paper, tab.Columns[3].Tol); got != w.class {
			t.Errorf("row %q: z %v is %s, want %s", row.Label, c[3].Ours, got, w.class)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "analytic.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range s.Choices {
		file, anchor, _ := strings.Cut(ch.Doc, "#")
		if file != docAnalytic || anchor == "" {
			t.Errorf("choice %q: Doc %q", ch.Text, ch.Doc)
			continue
		}
		found := false
		for _, line := range strings.Split(string(doc), "\n") {
			h, ok := strings.CutPrefix(line, "## ")
			h = strings.ToLower(strings.NewReplacer(",", "", " ", "-").Replace(h))
			found = found || ok && h == anchor
		}
		if !found {
			t.Errorf("choice %q: no heading of %s with anchor #%s", ch.Text, docAnalytic, anchor)
		}
	}
	if _, err := reproduction.Write(t.TempDir(), []reproduction.Entry{{Name: "analytic", Section: s}}, reproduction.PageOptions{Title: "test"}); err != nil {
		t.Fatal(err)
	}
}
