// Package whatif reads the platform and application files of the what-if
// simulator (issue 18; formats in docs/whatif.md), checks them, converts
// them to the models' instance types (convert.go) and builds each trial's
// availability (trial.go). A worker's availability model is one
// registration (model.go: chain.go, semimarkov.go, tracemodel.go, and any
// a program adds). Parsing and validation are pure: trace files are read
// through a function the caller gives (LoadTraces).
package whatif

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/volsched/volsched/availability"
)

// Limits on the sizes a file may ask for (far beyond any useful run, they
// keep a mistyped number from exhausting memory).
const (
	MaxWorkers     = 1 << 15
	MaxSlots       = 1 << 24 // w, T_prog, T_data, history
	MaxTasks       = 1 << 15
	MaxIterations  = 1 << 20
	MaxSlotSeconds = 1e9
	maxWorkerEntry = MaxWorkers
	// MaxHistoryDraws bounds history_slots × workers (the draws that prime a
	// trial's view).
	MaxHistoryDraws = 1 << 30
)

// Platform is a checked platform file: the workers (speed and
// availability), the master's link and the estimator the heuristics use.
// All times are in slots.
type Platform struct {
	Source      string  // the file, for messages
	SlotSeconds float64 // slot length in seconds; 0 when the file gives none
	NCom        int     // simultaneous transfers the master sustains
	TProg       int     // slots to send the program
	TData       int     // slots to send one task's data
	// Start is the slot-0 state of chain and semi-Markov workers.
	Start     availability.Start
	Estimator Estimator
	Traces    []Trace // sorted by name
	Workers   []Worker
}

// Estimator is what the heuristics are told about availability.
type Estimator struct {
	// KnownChains gives the heuristics the true chain of chain workers
	// (the papers' setting); when false those are estimated too. Trace and
	// semi-Markov workers are always estimated.
	KnownChains bool
	History     int // slots observed before the run's slot 0
	Window      int // transitions remembered per worker (0: all)
	Refresh     int // slots between re-estimations (0, 1: every slot)
	Prior       [3][3]float64
}

// ViewConfig is the availability.View configuration of the estimator.
func (e Estimator) ViewConfig() availability.ViewConfig {
	return availability.ViewConfig{Prior: e.Prior, Window: e.Window, Refresh: e.Refresh}
}

// Trace is a trace file named in the platform's "traces".
type Trace struct {
	Name        string
	File        string // as written in the platform file (relative to it)
	Format      string // "fta" or "csv"
	Unavailable availability.State
	Gap         availability.State
	Slots       *availability.SlotTrace // set by LoadTraces
}

// Worker is one processor.
type Worker struct {
	Name  string
	Entry int   // index of its entry in the file's "workers"
	W     int   // slots of UP time per task
	Avail Avail // its availability, a value of a registered model (model.go)
}

type rawPlatform struct {
	Comment     json.RawMessage            `json:"comment"`
	SlotSeconds *float64                   `json:"slot_seconds"`
	Master      json.RawMessage            `json:"master"`
	Start       *string                    `json:"start"`
	Estimator   json.RawMessage            `json:"estimator"`
	Traces      map[string]json.RawMessage `json:"traces"`
	Workers     []json.RawMessage          `json:"workers"`
}

type rawMaster struct {
	Comment         json.RawMessage `json:"comment"`
	NCom            *int            `json:"ncom"`
	MasterBandwidth *float64        `json:"master_bandwidth"`
	TProg           *int            `json:"tprog"`
	TData           *int            `json:"tdata"`
	ProgramBytes    *float64        `json:"program_bytes"`
	DataBytes       *float64        `json:"data_bytes"`
	Bandwidth       *float64        `json:"bandwidth"`
}

type rawEstimator struct {
	Comment           json.RawMessage `json:"comment"`
	KnownChains       *bool           `json:"known_chains"`
	HistorySlots      *int            `json:"history_slots"`
	WindowTransitions *int            `json:"window_transitions"`
	RefreshSlots      *int            `json:"refresh_slots"`
	Prior             [][]float64     `json:"prior"`
}

type rawTrace struct {
	Comment     json.RawMessage `json:"comment"`
	File        *string         `json:"file"`
	Format      *string         `json:"format"`
	Unavailable *string         `json:"unavailable"`
	Gap         *string         `json:"gap"`
}

type rawWorker struct {
	Comment      json.RawMessage `json:"comment"`
	Name         *string         `json:"name"`
	Count        *int            `json:"count"`
	W            *int            `json:"w"`
	TaskSeconds  *float64        `json:"task_seconds"`
	Availability json.RawMessage `json:"availability"`
}

// slotsOf converts seconds to whole slots, rounding up (a value within
// 1e-9 of an integer counts as that integer).
func slotsOf(seconds, slot float64) float64 {
	x := seconds / slot
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, math.Abs(x)) {
		return r
	}
	return math.Ceil(x)
}

// needSlot is the error of a field that needs the slot length when the
// platform gives none (nil when it does): where and what name the field.
func (p *Platform) needSlot(where, what string) error {
	if p.SlotSeconds == 0 {
		return fmt.Errorf("%s: %s needs \"slot_seconds\" (the slot length in seconds, at the top level of the platform)", where, what)
	}
	return nil
}

// ParsePlatform reads and checks a platform file (docs/whatif.md). source
// names it in errors. Trace files are not read: call LoadTraces.
func ParsePlatform(data []byte, source string) (*Platform, error) {
	var raw rawPlatform
	if err := decodeStrict(data, &raw, source); err != nil {
		return nil, err
	}
	p := &Platform{Source: source}
	if raw.SlotSeconds != nil {
		if err := checkRange(source, "slot_seconds", *raw.SlotSeconds, 0, MaxSlotSeconds, true, fmt.Sprintf("a slot length in seconds in (0, %g]", MaxSlotSeconds)); err != nil {
			return nil, err
		}
		p.SlotSeconds = *raw.SlotSeconds
	}
	if raw.Master == nil {
		return nil, fmt.Errorf("%s: missing field \"master\" (ncom, tprog, tdata or program_bytes, data_bytes, bandwidth)", source)
	}
	if err := p.parseMaster(raw.Master, source+": master"); err != nil {
		return nil, err
	}
	p.Start = availability.StartStationary
	if raw.Start != nil {
		s, err := availability.ParseStart(*raw.Start)
		if err != nil {
			return nil, fmt.Errorf("%s: start = %q, want stationary or up", source, *raw.Start)
		}
		p.Start = s
	}
	if err := p.parseEstimator(raw.Estimator, source+": estimator"); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(raw.Traces))
	for n := range raw.Traces {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		where := fmt.Sprintf("%s: traces.%s", source, n)
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("%s: traces: a trace has an empty name, want a name workers refer to", source)
		}
		if err := p.needSlot(where, "a trace"); err != nil {
			return nil, err
		}
		t, err := parseTrace(raw.Traces[n], where)
		if err != nil {
			return nil, err
		}
		t.Name = n
		p.Traces = append(p.Traces, t)
	}
	if len(raw.Workers) == 0 {
		return nil, fmt.Errorf("%s: \"workers\" is missing or empty, want at least one worker", source)
	}
	if len(raw.Workers) > maxWorkerEntry {
		return nil, fmt.Errorf("%s: %d worker entries, want at most %d", source, len(raw.Workers), maxWorkerEntry)
	}
	seen := map[string]int{} // worker name → entry
	for i, rw := range raw.Workers {
		where := fmt.Sprintf("%s: workers[%d]", source, i)
		ws, err := p.parseWorker(rw, i, where)
		if err != nil {
			return nil, err
		}
		if len(p.Workers)+len(ws) > MaxWorkers {
			return nil, fmt.Errorf("%s: more than %d workers", where, MaxWorkers)
		}
		for _, w := range ws {
			if j, ok := seen[w.Name]; ok {
				return nil, fmt.Errorf("%s: worker name %q is already used by workers[%d], want unique names", where, w.Name, j)
			}
			seen[w.Name] = i
		}
		p.Workers = append(p.Workers, ws...)
	}
	if h := p.Estimator.History; h > 0 && h*len(p.Workers) > MaxHistoryDraws {
		return nil, fmt.Errorf("%s: estimator: history_slots = %d for %d workers is %d draws per trial, want at most %d", source, h, len(p.Workers), h*len(p.Workers), MaxHistoryDraws)
	}
	for _, m := range modelsInOrder() {
		if m.Check != nil {
			if err := m.Check(p); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func (p *Platform) parseMaster(data json.RawMessage, where string) error {
	var m rawMaster
	if err := decodeStrict(data, &m, where); err != nil {
		return err
	}
	bwUsed := false
	bw := func(what string) (float64, error) {
		bwUsed = true
		if m.Bandwidth == nil {
			return 0, fmt.Errorf("%s: %s needs \"bandwidth\" (bytes per second of one transfer, bw)", where, what)
		}
		if err := checkRange(where, "bandwidth", *m.Bandwidth, 0, math.MaxFloat64, true, "bytes per second > 0"); err != nil {
			return 0, err
		}
		return *m.Bandwidth, nil
	}
	switch {
	case m.NCom != nil && m.MasterBandwidth != nil:
		return fmt.Errorf("%s: both ncom and master_bandwidth given, want one", where)
	case m.NCom != nil:
		if err := checkInt(where, "ncom", *m.NCom, 1, MaxWorkers, fmt.Sprintf("an integer in [1, %d] (simultaneous transfers)", MaxWorkers)); err != nil {
			return err
		}
		p.NCom = *m.NCom
	case m.MasterBandwidth != nil:
		b, err := bw("master_bandwidth")
		if err != nil {
			return err
		}
		if err := checkRange(where, "master_bandwidth", *m.MasterBandwidth, 0, math.MaxFloat64, true, "bytes per second > 0"); err != nil {
			return err
		}
		n := *m.MasterBandwidth / b
		if r := math.Round(n); math.Abs(n-r) <= 1e-9*math.Max(1, n) {
			n = r
		}
		n = math.Floor(n)
		if n < 1 || n > MaxWorkers {
			return fmt.Errorf("%s: master_bandwidth / bandwidth = %v / %v gives ncom = %v, want an integer in [1, %d]", where, *m.MasterBandwidth, b, n, MaxWorkers)
		}
		p.NCom = int(n)
	default:
		return fmt.Errorf("%s: missing ncom (or master_bandwidth with bandwidth)", where)
	}
	transfer := func(slots *int, bytes *float64, name, bname string) (int, error) {
		switch {
		case slots != nil && bytes != nil:
			return 0, fmt.Errorf("%s: both %s and %s given, want one", where, name, bname)
		case slots != nil:
			if err := checkInt(where, name, *slots, 0, MaxSlots, fmt.Sprintf("an integer number of slots in [0, %d]", MaxSlots)); err != nil {
				return 0, err
			}
			return *slots, nil
		case bytes != nil:
			b, err := bw(bname)
			if err != nil {
				return 0, err
			}
			if err := p.needSlot(where, bname); err != nil {
				return 0, err
			}
			if err := checkRange(where, bname, *bytes, 0, math.MaxFloat64, false, "a size in bytes ≥ 0"); err != nil {
				return 0, err
			}
			s := slotsOf(*bytes/b, p.SlotSeconds)
			if s > MaxSlots {
				return 0, fmt.Errorf("%s: %s / bandwidth = %v s = %v slots, want at most %d slots", where, bname, *bytes/b, s, MaxSlots)
			}
			return int(s), nil
		}
		return 0, fmt.Errorf("%s: missing %s (slots) or %s (with bandwidth)", where, name, bname)
	}
	var err error
	if p.TProg, err = transfer(m.TProg, m.ProgramBytes, "tprog", "program_bytes"); err != nil {
		return err
	}
	if p.TData, err = transfer(m.TData, m.DataBytes, "tdata", "data_bytes"); err != nil {
		return err
	}
	if m.Bandwidth != nil && !bwUsed {
		return fmt.Errorf("%s: bandwidth is given but unused (it converts program_bytes, data_bytes and master_bandwidth)", where)
	}
	return nil
}

func (p *Platform) parseEstimator(data json.RawMessage, where string) error {
	p.Estimator = Estimator{KnownChains: true, Prior: availability.DefaultPrior()}
	if data == nil {
		return nil
	}
	var e rawEstimator
	if err := decodeStrict(data, &e, where); err != nil {
		return err
	}
	if e.KnownChains != nil {
		p.Estimator.KnownChains = *e.KnownChains
	}
	for _, f := range []struct {
		v    *int
		dst  *int
		name string
	}{{e.HistorySlots, &p.Estimator.History, "history_slots"}, {e.WindowTransitions, &p.Estimator.Window, "window_transitions"}, {e.RefreshSlots, &p.Estimator.Refresh, "refresh_slots"}} {
		if f.v == nil {
			continue
		}
		if err := checkInt(where, f.name, *f.v, 0, MaxSlots, fmt.Sprintf("an integer in [0, %d]", MaxSlots)); err != nil {
			return err
		}
		*f.dst = *f.v
	}
	if e.Prior != nil {
		if len(e.Prior) != 3 {
			return fmt.Errorf("%s: prior has %d rows, want 3 (u, r, d) of 3 pseudo-counts", where, len(e.Prior))
		}
		for i, row := range e.Prior {
			if len(row) != 3 {
				return fmt.Errorf("%s: prior row %d has %d entries, want 3", where, i, len(row))
			}
			copy(p.Estimator.Prior[i][:], row)
		}
		if _, err := availability.NewEstimator(p.Estimator.Prior); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

func parseStateName(where, field, s string, allowed ...availability.State) (availability.State, error) {
	var names []string
	for _, a := range allowed {
		names = append(names, stateWord(a))
	}
	want := strings.Join(names, " or ")
	st, err := availability.ParseState(strings.ToLower(s))
	if err != nil || !slices.Contains(allowed, st) {
		return 0, fmt.Errorf("%s: %s = %q, want %s", where, field, s, want)
	}
	return st, nil
}

func stateWord(s availability.State) string {
	return map[availability.State]string{availability.Up: "up", availability.Reclaimed: "reclaimed", availability.Down: "down"}[s]
}

func parseTrace(data json.RawMessage, where string) (Trace, error) {
	var r rawTrace
	if err := decodeStrict(data, &r, where); err != nil {
		return Trace{}, err
	}
	t := Trace{Unavailable: availability.Down, Gap: availability.Down}
	if r.File == nil || strings.TrimSpace(*r.File) == "" {
		return t, fmt.Errorf("%s: missing or empty \"file\", want the path of an FTA or CSV trace (relative to the platform file)", where)
	}
	t.File = *r.File
	t.Format = "fta"
	if strings.HasSuffix(strings.ToLower(t.File), ".csv") {
		t.Format = "csv"
	}
	if r.Format != nil {
		if *r.Format != "fta" && *r.Format != "csv" {
			return t, fmt.Errorf("%s: format = %q, want fta or csv", where, *r.Format)
		}
		t.Format = *r.Format
	}
	if r.Unavailable != nil {
		if t.Format != "fta" {
			return t, fmt.Errorf("%s: unavailable is for FTA traces (a CSV trace gives the state of each interval)", where)
		}
		s, err := parseStateName(where, "unavailable", *r.Unavailable, availability.Down, availability.Reclaimed)
		if err != nil {
			return t, err
		}
		t.Unavailable = s
	}
	if r.Gap != nil {
		s, err := parseStateName(where, "gap", *r.Gap, availability.Up, availability.Reclaimed, availability.Down)
		if err != nil {
			return t, err
		}
		t.Gap = s
	}
	return t, nil
}

func (p *Platform) parseWorker(data json.RawMessage, entry int, where string) ([]Worker, error) {
	var r rawWorker
	if err := decodeStrict(data, &r, where); err != nil {
		return nil, err
	}
	w := Worker{Entry: entry}
	switch {
	case r.W != nil && r.TaskSeconds != nil:
		return nil, fmt.Errorf("%s: both w and task_seconds given, want one", where)
	case r.W != nil:
		if err := checkInt(where, "w", *r.W, 1, MaxSlots, fmt.Sprintf("an integer number of UP slots per task in [1, %d]", MaxSlots)); err != nil {
			return nil, err
		}
		w.W = *r.W
	case r.TaskSeconds != nil:
		if err := p.needSlot(where, "task_seconds"); err != nil {
			return nil, err
		}
		if err := checkRange(where, "task_seconds", *r.TaskSeconds, 0, math.MaxFloat64, true, "a task time in seconds > 0"); err != nil {
			return nil, err
		}
		s := slotsOf(*r.TaskSeconds, p.SlotSeconds)
		if s > MaxSlots {
			return nil, fmt.Errorf("%s: task_seconds = %v is %v slots, want at most %d", where, *r.TaskSeconds, s, MaxSlots)
		}
		w.W = max(int(s), 1)
	default:
		return nil, fmt.Errorf("%s: missing w (UP slots per task) or task_seconds", where)
	}
	if r.Availability == nil {
		return nil, fmt.Errorf("%s: missing \"availability\" (%s)", where, strings.Join(Models(), ", "))
	}
	count := 0
	if r.Count != nil {
		if err := checkInt(where, "count", *r.Count, 1, MaxWorkers, fmt.Sprintf("an integer in [1, %d]", MaxWorkers)); err != nil {
			return nil, err
		}
		count = *r.Count
	}
	avails, err := p.parseAvail(r.Availability, where+".availability", where, count)
	if err != nil {
		return nil, err
	}
	count = len(avails)
	name := fmt.Sprintf("worker%d", entry+1)
	if r.Name != nil {
		if strings.TrimSpace(*r.Name) == "" {
			return nil, fmt.Errorf("%s: name is empty, want a name (or no name: worker%d)", where, entry+1)
		}
		name = *r.Name
	}
	out := make([]Worker, count)
	for k := range out {
		out[k] = w
		out[k].Name = name
		if count > 1 {
			out[k].Name = fmt.Sprintf("%s-%d", name, k+1)
		}
		out[k].Avail = avails[k]
	}
	return out, nil
}
