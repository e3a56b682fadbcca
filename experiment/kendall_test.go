package experiment

import (
	"math"
	"testing"
)

func TestKendallTau(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"identical", []float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50}, 1},
		{"reversed", []float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2, 1}, -1},
		// pairs (0,1) C, (0,2) C, (1,2) D: (2−1)/3.
		{"one swap of three", []float64{1, 2, 3}, []float64{1, 3, 2}, 1.0 / 3},
		// C = 4, D = 0, n0 = 6, one tie in a, one in b: 4/sqrt(5·5).
		{"ties in both", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 3}, 0.8},
		// C = 1 (0,3), D = 1 (1,2), ties (0,1) (2,3) in a, (0,2) (1,3) in b.
		{"balanced ties", []float64{1, 1, 2, 2}, []float64{1, 2, 1, 2}, 0},
		// C = 2 ((0,1),(0,2)), D = 0, one tie in b (1,2): 2/sqrt(3·2).
		{"tie in b only", []float64{1, 2, 3}, []float64{0, 5, 5}, 2 / math.Sqrt(6)},
		// 4 items, one discordant pair (2,3) of 6: (5−1)/6.
		{"adjacent swap of four", []float64{1, 2, 3, 4}, []float64{1, 2, 4, 3}, 4.0 / 6},
		{"constant", []float64{1, 2, 3}, []float64{7, 7, 7}, nan},
		{"length mismatch", []float64{1, 2, 3}, []float64{1, 2}, nan},
		{"single", []float64{1}, []float64{1}, nan},
		{"NaN value", []float64{1, nan, 3}, []float64{1, 2, 3}, nan},
	} {
		got := KendallTau(c.a, c.b)
		if math.IsNaN(c.want) {
			if !math.IsNaN(got) {
				t.Errorf("%s: τ = %g, want NaN", c.name, got)
			}
			continue
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: τ = %.15g, want %.15g", c.name, got, c.want)
		}
		if back := KendallTau(c.b, c.a); math.Abs(back-got) > 1e-12 {
			t.Errorf("%s: not symmetric: %g vs %g", c.name, got, back)
		}
	}
}
