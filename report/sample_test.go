package report

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/volsched/volsched/figure"
	itercampaign "github.com/volsched/volsched/iterative/campaign"
)

// The sample pages below are built from SYNTHETIC content. "Ours" in the
// Table 2 sample are MADE-UP numbers (the published values perturbed by a
// fixed pattern) to exercise the page; they are not results of volsched.

// sampleDocs are the documents the sample's choices link to; they exist in
// the repository (TestSampleDocsExist) and are copied beside the sample.
var sampleDocs = []string{"docs/model-001.md", "docs/reproduction-001.md", "docs/overlay-sim.md"}

// writeSample lays out a repository-like tree in root (docs/, and the page
// directory report/ with its figures), writes the sample page there and
// returns the page's path.
func writeSample(t *testing.T, root string, opt Options) string {
	t.Helper()
	for _, d := range sampleDocs {
		p := filepath.Join(root, filepath.FromSlash(d))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "report")
	if err := os.MkdirAll(filepath.Join(dir, "figures"), 0o755); err != nil {
		t.Fatal(err)
	}
	page := samplePage(t, dir)
	file := filepath.Join(dir, "index.html")
	if err := Write(file, page, opt); err != nil {
		t.Fatal(err)
	}
	return file
}

// samplePage builds the sample's content; its figures are drawn into
// dir/figures.
func samplePage(t *testing.T, dir string) Page {
	t.Helper()
	return Page{
		Title:     "volsched: reproduction report (sample with synthetic numbers)",
		Intro:     "A sample page built by the report package's tests from synthetic content.\n\nIts \"ours\" values are made up; the published values are the papers'.",
		Generated: "report package test sample",
		Sections:  []Section{table2Section(t, dir), syntheticSection(t, dir)},
	}
}

// table2Section: seed 001's Table 2 as published (itercampaign.PaperTable2)
// beside MADE-UP values, and a synthetic Figure 2.
func table2Section(t *testing.T, dir string) Section {
	tab := Table{
		ID:        "table2-001",
		Caption:   "Table 2: average dfb and wins of the 17 heuristics (ours: made-up numbers)",
		RowHeader: "heuristic",
		Columns: []Column{
			{Name: "avg dfb", Unit: "%", Digits: 2, Tol: Tolerance{Abs: 0.5, Rel: 0.05}, Rank: true},
			{Name: "wins", Digits: 0, Tol: Tolerance{Abs: 20, Rel: 0.1}, Rank: true},
		},
		Note: "Made-up \"ours\": each published value times 1 + 0.12·sin(3i) (i: the heuristic's index). 296,400 instances in the paper.",
	}
	for i, h := range itercampaign.PaperTable2 {
		f := 1 + 0.12*math.Sin(3*float64(i))
		tab.Rows = append(tab.Rows, Row{Label: h.Name, Cells: []Cell{
			{Ours: h.AvgDfb * f, Paper: h.AvgDfb},
			{Ours: math.Round(float64(h.Wins) * f), Paper: float64(h.Wins)},
		}})
	}
	fig := figure.Figure{
		Title:   "Figure 2: average dfb against w_min (made-up numbers)",
		Source:  "Casanova, Dufossé, Robert, Vivien — Scheduling Parallel Iterative Applications on Volatile Resources",
		X:       figure.Axis{Label: "w_min", Unit: "slots"},
		Y:       figure.Axis{Label: "average dfb", Unit: "%", Zero: true},
		Caption: "Synthetic curves for a test; seed 1.",
		Paper:   figure.PaperPicture,
	}
	for i, h := range []string{"MCT", "EMCT", "LW", "UD", "UD*", "RANDOM"} {
		s := figure.Series{Name: h}
		for w := 1; w <= 10; w++ {
			s.X = append(s.X, float64(w))
			s.Y = append(s.Y, 4+float64(i*i)+float64(w)/3)
		}
		fig.Series = append(fig.Series, s)
	}
	if _, err := fig.WriteFiles(filepath.Join(dir, "figures", "figure2-001")); err != nil {
		t.Fatal(err)
	}
	return Section{
		ID:      "seed-001",
		Paper:   "Scheduling Parallel Iterative Applications on Volatile Resources",
		Authors: "Casanova, Dufossé, Robert, Vivien (RR-2010-31; IPDPS 2011)",
		Reproduced: "Table 2 and Figure 2 of §7, with made-up numbers for this sample.\n\n" +
			"A second paragraph, with characters to escape: <b>not bold</b> & \"quoted\".",
		Tables: []Table{tab},
		Figures: []Figure{{
			ID: "figure2-001", Src: "figures/figure2-001.svg", Alt: "Average dfb against w_min for six heuristics (synthetic)",
			Links: []Link{{Text: "PNG", Href: "figures/figure2-001.png"}},
		}},
		Choices: []Choice{
			{Text: "Transfers to a RECLAIMED worker release their channel.", Doc: "docs/model-001.md#transfers-and-the-bounded-multi-port-master"},
			{Text: "The campaign's reduced grid.", Doc: "docs/reproduction-001.md"},
		},
		Runs: []Run{
			{Command: "volsched reproduce --quick --report out", Seed: 1, Duration: 83*time.Second + 400*time.Millisecond, Note: "reduced: 1 scenario × 2 trials"},
		},
	}
}

// syntheticSection: a table whose paper values are partly missing and given
// as text, a table without any published column, and a figure with
// published values drawn beside ours.
func syntheticSection(t *testing.T, dir string) Section {
	fig := figure.Figure{
		Title:   "Figure 12: tasks finished against SF_max at 10⁵ nodes (synthetic)",
		Source:  "Celaya & Arronategui — decentralized scheduling of bag-of-tasks applications on a tree overlay",
		X:       figure.Axis{Label: "SF_max"},
		Y:       figure.Axis{Label: "tasks finished", Zero: true},
		Caption: "Synthetic; seed 4, 100,000 nodes, IBP.",
		Paper:   figure.PaperValues,
		Series: []figure.Series{
			{Name: "overlay", X: []float64{9, 64, 225}, Y: []float64{3.9e6, 4.2e6, 4.3e6}, Err: []float64{4e4, 3e4, 2e4}},
			{Name: "overlay", Paper: true, X: []float64{64}, Y: []float64{4306204}},
		},
	}
	if _, err := fig.WriteFiles(filepath.Join(dir, "figures", "fig12")); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	return Section{
		ID:         "seed-004",
		Paper:      "Decentralized scheduling of bag-of-tasks applications on a tree overlay (synthetic sample)",
		Authors:    "Celaya & Arronategui",
		Reproduced: "Synthetic tables and a figure with one published point.",
		Tables: []Table{
			{
				ID: "table4-004", Caption: "Table 4: maximum link use (synthetic ours)", RowHeader: "policy, link",
				Columns: []Column{
					{Name: "whole run", Unit: "%", Digits: 3, Tol: Tolerance{Abs: 0.01, Rel: 0.2}},
					{Name: "1 s windows", Unit: "%", Digits: 2, Tol: Tolerance{Rel: 0.2}},
				},
				Rows: []Row{
					{Label: "IBP, slow", Cells: []Cell{{Ours: 0.071, Paper: 0.07, PaperText: "0.07%"}, {Ours: 12.9, Paper: 12, PaperText: "12%"}}},
					{Label: "IBP, fast", Cells: []Cell{{Ours: 0.0012, Paper: 0.001, PaperText: ".001%"}, {Ours: 0.2, Paper: 0.12, PaperText: ".12%"}}},
					{Label: "DP, slow", Cells: []Cell{{Ours: 1.5, Paper: nan}, {Ours: nan, Paper: 3.9}}},
				},
			},
			{
				ID: "extra-004", Caption: "Allocation time (no published counterpart)", RowHeader: "nodes",
				Columns: []Column{{Name: "median", Unit: "s", Digits: 1}, {Name: "tasks", Digits: 0}},
				Rows:    []Row{{Label: "1,000", Cells: []Cell{{Ours: 1.25, Paper: nan}, {Ours: 123456, Paper: nan}}}},
			},
		},
		Figures: []Figure{{
			ID: "fig12-004", Src: "figures/fig12.png", Alt: "Tasks finished against SF_max, ours and the paper's point (synthetic)",
			Caption: "The published point is the paper's total at SF_max 64 (synthetic here).", Links: []Link{{Text: "SVG", Href: "figures/fig12.svg"}},
		}},
		Choices: []Choice{{Text: "Update bandwidth read as kilobits per second.", Doc: "docs/overlay-sim.md"}, {Text: "A choice without a document."}},
		Runs: []Run{
			{Command: "volsched reproduce --quick", Seed: 4, Duration: 2*time.Hour + 14*time.Minute},
			{Command: "volsched overlay sim --nodes 1000", Seed: 4},
		},
	}
}

// TestSampleDocsExist: the documents the sample links to are the
// repository's (the sample copies stand in for them).
func TestSampleDocsExist(t *testing.T) {
	for _, d := range sampleDocs {
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(d))); err != nil {
			t.Errorf("the sample links %s: %v", d, err)
		}
	}
}
