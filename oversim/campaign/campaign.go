package campaign

import (
	"context"
	"fmt"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/workload"
)

// Kind is the experiment kind of the reduced reproduction's campaign.
const Kind = "overlay-sim"

// CampaignParams is the reduced reproduction as an experiment campaign:
// one unit per distinct simulation of its tables and figures (a run that
// several of them use, such as the plain runs at the largest SF_max, is
// one unit). Build it with NewCampaign; the manifest's seed is the
// simulations' seed.
type CampaignParams struct {
	// Quick: the reduced sizes (200 nodes, 1-3 h) instead of 2000 nodes,
	// 6-12 h.
	Quick bool `json:"quick"`
	// Runs is each unit's simulation by its oversim.Config.Key (policy,
	// scheduler, SF_max, nodes and a hash of everything that defines the
	// run, the workload included), in unit order: a directory of another
	// grid, seed or workload is refused by the manifest check.
	Runs []string `json:"runs"`

	grid    grid
	configs []*oversim.Config
}

// NewCampaign returns the campaign of the reduced reproduction (quick) or
// of its larger version, with the simulations' seed and the site-level
// workload's distributions.
func NewCampaign(quick bool, seed uint64, dists *workload.Distributions) (*CampaignParams, error) {
	if dists == nil {
		return nil, fmt.Errorf("overlay-sim campaign: no site-level distributions")
	}
	c := &CampaignParams{Quick: quick, grid: newGrid(quick, seed, dists)}
	c.configs = c.grid.configs()
	for _, cfg := range c.configs {
		c.Runs = append(c.Runs, cfg.Key())
	}
	return c, c.Validate()
}

// Units is the number of simulations.
func (c *CampaignParams) Units() int { return len(c.configs) }

// Validate checks that every simulation of the grid is a valid
// configuration, and that the campaign was built by NewCampaign.
func (c *CampaignParams) Validate() error {
	if len(c.configs) == 0 || len(c.configs) != len(c.Runs) {
		return fmt.Errorf("overlay-sim campaign: %d runs, %d configurations: build it with NewCampaign", len(c.Runs), len(c.configs))
	}
	for i, cfg := range c.configs {
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("overlay-sim campaign: run %d (%s): %w", i, c.Runs[i], err)
		}
	}
	return nil
}

// UnitResult is one simulation's result, or why it failed.
type UnitResult struct {
	// Result is the run's summary without the measurements of the machine
	// (wall and CPU seconds, events per second, heap), so that a unit's
	// result depends only on its configuration.
	Result *oversim.Result `json:"result,omitempty"`
	// Error says why the simulation failed (a failure of the model, which
	// the same run repeats); the tables show it as FAILED.
	Error string `json:"error,omitempty"`
}

// RunUnit runs simulation u. A simulation that fails is a UnitResult with
// Error; an interruption (ctx cancelled) is an error, so that the unit is
// run again when the campaign resumes.
func (c *CampaignParams) RunUnit(ctx context.Context, seed uint64, u int) (UnitResult, error) {
	if u < 0 || u >= len(c.configs) {
		return UnitResult{}, fmt.Errorf("overlay-sim campaign: unit %d: want 0 to %d", u, len(c.configs)-1)
	}
	cfg := c.configs[u]
	if seed != cfg.Seed {
		return UnitResult{}, fmt.Errorf("overlay-sim campaign: seed %d, the campaign was built with seed %d", seed, cfg.Seed)
	}
	s, err := oversim.New(cfg)
	if err != nil {
		return UnitResult{Error: err.Error()}, nil
	}
	r, err := s.Run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return UnitResult{}, err
		}
		return UnitResult{Error: err.Error()}, nil
	}
	r.WallSeconds, r.EventsPerSecond, r.CPUSeconds, r.EventsPerCPUSecond = 0, 0, 0, 0
	r.HeapBytes, r.BytesPerNode = 0, 0
	return UnitResult{Result: r}, nil
}

// grid is the reduced reproduction's simulations, by table and figure.
// Every table looks its runs up through the same constructors.
type grid struct {
	seed  uint64
	dists *workload.Distributions
	// nodes and hours: Table 4; nodes and churnHours: Figs. 12-18 and the
	// catastrophe; sizes: Figs. 9 and 11 (churnHours); probe*: Fig. 10
	// (20 minutes).
	nodes             int
	hours, churnHours float64
	sizes             []int
	probeTasks        int32
	probeSizes        []int
}

// The failures of Fig. 18 (median sessions) and of the catastrophe
// (fractions of the nodes, at half the run).
var (
	churnMedians         = []des.Time{60 * des.Minute, 30 * des.Minute, 15 * des.Minute, 5 * des.Minute}
	catastropheFractions = []float64{0.05, 0.1, 0.2, 0.4}
	links                = []des.Link{des.SlowLink, des.FastLink}
	fig10Schedulers      = []string{"overlay", "centralized"}
)

func newGrid(quick bool, seed uint64, dists *workload.Distributions) grid {
	g := grid{seed: seed, dists: dists, nodes: 2000, hours: 6, churnHours: 12, sizes: []int{1000, 2000, 4000, 8000},
		probeTasks: 1000, probeSizes: []int{2000, 8000, 32000}}
	if quick {
		g.nodes, g.hours, g.churnHours, g.sizes = 200, 1, 3, []int{100, 200, 400}
		g.probeTasks, g.probeSizes = 100, []int{200, 400, 800}
	}
	return g
}

// base is a run of policy pol on n nodes for h hours with the paper's
// defaults.
func (g *grid) base(pol overlay.Policy, n int, h float64, link des.Link) *oversim.Config {
	return &oversim.Config{Options: overlay.DefaultOptions(pol), Nodes: n,
		Length: des.Seconds(h * 3600), Link: link, Proc: des.DefaultProcessing,
		UpdateBandwidth: pol.DefaultBandwidth(), DetectTimeout: des.Minute, CentralPerNode: 100,
		Seed: g.seed, Params: workload.DefaultParams(), Dists: g.dists}
}

// table4 is a run of Table 4: SF_max sf, the update limit of 100 kbit/s.
func (g *grid) table4(pol overlay.Policy, sf int, link des.Link) *oversim.Config {
	c := g.base(pol, g.nodes, g.hours, link)
	c.SFMax, c.UpdateBandwidth = sf, Table4UpdateBandwidth
	return c
}

// size is a run of Figs. 9 and 11: n nodes, the fast link.
func (g *grid) size(pol overlay.Policy, n int) *oversim.Config {
	return g.base(pol, n, g.churnHours, des.FastLink)
}

// probe is a run of Fig. 10: a request of probeTasks tasks every 2 minutes
// for 20 minutes.
func (g *grid) probe(sch string, pol overlay.Policy, link des.Link, n int) *oversim.Config {
	c := g.base(pol, n, 1.0/3, link)
	c.Scheduler = sch
	c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 2*des.Minute, g.probeTasks, 10000
	return c
}

// sfmax is a run of Figs. 12-17: the overlay at SF_max sf, or a reference.
func (g *grid) sfmax(pol overlay.Policy, sch string, sf int) *oversim.Config {
	c := g.base(pol, g.nodes, g.churnHours, des.FastLink)
	c.Scheduler, c.SFMax = sch, sf
	return c
}

// variant is one run of a policy's Figs. 12-17: a scheduler and SF_max.
type variant struct {
	sch string
	sf  int
}

// sfmaxVariants are the runs of a policy's Figs. 12-17: the overlay at
// the paper's SF_max values, then the centralized and random references
// (at the largest SF_max, which they do not use).
func sfmaxVariants(pol overlay.Policy) []variant {
	var vs []variant
	for _, sf := range accuracy.PaperSFMax[pol] {
		vs = append(vs, variant{"overlay", sf})
	}
	return append(vs, variant{"centralized", pol.DefaultSFMax()}, variant{"random", pol.DefaultSFMax()})
}

// plain is a policy's run without failures of Fig. 18.
func (g *grid) plain(pol overlay.Policy) *oversim.Config {
	return g.base(pol, g.nodes, g.churnHours, des.FastLink)
}

// churn is a run of Fig. 18: churn of median session m.
func (g *grid) churn(pol overlay.Policy, m des.Time) *oversim.Config {
	c := g.plain(pol)
	c.Churn = failure.Churn{Median: m}
	return c
}

// catastrophe is a run of the catastrophe figure: fraction f of the nodes
// fail at half the run.
func (g *grid) catastrophe(pol overlay.Policy, f float64) *oversim.Config {
	c := g.plain(pol)
	c.Catastrophe = failure.Catastrophe{Fraction: f, At: des.Seconds(g.churnHours * 1800)}
	return c
}

// configs lists every simulation once, in the order the tables first use
// them.
func (g *grid) configs() []*oversim.Config {
	var out []*oversim.Config
	seen := map[string]bool{}
	add := func(c *oversim.Config) {
		if k := c.Key(); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	for _, pol := range accuracy.PaperPolicies {
		for _, sf := range accuracy.PaperSFMax[pol] {
			for _, l := range links {
				add(g.table4(pol, sf, l))
			}
		}
	}
	for _, pol := range accuracy.PaperPolicies {
		for _, n := range g.sizes {
			add(g.size(pol, n))
		}
	}
	for _, sch := range fig10Schedulers {
		for _, pol := range accuracy.PaperPolicies {
			for _, l := range links {
				for _, n := range g.probeSizes {
					add(g.probe(sch, pol, l, n))
				}
			}
		}
	}
	for _, pol := range accuracy.PaperPolicies {
		for _, v := range sfmaxVariants(pol) {
			add(g.sfmax(pol, v.sch, v.sf))
		}
	}
	for _, pol := range accuracy.PaperPolicies {
		add(g.plain(pol))
		for _, m := range churnMedians {
			add(g.churn(pol, m))
		}
		for _, f := range catastropheFractions {
			add(g.catastrophe(pol, f))
		}
	}
	return out
}
