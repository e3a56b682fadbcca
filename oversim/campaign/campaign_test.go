package campaign

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/workload"
)

// TestCampaignGrid: the quick campaign has one unit per distinct
// simulation, and every run the tables look up is a unit (the tables of
// results that all failed show FAILED, never a run missing from the
// campaign).
func TestCampaignGrid(t *testing.T) {
	c, err := NewCampaign(true, 1, workload.EmbeddedDistributions())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range c.Runs {
		if seen[k] {
			t.Fatalf("run %s twice", k)
		}
		seen[k] = true
	}
	// Table 4: 3 policies × 3 SF_max × 2 links; Figs. 9/11: 3 × 3 sizes;
	// Fig. 10: 2 schedulers × 3 × 2 links × 3 sizes; Figs. 12-17: 3 × (3 +
	// 2 references), one of which (the largest SF_max) is a Fig. 9 run;
	// Fig. 18: 3 × (4 churn + 4 catastrophes), the plain run already there.
	if want := 18 + 9 + 36 + 3*4 + 3*8; c.Units() != want {
		t.Fatalf("%d units, want %d", c.Units(), want)
	}
	results := make([]UnitResult, c.Units())
	for i := range results {
		results[i].Error = "model failure"
	}
	var out strings.Builder
	if _, err := c.Summarize(&out, "", results); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "not in the campaign") || !strings.Contains(out.String(), "FAILED") {
		t.Fatalf("tables of failed runs:\n%s", out.String())
	}
	// The manifest's params: the mode and the runs, not the grid's internals.
	b, err := json.Marshal(c)
	if err != nil || !strings.HasPrefix(string(b), `{"quick":true,"runs":["ibp-overlay-sf9-n200-`) {
		t.Fatalf("params %.80s: %v", b, err)
	}
	// Another seed is another campaign.
	c2, err := NewCampaign(true, 2, workload.EmbeddedDistributions())
	if err != nil || c2.Runs[0] == c.Runs[0] {
		t.Fatalf("seed 2: %v, first run %s", err, c2.Runs[0])
	}
}

// TestRunUnit: a unit's result is the simulation's without the machine's
// measurements, the same when run again; a unit out of range or another
// seed is an error.
func TestRunUnit(t *testing.T) {
	c, err := NewCampaign(true, 1, workload.EmbeddedDistributions())
	if err != nil {
		t.Fatal(err)
	}
	// The smallest unit: a Fig. 10 run (20 simulated minutes on 200 nodes).
	u := -1
	for i, cfg := range c.configs {
		if cfg.ProbeEvery > 0 && cfg.Nodes == 200 && cfg.Scheduler == "overlay" {
			u = i
			break
		}
	}
	var got [2][]byte
	for k := range got {
		r, err := c.RunUnit(context.Background(), 1, u)
		if err != nil || r.Error != "" || r.Result == nil {
			t.Fatalf("unit %d: %v %q", u, err, r.Error)
		}
		if r.Result.WallSeconds != 0 || r.Result.CPUSeconds != 0 || r.Result.HeapBytes != 0 || r.Result.ProbesSubmitted == 0 {
			t.Fatalf("unit %d: %+v", u, r.Result)
		}
		got[k], _ = json.Marshal(r)
	}
	if string(got[0]) != string(got[1]) {
		t.Fatalf("unit %d twice:\n%s\n%s", u, got[0], got[1])
	}
	if _, err := c.RunUnit(context.Background(), 1, c.Units()); err == nil {
		t.Error("unit out of range accepted")
	}
	if _, err := c.RunUnit(context.Background(), 2, u); err == nil {
		t.Error("another seed accepted")
	}
	// Cancelled: an error (run again on resume), not a failed unit.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := c.RunUnit(ctx, 1, u); err == nil || r.Error != "" {
		t.Errorf("cancelled unit: %v, %q", err, r.Error)
	}
}

// TestSection: from results of every run, Summarize returns the page's
// section — Table 4 (18 rows, the paper's text verbatim), DP's Fig. 16
// ratios beside the paper's, and the nine figures — and the page that
// reproduction.Write makes of it passes its check.
func TestSection(t *testing.T) {
	c, err := NewCampaign(true, 1, workload.EmbeddedDistributions())
	if err != nil {
		t.Fatal(err)
	}
	results := make([]UnitResult, c.Units())
	for i, cfg := range c.configs {
		r := &oversim.Result{Policy: cfg.Policy, Nodes: cfg.Nodes, Hours: cfg.Length.Seconds() / 3600, SFMax: cfg.SFMax,
			Link: cfg.Link.Name, Seed: cfg.Seed, UpdateBandwidth: cfg.UpdateBandwidth, TasksFinished: uint64(10 * cfg.Nodes),
			ComputationFinishedMI: float64(1000 * cfg.Nodes), ThroughputTasksPerHour: float64(cfg.Nodes), ProbeAllocTimeMean: 0.5,
			PeakLinkUse: []des.LinkUse{{Window: des.Second, Fraction: 1e-3}, {Window: 10 * des.Second, Fraction: 5e-4}, {Fraction: 1e-5}}}
		if cfg.Scheduler == "centralized" || cfg.Scheduler == "random" {
			r.Scheduler = cfg.Scheduler
		}
		if cfg.Churn.Median > 0 || cfg.Catastrophe.Fraction > 0 {
			r.ComputationFinishedMI /= 2
		}
		results[i] = UnitResult{Result: r}
	}
	s, err := c.Summarize(io.Discard, "", results)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 2 || len(s.Tables[0].Rows) != 18 || len(s.Figures) != 9 {
		t.Fatalf("%d tables (%d rows), %d figures", len(s.Tables), len(s.Tables[0].Rows), len(s.Figures))
	}
	// The paper's ".001%" printed as the column prints numbers (issue 28:
	// Table 4 mixed "0.0082762" with ".07%").
	if c := s.Tables[0].Rows[1].Cells[0]; c.Ours != 1e-3 || c.PaperText != "0.001" || c.Paper != 0.001 {
		t.Fatalf("Table 4, IBP 9 fast, whole run: %+v", c)
	}
	for _, c := range s.Tables[0].Columns {
		if c.Significant != 2 || c.Format(0.0082762) != "0.0083" || c.Format(1.7584) != "1.8" {
			t.Errorf("Table 4 column %q: %+v prints 0.0082762 as %q and 1.7584 as %q, want two significant digits", c.Name, c, c.Format(0.0082762), c.Format(1.7584))
		}
	}
	// DP: SF_max 64 is the paper's 4,306,204 / 4,245,745 of the centralized.
	if c := s.Tables[1].Rows[1].Cells[1]; c.Ours != 1 || math.Abs(c.Paper-4306204.0/4245745) > 1e-12 {
		t.Fatalf("Fig. 16, SF_max 64: %+v", c)
	}
	// The centralized reference's ratio to itself is not a comparison.
	if r := s.Tables[1].Rows[3]; r.Label != "centralized" || !math.IsNaN(r.Cells[1].Paper) || r.Cells[1].Ours != 1 {
		t.Fatalf("Fig. 16, centralized: %+v", r)
	}
	dir := t.TempDir()
	if _, err := reproduction.Write(dir, []reproduction.Entry{{Name: ReproductionName, Title: "overlay-sim", Section: s}}, reproduction.PageOptions{Title: "test"}); err != nil {
		t.Fatal(err)
	}
}
