package redundant

import (
	"math"
	"strings"
	"testing"
)

// FuzzAllocInput: `alloc --probs FILE` yields valid failure probabilities
// or an error, for the plain algorithms and for SAB.
func FuzzAllocInput(f *testing.F) {
	f.Add([]byte(`{"p": [0.1, 0.5, 1]}`))
	f.Add([]byte(`{"ages": [1, 2, 3], "size": 10, "dist": {"name": "lognormal", "params": [1, 2]}}`))
	f.Add([]byte(`{"ages": [1e308, 0], "size": 1e-300, "dist": {"name": "weibull", "params": [0.5, 1e308]}}`))
	f.Add([]byte(`{"ages": [1, 2], "size": 3, "C": 4}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, algo := range []string{"ppb", "sab"} {
			p, err := ParseAllocInput(b, "p.json", algo)
			if err != nil {
				continue
			}
			if err := ValidateProbs(p, "accepted"); err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
		}
	})
}

// TestParseAllocInput: the three forms of the input, and errors that name
// the input and what was expected.
func TestParseAllocInput(t *testing.T) {
	p, err := ParseAllocInput([]byte(`{"p": [0.1, 0.5, 1]}`), "p.json", "ppb")
	if err != nil || len(p) != 3 || p[1] != 0.5 {
		t.Fatalf("p form: %v, %v", p, err)
	}
	p, err = ParseAllocInput([]byte(`{"ages": [1, 2], "size": 1, "dist": {"name": "exponential", "params": [0.5]}}`), "a.json", "gls")
	if err != nil || len(p) != 2 {
		t.Fatalf("ages form: %v, %v", p, err)
	}
	// Exponential intervals are memoryless: p = 1 − e^(−rate·t) whatever the age.
	for i := range p {
		if want := 1 - math.Exp(-0.5); math.Abs(p[i]-want) > 1e-12 {
			t.Errorf("p[%d] = %v, want %v", i, p[i], want)
		}
	}
	if _, err := ParseAllocInput([]byte(`{"ages": [1, 2], "size": 3, "C": 10}`), "s.json", "sab"); err != nil {
		t.Fatalf("sab form: %v", err)
	}
	for _, c := range []struct{ in, algo, want string }{
		{`{"p": [0.5, 1.5]}`, "ppb", "x.json: p[1] = 1.5"},
		{`{"p": [0.5], "ages": [1]}`, "ppb", "not both or neither"},
		{`{}`, "ppb", "not both or neither"},
		{`{"ages": [1]}`, "ppb", `"ages" needs "size" and "dist"`},
		{`{"ages": [1], "size": 1, "dist": {"name": "gamma", "params": [1]}}`, "ppb", "x.json: dist:"},
		{`{"p": [0.5]}`, "sab", `algo sab needs "ages", "size" and "C"`},
		{`{"q": 1}`, "ppb", `unknown field "q"`},
		{`{"p": [0.5, NaN]}`, "ppb", `x.json:1:13: field "p[1]": got NaN, want a number`},
		{"\uFEFF" + `{"p": [0.5, 1.5]}`, "ppb", "x.json: p[1] = 1.5"}, // the byte-order mark is skipped
	} {
		if _, err := ParseAllocInput([]byte(c.in), "x.json", c.algo); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.json") {
			t.Errorf("%s (%s): %v, want an error from x.json containing %q", c.in, c.algo, err, c.want)
		}
	}
}

func TestNewAllocReport(t *testing.T) {
	p := []float64{0.5, 0.2, 0.1}
	res := Result{X: []int{0, 1, 0}, Rsys: 0.5, LogRsys: math.Log(0.5), Optimal: false}
	r := NewAllocReport("exact", 2, 7, p, res, false)
	if r.Optimal == nil || *r.Optimal || r.P != nil || r.Hosts != 3 || r.Tasks != 2 || r.Seed != 7 {
		t.Errorf("exact report %+v", r)
	}
	r = NewAllocReport("sab", 2, 7, p, res, true)
	if r.Optimal != nil || len(r.P) != 3 {
		t.Errorf("sab report %+v", r)
	}
}
