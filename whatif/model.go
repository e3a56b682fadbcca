package whatif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/volsched/volsched/availability"
)

// Avail is one worker's availability, as its model read it from the
// platform file: a value of one of the registered models (RegisterModel).
// ParsePlatform, Trial and the conversions to the models never look inside
// one.
type Avail interface {
	// Source is the worker's availability in a trial (from the first slot
	// of its history): r is the worker's own stream in the trial (seed,
	// trial, worker q), p.Start its slot-0 choice, tr what the models drew
	// for the trial before the sources (a trace's offset and hosts).
	Source(p *Platform, tr *Trial, q int, r *rand.Rand) availability.Source
	// KnownChain is the worker's Markov chain when it has one: with
	// known_chains, the heuristics are told it (and the master's view
	// keeps it fixed). ok is false when the availability is not a chain.
	KnownChain() (c availability.Chain, ok bool)
}

// Model is an availability model of the platform files, registered once
// (RegisterModel) under the key that selects it in a worker's
// "availability" object: "chain", "semi_markov" and "trace" are; a program
// registers its own the same way (docs/extending.md).
type Model struct {
	// Key selects the model in a worker's "availability" object, whose
	// value is the model's description.
	Key string
	// Fields are the other keys of the "availability" object the model
	// reads ("host" and "hosts" for a trace).
	Fields []string
	// Parse reads a worker entry's availability: fields holds the
	// "availability" object's keys that are the model's (Key and any of
	// Fields), count the entry's "count" (0 when not given). It returns
	// the availability of each of the entry's workers (count of them, or
	// as many as the model says when count is 0: a trace's hosts), or one
	// that they all share. Its errors name the place (c.Where).
	Parse func(c *ParseContext, fields map[string]json.RawMessage, count int) ([]Avail, error)
	// Check, when not nil, checks the platform once all its workers are
	// read (a trace: each host replayed once, every trace used).
	Check func(p *Platform) error
	// BeginTrial, when not nil, draws what the model's workers share in a
	// trial, before their sources are made (a trace: its offset and its
	// drawn hosts). It draws from streams of its own, never a worker's.
	BeginTrial func(p *Platform, seed, trial uint64, tr *Trial) error
}

// ParseContext is what a Model's Parse is given besides its fields.
type ParseContext struct {
	// Platform is the platform as read so far: the slot length, the
	// traces, the start, the estimator, and the workers of the earlier
	// entries.
	Platform *Platform
	// Where is the "availability" object's place for errors
	// ("platform.json: workers[3].availability"); Worker the worker
	// entry's ("platform.json: workers[3]").
	Where, Worker string
}

// NeedSlot is the error of a model that needs the slot length when the
// platform gives none (nil when it does); what names what needs it.
func (c *ParseContext) NeedSlot(what string) error { return c.Platform.needSlot(c.Where, what) }

var models struct {
	sync.RWMutex
	byKey map[string]Model
}

// RegisterModel makes an availability model known by its key. It is meant
// for init functions: a model without a key or Parse, whose key is already
// a model's key or field (or whose field is a model's key), or that uses
// "comment", is a programming error and panics.
func RegisterModel(m Model) {
	if m.Key == "" || m.Key == "comment" || m.Parse == nil || slices.Contains(m.Fields, "comment") || slices.Contains(m.Fields, m.Key) {
		panic(fmt.Sprintf("whatif.RegisterModel(%q): a model needs a key and a Parse, and neither may be \"comment\"", m.Key))
	}
	models.Lock()
	defer models.Unlock()
	for _, x := range models.byKey {
		if x.Key == m.Key || slices.Contains(x.Fields, m.Key) || slices.Contains(m.Fields, x.Key) {
			panic(fmt.Sprintf("whatif.RegisterModel(%q): it clashes with the %q model's keys", m.Key, x.Key))
		}
	}
	if models.byKey == nil {
		models.byKey = map[string]Model{}
	}
	models.byKey[m.Key] = m
}

// Models lists the registered models' keys, sorted.
func Models() []string {
	var keys []string
	for _, m := range modelsInOrder() {
		keys = append(keys, m.Key)
	}
	return keys
}

// modelsInOrder are the registered models, sorted by key.
func modelsInOrder() []Model {
	models.RLock()
	defer models.RUnlock()
	out := make([]Model, 0, len(models.byKey))
	for _, m := range models.byKey {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// parseAvail reads a worker entry's "availability" object: exactly one
// model's key, that model's fields and a comment. count is the entry's
// "count" (0 when not given). It returns one Avail per worker of the
// entry.
func (p *Platform) parseAvail(raw json.RawMessage, where, worker string, count int) ([]Avail, error) {
	var fields map[string]json.RawMessage
	if err := decodeStrict(raw, &fields, where); err != nil {
		return nil, err
	}
	delete(fields, "comment")
	all := modelsInOrder()
	var keys []string
	var m Model
	for _, x := range all {
		if _, ok := fields[x.Key]; ok {
			keys = append(keys, x.Key)
			m = x
		}
	}
	if len(keys) != 1 {
		return nil, fmt.Errorf("%s: %d of %s given, want exactly one", where, len(keys), strings.Join(Models(), ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k == m.Key || slices.Contains(m.Fields, k) {
			continue
		}
		for _, x := range all {
			if slices.Contains(x.Fields, k) {
				return nil, fmt.Errorf("%s: %s is for %s availability, not %s", where, k, x.Key, m.Key)
			}
		}
		return nil, fmt.Errorf("%s: unknown field %q", where, k)
	}
	c := &ParseContext{Platform: p, Where: where, Worker: worker}
	avs, err := m.Parse(c, fields, count)
	if err != nil {
		return nil, err
	}
	n := max(count, 1)
	switch {
	case len(avs) == 1 && n > 1:
		for len(avs) < n {
			avs = append(avs, avs[0])
		}
	case len(avs) == 0 || (count > 0 && len(avs) != count):
		return nil, fmt.Errorf("%s: the %s model gave %d workers for count = %d (a bug of its Parse)", where, m.Key, len(avs), count)
	}
	return avs, nil
}

// decodeField decodes fields[key], when given, into dst; the error names
// the field, its value (cut at 40 bytes) and want.
func decodeField(where, key string, fields map[string]json.RawMessage, dst any, want string) error {
	raw, ok := fields[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		v := string(bytes.TrimSpace(raw))
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Errorf("%s: %s = %s, want %s", where, key, v, want)
	}
	return nil
}
