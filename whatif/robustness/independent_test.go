package robustness

import (
	"context"
	"reflect"
	"testing"

	itercampaign "github.com/volsched/volsched/iterative/campaign"
)

func tinyGrid() itercampaign.CampaignParams {
	g := itercampaign.PaperParams()
	g.N, g.NCom, g.WMin, g.Scenarios, g.Trials, g.Iterations = []int{5, 20}, []int{5}, []int{1, 3}, 1, 2, 3
	return g
}

// TestMarkovVariantIsTheCampaign: the "markov" variant's makespans are the
// §7 campaign's, unit by unit (the same realizations and random streams).
func TestMarkovVariantIsTheCampaign(t *testing.T) {
	c := DefaultIndependent()
	c.Grid = tinyGrid()
	c.Variants = c.Variants[:1]
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	markovIsTheCampaign(t, c.Units(), func(u int) (variant, campaign any, err error) {
		got, err := c.RunUnit(context.Background(), 5, u)
		if err != nil {
			return nil, nil, err
		}
		want, err := c.Grid.RunUnit(context.Background(), 5, u)
		return got.Makespans[0], want.Makespans, err
	})
}

// markovIsTheCampaign checks, unit by unit, that run's "markov" variant
// makespans equal the campaign's of the unit.
func markovIsTheCampaign(t *testing.T, units int, run func(u int) (variant, campaign any, err error)) {
	t.Helper()
	for u := 0; u < units; u++ {
		got, want, err := run(u)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("unit %d: markov variant %v, campaign %v", u, got, want)
		}
	}
}

// TestVariantsRun: every default variant runs on a small grid; variants
// of one availability with known chains replay the same states (a
// variant compared with itself under another name gives the same
// makespans), and different beliefs change some makespans.
func TestVariantsRun(t *testing.T) {
	c := DefaultIndependent()
	c.Grid = tinyGrid()
	c.Variants = append(c.Variants, Variant{"weibull-again", "weibull", Beliefs{Known: true}}, Variant{"lognormal-est-again", "lognormal", Beliefs{Refresh: DefaultRefresh}})
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	idx := func(name string) int {
		for i, v := range c.Variants {
			if v.Name == name {
				return i
			}
		}
		t.Fatalf("no variant %s", name)
		return -1
	}
	differ := 0
	for u := 0; u < c.Units(); u++ {
		r, err := c.RunUnit(context.Background(), 5, u)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Makespans) != len(c.Variants) {
			t.Fatalf("%d variants", len(r.Makespans))
		}
		for vi, m := range r.Makespans {
			if len(m) != c.Grid.Trials {
				t.Fatalf("variant %d: %d trials", vi, len(m))
			}
			for _, ms := range m {
				for _, x := range ms {
					if x < 1 {
						t.Fatalf("variant %s: makespan %d", c.Variants[vi].Name, x)
					}
				}
			}
		}
		for _, pair := range [][2]string{{"weibull", "weibull-again"}, {"lognormal-est", "lognormal-est-again"}} {
			if !reflect.DeepEqual(r.Makespans[idx(pair[0])], r.Makespans[idx(pair[1])]) {
				t.Errorf("unit %d: %s and %s differ", u, pair[0], pair[1])
			}
		}
		if !reflect.DeepEqual(r.Makespans[idx("weibull")], r.Makespans[idx("weibull-est")]) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("known and estimated chains give the same makespans on every unit")
	}
}
