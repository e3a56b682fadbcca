package whatif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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
	var fields map[string]json.RawMessage
	if err := decodeStrict(data, &fields, where); err != nil {
		return nil, err
	}
	delete(fields, "comment")
	raw, ok := fields["dist"]
	if !ok || isNull(raw) {
		return nil, fmt.Errorf("%s: missing \"dist\" (%s)", where, sojourn.List())
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return nil, fmt.Errorf("%s: field \"dist\": got %s, want a string (%s)", where, jsonKind(bytes.TrimSpace(raw)), sojourn.List())
	}
	fam, err := sojourn.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s: dist = %q: want %s", where, name, sojourn.List())
	}
	params := sojourn.Params{}
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		if k == "dist" || isNull(fields[k]) {
			continue
		}
		if !slices.Contains(fam.Params, k) {
			return nil, fmt.Errorf("%s: %s is not a parameter of the %s law (it takes %s)", where, k, fam.Name, strings.Join(fam.Params, ", "))
		}
		var v float64
		if err := json.Unmarshal(fields[k], &v); err != nil {
			t := bytes.TrimSpace(fields[k])
			if kind := jsonKind(t); kind != "a number" {
				return nil, fmt.Errorf("%s: field %q: got %s, want a number", where, k, kind)
			}
			return nil, fmt.Errorf("%s: %s = %s: out of the range of a float64", where, k, t)
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

// isNull reports whether a JSON value is null (a field given as null is a
// field not given, as encoding/json reads it into a pointer).
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
