package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/volsched/volsched/redundant"
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
			p, err := parseAllocInput(b, "p.json", algo)
			if err != nil {
				continue
			}
			if err := redundant.ValidateProbs(p, "accepted"); err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
		}
	})
}

// FuzzLabPoints: the reader of exp redundant's points file keeps a prefix
// of complete lines (what it keeps reads back as the same points), or errs.
func FuzzLabPoints(f *testing.F) {
	h := labPointsHeader{Figure: 1, Seed: 1, Reps: 10, Algos: []string{"ea", "ppb"}}
	hb, _ := json.Marshal(h)
	f.Add(append(hb, []byte("\n{\"key\":\"fig1/0/0\",\"mean\":[0.5,0.6],\"se\":[0.01,0.02]}\n{\"key\":\"fig1/0/1\",\"mea")...))
	f.Add(append(hb, []byte("\n\n{\"key\":\"a\"}\nnot json\n{}\n")...))
	f.Add([]byte(`{"figure":2,"seed":1}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		points, keep, err := parseLabPoints(data, "fig1-points.jsonl", h)
		if err != nil {
			return
		}
		if keep > len(data) || (keep > 0 && data[keep-1] != '\n') {
			t.Fatalf("keeps %d of %d bytes, not a prefix of whole lines", keep, len(data))
		}
		again, keep2, err := parseLabPoints(data[:keep], "again", h)
		if err != nil || keep2 != keep || !reflect.DeepEqual(again, points) {
			t.Fatalf("the kept prefix reads differently: %v, %d vs %d", err, keep2, keep)
		}
	})
}
