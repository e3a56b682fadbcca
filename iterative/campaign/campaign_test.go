package campaign

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
)

// small is a valid grid of 4 units.
func small() CampaignParams {
	c := PaperParams()
	c.N, c.NCom, c.WMin = []int{5, 10}, []int{5}, []int{1, 2}
	c.Scenarios, c.Trials, c.Iterations = 1, 1, 1
	return c
}

// TestValidateRefusesDegenerateGrids: every class of degenerate grid is
// refused by Validate, before any unit runs, with the field, the value and
// what is expected.
func TestValidateRefusesDegenerateGrids(t *testing.T) {
	if err := (func() *CampaignParams { c := small(); return &c })().Validate(); err != nil {
		t.Fatalf("valid grid refused: %v", err)
	}
	cases := []struct {
		name string
		f    func(c *CampaignParams)
		want []string // substrings of the error
	}{
		// One processor: the 17 heuristics make the same decisions, every
		// dfb is 0 and nothing is compared.
		{"one processor", func(c *CampaignParams) { c.P = 1 }, []string{"p = 1", "want 2..4096"}},
		{"no processor", func(c *CampaignParams) { c.P = 0 }, []string{"p = 0", "want 2..4096"}},
		{"too many processors", func(c *CampaignParams) { c.P = 5000 }, []string{"p = 5000"}},
		// A value listed twice: its second row of the breakdowns has no
		// instance (0/0 = NaN in the summary).
		{"n twice", func(c *CampaignParams) { c.N = []int{5, 10, 5} }, []string{"n lists 5 twice", "distinct"}},
		{"ncom twice", func(c *CampaignParams) { c.NCom = []int{5, 5} }, []string{"ncom lists 5 twice"}},
		{"wmin twice", func(c *CampaignParams) { c.WMin = []int{2, 1, 2} }, []string{"wmin lists 2 twice"}},
		{"n empty", func(c *CampaignParams) { c.N = nil }, []string{"n is empty"}},
		{"ncom zero", func(c *CampaignParams) { c.NCom = []int{0} }, []string{"ncom value 0", "want 1..4096"}},
		{"wmin negative", func(c *CampaignParams) { c.WMin = []int{-3} }, []string{"wmin value -3"}},
		{"n too large", func(c *CampaignParams) { c.N = []int{1 << 13} }, []string{"n value 8192"}},
		{"scenarios zero", func(c *CampaignParams) { c.Scenarios = 0 }, []string{"scenarios = 0", "want"}},
		{"trials negative", func(c *CampaignParams) { c.Trials = -1 }, []string{"trials = -1", "want"}},
		{"iterations zero", func(c *CampaignParams) { c.Iterations = 0 }, []string{"iterations = 0", "want"}},
		// Sizes that overflow or cannot be held: the unit count wraps
		// around, a unit's makespans do not fit in memory.
		{"scenarios overflow", func(c *CampaignParams) { c.Scenarios = 1 << 62 }, []string{"scenarios = 4611686018427387904"}},
		{"trials too many", func(c *CampaignParams) { c.Trials = 1 << 40 }, []string{"trials = 1099511627776"}},
		{"instances too many", func(c *CampaignParams) { c.Scenarios, c.Trials = 1<<20, 1<<12 }, []string{"instances", "want at most"}},
		// Certain to exceed the simulator's slot limit: every iteration
		// takes at least T_data + w_min = 2·w_min slots even if every
		// processor stays UP.
		{"iterations beyond the slot limit", func(c *CampaignParams) { c.WMin, c.Iterations = []int{4096}, 10000 }, []string{"iterations = 10000", "w_min = 4096", "slots"}},
		{"extra replicas negative", func(c *CampaignParams) { c.ExtraReplicas = -2 }, []string{"extra_replicas = -2", "want 0..64"}},
		{"extra replicas too many", func(c *CampaignParams) { c.ExtraReplicas = 65 }, []string{"extra_replicas = 65"}},
		{"channels", func(c *CampaignParams) { c.Channels = "lifo" }, []string{"lifo", "fifo or index"}},
		{"order", func(c *CampaignParams) { c.Order = "" }, []string{`""`, "observe-decide"}},
		{"initial", func(c *CampaignParams) { c.Initial = "down" }, []string{"down", "stationary or up"}},
	}
	for _, tc := range cases {
		c := small()
		tc.f(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
	}
	// The limits themselves are accepted.
	c := small()
	c.P, c.WMin, c.Iterations = 2, []int{4096}, (slotsim.DefaultMaxSlots/4096-5)/2
	if err := c.Validate(); err != nil {
		t.Errorf("iterations at the slot limit refused: %v", err)
	}
	c.Iterations++
	if err := c.Validate(); err == nil {
		t.Errorf("iterations one past the slot limit accepted")
	}
}

// TestReportAllTied: a campaign where every heuristic ties everywhere (here
// made by hand) has no ranking to compare: Kendall's τ is null in the
// report and its JSON is written (before, json: unsupported value: NaN).
func TestReportAllTied(t *testing.T) {
	c := small()
	results := make([]UnitResult, c.Units())
	for u := range results {
		ms := make([]int, len(iterative.Paper()))
		for h := range ms {
			ms[h] = 40 + u
		}
		results[u] = UnitResult{Makespans: [][]int{ms}}
	}
	s, err := c.Summarize(results)
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewReport(3, s)
	if r.KendallTauDfb != nil || r.KendallTauWins != nil {
		t.Errorf("τ %v %v, want undefined", r.KendallTauDfb, r.KendallTauWins)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kendall_tau_dfb":null`) {
		t.Errorf("JSON without a null τ: %s", b)
	}
	var sb strings.Builder
	r.Print(&sb, s)
	if !strings.Contains(sb.String(), "average dfb undefined") {
		t.Errorf("table does not say τ is undefined:\n%s", sb.String())
	}
}

// TestRunUnitCommonRealization: a unit gives one makespan per trial and
// heuristic, and is deterministic.
func TestRunUnitCommonRealization(t *testing.T) {
	c := small()
	c.Trials = 2
	a, err := c.RunUnit(context.Background(), 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.RunUnit(context.Background(), 5, 3)
	if len(a.Makespans) != 2 || len(a.Makespans[0]) != len(iterative.Paper()) {
		t.Fatalf("unit result %v", a.Makespans)
	}
	for tr := range a.Makespans {
		for h, m := range a.Makespans[tr] {
			if m < 1 || m != b.Makespans[tr][h] {
				t.Errorf("trial %d %v: makespans %d and %d", tr, iterative.Paper()[h], m, b.Makespans[tr][h])
			}
		}
	}
}
