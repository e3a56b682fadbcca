package redundant

import (
	"math"
	"testing"

	"github.com/volsched/volsched/stream"
)

// TestEq5AgainstSimulation: failure probabilities drawn from a GDFN, EA
// allocation, one Bernoulli execution per trial; the success frequency must
// match Eq. 5 with ρ = the GDFN mean.
func TestEq5AgainstSimulation(t *testing.T) {
	trials := 200000
	if testing.Short() {
		trials = 40000
	}
	for k, c := range []struct {
		m, n int
		g    GDFN
	}{{24, 9, GDFN{0.556, 0.3}}, {37, 9, GDFN{0.6, 0.3}}, {12, 4, GDFN{0.151, 0.5}}} {
		r := stream.New(41, uint64(k))
		x := EA(c.m, c.n)
		succ := 0
		for i := 0; i < trials; i++ {
			if Outcome(c.g.SampleN(r, c.m), x, c.n, r) {
				succ++
			}
		}
		got := float64(succ) / float64(trials)
		want := EAExpected(c.m, c.n, c.g.Mean())
		se := math.Sqrt(want * (1 - want) / float64(trials))
		if math.Abs(got-want) > 5*se {
			t.Fatalf("m=%d n=%d %+v: simulation %v, Eq. 5 %v (se %v)", c.m, c.n, c.g, got, want, se)
		}
		t.Logf("m=%d n=%d %+v: simulation %.4f, Eq. 5 %.4f", c.m, c.n, c.g, got, want)
	}
}

// TestEq6AgainstSimulation: P(m, n) = P(mN/n, N)^{n/N} for EA, the left
// side simulated on the big problem, the right side simulated on the small
// one; and both against Eq. 5.
func TestEq6AgainstSimulation(t *testing.T) {
	trials := 100000
	if testing.Short() {
		trials = 30000
	}
	g := GDFN{0.5, 0.3}
	rho := g.Mean()
	sim := func(m, n int, label uint64) float64 {
		r := stream.New(42, label)
		x := EA(m, n)
		s := 0
		for i := 0; i < trials; i++ {
			if Outcome(g.SampleN(r, m), x, n, r) {
				s++
			}
		}
		return float64(s) / float64(trials)
	}
	for k, c := range [][3]int{{30, 12, 6}, {25, 10, 2}, {40, 16, 4}} {
		m, n, N := c[0], c[1], c[2]
		big := sim(m, n, uint64(2*k))
		small := sim(m*N/n, N, uint64(2*k+1))
		pred := math.Pow(small, float64(n)/float64(N))
		if math.Abs(EAScaled(m, n, N, rho)-EAExpected(m, n, rho)) > 1e-12 {
			t.Fatalf("m=%d n=%d N=%d: Eq. 6 %v differs from Eq. 5 %v", m, n, N, EAScaled(m, n, N, rho), EAExpected(m, n, rho))
		}
		se := math.Sqrt(big*(1-big)/float64(trials)) + float64(n)/float64(N)*math.Sqrt(small*(1-small)/float64(trials))
		if math.Abs(big-pred) > 5*se+1e-3 {
			t.Fatalf("m=%d n=%d N=%d: simulated P(m,n) = %v, P(mN/n,N)^(n/N) = %v", m, n, N, big, pred)
		}
		t.Logf("m=%d n=%d N=%d: P(m,n) sim %.4f, from small problem %.4f, Eq.5 %.4f", m, n, N, big, pred, EAExpected(m, n, rho))
	}
}
