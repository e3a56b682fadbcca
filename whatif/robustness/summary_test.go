package robustness

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestReportByHand: three heuristics, two variants on one availability
// (known, estimated) and one on another. Scores, ranks, τ, the change and
// the paired change are the hand-computed ones; NaN reads back from JSON.
func TestReportByHand(t *testing.T) {
	names := []string{"A", "B", "C"}
	vs := []Variant{
		{"ref", "x", Beliefs{Known: true}},
		{"est", "x", Beliefs{Refresh: 10}},
		{"other", "y", Beliefs{Known: true}},
	}
	ms := [][][]int{
		{{10, 20, 40}, {10, 10, 20}}, // dfb A 0, B (100+0)/2 = 50, C (300+100)/2 = 200
		{{20, 10, 40}, {10, 10, 10}}, // A 50, B 0, C 150
		{{10, 20, 15}, {10, 20, 15}}, // A 0, B 100, C 50
	}
	var sc []scores
	for _, m := range ms {
		x, err := dfbScores(m, 3)
		if err != nil {
			t.Fatal(err)
		}
		sc = append(sc, x)
	}
	r, err := newReport("k", 1, nil, names, "average dfb (%)", vs, sc, "T", map[string]float64{"A": 1, "C": 3})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0, 50, 200}, {50, 0, 150}, {0, 100, 50}}
	for v := range want {
		for h := range want[v] {
			if math.Abs(r.Variants[v].Score[h]-want[v][h]) > 1e-12 {
				t.Errorf("variant %d heuristic %d: score %v, want %v", v, h, r.Variants[v].Score[h], want[v][h])
			}
		}
	}
	if got := r.Variants[1].Rank; got[0] != 2 || got[1] != 1 || got[2] != 3 {
		t.Errorf("ranks %v", got)
	}
	if *r.Variants[0].TauReference != 1 || math.Abs(*r.Variants[1].TauReference-1.0/3) > 1e-12 || math.Abs(*r.Variants[2].TauReference-1.0/3) > 1e-12 {
		t.Errorf("τ %v %v %v", *r.Variants[0].TauReference, *r.Variants[1].TauReference, *r.Variants[2].TauReference)
	}
	if *r.Variants[0].TauPaper != 1 || *r.Variants[1].TauPaper != 1 || *r.Variants[2].TauPaper != 1 {
		t.Errorf("τ vs paper over A and C")
	}
	if r.Variants[1].ScoreChange[1] != -50 || r.Variants[0].PairedBase != "" || r.Variants[1].PairedBase != "ref" || r.Variants[2].PairedBase != "" {
		t.Errorf("change %v, bases %q %q %q", r.Variants[1].ScoreChange, r.Variants[0].PairedBase, r.Variants[1].PairedBase, r.Variants[2].PairedBase)
	}
	// est vs ref: A 30/20 − 1 = +50 %, B 20/30 − 1 = −33.3 %, C 50/60 − 1.
	pc := r.Variants[1].PairedChange
	if math.Abs(pc[0]-50) > 1e-9 || math.Abs(pc[1]+100.0/3) > 1e-9 || math.Abs(pc[2]-100*(50.0/60-1)) > 1e-9 {
		t.Errorf("paired change %v", pc)
	}
	var b strings.Builder
	if err := r.WriteText(&b, true); err != nil || !strings.Contains(b.String(), "| est ") {
		t.Errorf("markdown: %v\n%s", err, b.String())
	}
	f := Floats{1, math.NaN(), math.Inf(1)}
	js, err := json.Marshal(f)
	if err != nil || string(js) != "[1,null,null]" {
		t.Fatalf("%s %v", js, err)
	}
	var back Floats
	if err := json.Unmarshal(js, &back); err != nil || back[0] != 1 || !math.IsNaN(back[1]) {
		t.Errorf("%v %v", back, err)
	}
}
