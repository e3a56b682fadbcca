package redundant

import (
	"math"
	"testing"

	"github.com/volsched/volsched/stream"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestFailureProbMonteCarlo checks Eq. 3 against simulation: among
// intervals longer than age, the fraction that end before age + t.
func TestFailureProbMonteCarlo(t *testing.T) {
	cases := []struct {
		name   string
		params []float64
		age, t float64
	}{
		{"exponential", []float64{0.5}, 3, 1},
		{"weibull", []float64{0.6, 2}, 1, 2},
		{"weibull", []float64{1.5, 2}, 1, 0.5},
		{"lognormal", []float64{1, 1.2}, 2, 3},
	}
	for k, c := range cases {
		d, err := NewIntervalDistribution(c.name, c.params)
		if err != nil {
			t.Fatal(err)
		}
		p, err := FailureProb(d, c.age, c.t)
		if err != nil {
			t.Fatal(err)
		}
		r := stream.New(31, uint64(k))
		var src interface{ Rand() float64 }
		switch v := d.(type) {
		case distuv.Exponential:
			v.Src = r
			src = v
		case distuv.Weibull:
			v.Src = r
			src = v
		case distuv.LogNormal:
			v.Src = r
			src = v
		}
		alive, fail := 0, 0
		for alive < 40000 {
			x := src.Rand()
			if x <= c.age {
				continue
			}
			alive++
			if x < c.age+c.t {
				fail++
			}
		}
		got := float64(fail) / float64(alive)
		se := math.Sqrt(p * (1 - p) / float64(alive))
		if math.Abs(got-p) > 5*se {
			t.Fatalf("%s%v age=%v t=%v: Eq. 3 gives %v, simulation %v", c.name, c.params, c.age, c.t, p, got)
		}
	}
}

func TestFailureProbProperties(t *testing.T) {
	// Exponential: memoryless.
	e, _ := NewIntervalDistribution("exponential", []float64{0.1})
	a, _ := FailureProb(e, 0, 5)
	b, _ := FailureProb(e, 1000, 5)
	if math.Abs(a-b) > 1e-12 {
		t.Fatalf("exponential not memoryless: %v vs %v", a, b)
	}
	// Log-normal (decreasing hazard in the tail): older hosts are safer.
	l, _ := NewIntervalDistribution("lognormal", []float64{16.42, 2.419})
	young, _ := FailureProb(l, 1e5, 1e9)
	old, _ := FailureProb(l, 1e10, 1e9)
	if !(old < young) {
		t.Fatalf("lognormal: p(old) = %v, p(young) = %v, want old < young", old, young)
	}
	if _, err := FailureProb(l, -1, 1); err == nil {
		t.Fatal("negative age accepted")
	}
	for _, bad := range []struct {
		n string
		p []float64
	}{{"gamma", []float64{1}}, {"exponential", []float64{-1}}, {"weibull", []float64{1}}, {"lognormal", []float64{1, 0}}} {
		if _, err := NewIntervalDistribution(bad.n, bad.p); err == nil {
			t.Fatalf("%s%v accepted", bad.n, bad.p)
		}
	}
}

func TestSABProbs(t *testing.T) {
	p, err := SABProbs([]float64{0, 5, 9}, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.9, 0.4, 0}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-12 {
			t.Fatalf("SAB p = %v, want %v", p, want)
		}
	}
	if _, err := SABProbs([]float64{10}, 1, 10); err == nil {
		t.Fatal("age + t > C accepted")
	}
	if _, err := SABProbs([]float64{1}, 1, 0); err == nil {
		t.Fatal("C = 0 accepted")
	}
}
