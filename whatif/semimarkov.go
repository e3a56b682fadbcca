package whatif

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
)

func init() {
	RegisterModel(Model{
		Key: "semi_markov",
		Parse: func(c *ParseContext, fields map[string]json.RawMessage, _ int) ([]Avail, error) {
			if err := c.NeedSlot("semi_markov"); err != nil {
				return nil, err
			}
			m, err := parseSemiMarkov(fields["semi_markov"], c.Where+".semi_markov", c.Platform.SlotSeconds)
			if err != nil {
				return nil, err
			}
			return []Avail{SemiMarkovAvail{SemiMarkov: m}}, nil
		},
	})
}

// SemiMarkovAvail is a worker following a semi-Markov model (sojourn laws
// of package availability/sojourn and a jump chain), its times in slots:
// "availability": {"semi_markov": {"up": …, "reclaimed": …, "down": …,
// "jump": …}}.
type SemiMarkovAvail struct {
	SemiMarkov availability.SemiMarkov
}

// Source implements Avail: the model from p.Start, drawing from the
// worker's stream.
func (a SemiMarkovAvail) Source(p *Platform, _ *Trial, _ int, r *rand.Rand) availability.Source {
	return a.SemiMarkov.NewSource(p.Start, r)
}

// KnownChain implements Avail: a semi-Markov worker has no chain (its
// chain is always estimated).
func (a SemiMarkovAvail) KnownChain() (availability.Chain, bool) { return availability.Chain{}, false }

type rawSemiMarkov struct {
	Comment   json.RawMessage `json:"comment"`
	Up        json.RawMessage `json:"up"`
	Reclaimed json.RawMessage `json:"reclaimed"`
	Down      json.RawMessage `json:"down"`
	Jump      [][]float64     `json:"jump"`
}

func parseSemiMarkov(data json.RawMessage, where string, slot float64) (availability.SemiMarkov, error) {
	var r rawSemiMarkov
	var m availability.SemiMarkov
	if err := decodeStrict(data, &r, where); err != nil {
		return m, err
	}
	for s, d := range [3]json.RawMessage{r.Up, r.Reclaimed, r.Down} {
		field := stateWord(availability.State(s))
		if d == nil {
			return m, fmt.Errorf("%s: missing %q (the law of the sojourns in that state)", where, field)
		}
		law, err := parseDist(d, where+"."+field)
		if err != nil {
			return m, err
		}
		m.Sojourn[s] = law.Scaled(slot)
	}
	if r.Jump == nil {
		return m, fmt.Errorf("%s: missing \"jump\" (the embedded jump chain, 3x3 with a zero diagonal)", where)
	}
	if len(r.Jump) != 3 {
		return m, fmt.Errorf("%s: jump has %d rows, want 3 (from u, r, d)", where, len(r.Jump))
	}
	for i, row := range r.Jump {
		if len(row) != 3 {
			return m, fmt.Errorf("%s: jump row %d has %d entries, want 3", where, i, len(row))
		}
		copy(m.Jump[i][:], row)
	}
	if err := m.Validate(); err != nil {
		return m, fmt.Errorf("%s: %w (in slots of %v s)", where, err, slot)
	}
	return m, nil
}

// parseDist reads a sojourn law in seconds: "dist" names a family of
// package availability/sojourn's registry, the other fields are its
// parameters (sojourn.Family.Params), numbers.
func parseDist(data json.RawMessage, where string) (availability.Sojourn, error) {
	var raw map[string]json.RawMessage
	if err := decodeStrict(data, &raw, where); err != nil {
		return nil, err
	}
	delete(raw, "comment")
	fields := make(map[string]any, len(raw)) // JSON null is a field not given
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		r := raw[k]
		var v any
		if err := json.Unmarshal(r, &v); err != nil { // only a number out of a float64's range gets here
			return nil, fmt.Errorf("%s: %s = %s: want a number within ±%.2g", where, k, strings.TrimSpace(string(r)), math.MaxFloat64)
		}
		fields[k] = v
	}
	dist, ok := fields["dist"]
	if !ok || dist == nil {
		return nil, fmt.Errorf("%s: missing \"dist\" (%s)", where, sojourn.List())
	}
	name, ok := dist.(string)
	if !ok {
		return nil, fmt.Errorf("%s: field \"dist\": got %s, want a string (%s)", where, valueKind(dist), sojourn.List())
	}
	fam, err := sojourn.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s: dist = %q: want %s", where, name, sojourn.List())
	}
	params := sojourn.Params{}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k == "dist" || fields[k] == nil {
			continue
		}
		if !slices.Contains(fam.Params, k) {
			return nil, fmt.Errorf("%s: %s is not a parameter of the %s law (it takes %s)", where, k, fam.Name, strings.Join(fam.Params, ", "))
		}
		v, ok := fields[k].(float64)
		if !ok {
			return nil, fmt.Errorf("%s: field %q: got %s, want a number", where, k, valueKind(fields[k]))
		}
		params[k] = v
	}
	d, err := fam.Decode(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if d == nil {
		return nil, fmt.Errorf("%s: the %s law's Decode gave no law (a bug of its registration)", where, fam.Name)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return d, nil
}

// valueKind names the kind of a JSON value decoded into an any.
func valueKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "an array"
	}
	return "an object"
}
