package redundant

import (
	"math"
	"sort"
	"testing"

	"github.com/volsched/volsched/stream"
)

func TestFold(t *testing.T) {
	for _, c := range [][2]float64{{0.3, 0.3}, {-0.3, 0.3}, {1.2, 0.8}, {2.1, 0.1}, {-1.7, 0.3}, {3.5, 0.5}, {1, 1}, {0, 0}} {
		if got := Fold(c[0]); math.Abs(got-c[1]) > 1e-12 {
			t.Errorf("Fold(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// TestGDFNDensityIntegratesToCDF checks PDF and CDF against each other.
func TestGDFNDensityIntegratesToCDF(t *testing.T) {
	for _, g := range []GDFN{{0.151, 0.1}, {0.556, 0.3}, {0.5, 2}, {-0.2, 0.05}, {0.9, 0.6}} {
		const n = 4000
		h := 1.0 / n
		acc := 0.0
		for i := 0; i < n; i++ {
			y0, y1 := float64(i)*h, float64(i+1)*h
			acc += h / 6 * (g.PDF(y0) + 4*g.PDF((y0+y1)/2) + g.PDF(y1))
			if i%500 == 499 {
				if c := g.CDF(y1); math.Abs(acc-c) > 1e-6 {
					t.Fatalf("%+v: ∫pdf to %v = %v, CDF = %v", g, y1, acc, c)
				}
			}
		}
		if math.Abs(acc-1) > 1e-6 {
			t.Fatalf("%+v: density integrates to %v", g, acc)
		}
	}
}

// TestGDFNSamplerMatchesCDF is a one-sample Kolmogorov–Smirnov test of the
// sampler against the CDF (critical value at the 0.1% level: 1.95/√n).
func TestGDFNSamplerMatchesCDF(t *testing.T) {
	for k, g := range []GDFN{{0.151, 0.1}, {0.556, 0.3}, {0.5, 2}, {0.6, 0.3}, {1.3, 0.4}} {
		r := stream.New(21, uint64(k))
		const n = 20000
		x := g.SampleN(r, n)
		sort.Float64s(x)
		d := 0.0
		for i, v := range x {
			f := g.CDF(v)
			d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
		}
		if crit := 1.95 / math.Sqrt(n); d > crit {
			t.Fatalf("%+v: KS D = %v > %v", g, d, crit)
		}
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		mean /= n
		if math.Abs(mean-g.Mean()) > 0.01 {
			t.Fatalf("%+v: sample mean %v, Mean() %v", g, mean, g.Mean())
		}
	}
	// A large sigma makes the GDFN uniform (the paper's remark on Fig. 1).
	u := GDFN{0.3, 5}
	for _, y := range []float64{0.1, 0.5, 0.9} {
		if math.Abs(u.CDF(y)-y) > 1e-6 {
			t.Fatalf("sigma=5: CDF(%v) = %v, want ≈ uniform", y, u.CDF(y))
		}
	}
}

// TestGDFNMeanMatchesPaper: §3.2 says µ < 0.3 "corresponds to an average
// task failure probability < 34%" and µ > 0.75 to "> 70%" (σ = 0.3); the
// folded distribution's means must agree (the second only roughly: 0.683).
func TestGDFNMeanMatchesPaper(t *testing.T) {
	if m := (GDFN{0.3, 0.3}).Mean(); math.Abs(m-0.34) > 0.01 {
		t.Fatalf("mean of GDFN(0.3, 0.3) = %v, paper ≈ 0.34", m)
	}
	if m := (GDFN{0.75, 0.3}).Mean(); math.Abs(m-0.70) > 0.02 {
		t.Fatalf("mean of GDFN(0.75, 0.3) = %v, paper ≈ 0.70", m)
	}
}
