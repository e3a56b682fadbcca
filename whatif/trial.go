package whatif

import (
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// Stream labels of a trial. Worker q's model draws from stream (seed,
// labelWhatif, trial, labelWorker, q) (Avail.Source: a chain or a
// semi-Markov worker); trace t draws its offset, then its drawn hosts, from
// (seed, labelWhatif, trial, labelTrace, t) (the trace model's BeginTrial);
// a random heuristic from DecideStream. A worker's availability therefore
// depends only on the seed, the trial and its position in the platform.
const (
	labelWhatif = 0x3a7f1f
	labelWorker = 1
	labelTrace  = 2
	labelDecide = 3
)

// DecideStream is the random stream of the heuristic whose stream label is
// h (iterative.Heuristic.Stream, coupled.Heuristic.Stream: a paper
// heuristic's position in its model's list) in a trial: (seed,
// labelWhatif, trial, labelDecide, h). It is independent of the
// availability's streams, so the random heuristics' draws do not change a
// trial's states.
func DecideStream(seed, trial, h uint64) *rand.Rand {
	return stream.New(seed, labelWhatif, trial, labelDecide, h)
}

// Trial is one trial's availability, ready for a simulation.
type Trial struct {
	// Sources[q] yields worker q's states from the run's slot 0 on.
	Sources []availability.Source
	// View is the master's knowledge at the run's slot 0: it has observed
	// the Estimator.History slots before it. A simulation keeps feeding it
	// each slot once it has happened.
	View *availability.View
	// Hosts[q] is the trace host worker q replays (−1 for other workers).
	Hosts []int
	// Offsets[t] is the slot of trace t at which the trial begins (the
	// history, then the run): the same for every worker of the trace, so
	// that the hosts' correlations are kept.
	Offsets []int
}

// Trial builds the availability of one trial: what the models draw for
// the trial (Model.BeginTrial: the trace offsets and drawn hosts), every
// worker's source (Avail.Source), and the master's view primed with the
// history (History slots drawn from the sources before the run's slot 0).
// Traces must have been loaded (LoadTraces). Calling it twice with the same
// seed and trial gives the same states (common random numbers across
// heuristics).
func (p *Platform) Trial(seed, trial uint64) (*Trial, error) {
	n := len(p.Workers)
	tr := &Trial{Sources: make([]availability.Source, n), Hosts: make([]int, n), Offsets: make([]int, len(p.Traces))}
	for q := range tr.Hosts {
		tr.Hosts[q] = -1
	}
	for _, m := range modelsInOrder() {
		if m.BeginTrial != nil {
			if err := m.BeginTrial(p, seed, trial, tr); err != nil {
				return nil, err
			}
		}
	}
	for q, w := range p.Workers {
		tr.Sources[q] = w.Avail.Source(p, tr, q, stream.New(seed, labelWhatif, trial, labelWorker, uint64(q)))
	}
	v, err := availability.NewView(n, p.Estimator.ViewConfig())
	if err != nil {
		return nil, fmt.Errorf("%s: estimator: %w", p.Source, err)
	}
	if p.Estimator.KnownChains {
		for q, w := range p.Workers {
			if c, ok := w.Avail.KnownChain(); ok {
				v.Fix(q, c)
			}
		}
	}
	s := make([]availability.State, n)
	for k := 0; k < p.Estimator.History; k++ {
		availability.Fill(tr.Sources, s)
		v.Observe(s)
	}
	tr.View = v
	return tr, nil
}
