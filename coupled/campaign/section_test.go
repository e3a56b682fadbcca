package campaign

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/volsched/volsched/figure"
)

// TestHeuristicSummaryJSON: a metric without value (NaN) is written null
// and read back as NaN, not 0.
func TestHeuristicSummaryJSON(t *testing.T) {
	in := HeuristicSummary{Name: "IE", Fails: 3, PctDiff: math.NaN(), PctWins: 50, PctWins30: 60, Stdv: 0.25, Scenarios: 2, Instances: 4}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out HeuristicSummary
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(out.PctDiff) || out.Name != "IE" || out.Fails != 3 || out.PctWins != 50 || out.PctWins30 != 60 || out.Stdv != 0.25 || out.Scenarios != 2 || out.Instances != 4 {
		t.Errorf("%s read back as %+v", b, out)
	}
}

// TestSectionOfCommittedCampaign builds the section of the campaign the
// repository keeps (results/002/full-published): one table per m with the
// paper's values beside ours and the summary's τ-b, #fails compared (3,000
// instances per m, as the paper), and Figure 2 for both m (the paper's is a
// picture, m = 10 only).
func TestSectionOfCommittedCampaign(t *testing.T) {
	root := filepath.Join("..", "..", "results")
	s, err := ResultsSection(root)
	if err != nil || s == nil {
		t.Fatalf("%v, %v: the committed campaign is in %s", s, err, filepath.Join(root, ResultsDir))
	}
	r, err := ReadReport(filepath.Join(root, ResultsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 2 || len(s.Figures) != 2 {
		t.Fatalf("%d tables and %d figures, want 2 and 2", len(s.Tables), len(s.Figures))
	}
	for i, tab := range s.Tables {
		ms := r.ByM[i]
		taus := tab.Taus()
		if ms.KendallTau == nil || len(taus) != 1 || math.Abs(taus[0].Tau-*ms.KendallTau) > 1e-12 || taus[0].N != len(PaperTable(ms.Tasks)) {
			t.Errorf("m = %d: τ-b on the page %+v, in the summary %v over the paper's %d", ms.Tasks, taus, ms.KendallTau, len(PaperTable(ms.Tasks)))
		}
		compared := 0
		for _, row := range tab.Rows {
			if !math.IsNaN(row.Cells[0].Paper) {
				compared++
			}
		}
		if compared != len(PaperTable(ms.Tasks)) {
			t.Errorf("m = %d: #fails compared in %d rows, want the paper's %d", ms.Tasks, compared, len(PaperTable(ms.Tasks)))
		}
	}
	for i, want := range []figure.PaperKind{figure.PaperNone, figure.PaperPicture} {
		f := s.Figures[i].Figure
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		if f.Paper != want || len(f.Series) != len(Figure2Heuristics) {
			t.Errorf("%s: paper %v, %d series; want %v, %d", f.Title, f.Paper, len(f.Series), want, len(Figure2Heuristics))
		}
	}
}
