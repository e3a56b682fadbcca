// Package campaign is the experimental campaign of seeds 000/002 §VII.A:
// the scenario generator, the grid of (m, n_com, w_min) with its scenarios
// and trials, the 17 heuristics simulated on every trial (slotsim), the
// metrics of §VII.A, the paper's Tables I and II, and the report (JSON,
// CSV, SVG, text).
package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/coupled/slotsim"
	"github.com/volsched/volsched/stream"
)

// Kind is the kind of the campaign's manifest (experiment.Manifest.Kind),
// the name `volsched exp merge` and `exp status` know it by.
const Kind = "coupled"

// CampaignParams are the parameters of the §VII.A campaign that determine
// its results.
type CampaignParams struct {
	P int `json:"p"`
	// Tasks lists the values of m, the tasks of every iteration.
	Tasks      []int  `json:"m"`
	NCom       []int  `json:"ncom"`
	WMin       []int  `json:"wmin"`
	Scenarios  int    `json:"scenarios"` // per (m, ncom, wmin)
	Trials     int    `json:"trials"`    // per scenario
	Iterations int    `json:"iterations"`
	Cap        int    `json:"cap"`  // makespan limit (failure)
	Form       string `json:"form"` // E(S)(W): "published" or "conditional"
	// Rebuild is how a proactive heuristic builds and measures the new
	// configuration (§VI.B): "" (the default, also "holdings") with what
	// the processors hold, data of the running configuration included;
	// "fresh" as at the start of the iteration, without any task data
	// (docs/model-002.md).
	Rebuild string `json:"rebuild,omitempty"`
	// Mu bounds the tasks of every processor (μ_q of §III.C); 0, the
	// default, is unbounded.
	Mu int `json:"mu,omitempty"`
	// Reclaimed is how a proactive heuristic values a running configuration
	// with a RECLAIMED member (docs/model-002.md): "" (the default, also
	// "asup") with the all-UP estimates of §V, "wait" with the chance and
	// the expected time of its RECLAIMED members' return, "replace" as no
	// estimate at all (any configuration built replaces it).
	Reclaimed string `json:"reclaimed,omitempty"`
	// Random is RANDOM's draw: "" (the default, also "tasks") each task to
	// a uniformly drawn UP processor; "distinct" to different processors
	// while possible.
	Random string `json:"random,omitempty"`
	// Heuristics names the heuristics simulated on every trial, in the
	// order of the results' columns (coupled.ParseHeuristic: the paper's
	// and any registered); empty (and absent from the manifest): the 17 of
	// §VI in its order. IE, the reference of %diff, must be among them.
	Heuristics []string `json:"heuristics,omitempty"`
}

// HeuristicNames names the campaign's heuristics in the order of its
// results: Heuristics, or the 17 of §VI when empty.
func (c *CampaignParams) HeuristicNames() []string {
	if len(c.Heuristics) == 0 {
		return coupled.Names(coupled.Paper())
	}
	return c.Heuristics
}

// RunHeuristics are the heuristics of the campaign (Heuristics looked up;
// the 17 of §VI when empty).
func (c *CampaignParams) RunHeuristics() ([]coupled.Heuristic, error) {
	if len(c.Heuristics) == 0 {
		return coupled.Paper(), nil
	}
	hs, err := coupled.ParseHeuristics(c.Heuristics)
	if err != nil {
		return nil, fmt.Errorf("heuristics: %w", err)
	}
	for i, h := range hs {
		if h.Name != c.Heuristics[i] {
			return nil, fmt.Errorf("heuristics: %q is spelled %q in the table of heuristics, want that spelling (results are keyed by it; Normalize spells it)", c.Heuristics[i], h.Name)
		}
	}
	if !slices.ContainsFunc(hs, func(h coupled.Heuristic) bool { return h.Name == Reference }) {
		return nil, fmt.Errorf("heuristics = %v: want %s among them (the reference of %%diff)", c.Heuristics, Reference)
	}
	if len(hs) < 2 {
		return nil, fmt.Errorf("heuristics = %v, want at least 2 (%s and another to compare with it), or none for the 17 of §VI", c.Heuristics, Reference)
	}
	return hs, nil
}

// Bounds of a campaign's parameters, so that time and memory stay
// proportional to what is asked and every unit means something. They are
// far above the paper's grid (p = 20, m ≤ 10, w_min ≤ 10, 10 scenarios of
// 10 trials, 600 units).
const (
	// MaxProcessors bounds p: the evaluator's tables grow with p times the
	// availability horizon (tens of MB per worker at 1,000).
	MaxProcessors = 1000
	// MaxTaskSlots bounds m·p: the greedy keeps a value per (step,
	// processor) in each of its constructions, a few per heuristic.
	MaxTaskSlots = 100_000
	// MaxTableEntries bounds p·(1 + (5 + m)·w_min), the evaluator's table
	// of single-processor expectations for every communication length
	// (T_prog + m·T_data slots, T_prog = 5·w_min, T_data = w_min): 80 MB.
	MaxTableEntries = 10_000_000
	// MaxTrials bounds the trials of a scenario (a unit's results hold
	// two numbers per trial and heuristic).
	MaxTrials = 100_000
	// MaxIterations bounds the iterations of an application.
	MaxIterations = 1_000_000
	// MaxUnits bounds the units of a campaign (scenarios × |m| × |n_com|
	// × |w_min|).
	MaxUnits = 1_000_000
)

// PaperCampaign is the campaign of §VII.A: 6,000 instances.
func PaperCampaign() CampaignParams {
	return CampaignParams{
		P: 20, Tasks: []int{5, 10}, NCom: []int{5, 10, 20},
		WMin:      []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		Scenarios: 10, Trials: 10, Iterations: 10, Cap: 1_000_000, Form: "published",
	}
}

// ShortestMakespan is a lower bound of the makespan of any heuristic on
// any scenario with w_min = wmin: the program (T_prog = 5·w_min slots),
// then in every iteration its tasks' data (T_data = w_min slots at least)
// and its computation (w_q ≥ w_min slots at least), one after the other.
func ShortestMakespan(wmin, iterations int) int { return wmin * (5 + 2*iterations) }

// Validate checks the parameters before any unit runs, and refuses a grid
// whose units could not all mean something; errors name the field, its
// value and what is wanted.
func (c *CampaignParams) Validate() error {
	if c.P == 1 {
		return fmt.Errorf("p = 1: with one processor every heuristic builds the same configuration (all m tasks on it), so the campaign would compare nothing; want 2..%d", MaxProcessors)
	}
	if c.P < 2 || c.P > MaxProcessors {
		return fmt.Errorf("p = %d, want 2..%d", c.P, MaxProcessors)
	}
	for _, l := range []struct {
		name string
		vals []int
	}{{"m", c.Tasks}, {"ncom", c.NCom}, {"wmin", c.WMin}} {
		if len(l.vals) == 0 {
			return fmt.Errorf("%s: empty list, want at least one value", l.name)
		}
		for i, v := range l.vals {
			if v < 1 {
				return fmt.Errorf("%s = %d, want ≥ 1", l.name, v)
			}
			if slices.Contains(l.vals[:i], v) {
				return fmt.Errorf("%s = %v: %d listed twice, want distinct values (each would run the same scenarios again)", l.name, l.vals, v)
			}
		}
	}
	switch {
	case c.Scenarios < 1:
		return fmt.Errorf("scenarios = %d, want ≥ 1", c.Scenarios)
	case c.Trials < 1 || c.Trials > MaxTrials:
		return fmt.Errorf("trials = %d, want 1..%d", c.Trials, MaxTrials)
	case c.Iterations < 1 || c.Iterations > MaxIterations:
		return fmt.Errorf("iterations = %d, want 1..%d", c.Iterations, MaxIterations)
	case c.Cap < 1:
		return fmt.Errorf("cap = %d, want ≥ 1", c.Cap)
	}
	units := c.Scenarios
	for _, n := range []int{len(c.Tasks), len(c.NCom), len(c.WMin)} {
		if units > MaxUnits/n {
			return fmt.Errorf("scenarios = %d with %d values of m, %d of ncom and %d of wmin: more than %d units, want at most that", c.Scenarios, len(c.Tasks), len(c.NCom), len(c.WMin), MaxUnits)
		}
		units *= n
	}
	mmax, wmax := slices.Max(c.Tasks), slices.Max(c.WMin)
	if mmax > MaxTaskSlots/c.P {
		return fmt.Errorf("m = %d with p = %d: m·p = %d, want at most %d", mmax, c.P, mmax*c.P, MaxTaskSlots)
	}
	if n := c.P * (1 + (5+mmax)*wmax); wmax > MaxTableEntries || n > MaxTableEntries {
		return fmt.Errorf("wmin = %d with m = %d and p = %d: p·(1 + (5+m)·wmin) = %d table entries, want at most %d", wmax, mmax, c.P, n, MaxTableEntries)
	}
	if lb := ShortestMakespan(wmax, c.Iterations); c.Cap <= lb {
		return fmt.Errorf("cap = %d: no run with wmin = %d and %d iterations can end before slot %d (program 5·wmin, then data and computation of at least wmin each per iteration), so every instance would fail; want cap > %d", c.Cap, wmax, c.Iterations, lb, lb)
	}
	if _, err := analytic.ParseForm(c.Form); err != nil {
		return fmt.Errorf("form: %w", err)
	}
	switch c.Rebuild {
	case "", RebuildHoldings, RebuildFresh, RebuildScratch:
	default:
		return fmt.Errorf("rebuild = %q, want %q, %q or %q", c.Rebuild, RebuildHoldings, RebuildFresh, RebuildScratch)
	}
	if c.Mu < 0 {
		return fmt.Errorf("mu = %d, want ≥ 0 (0 = unbounded)", c.Mu)
	}
	if c.Mu > 0 && c.Mu < (mmax+c.P-1)/c.P {
		return fmt.Errorf("mu = %d with p = %d: p·mu = %d < m = %d, want p·mu ≥ m (room for every task)", c.Mu, c.P, c.Mu*c.P, mmax)
	}
	if _, err := coupled.ParseReclaimed(c.Reclaimed); err != nil {
		return err
	}
	switch c.Random {
	case "", RandomTasks, RandomDistinct:
	default:
		return fmt.Errorf("random = %q, want %q or %q", c.Random, RandomTasks, RandomDistinct)
	}
	_, err := c.RunHeuristics()
	return err
}

// The readings of §VI.B's rebuild (CampaignParams.Rebuild).
const (
	RebuildHoldings = "holdings"
	RebuildFresh    = "fresh"
	RebuildScratch  = "scratch"
)

// The readings of RANDOM (CampaignParams.Random).
const (
	RandomTasks    = "tasks"
	RandomDistinct = "distinct"
)

// options are the simulation options of the campaign's readings.
func (c *CampaignParams) options() slotsim.Options {
	rv, _ := coupled.ParseReclaimed(c.Reclaimed)
	return slotsim.Options{Cap: c.Cap, Readings: coupled.Readings{
		FreshRebuild:   c.Rebuild == RebuildFresh || c.Rebuild == RebuildScratch,
		ResendData:     c.Rebuild == RebuildScratch,
		Reclaimed:      rv,
		RandomDistinct: c.Random == RandomDistinct}}
}

// SimOptions are the simulation options of the campaign's readings, as
// RunUnit uses them (for other studies of the same grid).
func (c *CampaignParams) SimOptions() slotsim.Options { return c.options() }

// Units is the number of units: one per scenario.
func (c *CampaignParams) Units() int { return len(c.Tasks) * len(c.NCom) * len(c.WMin) * c.Scenarios }

// UnitParams returns the (m, ncom, wmin, scenario index) of unit u; m varies
// slowest, then ncom, then wmin, then the scenario.
func (c *CampaignParams) UnitParams(u int) (m, ncom, wmin, scenario int) {
	scenario = u % c.Scenarios
	u /= c.Scenarios
	wmin = c.WMin[u%len(c.WMin)]
	u /= len(c.WMin)
	ncom = c.NCom[u%len(c.NCom)]
	u /= len(c.NCom)
	m = c.Tasks[u]
	return
}

// Stream purposes (labels after the scenario's parameters).
const (
	purposeScenario     = 1
	purposeAvailability = 2
	purposeRandom       = 3
)

// UnitResult is the outcome of one scenario: every trial of every
// heuristic.
type UnitResult struct {
	// Tasks is m.
	Tasks    int `json:"m"`
	NCom     int `json:"ncom"`
	WMin     int `json:"wmin"`
	Scenario int `json:"scenario"`
	// Heuristics names the columns of Makespan.
	Heuristics []string `json:"heuristics"`
	// Makespan[trial][h] (the cap when the heuristic failed).
	Makespan [][]int `json:"makespan"`
	// Configs[trial][h] counts configurations launched.
	Configs [][]int `json:"configs"`
}

// Unit is scenario u of a campaign, drawn: its parameters, the scenario,
// its processors' analytic table, and the streams of its trials.
type Unit struct {
	Index                       int
	Tasks, NCom, WMin, Scenario int
	Scn                         Scenario
	Table                       *analytic.Table
	seed                        uint64
	labels                      []uint64 // (m, ncom, wmin, scenario index)
}

// with returns the unit's stream labels followed by extra.
func (un *Unit) with(extra ...uint64) []uint64 {
	return append(append([]uint64(nil), un.labels...), extra...)
}

// Availability is trial k's availability, the same for every heuristic:
// processor q follows its chain from the stationary distribution, drawing
// from its own stream (seed, labels…, 2, k, q).
func (un *Unit) Availability(k int) []availability.Source {
	rngs := make([]*rand.Rand, len(un.Scn.Chains))
	ls := un.with(purposeAvailability, uint64(k), 0)
	for q := range rngs {
		ls[len(ls)-1] = uint64(q)
		rngs[q] = stream.New(un.seed, ls...)
	}
	return availability.ChainSources(un.Scn.Chains, availability.StartStationary, rngs...)
}

// Random is RANDOM's stream in trial k: (seed, labels…, 3, k).
func (un *Unit) Random(k int) *rand.Rand {
	return stream.New(un.seed, un.with(purposeRandom, uint64(k))...)
}

// Streams are the random streams of heuristics hs in trial k: RANDOM's
// (Random), (seed, labels…, 3, k, h.Stream()) for any other heuristic that
// draws, nil for the others.
func (un *Unit) Streams(k int, hs []coupled.Heuristic) []*rand.Rand {
	out := make([]*rand.Rand, len(hs))
	for i, h := range hs {
		switch {
		case !h.Draws():
		case h.Stream() == 0: // RANDOM: the campaign's historical stream
			out[i] = un.Random(k)
		default:
			out[i] = stream.New(un.seed, un.with(purposeRandom, uint64(k), h.Stream())...)
		}
	}
	return out
}

// Unit draws scenario u of the campaign with seed: labels (m, ncom, wmin,
// scenario index), scenario stream (seed, labels…, 1), μ applied. A
// scenario is the same whatever the number of scenarios or the other
// values of the grid.
func (c *CampaignParams) Unit(seed uint64, u int) (*Unit, error) {
	if u < 0 || u >= c.Units() {
		return nil, fmt.Errorf("unit %d: want 0..%d", u, c.Units()-1)
	}
	m, ncom, wmin, si := c.UnitParams(u)
	un := &Unit{Index: u, Tasks: m, NCom: ncom, WMin: wmin, Scenario: si, seed: seed,
		labels: []uint64{uint64(m), uint64(ncom), uint64(wmin), uint64(si)}}
	scn, err := RandomScenario(stream.New(seed, un.with(purposeScenario)...), ScenarioParams{P: c.P, Tasks: m, NCom: ncom, WMin: wmin, Iterations: c.Iterations})
	if err != nil {
		return nil, err
	}
	if c.Mu > 0 {
		scn.Platform.Mu = make([]int, c.P)
		for q := range scn.Platform.Mu {
			scn.Platform.Mu[q] = c.Mu
		}
	}
	tab, err := analytic.NewTable(scn.Chains, analytic.Options{})
	if err != nil {
		return nil, fmt.Errorf("scenario %v: %w", un.labels, err)
	}
	un.Scn, un.Table = scn, tab
	return un, nil
}

// RunUnit simulates scenario u of the campaign with its heuristics, trial
// after trial; in trial k they are simulated together on the trial's
// availability (common random numbers: Unit.Availability), each that draws
// from its stream (Unit.Streams).
func (c *CampaignParams) RunUnit(ctx context.Context, seed uint64, u int) (UnitResult, error) {
	form, err := analytic.ParseForm(c.Form)
	if err != nil {
		return UnitResult{}, err
	}
	un, err := c.Unit(seed, u)
	if err != nil {
		return UnitResult{}, err
	}
	m, ncom, wmin, si := un.Tasks, un.NCom, un.WMin, un.Scenario
	e, err := coupled.NewEvaluator(un.Table, un.Scn.Platform, m, form)
	if err != nil {
		return UnitResult{}, err
	}
	hs, err := c.RunHeuristics()
	if err != nil {
		return UnitResult{}, err
	}
	sim, err := slotsim.New(e, un.Scn.App, hs, c.options())
	if err != nil {
		return UnitResult{}, err
	}
	res := UnitResult{Tasks: m, NCom: ncom, WMin: wmin, Scenario: si, Heuristics: coupled.Names(hs),
		Makespan: make([][]int, c.Trials), Configs: make([][]int, c.Trials)}
	for k := range c.Trials {
		res.Makespan[k] = make([]int, len(hs))
		res.Configs[k] = make([]int, len(hs))
		rs, err := sim.Run(ctx, un.Availability(k), un.Streams(k, hs))
		if err != nil {
			return UnitResult{}, fmt.Errorf("m=%d ncom=%d wmin=%d scenario %d trial %d: %w", m, ncom, wmin, si, k, err)
		}
		for i, r := range rs {
			res.Makespan[k][i] = r.Makespan
			res.Configs[k][i] = r.Configs
		}
	}
	return res, nil
}
