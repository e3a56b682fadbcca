package availability

import "fmt"

// MarkovReport is the test of the Markov assumption on a trace cut into
// slots (the "markov" section of `volsched trace fit --slot`): the pooled
// test, each host's chain and test, and how many hosts' tests reject the
// geometric law at 1 %, per state.
type MarkovReport struct {
	Slot        float64        `json:"slot_seconds"`
	Unavailable string         `json:"unavailable_as"` // "down" or "reclaimed"
	Slots       int            `json:"slots"`
	Pooled      []SojournTest  `json:"pooled"`
	Hosts       []HostMarkov   `json:"hosts"`
	Rejected    map[string]int `json:"hosts_rejected_at_1pct"`
}

// RejectLevel is the p-value below which MarkovReport counts a host's test
// as a rejection.
const RejectLevel = 0.01

// ReportMarkov estimates each host's chain of sl from all its slots (the
// default prior) and tests its sojourns, per host and pooled
// (TraceMarkov). unavailable is the state the trace's unavailability was
// read as (Down or Reclaimed; see trace's Trace.States).
func ReportMarkov(sl *SlotTrace, unavailable State) (*MarkovReport, error) {
	var un string
	switch unavailable {
	case Down:
		un = "down"
	case Reclaimed:
		un = "reclaimed"
	default:
		return nil, fmt.Errorf("markov report: unavailability read as %v, want down or reclaimed", unavailable)
	}
	pooled, hosts, err := TraceMarkov(sl, DefaultPrior())
	if err != nil {
		return nil, err
	}
	rej := map[string]int{}
	for _, h := range hosts {
		for _, t := range h.Tests {
			if t.P < RejectLevel {
				rej[t.Name]++
			}
		}
	}
	return &MarkovReport{Slot: sl.Slot, Unavailable: un, Slots: sl.Len, Pooled: pooled, Hosts: hosts, Rejected: rej}, nil
}
