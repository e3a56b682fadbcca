package robustness

import (
	"context"
	"reflect"
	"testing"

	coupledcampaign "github.com/volsched/volsched/coupled/campaign"
)

func tinyCoupledGrid() coupledcampaign.CampaignParams {
	g := coupledcampaign.PaperCampaign()
	g.P, g.Tasks, g.NCom, g.WMin, g.Scenarios, g.Trials, g.Iterations = 10, []int{3}, []int{2, 5}, []int{1}, 1, 2, 3
	return g
}

// TestCoupledMarkovVariantIsTheCampaign: the "markov" variant's makespans
// are the §VII.A campaign's, unit by unit.
func TestCoupledMarkovVariantIsTheCampaign(t *testing.T) {
	c := DefaultCoupled()
	c.Grid = tinyCoupledGrid()
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
		return got.Makespan[0], want.Makespan, err
	})
}

// TestCoupledVariantsRun: every default variant runs on a small grid, the
// report is built, and known and estimated beliefs on the same states
// differ somewhere.
func TestCoupledVariantsRun(t *testing.T) {
	c := DefaultCoupled()
	c.Grid = tinyCoupledGrid()
	if testing.Short() {
		c.Variants = []Variant{c.Variants[0], c.Variants[5], c.Variants[6], c.Variants[9]} // markov, lognormal, lognormal-est, trace-ucb-est
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckTraces(); err != nil {
		t.Fatal(err)
	}
	var results []CoupledUnitResult
	for u := 0; u < c.Units(); u++ {
		r, err := c.RunUnit(context.Background(), 5, u)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	rep, err := c.CoupledReport(5, results)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Variants) != len(c.Variants) || rep.Variants[0].TauReference == nil || *rep.Variants[0].TauReference != 1 {
		t.Errorf("report %+v", rep.Variants[0])
	}
	differ := false
	for i, v := range c.Variants {
		if v.Name == "lognormal-est" {
			for j, w := range c.Variants {
				if w.Name == "lognormal" {
					for u := range results {
						differ = differ || !reflect.DeepEqual(results[u].Makespan[i], results[u].Makespan[j])
					}
				}
			}
		}
	}
	if !differ {
		t.Error("known and estimated chains give the same makespans everywhere")
	}
}
