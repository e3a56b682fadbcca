package campaign

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/experiment"
)

// ownRandom is a heuristic the paper does not have, registered as a
// program registers its own: every task on one UP worker drawn at random.
// In this test binary coupled.Heuristics() has 18 entries.
var ownRandom = coupled.MustRegister(coupled.Heuristic{Name: "test-ONE", Description: "all tasks on one UP worker drawn at random", Random: true,
	Builder: func(e *coupled.Evaluator, s *coupled.Snapshot, rng *rand.Rand) (coupled.Config, bool) {
		var up []int
		for q, st := range s.States {
			if st == availability.Up && e.Platform().MaxTasks(q) >= e.Tasks() {
				up = append(up, q)
			}
		}
		if len(up) == 0 {
			return coupled.Config{}, false
		}
		q := up[rng.IntN(len(up))]
		x := make([]int, e.Platform().P())
		x[q] = e.Tasks()
		return coupled.Config{X: x, Order: []int{q}}, true
	}})

// TestOwnHeuristicsCampaign: a campaign of named heuristics, one of them a
// registered one that draws, simulates them in the order given; the
// paper's heuristics get what they get in the paper's campaign (RANDOM its
// stream), the drawing one its own stream, deterministic; the report is
// keyed by name (the paper's values beside the paper's heuristics only)
// and its figure2.csv has the campaign's columns.
func TestOwnHeuristicsCampaign(t *testing.T) {
	c := QuickCampaign()
	c.Tasks, c.NCom, c.Trials = []int{5}, []int{5}, 2
	paper := c
	c.Heuristics = []string{ownRandom.Name, "RANDOM", "IE", "E-IAY"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var units []UnitResult
	for u := range c.Units() {
		r, err := c.RunUnit(context.Background(), 3, u)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := c.RunUnit(context.Background(), 3, u)
		p, err := paper.RunUnit(context.Background(), 3, u)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Heuristics, c.Heuristics) {
			t.Fatalf("unit %d names %v, want %v", u, r.Heuristics, c.Heuristics)
		}
		for k := range r.Makespan {
			if !slices.Equal(r.Makespan[k], again.Makespan[k]) {
				t.Errorf("unit %d trial %d: %v then %v", u, k, r.Makespan[k], again.Makespan[k])
			}
			for i, n := range r.Heuristics[1:] {
				if j := slices.Index(p.Heuristics, n); r.Makespan[k][i+1] != p.Makespan[k][j] {
					t.Errorf("unit %d trial %d %s: makespan %d, %d in the paper's campaign", u, k, n, r.Makespan[k][i+1], p.Makespan[k][j])
				}
			}
		}
		units = append(units, r)
	}
	r, err := c.Summarize(3, units)
	if err != nil {
		t.Fatal(err)
	}
	sec := r.Section("test", nil)
	for _, row := range sec.Tables[0].Rows {
		inPaper := slices.ContainsFunc(PaperTable(5), func(p PaperRow) bool { return p.Name == row.Label })
		if math.IsNaN(row.Cells[1].Paper) == inPaper {
			t.Errorf("%s: paper %%diff %v, want one exactly for the paper's heuristics", row.Label, row.Cells[1].Paper)
		}
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "figure2.csv"))
	if head, _, _ := strings.Cut(string(b), "\n"); head != "m,wmin,test-ONE,RANDOM,IE,E-IAY" {
		t.Errorf("figure2.csv header %q, want the campaign's heuristics", head)
	}
	if _, err := ReadReport(dir); err != nil {
		t.Errorf("the summary is not read back: %v", err)
	}
	// Results of another list of heuristics are not this campaign's.
	c.Heuristics = []string{"IE", "RANDOM"}
	if _, err := c.Summarize(3, units); err == nil || !strings.Contains(err.Error(), "name the heuristics") {
		t.Errorf("results of other heuristics summarized: %v", err)
	}
}

// TestHeuristicsRefused: the list of heuristics is checked before any unit
// runs: an unknown name, a name twice, no IE (the reference), IE alone.
func TestHeuristicsRefused(t *testing.T) {
	for _, c := range []struct {
		list []string
		want string
	}{
		{[]string{"IE", "Z-IE"}, `heuristic "Z-IE": want one of`},
		{[]string{"IE", "ie"}, "named twice"},
		{[]string{"IP", "RANDOM"}, "want IE among them"},
		{[]string{"IE"}, "want at least 2"},
		{[]string{"ie", "RANDOM"}, `"ie" is spelled "IE"`},
	} {
		p := QuickCampaign()
		p.Heuristics = c.list
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("heuristics %v: %v, want an error with %q", c.list, err, c.want)
		}
	}
	// Normalize spells the names as registered, and the 17 in order as the
	// default (the same manifest as without --heuristics).
	p := QuickCampaign()
	p.Heuristics = []string{"ie", "random"}
	if p.Normalize(); !slices.Equal(p.Heuristics, []string{"IE", "RANDOM"}) || p.Validate() != nil {
		t.Errorf("normalized %v: %v", p.Heuristics, p.Validate())
	}
	p.Heuristics = coupled.Names(coupled.Paper())
	if p.Normalize(); p.Heuristics != nil {
		t.Errorf("the 17 normalized to %v, want none", p.Heuristics)
	}
}

// TestCommittedResultsUnchanged: with a heuristic of one's own registered
// (ownRandom), the committed campaign is read and written back byte for
// byte: its results are keyed by name, not by the table of heuristics.
func TestCommittedResultsUnchanged(t *testing.T) {
	if n := len(coupled.Heuristics()); n != 18 {
		t.Fatalf("%d heuristics registered, want the 17 and %s", n, ownRandom.Name)
	}
	dir := filepath.Join("..", "..", "results", ResultsDir)
	r, err := ReadReport(dir)
	if err != nil {
		t.Fatal(err)
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
