package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	coupledsim "github.com/volsched/volsched/coupled/slotsim"
	"github.com/volsched/volsched/whatif"
)

// PredictCoupled describes the estimate of a tightly-coupled run.
const PredictCoupled = "E(W)-based: the configuration the heuristic builds with every worker UP and nothing held, " +
	"valued by seed 002 §V (E = E_comm + E(S)(W), Theorem 5.1 as published, with the chains believed at slot 0), " +
	"the first iteration with the program to send, the others with it held"

// CoupledCap is the slot limit of a tightly-coupled run (a run that
// reaches it fails; its makespan counts as the limit): seed 002's
// campaign's.
const CoupledCap = coupledsim.DefaultCap

// coupledModel prepares seed 002's model: the heuristics named (all the
// registered ones when none is: coupled.ParseHeuristics) simulated
// together on coupled/slotsim.
func coupledModel(p *whatif.Platform, a *whatif.Application, opt Options) (model, error) {
	plat, app, err := whatif.CoupledModel(p, a)
	if err != nil {
		return model{}, err
	}
	hs, err := coupled.ParseHeuristics(opt.Heuristics)
	if err != nil {
		return model{}, err
	}
	build := EvaluatorOf(plat, app.Tasks, analytic.Published)
	m := model{predict: PredictCoupled, names: coupled.Names(hs)}
	m.newRunner = func() (trialRunner, error) {
		e, err := build(p.InitialChains())
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", p.Source, a.Source, err)
		}
		sim, err := coupledsim.New(e, app, hs, coupledsim.Options{Cap: CoupledCap})
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", p.Source, a.Source, err)
		}
		return &coupledRunner{p: p, plat: plat, app: app, sim: sim, hs: hs, build: build, seed: opt.Seed}, nil
	}
	return m, nil
}

type coupledRunner struct {
	p     *whatif.Platform
	plat  coupled.Platform
	app   coupled.Application
	sim   *coupledsim.Simulator
	hs    []coupled.Heuristic
	build func([]availability.Chain) (*coupled.Evaluator, error)
	seed  uint64
}

func (r *coupledRunner) rngs(k int) []*rand.Rand {
	out := make([]*rand.Rand, len(r.hs))
	for i, h := range r.hs {
		if h.Draws() {
			out[i] = whatif.DecideStream(r.seed, uint64(k), h.Stream())
		}
	}
	return out
}

func (r *coupledRunner) trial(ctx context.Context, k int, ms []int, failed []bool, pred []float64) error {
	tr, err := r.p.Trial(r.seed, uint64(k))
	if err != nil {
		return err
	}
	if pred != nil {
		if err := r.predict(tr.View.Chains(), k, pred); err != nil {
			return err
		}
	}
	res, err := r.sim.RunBelieving(ctx, tr.Sources, coupledsim.Beliefs{View: tr.View, Evaluator: r.build}, r.rngs(k))
	if err != nil {
		return fmt.Errorf("trial %d: %w", k, err)
	}
	for i := range res {
		ms[i], failed[i] = res[i].Makespan, res[i].Failed
	}
	return nil
}

// predict is the model's estimate for each heuristic (PredictCoupled):
// with every worker UP, the configuration the heuristic builds holding
// nothing, valued E1 (program and data to send); the same configuration
// with the program held, valued E2; T̂ = E1 + (iterations − 1)·E2.
// +Inf when no configuration can be built.
func (r *coupledRunner) predict(chains []availability.Chain, k int, pred []float64) error {
	e, err := r.build(chains)
	if err != nil {
		return err
	}
	n := r.plat.P()
	s := &coupled.Snapshot{States: make([]availability.State, n), Prog: make([]int, n), Data: make([]int, n)}
	rngs := r.rngs(k)
	for i, h := range r.hs {
		for q := range s.States {
			s.States[q], s.Prog[q], s.Data[q] = availability.Up, 0, 0
		}
		c, ok := e.Build(h, nil, s, rngs[i], coupled.Readings{})
		if !ok {
			pred[i] = inf
			continue
		}
		first := e.Value(c, s, 0).E
		for q := range s.Prog {
			s.Prog[q] = r.plat.TProg
		}
		pred[i] = first + float64(r.app.Iterations-1)*e.Value(c, s, 0).E
	}
	return nil
}

// EvaluatorOf returns the builder of the evaluators of platform plat,
// tasks tasks and form f for given chains (their analytic table with the
// horizon capped at CoupledHorizon): the evaluators the heuristics believe
// (coupled/slotsim.Beliefs.Evaluator).
func EvaluatorOf(plat coupled.Platform, tasks int, f analytic.Form) func([]availability.Chain) (*coupled.Evaluator, error) {
	return func(cs []availability.Chain) (*coupled.Evaluator, error) {
		tab, err := analytic.NewTable(cs, analytic.Options{MaxHorizon: CoupledHorizon})
		if err != nil {
			return nil, err
		}
		return coupled.NewEvaluator(tab, plat, tasks, f)
	}
}

// CoupledHorizon caps the slots over which package analytic sums a set's
// sequences (analytic.Options.MaxHorizon; the default is 2^20). A worker
// whose estimated chain almost never goes DOWN (a trace host never seen
// DOWN: P_ud ≈ 4·10⁻⁵ after a day) would need hundreds of thousands of
// slots, at every re-estimation; 2^14 is beyond the horizon of any chain of
// the papers' generator (at most ≈ 6,000 slots), so with their chains
// nothing changes.
const CoupledHorizon = 1 << 14
