package availability

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/stream"
)

func TestChainSourceIsChainSample(t *testing.T) {
	c := Random(stream.New(1, 0))
	got := Take(NewChainSource(c, StartUp, stream.New(2, 7)), 5000)
	want := c.Sample(Up, 5000, stream.New(2, 7))
	if !slices.Equal(got, want) {
		t.Fatal("ChainSource from UP differs from Chain.Sample with the same stream")
	}
}

// stationaryStartFrequencies draws the slot-0 state of n sources and checks
// the frequencies against want within 5 standard errors.
func stationaryStartFrequencies(t *testing.T, name string, want [3]float64, n int, src func(k int) Source) {
	t.Helper()
	var cnt [3]float64
	for k := 0; k < n; k++ {
		cnt[src(k).Next()]++
	}
	for s := range cnt {
		se := math.Sqrt(want[s] * (1 - want[s]) / float64(n))
		if d := math.Abs(cnt[s]/float64(n) - want[s]); d > 5*se+1e-12 {
			t.Errorf("%s: slot-0 frequency of %s = %.4f, want %.4f ± %.4f", name, State(s), cnt[s]/float64(n), want[s], 5*se)
		}
	}
}

func TestChainSourceStationaryStart(t *testing.T) {
	c := Chain{P: [3][3]float64{{0.9, 0.08, 0.02}, {0.3, 0.6, 0.1}, {0.05, 0.05, 0.9}}}
	stationaryStartFrequencies(t, "chain", c.Stationary(), 40000, func(k int) Source {
		return NewChainSource(c, StartStationary, stream.New(3, uint64(k)))
	})
}

// testModel mixes the three families; times in slots.
func testModel() SemiMarkov {
	return SemiMarkov{
		Sojourn: [3]Sojourn{
			{Family: Weibull, Shape: 0.6, Scale: 20},
			{Family: LogNormal, Mu: 1.5, Sigma: 1},
			ExponentialMean(6),
		},
		Jump: [3][3]float64{{0, 0.7, 0.3}, {0.8, 0, 0.2}, {0.9, 0.1, 0}},
	}
}

// TestSemiMarkovSojournsKS checks the sampler against its laws: the
// complete sojourns of a long realization, per state, against the
// discretized law P(N ≤ n) = F(n) (SlotsOf = max(1, ⌈x⌉)), with the
// discrete KS statistic below Kolmogorov's 1 % critical value 1.63/√n
// (fixed seed; conservative on discrete data). As a control, the same
// sojourns fail the same bound against the law one slot longer
// (P(N ≤ n) = F(n − 1), what ⌈x⌉ + 1 would give), so the check has power.
// The jumps between sojourns follow the jump chain within 5 standard
// errors.
func TestSemiMarkovSojournsKS(t *testing.T) {
	m := testModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	runs := Runs(Take(m.NewSource(StartStationary, stream.New(7, 1)), 2_000_000))
	soj := Sojourns(runs)
	for s := Up; s <= Down; s++ {
		x := soj[s]
		d := m.Sojourn[s]
		crit := 1.63 / math.Sqrt(float64(len(x)))
		ks := KSDiscrete(x, func(n int) float64 { return d.CDF(float64(n)) })
		if len(x) < 5000 || ks > crit {
			t.Errorf("%s: %d sojourns, D = %.4f, want < %.4f", s, len(x), ks, crit)
		}
		shifted := KSDiscrete(x, func(n int) float64 { return d.CDF(float64(n - 1)) })
		if shifted <= crit {
			t.Errorf("%s: D against the law one slot longer = %.4f, below %.4f: the check has no power", s, shifted, crit)
		}
		t.Logf("%s: %d sojourns, D = %.4f (crit %.4f), against ⌈x⌉+1: %.4f", s, len(x), ks, crit, shifted)
	}
	var jumps [3][3]float64
	for i := 1; i < len(runs); i++ {
		jumps[runs[i-1].State][runs[i].State]++
	}
	for i := 0; i < 3; i++ {
		row := jumps[i][0] + jumps[i][1] + jumps[i][2]
		for j := 0; j < 3; j++ {
			p := m.Jump[i][j]
			se := math.Sqrt(p * (1 - p) / row)
			if d := math.Abs(jumps[i][j]/row - p); d > 5*se+1e-12 {
				t.Errorf("jump %s→%s: frequency %.4f, want %.4f ± %.4f", State(i), State(j), jumps[i][j]/row, p, 5*se)
			}
		}
	}
}

// equilibriumCDF is the CDF of the residual (forward-recurrence) law,
// (1/mean)·∫_0^x S(u) du, in closed form.
func equilibriumCDF(d Sojourn) func(float64) float64 {
	return func(x float64) float64 {
		if x <= 0 {
			return 0
		}
		switch d.Family {
		case Exponential:
			return d.CDF(x)
		case Weibull: // ∫_0^x S = (λ/k)·γ(1/k, (x/λ)^k) and mean = (λ/k)·Γ(1/k)
			return mathext.GammaIncReg(1/d.Shape, math.Pow(x/d.Scale, d.Shape))
		default: // ∫_0^x S = x·S(x) + E[X; X ≤ x] = x·(1 − Φ(z)) + mean·Φ(z − σ)
			z := (math.Log(x) - d.Mu) / d.Sigma
			return x*(1-distuv.UnitNormal.CDF(z))/d.Mean() + distuv.UnitNormal.CDF(z-d.Sigma)
		}
	}
}

// TestResidualLaw checks the equilibrium draws of a stationary start
// against their closed-form CDF (KS, 1 % critical value, fixed seed), and
// the slot-0 states against TimeFractions within 5 standard errors.
func TestResidualLaw(t *testing.T) {
	r := stream.New(9)
	for _, d := range []Sojourn{ExponentialMean(4), {Family: Weibull, Shape: 0.5, Scale: 3}, {Family: Weibull, Shape: 2.5, Scale: 10}, {Family: LogNormal, Mu: 1, Sigma: 1.2}} {
		x := make([]float64, 20000)
		for i := range x {
			x[i] = d.residual(r)
		}
		ks := KSStatistic(x, equilibriumCDF(d))
		if crit := 1.63 / math.Sqrt(float64(len(x))); ks > crit {
			t.Errorf("%v: residual draws D = %.4f, want < %.4f", d, ks, crit)
		}
		// The same draws are far from the plain sojourn law (for the
		// exponential they are the same law).
		if d.Family != Exponential {
			if ks := KSStatistic(x, d.CDF); ks < 0.05 {
				t.Errorf("%v: residual draws look like the plain law (D = %.4f)", d, ks)
			}
		}
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		t.Logf("%v: residual mean %.3f (E[X²]/2E[X] = %.3f), D = %.4f", d, mean/float64(len(x)), d.residualMean(), ks)
	}
	m := testModel()
	stationaryStartFrequencies(t, "semi-Markov", m.TimeFractions(), 40000, func(k int) Source {
		return m.NewSource(StartStationary, stream.New(4, uint64(k)))
	})
}

func TestTimeFractionsByHand(t *testing.T) {
	// Jump chain u→r→d→u (a cycle): π_J uniform, so the time fractions are
	// the means normalized. The chain is periodic; TimeFractions must
	// still find its stationary law.
	m := SemiMarkov{
		Sojourn: [3]Sojourn{ExponentialMean(6), ExponentialMean(3), ExponentialMean(1)},
		Jump:    [3][3]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
	}
	got := m.TimeFractions()
	for s, want := range [3]float64{0.6, 0.3, 0.1} {
		if math.Abs(got[s]-want) > 1e-12 {
			t.Errorf("fraction of %s = %v, want %v", State(s), got[s], want)
		}
	}
}

// TestExponentialSemiMarkovIsMarkov: with exponential sojourns the model is
// its EquivalentChain; the estimator fed a long realization converges to
// it within 5 standard errors.
func TestExponentialSemiMarkovIsMarkov(t *testing.T) {
	m := SemiMarkov{
		Sojourn: [3]Sojourn{ExponentialMean(20), ExponentialMean(5), ExponentialMean(10)},
		Jump:    [3][3]float64{{0, 0.6, 0.4}, {0.7, 0, 0.3}, {0.5, 0.5, 0}},
	}
	c, ok := m.EquivalentChain()
	if !ok || c.Validate("equivalent") != nil {
		t.Fatalf("EquivalentChain: %v %v", c, ok)
	}
	const n = 400000
	e, _ := NewEstimator(DefaultPrior())
	e.ObserveSequence(Take(m.NewSource(StartUp, stream.New(5)), n))
	got := e.Chain()
	pi := c.Stationary()
	for i := range c.P {
		tol := 5 * math.Sqrt(0.25/(n*pi[i]))
		for j := range c.P[i] {
			if d := math.Abs(got.P[i][j] - c.P[i][j]); d > tol {
				t.Errorf("P[%s][%s] = %.4f, want %.4f ± %.4f", State(i), State(j), got.P[i][j], c.P[i][j], tol)
			}
		}
	}
	if _, ok := testModel().EquivalentChain(); ok {
		t.Error("a Weibull model has an equivalent chain")
	}
}

func TestSemiMarkovDeterministic(t *testing.T) {
	m := testModel()
	a := Take(m.NewSource(StartStationary, stream.New(3, 4)), 10000)
	b := Take(m.NewSource(StartStationary, stream.New(3, 4)), 10000)
	c := Take(m.NewSource(StartStationary, stream.New(3, 5)), 10000)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("same stream differs or different streams agree")
	}
	u := Take(m.NewSource(StartUp, stream.New(3, 4)), 1)
	if u[0] != Up {
		t.Fatal("StartUp does not start UP")
	}
}

func TestSlotsOf(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int64
	}{{0, 1}, {1e-300, 1}, {0.5, 1}, {1, 1}, {1.0000001, 2}, {2, 2}, {2.5, 3}, {math.NaN(), 1}, {1e30, MaxSojournSlots}, {math.Inf(1), MaxSojournSlots}} {
		if got := SlotsOf(c.x); got != c.want {
			t.Errorf("SlotsOf(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestSojournLaws(t *testing.T) {
	// Means and scaling by hand.
	w := WeibullMean(0.7, 100)
	if math.Abs(w.Mean()-100) > 1e-9 || math.Abs(w.Scaled(10).Mean()-10) > 1e-9 {
		t.Errorf("Weibull mean %v, scaled %v", w.Mean(), w.Scaled(10).Mean())
	}
	l := LogNormalMean(1.5, 100)
	if math.Abs(l.Mean()-100) > 1e-9 || math.Abs(l.Scaled(10).Mean()-10) > 1e-9 {
		t.Errorf("lognormal mean %v, scaled %v", l.Mean(), l.Scaled(10).Mean())
	}
	e := ExponentialMean(100)
	if math.Abs(e.Scaled(10).Mean()-10) > 1e-12 || math.Abs(e.CDF(100)-(1-math.Exp(-1))) > 1e-15 {
		t.Errorf("exponential scaled mean %v, CDF %v", e.Scaled(10).Mean(), e.CDF(100))
	}
	// Scaling commutes with the CDF: P(X/u ≤ x) = P(X ≤ u·x).
	for _, d := range []Sojourn{w, l, e} {
		if a, b := d.Scaled(60).CDF(2), d.CDF(120); math.Abs(a-b) > 1e-12 {
			t.Errorf("%v: scaled CDF %v, CDF %v", d.Family, a, b)
		}
	}
	// Draws have the family's mean (5 standard errors).
	r := stream.New(12)
	for _, d := range []Sojourn{w, LogNormalMean(0.5, 100), e} {
		var s, s2 float64
		const n = 100000
		for i := 0; i < n; i++ {
			x := d.Rand(r)
			s += x
			s2 += x * x
		}
		mean := s / n
		se := math.Sqrt((s2/n - mean*mean) / n)
		if math.Abs(mean-d.Mean()) > 5*se {
			t.Errorf("%v: sample mean %.2f, want %.2f ± %.2f", d.Family, mean, d.Mean(), 5*se)
		}
	}
}

func TestSemiMarkovValidate(t *testing.T) {
	bad := func(f func(m *SemiMarkov)) SemiMarkov { m := testModel(); f(&m); return m }
	for name, c := range map[string]struct {
		m    SemiMarkov
		want string
	}{
		"diagonal":  {bad(func(m *SemiMarkov) { m.Jump[0] = [3]float64{0.1, 0.6, 0.3} }), "jump[u][u] = 0.1, want 0"},
		"row sum":   {bad(func(m *SemiMarkov) { m.Jump[1] = [3]float64{0.5, 0, 0.4} }), "jump row r sums to 0.9"},
		"negative":  {bad(func(m *SemiMarkov) { m.Jump[2] = [3]float64{1.5, -0.5, 0} }), "jump[d][u] = 1.5"},
		"shape":     {bad(func(m *SemiMarkov) { m.Sojourn[0].Shape = 0 }), "sojourn in UP: weibull shape = 0"},
		"sigma":     {bad(func(m *SemiMarkov) { m.Sojourn[1].Sigma = math.NaN() }), "sojourn in RECLAIMED: lognormal sigma = NaN"},
		"rate":      {bad(func(m *SemiMarkov) { m.Sojourn[2].Rate = math.Inf(1) }), "sojourn in DOWN: exponential rate = +Inf"},
		"tiny k":    {bad(func(m *SemiMarkov) { m.Sojourn[0].Shape = 0.01 }), "want ≥ 0.05"},
		"huge mean": {bad(func(m *SemiMarkov) { m.Sojourn[1].Mu = 710 }), "want a finite mean"},
	} {
		err := c.m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

// TestGammaRandIsGonums: gammaRand and gonum's distuv.Gamma (which the
// residual law drew from before) give bit-identical draws from the same
// stream, for shapes 1 + 1/k of Weibull laws from very heavy to almost
// constant, and normalCDF is distuv.UnitNormal.CDF.
func TestGammaRandIsGonums(t *testing.T) {
	for _, a := range []float64{1, 1 + 1/20.0, 1 + 1/2.5, 2, 3, 1 + 1/0.5, 1 + 1/0.05} {
		mine, theirs := stream.New(11, uint64(a*1000)), stream.New(11, uint64(a*1000))
		g := distuv.Gamma{Alpha: a, Beta: 1, Src: theirs}
		for i := 0; i < 20000; i++ {
			if x, y := gammaRand(a, mine), g.Rand(); x != y {
				t.Fatalf("alpha %v, draw %d: gammaRand %v, distuv.Gamma %v", a, i, x, y)
			}
		}
	}
	for z := -40.0; z <= 40; z += 0.01 {
		if x, y := normalCDF(z), distuv.UnitNormal.CDF(z); x != y {
			t.Fatalf("Φ(%v): normalCDF %v, distuv %v", z, x, y)
		}
	}
}
