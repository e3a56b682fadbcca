package availability_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/stream"
)

// TestKSDiscreteBruteForce compares availability.KSDiscrete with sup |F_n − F| taken
// over every integer up to past the largest observation.
func TestKSDiscreteBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		x := make([]int, 1+r.IntN(40))
		for i := range x {
			x[i] = 1 + r.IntN(12)
		}
		cdf := availability.GeometricCDF(0.3 + 0.6*r.Float64())
		want := 0.0
		for v := 0; v <= 14; v++ {
			fn := 0.0
			for _, y := range x {
				if y <= v {
					fn++
				}
			}
			want = math.Max(want, math.Abs(fn/float64(len(x))-cdf(v)))
		}
		if got := availability.KSDiscrete(x, cdf); math.Abs(got-want) > 1e-12 {
			t.Fatalf("x %v: availability.KSDiscrete %v, brute force %v", x, got, want)
		}
	}
	// Exact data: every sojourn 1 slot with stay 0 → D = 0.
	if d := availability.KSDiscrete([]int{1, 1, 1}, availability.GeometricCDF(0)); d != 0 {
		t.Errorf("D = %v, want 0", d)
	}
}

// markovTestOf estimates the chains of the given sources from n slots each
// and runs availability.MarkovTest on their complete sojourns.
func markovTestOf(srcs []availability.Source, n int) []availability.SojournTest {
	var chains []availability.Chain
	var soj [][3][]int
	for _, src := range srcs {
		s := availability.Take(src, n)
		e, _ := availability.NewEstimator(availability.DefaultPrior())
		e.ObserveSequence(s)
		chains = append(chains, e.Chain())
		soj = append(soj, availability.Sojourns(availability.Runs(s)))
	}
	return availability.MarkovTest(chains, soj)
}

// TestMarkovTest: at the 1 % level, with fixed seeds, the test rejects
// heavy-tailed Weibull sojourns (shape 0.5) in every state, for one
// processor and pooled over five; it does not reject a Markov chain (the
// papers' generator) nor a semi-Markov model with exponential sojourns.
func TestMarkovTest(t *testing.T) {
	const level = 0.01
	const n = 200000
	weibull := availability.SemiMarkov{
		Sojourn: [3]availability.Sojourn{sojourn.WeibullMean(0.5, 20), sojourn.WeibullMean(0.5, 5), sojourn.WeibullMean(0.5, 10)},
		Jump:    [3][3]float64{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}},
	}
	exponential := availability.SemiMarkov{
		Sojourn: [3]availability.Sojourn{sojourn.ExponentialMean(20), sojourn.ExponentialMean(5), sojourn.ExponentialMean(10)},
		Jump:    weibull.Jump,
	}
	var chainSrcs, weibullSrcs []availability.Source
	for q := 0; q < 5; q++ {
		chainSrcs = append(chainSrcs, availability.NewChainSource(availability.Random(stream.New(41, uint64(q))), availability.StartStationary, stream.New(42, uint64(q))))
		weibullSrcs = append(weibullSrcs, weibull.NewSource(availability.StartStationary, stream.New(43, uint64(q))))
	}
	cases := []struct {
		name   string
		srcs   []availability.Source
		reject bool
	}{
		{"weibull", []availability.Source{weibull.NewSource(availability.StartStationary, stream.New(44))}, true},
		{"weibull, 5 pooled", weibullSrcs, true},
		{"chain", []availability.Source{availability.NewChainSource(availability.Random(stream.New(45)), availability.StartStationary, stream.New(46))}, false},
		{"chains, 5 pooled", chainSrcs, false},
		{"exponential semi-Markov", []availability.Source{exponential.NewSource(availability.StartStationary, stream.New(47))}, false},
	}
	for _, c := range cases {
		res := markovTestOf(c.srcs, n)
		if len(res) != 3 {
			t.Fatalf("%s: %d states tested, want 3", c.name, len(res))
		}
		for _, r := range res {
			t.Logf("%s: %s %d sojourns, mean %.2f (geometric %.2f), D = %.4f, p = %.3g", c.name, r.Name, r.Sojourns, r.Mean, r.ExpectedMean, r.KS, r.P)
			if r.Sojourns < 1000 {
				t.Errorf("%s: %s: only %d sojourns", c.name, r.Name, r.Sojourns)
			}
			if c.reject && r.P >= level {
				t.Errorf("%s: %s: p = %.3g, want < %v (rejected)", c.name, r.Name, r.P, level)
			}
			if !c.reject && r.P < level {
				t.Errorf("%s: %s: p = %.3g, want ≥ %v (not rejected)", c.name, r.Name, r.P, level)
			}
		}
	}
	// A state never left completely is not tested.
	res := availability.MarkovTest([]availability.Chain{availability.Random(stream.New(1))}, [][3][]int{{{3, 4}, nil, {2}}})
	if len(res) != 2 || res[0].State != availability.Up || res[1].State != availability.Down {
		t.Errorf("states tested: %+v", res)
	}
}
