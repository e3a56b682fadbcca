// Package campaign is the experiment of seed 001 §7: the grid of Table 1,
// its units (one scenario, every trial, the 17 heuristics on slotsim), the
// summary as §7 defines it (degradation from best, wins) and the paper's
// Table 2 to compare with.
package campaign

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/stream"
)

// CampaignParams are the parameters of the §7 campaign. Everything that
// changes the results is here, so that a resumed or merged run can check it
// is the same campaign.
type CampaignParams struct {
	P          int   `json:"p"`          // processors (20)
	N          []int `json:"n"`          // tasks per iteration (5, 10, 20, 40)
	NCom       []int `json:"ncom"`       // master channels (5, 10, 20)
	WMin       []int `json:"wmin"`       // 1..10
	Scenarios  int   `json:"scenarios"`  // random scenarios per instantiation (247)
	Trials     int   `json:"trials"`     // availability realizations per scenario (10)
	Iterations int   `json:"iterations"` // iterations per run (10)

	Channels      string `json:"channels"`         // "fifo" or "index"
	Order         string `json:"order"`            // "observe-decide" or "decide-observe"
	HoldReclaimed bool   `json:"hold_reclaimed"`   // a suspended transfer keeps its channel
	ExtraReplicas int    `json:"extra_replicas"`   // 2
	Initial       string `json:"initial"`          // "stationary" or "up"
	Sticky        bool   `json:"sticky,omitempty"` // queued tasks are not reassigned (Options.Sticky)
	// Heuristics names the heuristics run on every instance, in the order
	// of the results' columns (iterative.ParseHeuristic: the paper's and
	// any registered); empty (and absent from the manifest): the 17 of §6
	// in its order.
	Heuristics []string `json:"heuristics,omitempty"`
}

// HeuristicNames names the campaign's heuristics in the order of its
// results: Heuristics, or the 17 of §6 when empty.
func (c *CampaignParams) HeuristicNames() []string {
	if len(c.Heuristics) == 0 {
		return iterative.Names(iterative.Paper())
	}
	return c.Heuristics
}

// RunHeuristics are the heuristics of the campaign (Heuristics looked up;
// the 17 of §6 when empty).
func (c *CampaignParams) RunHeuristics() ([]iterative.Heuristic, error) {
	if len(c.Heuristics) == 0 {
		return iterative.Paper(), nil
	}
	if len(c.Heuristics) < 2 {
		return nil, fmt.Errorf("campaign: heuristics = %v, want at least 2 (the degradation from best compares them), or none for the 17 of §6", c.Heuristics)
	}
	hs, err := iterative.ParseHeuristics(c.Heuristics)
	if err != nil {
		return nil, fmt.Errorf("campaign: heuristics: %w", err)
	}
	return hs, nil
}

// PaperParams are the parameters of §7 and Table 1 with this project's
// default model choices.
func PaperParams() CampaignParams {
	o := iterative.DefaultOptions()
	return CampaignParams{
		P: 20, N: []int{5, 10, 20, 40}, NCom: []int{5, 10, 20}, WMin: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		Scenarios: 247, Trials: 10, Iterations: 10,
		Channels: o.Channels.String(), Order: o.Order.String(), ExtraReplicas: o.ExtraReplicas, Initial: o.Initial.String(),
	}
}

// Options converts the model choices of the parameters.
func (c *CampaignParams) Options() (iterative.Options, error) {
	o := iterative.DefaultOptions()
	var err error
	if o.Channels, err = iterative.ParseChannelRule(c.Channels); err != nil {
		return o, fmt.Errorf("campaign: %w", err)
	}
	if o.Order, err = iterative.ParseSlotOrder(c.Order); err != nil {
		return o, fmt.Errorf("campaign: %w", err)
	}
	if o.Initial, err = iterative.ParseInitialState(c.Initial); err != nil {
		return o, fmt.Errorf("campaign: %w", err)
	}
	o.HoldWhileReclaimed = c.HoldReclaimed
	o.Sticky = c.Sticky
	o.ExtraReplicas = c.ExtraReplicas
	return o, o.Validate()
}

// Limits of a campaign's size: a unit holds 17 makespans per trial in
// memory and writes them as one record; the campaign writes one row per
// instance. The paper's campaign has 10 trials per scenario and 296,400
// instances.
const (
	MaxTrials    = 1 << 16
	MaxInstances = 1 << 30
)

// Validate refuses a grid that is degenerate, too large to hold, or certain
// to fail, before any unit runs; errors name the field (as in the manifest),
// the value and what is expected.
func (c *CampaignParams) Validate() error {
	if c.P < 2 || c.P > 1<<12 {
		return fmt.Errorf("campaign: p = %d, want 2..4096 (with one processor the heuristics make the same decisions)", c.P)
	}
	lists := []struct {
		name string
		v    []int
	}{{"n", c.N}, {"ncom", c.NCom}, {"wmin", c.WMin}}
	for _, l := range lists {
		if len(l.v) == 0 {
			return fmt.Errorf("campaign: %s is empty, want at least one value", l.name)
		}
		for i, x := range l.v {
			if x < 1 || x > 1<<12 {
				return fmt.Errorf("campaign: %s value %d, want 1..4096", l.name, x)
			}
			if slices.Contains(l.v[:i], x) {
				return fmt.Errorf("campaign: %s lists %d twice, want distinct values", l.name, x)
			}
		}
	}
	switch {
	case c.Scenarios < 1 || c.Scenarios > MaxInstances:
		return fmt.Errorf("campaign: scenarios = %d, want 1..%d", c.Scenarios, MaxInstances)
	case c.Trials < 1 || c.Trials > MaxTrials:
		return fmt.Errorf("campaign: trials = %d, want 1..%d per scenario", c.Trials, MaxTrials)
	case c.Iterations < 1:
		return fmt.Errorf("campaign: iterations = %d, want ≥ 1", c.Iterations)
	}
	// Each factor is at most 2^30 (lists of distinct values ≤ 4096 have at
	// most 2^12 entries): the product is computed without overflow in
	// float64's exact range step by step.
	if n := float64(len(c.N)) * float64(len(c.NCom)) * float64(len(c.WMin)) * float64(c.Scenarios) * float64(c.Trials); n > MaxInstances {
		return fmt.Errorf("campaign: %d n × %d ncom × %d wmin × %d scenarios × %d trials = %.0f instances, want at most %d",
			len(c.N), len(c.NCom), len(c.WMin), c.Scenarios, c.Trials, n, MaxInstances)
	}
	// With T_prog = 5·w_min, T_data = w_min and w_q ≥ w_min, a run takes at
	// least 7·w_min slots for its first iteration and 2·w_min for each
	// other, even if every processor stays UP.
	wmax := slices.Max(c.WMin)
	if c.Iterations > slotsim.DefaultMaxSlots || (2*c.Iterations+5)*wmax > slotsim.DefaultMaxSlots {
		return fmt.Errorf("campaign: iterations = %d with w_min = %d, want at most %d: a run takes at least (2·iterations + 5)·w_min slots, beyond the simulator's limit of %d slots",
			c.Iterations, wmax, max((slotsim.DefaultMaxSlots/wmax-5)/2, 0), slotsim.DefaultMaxSlots)
	}
	if c.ExtraReplicas < 0 || c.ExtraReplicas > 64 {
		return fmt.Errorf("campaign: extra_replicas = %d, want 0..64", c.ExtraReplicas)
	}
	if _, err := c.RunHeuristics(); err != nil {
		return err
	}
	_, err := c.Options()
	return err
}

// Units is the number of units: one per (n, n_com, w_min, scenario).
func (c *CampaignParams) Units() int { return len(c.N) * len(c.NCom) * len(c.WMin) * c.Scenarios }

// Instances is the number of problem instances (units × trials).
func (c *CampaignParams) Instances() int { return c.Units() * c.Trials }

// Scenario identifies a unit of the campaign.
type Scenario struct {
	N, NCom, WMin, Index int
}

// ScenarioOf decodes unit u: scenario index fastest, then w_min, n_com, n.
func (c *CampaignParams) ScenarioOf(u int) Scenario {
	s := u % c.Scenarios
	u /= c.Scenarios
	w := u % len(c.WMin)
	u /= len(c.WMin)
	k := u % len(c.NCom)
	u /= len(c.NCom)
	return Scenario{N: c.N[u], NCom: c.NCom[k], WMin: c.WMin[w], Index: s}
}

// Stream labels below the unit.
const (
	labelScenario = iota // the platform: chains and speeds
	labelTrial           // a trial's availability realization
	labelDecide          // a random heuristic's draws in a trial
)

// InstanceOf draws the platform of unit u (§7): p chains from the papers'
// generator, w_q uniform in w_min..10·w_min, T_data = w_min, T_prog =
// 5·w_min.
func (c *CampaignParams) InstanceOf(seed uint64, u int) (*iterative.Instance, Scenario) {
	sc := c.ScenarioOf(u)
	rng := stream.New(seed, uint64(u), labelScenario)
	in := &iterative.Instance{
		Chains: make([]availability.Chain, c.P), W: make([]int, c.P),
		TProg: 5 * sc.WMin, TData: sc.WMin, NCom: sc.NCom, Tasks: sc.N, Iterations: c.Iterations,
	}
	for q := 0; q < c.P; q++ {
		in.Chains[q] = availability.Random(rng)
		in.W[q] = sc.WMin + rng.IntN(9*sc.WMin+1)
	}
	return in, sc
}

// UnitResult is the result of one unit: Makespans[trial][heuristic], the
// heuristics in the order of the campaign's (RunHeuristics).
type UnitResult struct {
	Makespans [][]int `json:"makespans"`
}

// RunUnit runs every trial of unit u under the campaign's heuristics.
// Within a trial all heuristics replay the same availability realization;
// a random heuristic draws from the stream (seed, u, decide, trial, its
// Stream label).
func (c *CampaignParams) RunUnit(ctx context.Context, seed uint64, u int) (UnitResult, error) {
	opt, err := c.Options()
	if err != nil {
		return UnitResult{}, err
	}
	hs, err := c.RunHeuristics()
	if err != nil {
		return UnitResult{}, err
	}
	in, sc := c.InstanceOf(seed, u)
	sim, err := slotsim.New(in, opt)
	if err != nil {
		return UnitResult{}, fmt.Errorf("unit %d %+v: %w", u, sc, err)
	}
	res := UnitResult{Makespans: make([][]int, c.Trials)}
	for tr := 0; tr < c.Trials; tr++ {
		if err := ctx.Err(); err != nil {
			return UnitResult{}, err
		}
		real := slotsim.Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(seed, uint64(u), labelTrial, uint64(tr))))
		res.Makespans[tr] = make([]int, len(hs))
		for i, h := range hs {
			var rng = stream.New(seed, uint64(u), labelDecide, uint64(tr), h.Stream())
			ms, err := sim.Run(h, real, rng)
			if err != nil {
				return UnitResult{}, fmt.Errorf("unit %d %+v trial %d: %w", u, sc, tr, err)
			}
			res.Makespans[tr][i] = ms
		}
	}
	return res, nil
}

// HeuristicSummary is one row of Table 2.
type HeuristicSummary struct {
	Name   string  `json:"name"`
	AvgDfb float64 `json:"avg_dfb"`
	Wins   int     `json:"wins"`
}

// Summary aggregates a campaign as §7 does: for every instance (scenario ×
// trial) the degradation from best of each heuristic, 100·(makespan −
// best)/best where best is the smallest makespan of the campaign's
// heuristics on that instance, averaged over all instances; and the number
// of instances where the heuristic is best or tied with the best.
type Summary struct {
	Heuristics []HeuristicSummary `json:"heuristics"` // in the campaign's order (RunHeuristics), named
	Instances  int                `json:"instances"`
	// ByWMin[i][h] is the average dfb of heuristic h over the instances with
	// w_min = WMin[i] (Figure 2); likewise ByN and ByNCom.
	WMin   []int       `json:"wmin"`
	ByWMin [][]float64 `json:"dfb_by_wmin"`
	N      []int       `json:"n"`
	ByN    [][]float64 `json:"dfb_by_n"`
	NCom   []int       `json:"ncom"`
	ByNCom [][]float64 `json:"dfb_by_ncom"`
	// MeanMakespan[h] is the average makespan, to compare heuristics in
	// absolute terms (§7: "EMCT algorithms have makespans 10% smaller").
	MeanMakespan []float64 `json:"mean_makespan"`
}

// Summarize computes the summary from the unit results ordered by unit
// (every unit present).
func (c *CampaignParams) Summarize(results []UnitResult) (Summary, error) {
	names := c.HeuristicNames()
	nh := len(names)
	if len(results) != c.Units() {
		return Summary{}, fmt.Errorf("summary: %d unit results, want %d", len(results), c.Units())
	}
	type acc struct {
		sum []float64
		n   int
	}
	newAcc := func(k int) []acc {
		a := make([]acc, k)
		for i := range a {
			a[i].sum = make([]float64, nh)
		}
		return a
	}
	idx := func(list []int, v int) int {
		for i, x := range list {
			if x == v {
				return i
			}
		}
		return -1
	}
	all, byW, byN, byC := newAcc(1), newAcc(len(c.WMin)), newAcc(len(c.N)), newAcc(len(c.NCom))
	wins := make([]int, nh)
	msSum := make([]float64, nh)
	dfb := make([]float64, nh)
	for u, r := range results {
		sc := c.ScenarioOf(u)
		if len(r.Makespans) != c.Trials {
			return Summary{}, fmt.Errorf("summary: unit %d has %d trials, want %d", u, len(r.Makespans), c.Trials)
		}
		for tr, ms := range r.Makespans {
			if len(ms) != nh {
				return Summary{}, fmt.Errorf("summary: unit %d trial %d has %d makespans, want %d", u, tr, len(ms), nh)
			}
			best := math.MaxInt
			for _, m := range ms {
				if m < 1 {
					return Summary{}, fmt.Errorf("summary: unit %d trial %d: makespan %d, want ≥ 1", u, tr, m)
				}
				best = min(best, m)
			}
			for h, m := range ms {
				dfb[h] = 100 * float64(m-best) / float64(best)
				msSum[h] += float64(m)
				if m == best {
					wins[h]++
				}
			}
			for _, a := range []*acc{&all[0], &byW[idx(c.WMin, sc.WMin)], &byN[idx(c.N, sc.N)], &byC[idx(c.NCom, sc.NCom)]} {
				for h := range dfb {
					a.sum[h] += dfb[h]
				}
				a.n++
			}
		}
	}
	mean := func(a []acc) [][]float64 {
		out := make([][]float64, len(a))
		for i := range a {
			out[i] = make([]float64, nh)
			for h := range out[i] {
				out[i][h] = a[i].sum[h] / float64(a[i].n)
			}
		}
		return out
	}
	s := Summary{Instances: all[0].n, WMin: c.WMin, ByWMin: mean(byW), N: c.N, ByN: mean(byN), NCom: c.NCom, ByNCom: mean(byC)}
	avg := mean(all)[0]
	for h := 0; h < nh; h++ {
		s.Heuristics = append(s.Heuristics, HeuristicSummary{Name: names[h], AvgDfb: avg[h], Wins: wins[h]})
		s.MeanMakespan = append(s.MeanMakespan, msSum[h]/float64(s.Instances))
	}
	return s, nil
}

// PaperTable2 is Table 2 of §7 (average dfb and number of wins over the
// 296,400 instances), in §7's order (iterative.Paper); PaperRow finds a
// row by name.
var PaperTable2 = []HeuristicSummary{
	{"RANDOM", 47.87, 45}, {"RANDOM1", 47.44, 36}, {"RANDOM2", 47.53, 73}, {"RANDOM3", 44.01, 87}, {"RANDOM4", 47.33, 88},
	{"RANDOM1W", 28.42, 259}, {"RANDOM2W", 28.43, 301}, {"RANDOM3W", 31.49, 188}, {"RANDOM4W", 28.51, 278},
	{"MCT", 5.35, 73946}, {"MCT*", 5.46, 70952}, {"EMCT", 4.77, 80320}, {"EMCT*", 4.81, 78947},
	{"LW", 12.74, 19529}, {"LW*", 11.15, 28802}, {"UD", 8.09, 31120}, {"UD*", 7.06, 42578},
}

// PaperRow is the row of Table 2 of heuristic name; ok is false for a
// heuristic the paper does not have.
func PaperRow(name string) (row HeuristicSummary, ok bool) {
	for _, r := range PaperTable2 {
		if r.Name == name {
			return r, true
		}
	}
	return HeuristicSummary{}, false
}

// PaperInstances is the number of instances behind PaperTable2.
const PaperInstances = 296400
