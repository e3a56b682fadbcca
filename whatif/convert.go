package whatif

// The one place where platform and application files become the models'
// instance types. (The field names follow the models as they are on this
// branch: iterative.Instance's Tprog/Tdata/Ncom and coupled.Application's M
// become TProg/TData/NCom/Tasks with the restructure; only this file
// changes then.)

import (
	"fmt"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/iterative"
)

// InitialChains are the chains the heuristics believe at the run's slot 0
// when there is no history: a chain worker's own chain when the estimator
// has known_chains, otherwise the prior's mean chain (what an Estimator
// that has seen nothing gives). With a history or during a run, the
// simulator takes the chains of the Trial's View instead.
func (p *Platform) InitialChains() []availability.Chain {
	e, err := availability.NewEstimator(p.Estimator.Prior)
	prior := availability.Chain{}
	if err == nil {
		prior = e.Chain()
	}
	out := make([]availability.Chain, len(p.Workers))
	for q, w := range p.Workers {
		out[q] = prior
		if c, ok := w.Avail.KnownChain(); ok && p.Estimator.KnownChains {
			out[q] = c
		}
	}
	return out
}

// IterativeInstance is the seed-001 instance of an independent-task application on
// the platform, with InitialChains as its chains.
func IterativeInstance(p *Platform, a *Application) (*iterative.Instance, error) {
	if a.Kind != Independent {
		return nil, fmt.Errorf("%s: kind = %s, want independent for seed 001's model", a.Source, a.Kind)
	}
	in := &iterative.Instance{
		Chains:     p.InitialChains(),
		W:          make([]int, len(p.Workers)),
		TProg:      p.TProg,
		TData:      p.TData,
		NCom:       p.NCom,
		Tasks:      a.Tasks,
		Iterations: a.Iterations,
	}
	for q, w := range p.Workers {
		in.W[q] = w.W
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("%s with %s: %w", p.Source, a.Source, err)
	}
	return in, nil
}

// CoupledModel is the seed-002 platform and application of a tightly-coupled
// application on the platform: μ_q is the application's mu_per_worker entry
// for worker q, or its mu (0: unbounded).
func CoupledModel(p *Platform, a *Application) (coupled.Platform, coupled.Application, error) {
	if a.Kind != Coupled {
		return coupled.Platform{}, coupled.Application{}, fmt.Errorf("%s: kind = %s, want coupled for seed 002's model", a.Source, a.Kind)
	}
	names := make([]string, 0, len(a.MuPerWorker))
	for n := range a.MuPerWorker {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !slices.ContainsFunc(p.Workers, func(w Worker) bool { return w.Name == n }) {
			return coupled.Platform{}, coupled.Application{}, fmt.Errorf("%s: mu_per_worker: worker %q is not in %s", a.Source, n, p.Source)
		}
	}
	cp := coupled.Platform{W: make([]int, len(p.Workers)), Mu: make([]int, len(p.Workers)), NCom: p.NCom, TProg: p.TProg, TData: p.TData}
	for q, w := range p.Workers {
		cp.W[q] = w.W
		cp.Mu[q] = a.Mu
		if m, ok := a.MuPerWorker[w.Name]; ok {
			cp.Mu[q] = m
		}
	}
	ca := coupled.Application{Tasks: a.Tasks, Iterations: a.Iterations}
	if err := ca.Validate(); err != nil {
		return cp, ca, fmt.Errorf("%s: %w", a.Source, err)
	}
	if err := cp.Validate(ca.Tasks); err != nil {
		return cp, ca, fmt.Errorf("%s with %s: %w", p.Source, a.Source, err)
	}
	return cp, ca, nil
}
