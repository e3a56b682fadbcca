package trace

import (
	"fmt"

	"github.com/volsched/volsched/availability"
)

// The conversions from this package's types to package availability's
// model. They live here, not in availability, so that the model (and the
// scheduling cores built on it) does not depend on trace files and fits.

// Sojourn is the law of the fit (as `volsched trace fit` prints it), in the
// unit of the fitted durations. The error names the family or the
// parameter that is wrong.
func (f Fit) Sojourn() (availability.Sojourn, error) {
	fam, err := availability.ParseFamily(f.Name)
	if err != nil {
		return availability.Sojourn{}, err
	}
	want := map[availability.Family]int{availability.Exponential: 1, availability.Weibull: 2, availability.LogNormal: 2}[fam]
	if len(f.Params) != want {
		return availability.Sojourn{}, fmt.Errorf("%s fit has %d parameters, want %d", fam, len(f.Params), want)
	}
	var s availability.Sojourn
	switch fam {
	case availability.Exponential:
		s = availability.Sojourn{Family: fam, Rate: f.Params[0]}
	case availability.Weibull:
		s = availability.Sojourn{Family: fam, Shape: f.Params[0], Scale: f.Params[1]}
	default:
		s = availability.Sojourn{Family: fam, Mu: f.Params[0], Sigma: f.Params[1]}
	}
	return s, s.Validate()
}

// States turns the trace (two states: available, unavailable) into a
// 3-state one: available events are UP, unavailable events are in state
// unavailable (DOWN or RECLAIMED: the FTA does not say whether the owner
// reclaimed the host or it failed). Events of zero length are dropped.
func (t *Trace) States(unavailable availability.State) *availability.StateTrace {
	st := &availability.StateTrace{Start: t.Start, End: t.End}
	for _, n := range t.Nodes {
		h := availability.HostTrace{ID: n.ID, Name: n.Name}
		for _, e := range n.Events {
			if !(e.End > e.Start) {
				continue
			}
			s := unavailable
			if e.Available {
				s = availability.Up
			}
			h.Intervals = append(h.Intervals, availability.Interval{Start: e.Start, End: e.End, State: s})
		}
		st.Hosts = append(st.Hosts, h)
	}
	return st
}
