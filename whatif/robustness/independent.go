package robustness

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	itercampaign "github.com/volsched/volsched/iterative/campaign"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/whatif"
)

// KindIndependent is the campaign kind of the seed-001 part.
const KindIndependent = "robustness-independent"

// IndependentParams are the parameters of the seed-001 part: the §7 grid
// (its units, scenarios and model options) and the variants.
type IndependentParams struct {
	Grid           itercampaign.CampaignParams `json:"grid"`
	Availabilities []Availability              `json:"availabilities"`
	Variants       []Variant                   `json:"variants"`
}

// DefaultIndependent is the study on the §7 grid with the default variants.
func DefaultIndependent() IndependentParams {
	av, vs := DefaultVariants()
	return IndependentParams{Grid: itercampaign.PaperParams(), Availabilities: av, Variants: vs}
}

// Validate checks the grid and the variants (without reading traces: a
// summary does not need them).
func (c *IndependentParams) Validate() error {
	if err := c.Grid.Validate(); err != nil {
		return err
	}
	return validate(c.Availabilities, c.Variants)
}

// CheckTraces reads (or generates) the traces, once per process, and
// checks that each has a host for every processor: call it before running
// units.
func (c *IndependentParams) CheckTraces() error { return checkTraces(c.Availabilities, c.Grid.P) }

// Units is the grid's number of units (one scenario each).
func (c *IndependentParams) Units() int { return c.Grid.Units() }

// UnitResult holds Makespans[variant][trial][heuristic], the heuristics in
// the grid's order (itercampaign.CampaignParams.RunHeuristics: the 17 of §6
// by default).
type UnitResult struct {
	Makespans [][][]int `json:"makespans"`
}

// Stream labels. The "markov" availability uses the §7 campaign's own
// streams (labels 1 and 2 below the unit, as iterative/campaign does), so
// that its variant reproduces that campaign exactly
// (TestMarkovVariantIsTheCampaign); the other availabilities draw through
// whatif.Platform.Trial with a seed derived from (seed, unit,
// labelRobustness, availability index).
const (
	labelTrial      = 1
	labelDecide     = 2
	labelRobustness = 0x70b5
)

// availSeed is the seed of Platform.Trial for availability a of unit u.
func availSeed(seed uint64, u, a int) uint64 {
	return stream.New(seed, uint64(u), labelRobustness, uint64(a)).Uint64()
}

// trial is one trial's availability under availability a (platform p)
// with beliefs b: the sources from the run's slot 0 and the view primed
// with the history (the same states for every beliefs).
func trial(p *whatif.Platform, a Availability, b Beliefs, seed uint64, k int) (*whatif.Trial, error) {
	q := *p
	q.Estimator = whatif.Estimator{KnownChains: false, History: a.History, Window: b.Window, Refresh: b.Refresh, Prior: b.prior()}
	return q.Trial(seed, uint64(k))
}

// realization is one trial's availability under a variant, with the
// beliefs: a plain realization (the instance's chains) for known chains, a
// believing one otherwise.
func realization(p *whatif.Platform, a Availability, b Beliefs, seed uint64, k int) (*slotsim.Realization, error) {
	tr, err := trial(p, a, b, seed, k)
	if err != nil {
		return nil, err
	}
	real := slotsim.Realize(tr.Sources)
	if !b.Known {
		if err := real.Believe(tr.View); err != nil {
			return nil, err
		}
	}
	return real, nil
}

// RunUnit runs every trial of scenario u under every variant and the
// grid's heuristics (the 17 of §6 by default). Within a trial, the heuristics of a variant replay one
// realization, and the variants of one availability replay the same
// states; a random heuristic draws from the §7 campaign's stream of its
// trial.
func (c *IndependentParams) RunUnit(ctx context.Context, seed uint64, u int) (UnitResult, error) {
	opt, err := c.Grid.Options()
	if err != nil {
		return UnitResult{}, err
	}
	in, sc := c.Grid.InstanceOf(seed, u)
	sim, err := slotsim.New(in, opt)
	if err != nil {
		return UnitResult{}, fmt.Errorf("unit %d %+v: %w", u, sc, err)
	}
	avIndex := map[string]int{}
	for i, a := range c.Availabilities {
		avIndex[a.Name] = i
	}
	plats := map[string]*whatif.Platform{}
	hs, err := c.Grid.RunHeuristics()
	if err != nil {
		return UnitResult{}, err
	}
	res := UnitResult{Makespans: make([][][]int, len(c.Variants))}
	for vi, v := range c.Variants {
		ai := avIndex[v.Availability]
		a := c.Availabilities[ai]
		m, err := modelOf(a)
		if err != nil {
			return UnitResult{}, err
		}
		p := plats[a.Name]
		if p == nil && !m.papers {
			if p, err = platformOf(a, in.Chains, in.W, opt.Initial); err != nil {
				return UnitResult{}, fmt.Errorf("unit %d: %w", u, err)
			}
			plats[a.Name] = p
		}
		res.Makespans[vi] = make([][]int, c.Grid.Trials)
		for tr := 0; tr < c.Grid.Trials; tr++ {
			if err := ctx.Err(); err != nil {
				return UnitResult{}, err
			}
			var real *slotsim.Realization
			if m.papers {
				real = slotsim.Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(seed, uint64(u), labelTrial, uint64(tr))))
			} else if real, err = realization(p, a, v.Beliefs, availSeed(seed, u, ai), tr); err != nil {
				return UnitResult{}, fmt.Errorf("unit %d variant %s trial %d: %w", u, v.Name, tr, err)
			}
			ms := make([]int, len(hs))
			for i, h := range hs {
				var rng *rand.Rand = stream.New(seed, uint64(u), labelDecide, uint64(tr), h.Stream())
				if ms[i], err = sim.Run(h, real, rng); err != nil {
					return UnitResult{}, fmt.Errorf("unit %d %+v variant %s trial %d: %w", u, sc, v.Name, tr, err)
				}
			}
			res.Makespans[vi][tr] = ms
		}
	}
	return res, nil
}
