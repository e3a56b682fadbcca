package robustness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/whatif"
)

// studyModel is one availability model of the study (Availability.Model),
// registered once in studyModels; the name of a sojourn law (package
// availability/sojourn: exponential, weibull, lognormal, or one a program
// registers) is the semi-Markov model of the chains' mean sojourns with
// that law and Shape (lawModel). validate, checkTraces and platformOf look
// a model up here and never name one.
type studyModel struct {
	// check checks the availability's fields the model reads; the error
	// names the field and the value.
	check func(a Availability) error
	// papers marks the papers' own realization ("markov"): RunUnit draws it
	// from the campaign's streams, without a platform or a view (no
	// history, known chains only).
	papers bool
	// chains is false when the heuristics cannot be told the scenario's
	// chains (a trace has none).
	chains bool
	// load reads (or generates) what the model replays, once per process,
	// and sets it in p for workers workers (nil: nothing to load).
	load func(a Availability, p *whatif.Platform, workers int) error
	// worker is processor q's availability, whose chain in the scenario
	// is c.
	worker func(a Availability, q int, c availability.Chain) (whatif.Avail, error)
}

// studyModels are the study's models other than the sojourn laws.
var studyModels = map[string]studyModel{
	"markov": {
		papers: true, chains: true,
		check: func(a Availability) error {
			if a.History != 0 {
				return fmt.Errorf("model markov draws the papers' realization from slot 0: history = %d, want 0 (use markov-sources)", a.History)
			}
			return nil
		},
	},
	"markov-sources": {
		chains: true,
		worker: func(_ Availability, _ int, c availability.Chain) (whatif.Avail, error) {
			return whatif.ChainAvail{Chain: c}, nil
		},
	},
	"trace": {
		check: func(a Availability) error {
			if !(a.SlotSeconds > 0) {
				return fmt.Errorf("slot_seconds = %v, want > 0", a.SlotSeconds)
			}
			if a.Unavailable != "down" && a.Unavailable != "reclaimed" {
				return fmt.Errorf("unavailable = %q, want down or reclaimed", a.Unavailable)
			}
			if a.Trace == "" {
				return fmt.Errorf("trace is empty, want ucb, entropia or an FTA file")
			}
			return nil
		},
		load: func(a Availability, p *whatif.Platform, workers int) error {
			st, err := a.slotTrace()
			if err != nil {
				return err
			}
			if st.Hosts() < workers {
				return fmt.Errorf("availability %s: trace %s has %d hosts, want at least p = %d (each worker replays its own host)", a.Name, a.Trace, st.Hosts(), workers)
			}
			if p != nil {
				p.SlotSeconds = a.SlotSeconds
				p.Traces = []whatif.Trace{{Name: a.Name, Slots: st}}
			}
			return nil
		},
		worker: func(Availability, int, availability.Chain) (whatif.Avail, error) {
			return whatif.TraceAvail{Trace: 0, HostIndex: -1}, nil
		},
	},
}

// lawModel is the study model of sojourn law f: SemiMarkovOf the scenario's
// chains with f and the availability's Shape (its f.Shape parameter; none
// for the exponential).
func lawModel(f sojourn.Family) studyModel {
	return studyModel{
		chains: true,
		check: func(a Availability) error {
			if f.Shape != "" && !(a.Shape >= 0.05 && a.Shape <= 10) {
				return fmt.Errorf("shape = %v, want the %s law's %s in 0.05..10", a.Shape, f.Name, f.Shape)
			}
			return nil
		},
		worker: func(a Availability, q int, c availability.Chain) (whatif.Avail, error) {
			m, err := SemiMarkovOf(c, f, a.Shape)
			if err != nil {
				return nil, fmt.Errorf("availability %s, processor %d: %w", a.Name, q, err)
			}
			return whatif.SemiMarkovAvail{SemiMarkov: m}, nil
		},
	}
}

// modelOf is availability a's study model. An unknown model is an error
// naming it and the models there are.
func modelOf(a Availability) (studyModel, error) {
	if m, ok := studyModels[a.Model]; ok {
		return m, nil
	}
	f, err := sojourn.Lookup(a.Model)
	if err != nil || f.OfMean == nil {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range studyModels {
				if !yield(n) {
					return
				}
			}
		})
		return studyModel{}, fmt.Errorf("model %q, want %s or a sojourn law with a shape (%s)", a.Model, strings.Join(names, ", "), sojourn.List())
	}
	return lawModel(f), nil
}

// platformOf is the what-if platform of a scenario under availability a:
// each worker's speed w[q], and its availability by a's model (from its
// chain chains[q]).
func platformOf(a Availability, chains []availability.Chain, w []int, start availability.Start) (*whatif.Platform, error) {
	m, err := modelOf(a)
	if err != nil {
		return nil, fmt.Errorf("availability %s: %w", a.Name, err)
	}
	if m.worker == nil {
		return nil, fmt.Errorf("availability %s: model %q has no platform", a.Name, a.Model)
	}
	p := &whatif.Platform{Source: "robustness:" + a.Name, Start: start}
	if m.load != nil {
		if err := m.load(a, p, len(w)); err != nil {
			return nil, err
		}
	}
	for q := range w {
		av, err := m.worker(a, q, chains[q])
		if err != nil {
			return nil, err
		}
		p.Workers = append(p.Workers, whatif.Worker{Name: fmt.Sprint(q), Entry: q, W: w[q], Avail: av})
	}
	return p, nil
}
