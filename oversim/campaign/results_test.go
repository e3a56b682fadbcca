package campaign

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/figure"
)

// TestResultsSection builds the section of the committed full-size runs
// (results/004): Table 4 with a row per policy, SF_max and link, every one
// of ours read; DP's tasks finished at the paper's size compared with the
// labels of Fig. 16 where it has one; Figs. 12-13 and 16-17, Fig. 16 with
// the paper's values drawn. An empty results directory gives no section.
func TestResultsSection(t *testing.T) {
	root := filepath.Join("..", "..", "results")
	s, err := ResultsSection(root)
	if err != nil || s == nil {
		t.Fatalf("%v, %v: the committed runs are in %s", s, err, root)
	}
	if len(s.Tables) < 2 || s.Tables[0].ID != "table4" || s.Tables[1].ID != "fig16-tasks" {
		t.Fatalf("tables %d, want Table 4 and Fig. 16's tasks", len(s.Tables))
	}
	t4 := s.Tables[0]
	if len(t4.Rows) != 18 {
		t.Errorf("Table 4 has %d rows, want 3 policies × 3 SF_max × 2 links", len(t4.Rows))
	}
	for _, row := range t4.Rows {
		for i, c := range row.Cells {
			if math.IsNaN(c.Ours) || math.IsNaN(c.Paper) {
				t.Errorf("Table 4 %s column %d: ours %v, paper %v; want both", row.Label, i, c.Ours, c.Paper)
			}
		}
	}
	want := map[string]float64{"overlay, SF_max 64": 4306204, "overlay, SF_max 216": 4321049, "random": 1078555}
	runs, _, _, err := resultsRuns(filepath.Join(root, ResultsDirDP))
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Tables[1]
	if len(tasks.Rows) != len(runs) {
		t.Errorf("%d rows of tasks finished for %d complete DP runs", len(tasks.Rows), len(runs))
	}
	for _, row := range tasks.Rows {
		c := row.Cells[0]
		if p, ok := want[row.Label]; ok != !math.IsNaN(c.Paper) || (ok && c.Paper != p) {
			t.Errorf("%s: paper %v, want %v", row.Label, c.Paper, p)
		}
		found := false
		for _, r := range runs {
			found = found || float64(r.TasksFinished) == c.Ours
		}
		if !found {
			t.Errorf("%s: ours %v is no run's tasks finished", row.Label, c.Ours)
		}
	}
	ids := map[string]*figure.Figure{}
	for _, f := range s.Figures {
		if err := f.Figure.Validate(); err != nil {
			t.Errorf("%s: %v", f.ID, err)
		}
		ids[f.ID] = f.Figure
	}
	for _, id := range []string{"ibp-tasks", "ibp-computation", "dp-tasks", "dp-computation"} {
		if ids[id] == nil {
			t.Errorf("no figure %s", id)
		}
	}
	if f := ids["dp-tasks"]; f != nil && (f.Paper != figure.PaperValues || !strings.HasPrefix(f.Title, "Figure 16")) {
		t.Errorf("dp-tasks: %q, paper %v; want Figure 16 with the paper's values", f.Title, f.Paper)
	}
	if f := ids["ibp-tasks"]; f != nil && (f.Paper != figure.PaperPicture || !strings.HasPrefix(f.Title, "Figure 12")) {
		t.Errorf("ibp-tasks: %q, paper %v; want Figure 12, a picture in the paper", f.Title, f.Paper)
	}
	if !strings.Contains(s.Reproduced, "left out") {
		t.Error("the stopped runs committed beside the complete ones are not named as left out")
	}

	empty := t.TempDir()
	if s, err := ResultsSection(empty); s != nil || err != nil {
		t.Errorf("empty results: %v, %v; want nothing", s, err)
	}
	os.MkdirAll(filepath.Join(empty, ResultsDirTable4), 0o755)
	if _, err := ResultsSection(empty); err == nil || !strings.Contains(err.Error(), "no run of Table 4") {
		t.Errorf("an empty Table 4 directory: %v, want an error naming it", err)
	}
}
