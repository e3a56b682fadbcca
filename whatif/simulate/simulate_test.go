package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/whatif"
)

const exampleDir = "../../examples/whatif"

func loadExample(t *testing.T, app string) (*whatif.Platform, *whatif.Application) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exampleDir, "platform.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := whatif.ParsePlatform(data, "platform.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.LoadTraces(whatif.DirReader(exampleDir)); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join(exampleDir, app))
	if err != nil {
		t.Fatal(err)
	}
	a, err := whatif.ParseApplication(data, app)
	if err != nil {
		t.Fatal(err)
	}
	return p, a
}

// TestExampleIndependent: the example run's JSON has every field, and they
// agree with one another and with the makespans they summarize.
func TestExampleIndependent(t *testing.T) {
	p, a := loadExample(t, "independent.json")
	trials := 30
	if testing.Short() {
		trials = 12
	}
	res, err := Run(context.Background(), p, a, Options{Trials: trials, Seed: 4, Workers: 2, Predict: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := res.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	svg, err := os.ReadFile(filepath.Join(dir, FigureFile))
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(svg)), "<?xml") || !strings.Contains(string(svg), "<svg") {
		t.Errorf("%s is not an SVG file (%v)", FigureFile, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"platform", "application", "kind", "workers", "tasks", "iterations", "slot_seconds", "seed", "trials", "trials_asked", "predict", "heuristics", "best", "tied_with_best", "recommendation"} {
		if _, ok := js[k]; !ok {
			t.Errorf("JSON has no %q", k)
		}
	}
	hs := js["heuristics"].([]any)
	if len(hs) != len(iterative.Heuristics()) {
		t.Fatalf("%d heuristics in the JSON, want %d", len(hs), len(iterative.Heuristics()))
	}
	for _, k := range []string{"name", "mean", "ci95", "sd", "median", "p90", "min", "max", "diff_to_best", "diff_ci95", "significant", "failures", "predicted", "makespans"} {
		if _, ok := hs[0].(map[string]any)[k]; !ok {
			t.Errorf("JSON heuristics[0] has no %q", k)
		}
	}
	var back Result
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, res) {
		t.Errorf("the JSON does not read back as the result")
	}
	if res.Workers != 20 || res.Tasks != 10 || res.Iterations != 10 || res.SlotSeconds != 60 || res.Trials != trials || res.TrialsAsked != trials || res.Partial {
		t.Errorf("header %+v", res)
	}
	names := map[string]bool{}
	for i, h := range res.Heuristics {
		names[h.Name] = true
		if len(h.Makespans) != trials {
			t.Fatalf("%s: %d makespans, want %d", h.Name, len(h.Makespans), trials)
		}
		x := make([]float64, trials)
		sum := 0.0
		for k, v := range h.Makespans {
			x[k] = float64(v)
			sum += x[k]
		}
		slices.Sort(x)
		if m := sum / float64(trials); math.Abs(m-h.Mean) > 1e-9 {
			t.Errorf("%s: mean %g, makespans average %g", h.Name, h.Mean, m)
		}
		if !(h.CI[0] <= h.Mean && h.Mean <= h.CI[1]) || h.Median < x[0] || h.Median > h.P90 || h.P90 > x[trials-1] || float64(h.Min) != x[0] || float64(h.Max) != x[trials-1] {
			t.Errorf("%s: mean %g CI %v median %g p90 %g min %d max %d", h.Name, h.Mean, h.CI, h.Median, h.P90, h.Min, h.Max)
		}
		if i > 0 && h.Mean < res.Heuristics[i-1].Mean {
			t.Errorf("%s: not sorted by mean", h.Name)
		}
		best := res.Heuristics[0]
		d := 0.0
		for k := range h.Makespans {
			d += float64(h.Makespans[k] - best.Makespans[k])
		}
		d /= float64(trials)
		if math.Abs(d-h.DiffToBest) > 1e-9 || !(h.DiffCI[0] <= h.DiffToBest && h.DiffToBest <= h.DiffCI[1]) {
			t.Errorf("%s: diff to best %g CI %v, makespans give %g", h.Name, h.DiffToBest, h.DiffCI, d)
		}
		if h.Significant != (h.DiffCI[0] > 0) {
			t.Errorf("%s: significant %v with CI %v", h.Name, h.Significant, h.DiffCI)
		}
		if i > 0 && h.Significant == slices.Contains(res.Tied, h.Name) {
			t.Errorf("%s: significant %v but tied list %v", h.Name, h.Significant, res.Tied)
		}
		if h.Predicted == nil || !(*h.Predicted > 0) {
			t.Errorf("%s: prediction %v", h.Name, h.Predicted)
		}
		if h.Failures != 0 {
			t.Errorf("%s: %d failures", h.Name, h.Failures)
		}
	}
	if len(names) != len(iterative.Heuristics()) || res.Best != res.Heuristics[0].Name || !strings.Contains(res.Recommendation, "Use "+res.Best) {
		t.Errorf("best %s, recommendation %q", res.Best, res.Recommendation)
	}
	var text strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EMCT*", "95% CI", "predicted", res.Recommendation} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}

// TestDeterministic: the same seed gives the same result whatever the
// number of workers; another seed gives another.
func TestDeterministic(t *testing.T) {
	p, a := loadExample(t, "independent.json")
	opt := Options{Trials: 6, Seed: 9, Heuristics: []string{"EMCT", "RANDOM2W", "UD*"}, Predict: true}
	var prev *Result
	for _, w := range []int{1, 3, 4} {
		opt.Workers = w
		res, err := Run(context.Background(), p, a, opt)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && !reflect.DeepEqual(prev, res) {
			t.Errorf("%d workers give another result than 1", w)
		}
		prev = res
	}
	opt.Seed = 10
	res, err := Run(context.Background(), p, a, opt)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(prev.Heuristics[0].Makespans, res.Heuristics[0].Makespans) {
		t.Errorf("seeds 9 and 10 give the same makespans")
	}
}

// TestSummarizeRecommendation: a constructed case. A and B differ by
// noise of mean 0 (A − B alternates +1, −1 …): not significant, so the
// recommendation names both; C is worse by 5 on every trial: significant
// with an exact interval [5, 5]; D equals A on every trial (difference 0,
// interval [0, 0], not significant).
func TestSummarizeRecommendation(t *testing.T) {
	names := []string{"C", "A", "B", "D"}
	var ms [][]int
	for k := 0; k < 20; k++ {
		a := 100 + 3*(k%7)
		b := a + 1 - 2*(k%2)
		ms = append(ms, []int{a + 5, a, b, a})
	}
	s, err := Summarize(names, ms, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A, B and D have the same mean (up to rounding): the best is one of them.
	if s.Best == "C" {
		t.Fatalf("best %s", s.Best)
	}
	byName := map[string]Stats{}
	for _, h := range s.Heuristics {
		byName[h.Name] = h
	}
	c := byName["C"]
	if !c.Significant || c.DiffToBest != 5 || c.DiffCI != [2]float64{5, 5} {
		t.Errorf("C: %+v, want a significant difference of exactly 5", c)
	}
	for _, n := range []string{"A", "B", "D"} {
		if n != s.Best && byName[n].Significant {
			t.Errorf("%s: significant, want not (CI %v)", n, byName[n].DiffCI)
		}
	}
	if len(s.Tied) != 2 || slices.Contains(s.Tied, "C") {
		t.Errorf("tied %v, want the two of A, B, D that are not best", s.Tied)
	}
	if !strings.Contains(s.Recommendation, "not significant") || strings.Contains(s.Recommendation, "C,") {
		t.Errorf("recommendation %q", s.Recommendation)
	}
	// Everyone significantly worse than the best.
	s2, err := Summarize([]string{"X", "Y"}, [][]int{{10, 12}, {11, 14}, {9, 12}}, nil, 60)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Best != "X" || len(s2.Tied) != 0 || !strings.Contains(s2.Recommendation, "significantly better than every other") || !strings.Contains(s2.Recommendation, "min") {
		t.Errorf("%+v", s2)
	}
	if _, err := Summarize([]string{"X"}, [][]int{{3}}, nil, 0); err == nil {
		t.Errorf("one trial: no error")
	}
}

// tinyPlatform: one worker replaying an 8-slot trace, UP but for one DOWN
// slot at position 3 (u u u d u u u u), w = 1, T_prog = T_data = 1.
const tinyPlatform = `{"slot_seconds": 60,
 "master": {"ncom": 1, "tprog": 1, "tdata": 1},
 "traces": {"t": {"file": "t.csv"}},
 "workers": [{"name": "h", "w": 1, "availability": {"trace": "t", "host": "h1"}}]}`

const tinyTrace = "host,start,end,state\nh1,0,180,u\nh1,180,240,d\nh1,240,480,u\n"

// TestTraceByHand: the tiny platform, 1 task per iteration, 2 iterations.
// An iteration needs, with nothing held, the program (1 UP slot), the data
// (the next) and the computation (the next): 3 slots without a DOWN; the
// second iteration only data and computation (2 slots) unless a DOWN took
// the program. With the trial's offset o, slot k replays trace slot
// (o + k) mod 8, so the DOWN slot comes at k = (3 − o) mod 8, then every 8
// slots. By hand:
//
//	o = 3: D at 0; P1 D2 C3 | D4 C5                 → 6
//	o = 2: P0, D at 1 lost; P2 D3 C4 | D5 C6         → 7
//	o = 1: P0 D1, D at 2 lost; P3 D4 C5 | D6 C7      → 8
//	o = 0: P0 D1 C2 |, D at 3 lost; P4 D5 C6         → 7
//	o = 7: P0 D1 C2 | D3, D at 4 lost; P5 D6 C7      → 8
//	o = 6, 5, 4: P0 D1 C2 | D3 C4 before the DOWN    → 5
//
// (P: program slot, D: data slot, C: computation slot, |: end of the first
// iteration.) Every heuristic makes the same decisions with one worker.
func TestTraceByHand(t *testing.T) {
	want := map[int]int{0: 7, 1: 8, 2: 7, 3: 6, 4: 5, 5: 5, 6: 5, 7: 8}
	p, err := whatif.ParsePlatform([]byte(tinyPlatform), "tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.LoadTraces(func(string) ([]byte, error) { return []byte(tinyTrace), nil }); err != nil {
		t.Fatal(err)
	}
	a, err := whatif.ParseApplication([]byte(`{"kind": "independent", "tasks": 1, "iterations": 2}`), "tiny-app.json")
	if err != nil {
		t.Fatal(err)
	}
	const trials = 40
	res, err := Run(context.Background(), p, a, Options{Trials: trials, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for k := 0; k < trials; k++ {
		tr, err := p.Trial(3, uint64(k))
		if err != nil {
			t.Fatal(err)
		}
		o := tr.Offsets[0]
		seen[o] = true
		for _, h := range res.Heuristics {
			if h.Makespans[k] != want[o] {
				t.Errorf("trial %d (offset %d) %s: makespan %d, want %d", k, o, h.Name, h.Makespans[k], want[o])
			}
		}
	}
	if len(seen) < 6 {
		t.Errorf("only offsets %v drawn in %d trials", seen, trials)
	}
}

// TestInterrupted: a cancelled run returns ErrInterrupted, with the
// summary of the trials done when there are at least 2.
func TestInterrupted(t *testing.T) {
	p, a := loadExample(t, "independent.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, p, a, Options{Trials: 50, Seed: 1, Workers: 1})
	if !errors.Is(err, ErrInterrupted) || res != nil {
		t.Fatalf("cancelled before the start: %v, %v", res, err)
	}
	if _, err := Run(context.Background(), p, a, Options{Trials: 1}); err == nil {
		t.Errorf("1 trial: no error")
	}
	if _, err := Run(context.Background(), p, a, Options{Trials: 5, Heuristics: []string{"EMCT", "emct"}}); err == nil || !strings.Contains(err.Error(), "emct") {
		t.Errorf("bad heuristic name: %v", err)
	}
	if _, err := Run(context.Background(), p, a, Options{Trials: 5, Heuristics: []string{"EMCT", "EMCT"}}); err == nil {
		t.Errorf("heuristic named twice: no error")
	}
}
