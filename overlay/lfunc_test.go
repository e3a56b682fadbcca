package overlay

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

var (
	// a(t) = t: a free node of power 1 from 0
	maxA = LFunc{P: []LPoint{{0, 0}}, Slope: 1}
	// c(t) = 2t on [0, 1], 2 on [1, 3], t − 1 after: crosses a at t = 2
	maxC = LFunc{P: []LPoint{{0, 0}, {1, 2}, {3, 2}}, Slope: 1}
)

func TestMaxLFunc(t *testing.T) {
	h := MaxLFunc(&maxA, &maxC)
	for _, x := range []float64{-1, 0, 0.5, 1, 2, 2.5, 3, 4, 10} {
		if want := max(maxA.At(x), maxC.At(x)); !near(h.At(x), want) {
			t.Errorf("max(a, c)(%v) = %v, want %v", x, h.At(x), want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		f := drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "sf"))
		g := drawLFunc(t, rapid.Float64Range(1, 5).Draw(t, "sg"))
		h := MaxLFunc(&f, &g)
		ts := []float64{0, 1000}
		for _, p := range slices.Concat(f.P, g.P, h.P) {
			ts = append(ts, p.T, p.T+0.5)
		}
		for _, x := range ts {
			want := max(f.At(x), g.At(x))
			if math.Abs(h.At(x)-want) > 1e-9*math.Max(1, want) {
				t.Fatalf("max(f, g)(%v) = %v, want %v (f %v, g %v, h %v)", x, h.At(x), want, f, g, h)
			}
		}
	})
}

func near(x, want float64) bool { return math.Abs(x-want) <= 1e-12*math.Max(1, math.Abs(want)) }
