package simulate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/volsched/volsched/figure"
)

// TestFigure (issue 28): the what-if figure draws the comparison the run
// makes — each heuristic's mean with its 95 % interval, the best (the
// recommendation) and those not significantly worse apart from the others
// — leaves out a heuristic far behind instead of stretching the axis for
// it (RANDOM on a tightly-coupled application), and says nothing of a
// paper.
func TestFigure(t *testing.T) {
	st := func(name string, mean, half float64) Stats {
		return Stats{Name: name, Mean: mean, CI: [2]float64{mean - half, mean + half}}
	}
	r := &Result{Platform: "examples/whatif/platform.json", Application: "coupled.json", Kind: "coupled", Workers: 20, Tasks: 5, Iterations: 10, SlotSeconds: 60, Seed: 1,
		Summary: Summary{Trials: 30, Best: "IE", Tied: []string{"IY", "P-IE"}, Heuristics: []Stats{
			st("IE", 75.8, 6.2), st("IY", 75.8, 6.2), st("P-IE", 78.0, 7.9), st("IP", 144.4, 13), st("RANDOM", 246.2, 22),
		}}}
	f := r.Figure()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Y.Categories, " "); got != "IE IY P-IE IP" {
		t.Errorf("rows %q, want the heuristics best first without RANDOM (more than %d times the best's mean)", got, OffAxisFactor)
	}
	want := []struct {
		name string
		rows []float64
	}{
		{"best (the recommendation): IE", []float64{0}},
		{"not significantly worse than the best", []float64{1, 2}},
		{"significantly worse than the best", []float64{3}},
	}
	if len(f.Series) != len(want) {
		t.Fatalf("%d series, want %d", len(f.Series), len(want))
	}
	for i, w := range want {
		s := f.Series[i]
		if s.Name != w.name || fmt.Sprint(s.Y) != fmt.Sprint(w.rows) || len(s.XErr) != len(s.X) {
			t.Errorf("series %d: %q rows %v, %d intervals; want %q rows %v with intervals", i, s.Name, s.Y, len(s.XErr), w.name, w.rows)
		}
	}
	if f.Series[2].X[0] != 144.4 || f.Series[2].XErr[0] != 13 {
		t.Errorf("IP drawn at %v ± %v, want 144.4 ± 13", f.Series[2].X[0], f.Series[2].XErr[0])
	}
	caption := f.FullCaption()
	if !strings.Contains(caption, "Not drawn, their mean more than 2 times the best's: RANDOM 246.2 [224.2, 268.2].") {
		t.Errorf("caption %q does not list RANDOM", caption)
	}
	if f.Paper != figure.NoPaper || strings.Contains(strings.ToLower(caption), "paper") {
		t.Errorf("the what-if figure speaks of a paper: %q", caption)
	}
	if f.X.Unit != "slots of 60 s" {
		t.Errorf("x unit %q", f.X.Unit)
	}
}
