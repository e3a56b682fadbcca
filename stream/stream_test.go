package stream

import (
	"math/rand/v2"
	"testing"
)

func TestSameLabelsSameStream(t *testing.T) {
	a, b := New(42, 1, 2, 3), New(42, 1, 2, 3)
	for i := 0; i < 100; i++ {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: %d != %d", i, x, y)
		}
	}
}

func TestDifferentLabelsDiffer(t *testing.T) {
	seen := map[uint64][2]uint64{}
	for s := uint64(0); s < 4; s++ {
		for a := uint64(0); a < 50; a++ {
			for b := uint64(0); b < 50; b++ {
				v := New(s, a, b).Uint64()
				if prev, ok := seen[v]; ok {
					t.Fatalf("streams (%d,%d,%d) and %v collide", s, a, b, prev)
				}
				seen[v] = [2]uint64{a, b}
			}
		}
	}
	if New(1, 1, 2).Uint64() == New(1, 2, 1).Uint64() {
		t.Fatal("label order is ignored")
	}
}

func TestResetMatchesNew(t *testing.T) {
	src := rand.NewPCG(0, 0)
	Reset(src, 7, 9)
	r := rand.New(src)
	if r.Uint64() != New(7, 9).Uint64() {
		t.Fatal("Reset and New disagree")
	}
}

func TestUniformity(t *testing.T) {
	// A coarse chi-square check over 10 bins; catches a broken mix.
	r := New(3, 1)
	var bins [10]int
	const n = 100000
	for i := 0; i < n; i++ {
		bins[int(r.Float64()*10)]++
	}
	chi := 0.0
	for _, c := range bins {
		d := float64(c) - n/10
		chi += d * d / (n / 10)
	}
	if chi > 30 { // 9 d.o.f.: P(chi2 > 30) ~ 4e-4
		t.Fatalf("chi-square %g over 9 degrees of freedom", chi)
	}
}
