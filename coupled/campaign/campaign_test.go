package campaign

import (
	"strings"
	"testing"
)

// Validate refuses every class of degenerate or unbounded grid before any
// unit runs, naming the field, its value and what is wanted; the paper's
// campaign and the quick one pass.
func TestValidate(t *testing.T) {
	for _, c := range []CampaignParams{PaperCampaign(), QuickCampaign()} {
		if err := c.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	cases := []struct {
		class string
		edit  func(c *CampaignParams)
		want  []string
	}{
		{"p zero", func(c *CampaignParams) { c.P = 0 }, []string{"p = 0", "want 2..1000"}},
		{"p one", func(c *CampaignParams) { c.P = 1 }, []string{"p = 1", "same configuration", "want 2..1000"}},
		{"p too many", func(c *CampaignParams) { c.P = 1001 }, []string{"p = 1001", "want 2..1000"}},
		{"m empty", func(c *CampaignParams) { c.Tasks = nil }, []string{"m: empty list"}},
		{"m zero", func(c *CampaignParams) { c.Tasks = []int{5, 0} }, []string{"m = 0", "want ≥ 1"}},
		{"m twice", func(c *CampaignParams) { c.Tasks = []int{5, 10, 5} }, []string{"m = [5 10 5]", "5 listed twice", "want distinct"}},
		{"m·p too large", func(c *CampaignParams) { c.Tasks = []int{5001} }, []string{"m = 5001 with p = 20", "m·p = 100020", "want at most 100000"}},
		{"ncom empty", func(c *CampaignParams) { c.NCom = []int{} }, []string{"ncom: empty list"}},
		{"ncom negative", func(c *CampaignParams) { c.NCom = []int{-3} }, []string{"ncom = -3", "want ≥ 1"}},
		{"ncom twice", func(c *CampaignParams) { c.NCom = []int{5, 5} }, []string{"ncom = [5 5]", "listed twice"}},
		{"wmin zero", func(c *CampaignParams) { c.WMin = []int{0} }, []string{"wmin = 0", "want ≥ 1"}},
		{"wmin twice", func(c *CampaignParams) { c.WMin = []int{2, 3, 2} }, []string{"wmin = [2 3 2]", "2 listed twice"}},
		{"wmin table too large", func(c *CampaignParams) { c.WMin = []int{40000} }, []string{"wmin = 40000", "table entries", "want at most 10000000"}},
		{"wmin huge", func(c *CampaignParams) { c.WMin = []int{1 << 60} }, []string{"wmin = 1152921504606846976", "want at most 10000000"}},
		{"scenarios zero", func(c *CampaignParams) { c.Scenarios = 0 }, []string{"scenarios = 0", "want ≥ 1"}},
		{"units too many", func(c *CampaignParams) { c.Scenarios = 1 << 40 }, []string{"scenarios = 1099511627776", "more than 1000000 units"}},
		{"trials zero", func(c *CampaignParams) { c.Trials = 0 }, []string{"trials = 0", "want 1..100000"}},
		{"trials too many", func(c *CampaignParams) { c.Trials = 100001 }, []string{"trials = 100001", "want 1..100000"}},
		{"iterations zero", func(c *CampaignParams) { c.Iterations = 0 }, []string{"iterations = 0", "want 1..1000000"}},
		{"iterations too many", func(c *CampaignParams) { c.Iterations = 2_000_000 }, []string{"iterations = 2000000"}},
		{"cap zero", func(c *CampaignParams) { c.Cap = 0 }, []string{"cap = 0", "want ≥ 1"}},
		{"cap below any makespan", func(c *CampaignParams) { c.Cap = 250 }, []string{"cap = 250", "wmin = 10 and 10 iterations", "every instance would fail", "want cap > 250"}},
		{"form", func(c *CampaignParams) { c.Form = "exact" }, []string{"form", `"exact"`, "want published or conditional"}},
		{"rebuild", func(c *CampaignParams) { c.Rebuild = "foo" }, []string{`rebuild = "foo"`, "want"}},
		{"mu negative", func(c *CampaignParams) { c.Mu = -1 }, []string{"mu = -1", "want ≥ 0"}},
		{"mu too small", func(c *CampaignParams) { c.P, c.Mu = 4, 2 }, []string{"mu = 2 with p = 4", "p·mu = 8 < m = 10"}},
		{"reclaimed", func(c *CampaignParams) { c.Reclaimed = "later" }, []string{`reclaimed = "later"`, "want asup, wait, replace or together"}},
		{"random", func(c *CampaignParams) { c.Random = "some" }, []string{`random = "some"`, "want"}},
	}
	for _, tc := range cases {
		c := PaperCampaign()
		tc.edit(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: accepted", tc.class)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.class, err, w)
			}
		}
	}
	// just inside the bounds
	for _, edit := range []func(c *CampaignParams){
		func(c *CampaignParams) { c.P = 2 },
		func(c *CampaignParams) { c.P = 1000 },
		func(c *CampaignParams) { c.Cap = 251 },
		func(c *CampaignParams) { c.Tasks = []int{5000} },
		func(c *CampaignParams) { c.P, c.Mu = 5, 2 },
		func(c *CampaignParams) { c.Trials = 100000 },
	} {
		c := PaperCampaign()
		edit(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%+v refused: %v", c, err)
		}
	}
}

// ShortestMakespan, the bound Validate sets the cap against, is a lower
// bound of every makespan: on easy scenarios (w_min = 1, n_com = 20, two
// iterations) no heuristic ends before it.
func TestShortestMakespan(t *testing.T) {
	c := PaperCampaign()
	c.Tasks, c.NCom, c.WMin, c.Scenarios, c.Trials, c.Iterations = []int{5}, []int{20}, []int{1}, 3, 3, 2
	lb, least := ShortestMakespan(1, c.Iterations), c.Cap
	for u := range c.Units() {
		r, err := c.RunUnit(t.Context(), 7, u)
		if err != nil {
			t.Fatal(err)
		}
		for k, row := range r.Makespan {
			for i, m := range row {
				if m < lb {
					t.Fatalf("unit %d trial %d %s: makespan %d, below the lower bound %d", u, k, r.Heuristics[i], m, lb)
				}
				least = min(least, m)
			}
		}
	}
	t.Logf("lower bound %d, shortest makespan %d", lb, least)
}
