package campaign

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
)

// ownHeuristic is a heuristic the paper does not have, registered as a
// program registers its own: in this test binary every heuristic list
// (iterative.Heuristics) has 18 entries.
var ownHeuristic = iterative.MustRegister(iterative.Spec{Name: "test-FASTEST", Description: "each task to the UP worker of fewest slots per task",
	Key: func(s *iterative.Snapshot, q int, ct float64) float64 { return float64(s.Procs[q].W) + ct/1e9 }})

// TestOwnHeuristicsCampaign: a campaign of named heuristics, one of them
// not the paper's, runs them in the order given (a random one drawing from
// its stream as in the paper's campaign), and its report is keyed by name:
// Table 2's rows, the paper's values beside the paper's heuristics only,
// Kendall's τ over those, Figure 2's curves by name; the summary it writes
// is read back.
func TestOwnHeuristicsCampaign(t *testing.T) {
	c := small()
	c.Heuristics = []string{"EMCT*", ownHeuristic.String(), "RANDOM2", "MCT"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	paper := small()
	var results []UnitResult
	for u := range c.Units() {
		r, err := c.RunUnit(context.Background(), 3, u)
		if err != nil {
			t.Fatal(err)
		}
		// The paper's heuristics make the decisions (and draws) they make
		// in the paper's campaign: their makespans are the same.
		p, err := paper.RunUnit(context.Background(), 3, u)
		if err != nil {
			t.Fatal(err)
		}
		for tr := range r.Makespans {
			for i, n := range c.Heuristics {
				if k := slices.Index(iterative.Names(iterative.Paper()), n); k >= 0 && r.Makespans[tr][i] != p.Makespans[tr][k] {
					t.Errorf("unit %d trial %d %s: makespan %d, %d in the paper's campaign", u, tr, n, r.Makespans[tr][i], p.Makespans[tr][k])
				}
			}
		}
		results = append(results, r)
	}
	s, err := c.Summarize(results)
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewReport(3, s)
	if !slices.Equal(r.HeuristicOrder, c.Heuristics) || len(r.Heuristics) != 4 || len(r.DfbByWMin[0]) != 4 {
		t.Fatalf("order %v, %d rows, %d values per w_min; want the campaign's 4", r.HeuristicOrder, len(r.Heuristics), len(r.DfbByWMin[0]))
	}
	dir := t.TempDir()
	if err := experiment.WriteJSONFile(filepath.Join(dir, "summary.json"), r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(dir)
	if err != nil {
		t.Fatalf("the summary of a campaign with its own heuristics is not read back: %v", err)
	}
	sec := back.Section("test", nil)
	for _, row := range sec.Tables[0].Rows {
		_, inPaper := PaperRow(row.Label)
		if math.IsNaN(row.Cells[0].Paper) == inPaper {
			t.Errorf("%s: paper dfb %v, want one exactly for the paper's heuristics", row.Label, row.Cells[0].Paper)
		}
	}
	if taus := sec.Tables[0].Taus(); len(taus) == 0 {
		t.Error("no Kendall τ over the paper's 3 heuristics")
	}
	var curves []string
	for _, sr := range sec.Figures[0].Figure.Series {
		curves = append(curves, sr.Name)
	}
	if !slices.Equal(curves, []string{"MCT", "EMCT*"}) {
		t.Errorf("Figure 2 curves %v, want the paper's curves the campaign ran: MCT, EMCT*", curves)
	}
	var out strings.Builder
	back.Print(&out, s)
	if !strings.Contains(out.String(), "τ-b over the 3 heuristics") || !strings.Contains(out.String(), ownHeuristic.String()) {
		t.Errorf("printed report:\n%s", out.String())
	}
}

// TestHeuristicsRefused: a campaign's list of heuristics is checked before
// any unit runs: an unknown name, a name twice, a single heuristic.
func TestHeuristicsRefused(t *testing.T) {
	for _, c := range []struct {
		list []string
		want string
	}{
		{[]string{"MCT", "EMCT**"}, `heuristic "EMCT**": want one of`},
		{[]string{"MCT", "UD", "MCT"}, "named twice"},
		{[]string{"MCT"}, "want at least 2"},
	} {
		p := small()
		p.Heuristics = c.list
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("heuristics %v: %v, want an error with %q", c.list, err, c.want)
		}
	}
}

// TestCommittedResultsUnchanged: with a heuristic of one's own registered
// (ownHeuristic), the committed full campaign is read, its report has the
// paper's 17 rows, and written back it is byte for byte the committed
// file: results are keyed by name, not by the table of heuristics.
func TestCommittedResultsUnchanged(t *testing.T) {
	if len(iterative.Heuristics()) != 18 {
		t.Fatalf("%d heuristics registered, want the 17 and test-FASTEST", len(iterative.Heuristics()))
	}
	dir := filepath.Join("..", "..", "results", filepath.FromSlash(ResultsDir))
	r, err := ReadReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Section("x", nil); len(s.Tables[0].Rows) != 17 {
		t.Errorf("Table 2 of the committed campaign has %d rows, want 17", len(s.Tables[0].Rows))
	}
	tmp := t.TempDir()
	if err := experiment.WriteJSONFile(filepath.Join(tmp, "summary.json"), r); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(tmp, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("the committed summary.json read and written back differs")
	}
}
