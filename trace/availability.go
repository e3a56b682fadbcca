package trace

import (
	"fmt"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
)

// The conversions from this package's types to package availability's
// model. They live here, not in availability, so that the model (and the
// scheduling cores built on it) does not depend on trace files and fits.

// fitLaws are the laws this package fits (Fit.Name), with the number of
// their parameters and the law of given parameters (in Fit.Params' order).
var fitLaws = map[string]struct {
	params int
	law    func(p []float64) availability.Sojourn
}{
	"exponential": {1, func(p []float64) availability.Sojourn { return sojourn.Exponential{Rate: p[0]} }},
	"weibull":     {2, func(p []float64) availability.Sojourn { return sojourn.Weibull{Shape: p[0], Scale: p[1]} }},
	"lognormal":   {2, func(p []float64) availability.Sojourn { return sojourn.LogNormal{Mu: p[0], Sigma: p[1]} }},
}

// Sojourn is the law of the fit (as `volsched trace fit` prints it), in the
// unit of the fitted durations: a law of package availability/sojourn. The
// error names the distribution or the parameter that is wrong.
func (f Fit) Sojourn() (availability.Sojourn, error) {
	l, ok := fitLaws[f.Name]
	if !ok {
		return nil, fmt.Errorf("distribution %q: want exponential, lognormal or weibull (the laws trace fits)", f.Name)
	}
	if len(f.Params) != l.params {
		return nil, fmt.Errorf("%s fit has %d parameters, want %d", f.Name, len(f.Params), l.params)
	}
	s := l.law(f.Params)
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
