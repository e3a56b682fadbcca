// Package robustness is the robustness study of issue 18 (beyond the
// papers): the seed-001 §7 grid (and the seed-002 §VII.A grid) re-run with
// availability that is not the papers' Markov chain — semi-Markov
// processes with the chains' mean sojourns but Weibull or log-normal
// sojourn laws (seed 003's shapes), and traces (synthetic from seed 003's
// fits, or a user's FTA trace) — while the heuristics believe a Markov
// chain: the published one when it exists, or one estimated by their
// master's View (all the history, a window, another prior). It is an
// experiment campaign (package experiment: one unit per scenario of the
// grid, every trial, every variant, every heuristic). docs/robustness.md
// reports it.
package robustness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/trace"
)

// Availability is how the workers' states are drawn. Variants that name
// the same Availability replay the same states (their comparison is
// paired).
type Availability struct {
	Name string `json:"name"`
	// Model is "markov" (the scenario's chains, drawn exactly as the
	// papers' campaign draws them), "markov-sources" (the chains through
	// availability.ChainSource: with History), "trace", or the name of a
	// sojourn law of package availability/sojourn, "weibull" or
	// "lognormal" or one a program registers (SemiMarkovOf the scenario's
	// chains with that law and Shape). models.go registers them.
	Model string  `json:"model"`
	Shape float64 `json:"shape,omitempty"`
	// Trace is "ucb" or "entropia" (trace.Generate of seed 003's fits with
	// TraceSeed) or the path of an FTA event_trace.tab file, whose SHA-256
	// is TraceSHA256 (checked when it is read, so that a resumed or merged
	// campaign uses the same data).
	Trace       string `json:"trace,omitempty"`
	TraceSeed   uint64 `json:"trace_seed,omitempty"`
	TraceSHA256 string `json:"trace_sha256,omitempty"`
	// SlotSeconds cuts the trace into slots; Unavailable is the state of
	// its unavailable intervals ("down" or "reclaimed").
	SlotSeconds float64 `json:"slot_seconds,omitempty"`
	Unavailable string  `json:"unavailable,omitempty"`
	// History is the number of slots the master observes before the run
	// (0 for "markov").
	History int `json:"history"`
}

// Beliefs are what the heuristics are told about availability.
type Beliefs struct {
	// Known gives them the scenario's chains (not with traces). Otherwise
	// each worker's chain is estimated by the View from the history and
	// the run: the last Window transitions (0: all), re-estimated every
	// Refresh slots, with the papers' mean chain as prior weighing
	// PriorWeight transitions per row (0: availability.PriorWeight).
	Known       bool    `json:"known"`
	Window      int     `json:"window,omitempty"`
	Refresh     int     `json:"refresh,omitempty"`
	PriorWeight float64 `json:"prior_weight,omitempty"`
}

// Variant is one column of the study: an availability and beliefs.
type Variant struct {
	Name         string  `json:"name"`
	Availability string  `json:"availability"`
	Beliefs      Beliefs `json:"beliefs"`
}

// DefaultHistory is the history of the non-Markov availabilities: 1000
// slots, tens of sojourns per state at the papers' mean sojourns (10 to 100
// slots).
const DefaultHistory = 1000

// DefaultRefresh re-estimates the chains every 10 slots (docs/whatif.md:
// the cost of re-estimating every slot).
const DefaultRefresh = 10

// TraceSlotSeconds cuts the synthetic traces into 10-minute slots: the
// UCB trace's UP intervals (median 1 h, mean 18.7 h) then last 112 slots on
// average and its DOWN intervals (mean 1 h) 6.
const TraceSlotSeconds = 600

// DefaultVariants are the variants of the study.
func DefaultVariants() ([]Availability, []Variant) {
	av := []Availability{
		{Name: "markov", Model: "markov"},
		{Name: "markov-h", Model: "markov-sources", History: DefaultHistory},
		{Name: "weibull", Model: "weibull", Shape: UCBWeibullShape, History: DefaultHistory},
		{Name: "lognormal", Model: "lognormal", Shape: UCBSigma, History: DefaultHistory},
		{Name: "trace-ucb", Model: "trace", Trace: "ucb", TraceSeed: 1, SlotSeconds: TraceSlotSeconds, Unavailable: "down", History: DefaultHistory},
	}
	est := Beliefs{Refresh: DefaultRefresh}
	win := Beliefs{Window: 100, Refresh: DefaultRefresh}
	strong := Beliefs{Window: 100, Refresh: DefaultRefresh, PriorWeight: 20}
	vs := []Variant{
		{"markov", "markov", Beliefs{Known: true}},
		{"markov-est", "markov-h", est},
		{"weibull", "weibull", Beliefs{Known: true}},
		{"weibull-est", "weibull", est},
		{"weibull-win100", "weibull", win},
		{"lognormal", "lognormal", Beliefs{Known: true}},
		{"lognormal-est", "lognormal", est},
		{"lognormal-win100", "lognormal", win},
		{"lognormal-win100-prior20", "lognormal", strong},
		{"trace-ucb-est", "trace-ucb", est},
		{"trace-ucb-win100", "trace-ucb", win},
	}
	return av, vs
}

// TraceAvailability is the availability of a user's FTA trace file, cut
// into slotSeconds slots (its SHA-256 recorded).
func TraceAvailability(name, path string, slotSeconds float64, unavailable string) (Availability, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Availability{}, err
	}
	sum := sha256.Sum256(data)
	return Availability{Name: name, Model: "trace", Trace: path, TraceSHA256: hex.EncodeToString(sum[:]),
		SlotSeconds: slotSeconds, Unavailable: unavailable, History: DefaultHistory}, nil
}

// validate checks the availabilities and variants; errors name the field.
func validate(av []Availability, vs []Variant) error {
	if len(vs) == 0 {
		return fmt.Errorf("robustness: no variant, want at least one")
	}
	names := map[string]Availability{}
	for i, a := range av {
		where := fmt.Sprintf("robustness: availabilities[%d] (%q)", i, a.Name)
		if a.Name == "" {
			return fmt.Errorf("%s: empty name", where)
		}
		if _, dup := names[a.Name]; dup {
			return fmt.Errorf("%s: name used twice", where)
		}
		names[a.Name] = a
		if a.History < 0 || a.History > 1<<20 {
			return fmt.Errorf("%s: history = %d, want 0..%d slots", where, a.History, 1<<20)
		}
		m, err := modelOf(a)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if m.check != nil {
			if err := m.check(a); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
	}
	seen := map[string]bool{}
	for i, v := range vs {
		where := fmt.Sprintf("robustness: variants[%d] (%q)", i, v.Name)
		if v.Name == "" || seen[v.Name] {
			return fmt.Errorf("%s: empty or repeated name", where)
		}
		seen[v.Name] = true
		a, ok := names[v.Availability]
		if !ok {
			return fmt.Errorf("%s: availability %q is not in availabilities", where, v.Availability)
		}
		b := v.Beliefs
		m, _ := modelOf(a)
		if b.Known && !m.chains {
			return fmt.Errorf("%s: known chains with model %s: it has no chain, want known = false", where, a.Model)
		}
		if !b.Known && m.papers {
			return fmt.Errorf("%s: estimated chains need a view from slot 0: use availability model markov-sources", where)
		}
		if b.Window < 0 || b.Refresh < 0 || b.PriorWeight < 0 {
			return fmt.Errorf("%s: window %d, refresh %d, prior_weight %v: want ≥ 0", where, b.Window, b.Refresh, b.PriorWeight)
		}
	}
	return nil
}

// checkTraces loads (or generates) what the availabilities replay, once
// per process (the traces), and checks that there is room for p workers
// (a host each).
func checkTraces(av []Availability, p int) error {
	for _, a := range av {
		m, err := modelOf(a)
		if err != nil {
			return fmt.Errorf("robustness: availability %s: %w", a.Name, err)
		}
		if m.load == nil {
			continue
		}
		if err := m.load(a, nil, p); err != nil {
			return fmt.Errorf("robustness: %w", err)
		}
	}
	return nil
}

// prior is the Dirichlet prior of beliefs b.
func (b Beliefs) prior() [3][3]float64 {
	p := availability.DefaultPrior()
	if b.PriorWeight > 0 {
		for i := range p {
			for j := range p[i] {
				p[i][j] *= b.PriorWeight / availability.PriorWeight
			}
		}
	}
	return p
}

// traces caches the traces cut into slots, by availability.
var traces struct {
	sync.Mutex
	m map[string]*availability.SlotTrace
}

// slotTrace returns the availability's trace cut into slots (read or
// generated once per process).
func (a Availability) slotTrace() (*availability.SlotTrace, error) {
	key := fmt.Sprintf("%s|%d|%s|%g|%s", a.Trace, a.TraceSeed, a.TraceSHA256, a.SlotSeconds, a.Unavailable)
	traces.Lock()
	defer traces.Unlock()
	if st, ok := traces.m[key]; ok {
		return st, nil
	}
	var t *trace.Trace
	if slices.Contains([]string{"ucb", "entropia"}, a.Trace) {
		p, err := trace.PresetByName(a.Trace)
		if err != nil {
			return nil, err
		}
		t = trace.Generate(p, a.TraceSeed)
	} else {
		data, err := os.ReadFile(a.Trace)
		if err != nil {
			return nil, fmt.Errorf("availability %s: %w", a.Name, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != a.TraceSHA256 {
			return nil, fmt.Errorf("availability %s: %s has SHA-256 %s, the campaign was made with %s", a.Name, a.Trace, hex.EncodeToString(sum[:]), a.TraceSHA256)
		}
		if t, err = trace.ReadFTA(bytes.NewReader(data), a.Trace); err != nil {
			return nil, err
		}
	}
	un := availability.Down
	if a.Unavailable == "reclaimed" {
		un = availability.Reclaimed
	}
	st, err := t.States(un).Slots(a.SlotSeconds, availability.Down)
	if err != nil {
		return nil, fmt.Errorf("availability %s: %w", a.Name, err)
	}
	if traces.m == nil {
		traces.m = map[string]*availability.SlotTrace{}
	}
	traces.m[key] = st
	return st, nil
}
