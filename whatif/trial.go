package whatif

import (
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// Stream labels of a trial. Chain or semi-Markov worker q draws from
// stream (seed, labelWhatif, trial, labelWorker, q); trace t draws its
// offset, then its drawn hosts, from (seed, labelWhatif, trial, labelTrace,
// t); a random heuristic from DecideStream. A worker's availability therefore depends only on the
// seed, the trial and its position in the platform.
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

// Trial builds the availability of one trial: every worker's source, the
// trace offsets and drawn hosts, and the master's view primed with the
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
	for t, trc := range p.Traces {
		if trc.Slots == nil {
			return nil, fmt.Errorf("%s: traces.%s: not loaded (call LoadTraces)", p.Source, trc.Name)
		}
		r := stream.New(seed, labelWhatif, trial, labelTrace, uint64(t))
		tr.Offsets[t] = trc.Slots.Offset(r)
		var drawing []int
		taken := make([]bool, trc.Slots.Hosts())
		for q, w := range p.Workers {
			if w.Avail.Kind != KindTrace || w.Avail.Trace != t {
				continue
			}
			if w.Avail.HostIndex >= 0 {
				tr.Hosts[q] = w.Avail.HostIndex
				taken[w.Avail.HostIndex] = true
			} else {
				drawing = append(drawing, q)
			}
		}
		var pool []int
		for h, tk := range taken {
			if !tk {
				pool = append(pool, h)
			}
		}
		idx, err := availability.DrawHosts(r, len(pool), len(drawing))
		if err != nil {
			return nil, fmt.Errorf("%s: traces.%s: %w", p.Source, trc.Name, err)
		}
		for k, q := range drawing {
			tr.Hosts[q] = pool[idx[k]]
		}
	}
	for q, w := range p.Workers {
		switch w.Avail.Kind {
		case KindChain:
			tr.Sources[q] = availability.NewChainSource(w.Avail.Chain, p.Start, stream.New(seed, labelWhatif, trial, labelWorker, uint64(q)))
		case KindSemiMarkov:
			tr.Sources[q] = w.Avail.SemiMarkov.NewSource(p.Start, stream.New(seed, labelWhatif, trial, labelWorker, uint64(q)))
		case KindTrace:
			tr.Sources[q] = p.Traces[w.Avail.Trace].Slots.Source(tr.Hosts[q], tr.Offsets[w.Avail.Trace])
		}
	}
	v, err := availability.NewView(n, p.Estimator.ViewConfig())
	if err != nil {
		return nil, fmt.Errorf("%s: estimator: %w", p.Source, err)
	}
	if p.Estimator.KnownChains {
		for q, w := range p.Workers {
			if w.Avail.Kind == KindChain {
				v.Fix(q, w.Avail.Chain)
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
