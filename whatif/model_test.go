package whatif

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
)

// periodic is an availability model a program registers (here, for the
// test): UP for Up slots, DOWN for Down slots, over and over, from a phase
// drawn at each trial from the worker's stream.
type periodic struct{ Up, Down int }

func (a periodic) Source(_ *Platform, _ *Trial, _ int, r *rand.Rand) availability.Source {
	var s []availability.State
	for k := 0; k < a.Up; k++ {
		s = append(s, availability.Up)
	}
	for k := 0; k < a.Down; k++ {
		s = append(s, availability.Down)
	}
	return &cycle{s: s, t: r.IntN(len(s))}
}

func (periodic) KnownChain() (availability.Chain, bool) { return availability.Chain{}, false }

type cycle struct {
	s []availability.State
	t int
}

func (c *cycle) Next() availability.State {
	x := c.s[c.t%len(c.s)]
	c.t++
	return x
}

func init() {
	RegisterModel(Model{
		Key: "test_periodic",
		Parse: func(c *ParseContext, fields map[string]json.RawMessage, _ int) ([]Avail, error) {
			var a periodic
			if err := decodeStrict(fields["test_periodic"], &a, c.Where+".test_periodic"); err != nil {
				return nil, err
			}
			if a.Up < 1 || a.Down < 0 {
				return nil, fmt.Errorf("%s.test_periodic: up %d, down %d: want up ≥ 1, down ≥ 0", c.Where, a.Up, a.Down)
			}
			return []Avail{a}, nil
		},
	})
}

// TestRegisteredModel: a model registered by a program is read from a
// platform file by its key, expanded by count, drawn in trials from each
// worker's own stream, converted to the models' instances, and listed in
// the errors; ParsePlatform, Trial and the conversions know nothing of it.
func TestRegisteredModel(t *testing.T) {
	const file = `{"slot_seconds": 60, "master": {"ncom": 2, "tprog": 5, "tdata": 1},
	  "workers": [{"name": "p", "count": 3, "w": 2, "availability": {"test_periodic": {"Up": 3, "Down": 2}}},
	              {"name": "c", "w": 1, "availability": {"chain": {"P": [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]]}}}]}`
	p, err := ParsePlatform([]byte(file), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Workers) != 4 || p.Workers[2].Name != "p-3" || p.Workers[2].Avail != (periodic{3, 2}) {
		t.Fatalf("workers %+v", p.Workers)
	}
	tr, err := p.Trial(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for q := 0; q < 3; q++ {
		got := availability.Runs(availability.Take(tr.Sources[q], 40))
		for _, r := range got[1 : len(got)-1] {
			if (r.State == availability.Up && r.N != 3) || (r.State == availability.Down && r.N != 2) {
				t.Errorf("worker %d: runs %v, want UP 3, DOWN 2", q, got)
				break
			}
		}
	}
	if _, err := IterativeInstance(p, &Application{Source: "a", Kind: Independent, Tasks: 2, Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(Models(), "test_periodic") {
		t.Errorf("Models() = %v", Models())
	}
	for in, want := range map[string]string{
		strings.Replace(file, `"Down": 2`, `"Down": -1`, 1):               "p.json: workers[0].availability.test_periodic: up 3, down -1",
		strings.Replace(file, `"Down": 2}`, `"Down": 2}, "host": "x"`, 1): "p.json: workers[0].availability: host is for trace availability, not test_periodic",
		strings.Replace(file, `"Down": 2}`, `"Down": 2}, "hots": "x"`, 1): `p.json: workers[0].availability: unknown field "hots"`,
		strings.Replace(file, `"Down": 2}`, `"Down": 2}, "chain": {}`, 1): "2 of chain, semi_markov, test_periodic, trace given, want exactly one",
	} {
		if _, err := ParsePlatform([]byte(in), "p.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want an error containing %q", err, want)
		}
	}
}

// TestRegisterModelClash: a model without a key or Parse, or whose key
// clashes with another model's key or field, is refused.
func TestRegisterModelClash(t *testing.T) {
	parse := func(*ParseContext, map[string]json.RawMessage, int) ([]Avail, error) { return nil, nil }
	for name, m := range map[string]Model{
		"no key":       {Parse: parse},
		"no parse":     {Key: "x"},
		"key taken":    {Key: "chain", Parse: parse},
		"key a field":  {Key: "hosts", Parse: parse},
		"field a key":  {Key: "y", Fields: []string{"trace"}, Parse: parse},
		"comment":      {Key: "comment", Parse: parse},
		"comment also": {Key: "z", Fields: []string{"comment"}, Parse: parse},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: RegisterModel did not panic", name)
				}
			}()
			RegisterModel(m)
		}()
	}
}
