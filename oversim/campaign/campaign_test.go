package campaign

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
	if err := c.Summarize(&out, "", results); err != nil {
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
