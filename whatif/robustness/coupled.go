package robustness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	coupledcampaign "github.com/volsched/volsched/coupled/campaign"
	coupledsim "github.com/volsched/volsched/coupled/slotsim"
	"github.com/volsched/volsched/whatif"
	"github.com/volsched/volsched/whatif/simulate"
)

// KindCoupled is the campaign kind of the seed-002 part.
const KindCoupled = "robustness-coupled"

// CoupledParams are the parameters of the seed-002 part: the §VII.A grid
// (its units, scenarios, cap and readings) and the variants.
type CoupledParams struct {
	Grid           coupledcampaign.CampaignParams `json:"grid"`
	Availabilities []Availability                 `json:"availabilities"`
	Variants       []Variant                      `json:"variants"`
}

// DefaultCoupled is the study on the §VII.A grid with the default
// variants.
func DefaultCoupled() CoupledParams {
	av, vs := DefaultVariants()
	return CoupledParams{Grid: coupledcampaign.PaperCampaign(), Availabilities: av, Variants: vs}
}

// Validate checks the grid and the variants (without reading traces).
func (c *CoupledParams) Validate() error {
	if err := c.Grid.Validate(); err != nil {
		return err
	}
	return validate(c.Availabilities, c.Variants)
}

// CheckTraces reads the traces and checks each has a host per processor.
func (c *CoupledParams) CheckTraces() error { return checkTraces(c.Availabilities, c.Grid.P) }

// Units is the grid's number of units (one scenario each).
func (c *CoupledParams) Units() int { return c.Grid.Units() }

// CoupledUnitResult holds Makespan[variant][trial][heuristic] (the cap
// when the run failed), the heuristics in the grid's order
// (coupledcampaign.CampaignParams.RunHeuristics: the 17 of §VI by default).
type CoupledUnitResult struct {
	Makespan [][][]int `json:"makespan"`
}

// RunUnit runs every trial of scenario u under every variant and the
// grid's heuristics (simulated together, as the campaign does). The "markov"
// variant is the §VII.A campaign's run of the unit (its availability and
// RANDOM's streams); with estimated chains the evaluator is rebuilt from
// the view's chains (analytic horizon capped at simulate.CoupledHorizon).
func (c *CoupledParams) RunUnit(ctx context.Context, seed uint64, u int) (CoupledUnitResult, error) {
	form, err := analytic.ParseForm(c.Grid.Form)
	if err != nil {
		return CoupledUnitResult{}, err
	}
	un, err := c.Grid.Unit(seed, u)
	if err != nil {
		return CoupledUnitResult{}, err
	}
	plat, m := un.Scn.Platform, un.Tasks
	e, err := coupled.NewEvaluator(un.Table, plat, m, form)
	if err != nil {
		return CoupledUnitResult{}, err
	}
	hs, err := c.Grid.RunHeuristics()
	if err != nil {
		return CoupledUnitResult{}, err
	}
	sim, err := coupledsim.New(e, un.Scn.App, hs, c.Grid.SimOptions())
	if err != nil {
		return CoupledUnitResult{}, err
	}
	build := simulate.EvaluatorOf(plat, m, form)
	rngs := func(k int) []*rand.Rand { return un.Streams(k, hs) }
	avIndex := map[string]int{}
	for i, a := range c.Availabilities {
		avIndex[a.Name] = i
	}
	plats := map[string]*whatif.Platform{}
	res := CoupledUnitResult{Makespan: make([][][]int, len(c.Variants))}
	where := fmt.Sprintf("unit %d (m=%d ncom=%d wmin=%d scenario %d)", u, m, un.NCom, un.WMin, un.Scenario)
	for vi, v := range c.Variants {
		ai := avIndex[v.Availability]
		a := c.Availabilities[ai]
		m, err := modelOf(a)
		if err != nil {
			return CoupledUnitResult{}, err
		}
		p := plats[a.Name]
		if p == nil && !m.papers {
			if p, err = platformOf(a, un.Scn.Chains, plat.W, availability.StartStationary); err != nil {
				return CoupledUnitResult{}, fmt.Errorf("%s: %w", where, err)
			}
			plats[a.Name] = p
		}
		res.Makespan[vi] = make([][]int, c.Grid.Trials)
		for k := 0; k < c.Grid.Trials; k++ {
			var rs []coupledsim.Result
			switch {
			case m.papers:
				rs, err = sim.Run(ctx, un.Availability(k), rngs(k))
			default:
				var tr *whatif.Trial
				if tr, err = trial(p, a, v.Beliefs, availSeed(seed, u, ai), k); err != nil {
					break
				}
				av := tr.Sources
				if v.Beliefs.Known {
					rs, err = sim.Run(ctx, av, rngs(k))
				} else {
					rs, err = sim.RunBelieving(ctx, av, coupledsim.Beliefs{View: tr.View, Evaluator: build}, rngs(k))
				}
			}
			if err != nil {
				return CoupledUnitResult{}, fmt.Errorf("%s variant %s trial %d: %w", where, v.Name, k, err)
			}
			res.Makespan[vi][k] = make([]int, len(hs))
			for i, r := range rs {
				res.Makespan[vi][k][i] = r.Makespan
			}
		}
	}
	return res, nil
}

// CoupledReport summarizes the seed-002 part (results ordered by unit):
// the score is §VII.A's %diff against IE (coupledcampaign.Metrics), τ
// against Table I (m = 5) or II (m = 10) when the grid has one m.
func (c *CoupledParams) CoupledReport(seed uint64, results []CoupledUnitResult) (Report, error) {
	if len(results) != c.Units() {
		return Report{}, fmt.Errorf("summary: %d unit results, want %d", len(results), c.Units())
	}
	names := c.Grid.HeuristicNames()
	nh := len(names)
	capV := c.Grid.Cap
	sc := make([]scores, len(c.Variants))
	for vi, v := range c.Variants {
		units := make([]coupledcampaign.UnitResult, len(results))
		x := scores{mean: make([]float64, nh), failures: make([]int, nh)}
		okRuns := make([]int, nh)
		for u, r := range results {
			if len(r.Makespan) != len(c.Variants) || len(r.Makespan[vi]) != c.Grid.Trials {
				return Report{}, fmt.Errorf("summary: unit %d: want %d variants of %d trials", u, len(c.Variants), c.Grid.Trials)
			}
			units[u] = coupledcampaign.UnitResult{Heuristics: names, Makespan: r.Makespan[vi]}
			for _, row := range r.Makespan[vi] {
				if len(row) != nh {
					return Report{}, fmt.Errorf("summary: unit %d variant %s: %d makespans for %d heuristics", u, v.Name, len(row), nh)
				}
				f := make([]bool, nh)
				for h, ms := range row {
					if ms >= capV {
						f[h] = true
						x.failures[h]++
					} else {
						x.mean[h] += float64(ms)
						okRuns[h]++
					}
				}
				x.ms = append(x.ms, row)
				x.failed = append(x.failed, f)
			}
		}
		met, err := coupledcampaign.Metrics(units, capV)
		if err != nil {
			return Report{}, fmt.Errorf("summary: variant %s: %w", v.Name, err)
		}
		x.instances = len(x.ms)
		x.score = make([]float64, nh)
		for h := range names {
			x.score[h] = met[h].PctDiff
			x.mean[h] /= float64(okRuns[h])
			if okRuns[h] == 0 {
				x.mean[h] = math.NaN()
			}
		}
		sc[vi] = x
	}
	var paper map[string]float64
	paperName := "the paper (grid with one m only)"
	if len(c.Grid.Tasks) == 1 {
		if rows := coupledcampaign.PaperTable(c.Grid.Tasks[0]); rows != nil {
			paper = map[string]float64{}
			for _, p := range rows {
				paper[p.Name] = p.PctDiff
			}
			paperName = map[int]string{5: "Table I", 10: "Table II"}[c.Grid.Tasks[0]]
		}
	}
	return newReport(KindCoupled, seed, c, names, "%diff vs IE", c.Variants, sc, paperName, paper)
}
