package robustness

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	itercampaign "github.com/volsched/volsched/iterative/campaign"
	"github.com/volsched/volsched/report"
)

// results is the repository's results directory from this package.
const results = "../../results"

func tableByID(t *testing.T, ts []report.Table, id string) report.Table {
	t.Helper()
	for _, x := range ts {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("no table %q", id)
	return report.Table{}
}

func columnIndex(t *testing.T, tb report.Table, name string) int {
	t.Helper()
	for i, c := range tb.Columns {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("table %s: no column %q", tb.ID, name)
	return -1
}

func rowByPrefix(t *testing.T, tb report.Table, prefix string) report.Row {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Label == prefix || (strings.HasSuffix(prefix, "(") && strings.HasPrefix(r.Label, prefix)) {
			return r
		}
	}
	t.Fatalf("table %s: no row %q", tb.ID, prefix)
	return report.Row{}
}

// TestResultsSection reads the committed study (results/robustness) and
// checks the section against the numbers docs/robustness.md states: the
// markov variant's τ-b against Table 2 is 0.897 on both seeds, the τ-b of
// markov between the seeds 0.941, EMCT's average dfb under markov 2.17 with
// Table 2's 4.77 beside it; the coupled part compares with Table I.
func TestResultsSection(t *testing.T) {
	s, err := ResultsSection(results)
	if err != nil {
		t.Fatal(err)
	}
	if s == nil {
		t.Fatal("no section from results/robustness")
	}
	if s.Paper.ID != "robustness" || !strings.Contains(s.Reproduced, "not a reproduction of a paper's table") {
		t.Errorf("section of paper %q, text %.120q: want the study's own section saying it reproduces no table", s.Paper.ID, s.Reproduced)
	}
	tau := tableByID(t, s.Tables, "independent-tau")
	m := rowByPrefix(t, tau, "markov")
	check := func(col string, want float64) {
		t.Helper()
		if got := m.Cells[columnIndex(t, tau, col)].Ours; math.Abs(got-want) > 0.0005 {
			t.Errorf("independent τ table, markov, %s: %.4f, want %.3f (docs/robustness.md)", col, got, want)
		}
	}
	check("τ-b vs Table 2, seed 1", 0.897)
	check("τ-b vs Table 2, seed 2", 0.897)
	check("τ-b seed 1 vs seed 2", 0.941)
	check("τ-b vs markov, seed 1", 1)
	lw := rowByPrefix(t, tau, "lognormal-est")
	if got := lw.Cells[columnIndex(t, tau, "τ-b vs markov, seed 1")].Ours; math.Abs(got-0.294) > 0.0005 {
		t.Errorf("lognormal-est τ-b vs markov, seed 1: %.4f, want 0.294 (docs/robustness.md)", got)
	}

	score := tableByID(t, s.Tables, "independent-score")
	if len(score.Rows) != 17 {
		t.Errorf("score table: %d rows, want the 17 heuristics", len(score.Rows))
	}
	emct := rowByPrefix(t, score, "EMCT")
	if got := emct.Cells[columnIndex(t, score, "markov")].Ours; math.Abs(got-2.17) > 0.005 {
		t.Errorf("EMCT under markov: %.3f, want 2.17", got)
	}
	published := math.NaN()
	for _, p := range itercampaign.PaperTable2 {
		if p.Name == "EMCT" {
			published = p.AvgDfb
		}
	}
	if got := emct.Cells[columnIndex(t, score, "Table 2 (published)")].Ours; got != published {
		t.Errorf("EMCT's Table 2 column: %v, want the published %v", got, published)
	}
	rank := tableByID(t, s.Tables, "independent-rank")
	if got := rowByPrefix(t, rank, "EMCT").Cells[columnIndex(t, rank, "Table 2 (published)")].Ours; got != 1 {
		t.Errorf("EMCT's rank in Table 2: %v, want 1", got)
	}
	ctau := tableByID(t, s.Tables, "coupled-tau")
	if got := rowByPrefix(t, ctau, "markov").Cells[columnIndex(t, ctau, "τ-b vs Table I, seed 1")].Ours; math.Abs(got-0.485) > 0.0005 {
		t.Errorf("coupled markov τ-b vs Table I, seed 1: %.4f, want 0.485 (docs/robustness.md)", got)
	}
	tableByID(t, s.Tables, "coupled-paired")
	measured := 0
	for _, r := range s.Runs {
		if r.Duration > 0 {
			measured++
		}
	}
	if len(s.Runs) != 4 || measured != 4 {
		t.Errorf("%d runs, %d with a wall time: want the 4 committed directories, each with its time.txt", len(s.Runs), measured)
	}
}

// TestResultsSectionMissing: a results directory without the study gives
// no section; a broken summary an error naming the file.
func TestResultsSectionMissing(t *testing.T) {
	dir := t.TempDir()
	if s, err := ResultsSection(dir); s != nil || err != nil {
		t.Fatalf("empty results: %v, %v; want nil, nil", s, err)
	}
	sub := filepath.Join(dir, "robustness", "independent-seed1")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, SummaryFile), []byte(`{"kind": "something-else"}`), 0o644)
	_, err := ResultsSection(dir)
	if err == nil || !strings.Contains(err.Error(), SummaryFile) || !strings.Contains(err.Error(), "something-else") {
		t.Fatalf("broken summary: %v; want an error naming the file and the kind", err)
	}
}

// TestSectionTables builds the tables of a small report by hand: rows in
// the reference's order, the paper's column with its values and ranks
// (ties share the better rank, a heuristic it does not list has none), the
// τ table's values from the report.
func TestSectionTables(t *testing.T) {
	tau := func(x float64) *float64 { return &x }
	r := &Report{Kind: KindIndependent, Seed: 3, Heuristics: []string{"A", "B", "C"}, ScoreName: "average dfb (%)", Reference: "markov",
		PaperName: "Table 2", Paper: map[string]float64{"A": 5, "B": 5, "C": 1},
		Variants: []VariantReport{
			{Name: "markov", Availability: "markov", Beliefs: Beliefs{Known: true}, Instances: 4, Score: Floats{3, 1, 2}, Rank: []int{3, 1, 2}, Failures: []int{0, 1, 0}, TauReference: tau(1), TauPaper: tau(-0.5)},
			{Name: "weibull-est", Availability: "weibull", Instances: 4, Score: Floats{1, 2, 3}, Rank: []int{1, 2, 3}, Failures: []int{0, 0, 0}, TauReference: tau(-0.5), TauPaper: nil,
				PairedBase: "weibull", PairedChange: Floats{10, 0, -5}},
		}}
	score := ScoreTable(r, "s")
	var order []string
	for _, row := range score.Rows {
		order = append(order, row.Label)
	}
	if strings.Join(order, ",") != "B,C,A" {
		t.Errorf("rows %v, want B,C,A (the reference's order)", order)
	}
	if len(score.Columns) != 3 || score.Columns[2].Name != "Table 2 (published)" {
		t.Fatalf("columns %+v, want the two variants and Table 2", score.Columns)
	}
	if got := score.Rows[0].Cells[2].Ours; got != 5 {
		t.Errorf("B's published value %v, want 5", got)
	}
	rank := RankTable(r, "r")
	var pr []float64
	for _, row := range rank.Rows {
		pr = append(pr, row.Cells[2].Ours)
	}
	if pr[0] != 2 || pr[1] != 1 || pr[2] != 2 {
		t.Errorf("published ranks of B, C, A: %v, want 2, 1, 2 (A and B tied)", pr)
	}
	tt := TauTable([]*Report{r}, "t")
	w := tt.Rows[1]
	if w.Cells[0].Ours != -0.5 || !math.IsNaN(w.Cells[1].Ours) || w.Cells[2].Ours != 4 {
		t.Errorf("weibull-est τ row %+v, want τ vs markov −0.5, τ vs paper undefined, 4 instances", w.Cells)
	}
	if f := tt.Rows[0].Cells[3].Ours; f != 1 {
		t.Errorf("markov's failed runs %v, want 1", f)
	}
	p, ok := PairedTable(r, "p")
	if !ok || len(p.Columns) != 1 || p.Columns[0].Name != "weibull-est vs weibull" || p.Rows[2].Cells[0].Ours != 10 {
		t.Errorf("paired table %+v, want one column weibull-est vs weibull, A's change +10", p)
	}
	res := &Result{Quick: true, Seed: 3, Independent: *r, Coupled: *r}
	s := res.Section()
	if !strings.Contains(s.Reproduced, "not the findings") || len(s.Tables) != 8 {
		t.Errorf("quick section: %d tables, text %.100q; want 8 tables and the warning that a reduced run shows no findings", len(s.Tables), s.Reproduced)
	}
}

// TestRanksOf: defined values ranked among the defined ones (ties share
// the lower rank), NaN left NaN.
func TestRanksOf(t *testing.T) {
	got := ranksOf([]float64{3, math.NaN(), 1, 3, 2})
	want := []float64{3, math.NaN(), 1, 3, 2}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("ranksOf: %v, want %v", got, want)
		}
	}
}
