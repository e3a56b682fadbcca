package availability_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/stream"
)

func TestChainSourceIsChainSample(t *testing.T) {
	c := availability.Random(stream.New(1, 0))
	got := availability.Take(availability.NewChainSource(c, availability.StartUp, stream.New(2, 7)), 5000)
	want := c.Sample(availability.Up, 5000, stream.New(2, 7))
	if !slices.Equal(got, want) {
		t.Fatal("ChainSource from UP differs from availability.Chain.Sample with the same stream")
	}
}

// stationaryStartFrequencies draws the slot-0 state of n sources and checks
// the frequencies against want within 5 standard errors.
func stationaryStartFrequencies(t *testing.T, name string, want [3]float64, n int, src func(k int) availability.Source) {
	t.Helper()
	var cnt [3]float64
	for k := 0; k < n; k++ {
		cnt[src(k).Next()]++
	}
	for s := range cnt {
		se := math.Sqrt(want[s] * (1 - want[s]) / float64(n))
		if d := math.Abs(cnt[s]/float64(n) - want[s]); d > 5*se+1e-12 {
			t.Errorf("%s: slot-0 frequency of %s = %.4f, want %.4f ± %.4f", name, availability.State(s), cnt[s]/float64(n), want[s], 5*se)
		}
	}
}

func TestChainSourceStationaryStart(t *testing.T) {
	c := availability.Chain{P: [3][3]float64{{0.9, 0.08, 0.02}, {0.3, 0.6, 0.1}, {0.05, 0.05, 0.9}}}
	stationaryStartFrequencies(t, "chain", c.Stationary(), 40000, func(k int) availability.Source {
		return availability.NewChainSource(c, availability.StartStationary, stream.New(3, uint64(k)))
	})
}

// testModel mixes the three families; times in slots.
func testModel() availability.SemiMarkov {
	return availability.SemiMarkov{
		Sojourn: [3]availability.Sojourn{
			sojourn.Weibull{Shape: 0.6, Scale: 20},
			sojourn.LogNormal{Mu: 1.5, Sigma: 1},
			sojourn.ExponentialMean(6),
		},
		Jump: [3][3]float64{{0, 0.7, 0.3}, {0.8, 0, 0.2}, {0.9, 0.1, 0}},
	}
}

// TestSemiMarkovSojournsKS checks the sampler against its laws: the
// complete sojourns of a long realization, per state, against the
// discretized law P(N ≤ n) = F(n) (availability.SlotsOf = max(1, ⌈x⌉)), with the
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
	runs := availability.Runs(availability.Take(m.NewSource(availability.StartStationary, stream.New(7, 1)), 2_000_000))
	soj := availability.Sojourns(runs)
	for s := availability.Up; s <= availability.Down; s++ {
		x := soj[s]
		d := m.Sojourn[s]
		crit := 1.63 / math.Sqrt(float64(len(x)))
		ks := availability.KSDiscrete(x, func(n int) float64 { return d.CDF(float64(n)) })
		if len(x) < 5000 || ks > crit {
			t.Errorf("%s: %d sojourns, D = %.4f, want < %.4f", s, len(x), ks, crit)
		}
		shifted := availability.KSDiscrete(x, func(n int) float64 { return d.CDF(float64(n - 1)) })
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
				t.Errorf("jump %s→%s: frequency %.4f, want %.4f ± %.4f", availability.State(i), availability.State(j), jumps[i][j]/row, p, 5*se)
			}
		}
	}
}

// TestSemiMarkovStationaryStart: the slot-0 states of a stationary start
// follow TimeFractions within 5 standard errors (the residual draws of the
// first sojourn are checked per law in package sojourn).
func TestSemiMarkovStationaryStart(t *testing.T) {
	m := testModel()
	stationaryStartFrequencies(t, "semi-Markov", m.TimeFractions(), 40000, func(k int) availability.Source {
		return m.NewSource(availability.StartStationary, stream.New(4, uint64(k)))
	})
}

func TestTimeFractionsByHand(t *testing.T) {
	// Jump chain u→r→d→u (a cycle): π_J uniform, so the time fractions are
	// the means normalized. The chain is periodic; TimeFractions must
	// still find its stationary law.
	m := availability.SemiMarkov{
		Sojourn: [3]availability.Sojourn{sojourn.ExponentialMean(6), sojourn.ExponentialMean(3), sojourn.ExponentialMean(1)},
		Jump:    [3][3]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
	}
	got := m.TimeFractions()
	for s, want := range [3]float64{0.6, 0.3, 0.1} {
		if math.Abs(got[s]-want) > 1e-12 {
			t.Errorf("fraction of %s = %v, want %v", availability.State(s), got[s], want)
		}
	}
}

// TestExponentialSemiMarkovIsMarkov: with exponential sojourns the model is
// its EquivalentChain; the estimator fed a long realization converges to
// it within 5 standard errors.
func TestExponentialSemiMarkovIsMarkov(t *testing.T) {
	m := availability.SemiMarkov{
		Sojourn: [3]availability.Sojourn{sojourn.ExponentialMean(20), sojourn.ExponentialMean(5), sojourn.ExponentialMean(10)},
		Jump:    [3][3]float64{{0, 0.6, 0.4}, {0.7, 0, 0.3}, {0.5, 0.5, 0}},
	}
	c, ok := m.EquivalentChain()
	if !ok || c.Validate("equivalent") != nil {
		t.Fatalf("EquivalentChain: %v %v", c, ok)
	}
	const n = 400000
	e, _ := availability.NewEstimator(availability.DefaultPrior())
	e.ObserveSequence(availability.Take(m.NewSource(availability.StartUp, stream.New(5)), n))
	got := e.Chain()
	pi := c.Stationary()
	for i := range c.P {
		tol := 5 * math.Sqrt(0.25/(n*pi[i]))
		for j := range c.P[i] {
			if d := math.Abs(got.P[i][j] - c.P[i][j]); d > tol {
				t.Errorf("P[%s][%s] = %.4f, want %.4f ± %.4f", availability.State(i), availability.State(j), got.P[i][j], c.P[i][j], tol)
			}
		}
	}
	if _, ok := testModel().EquivalentChain(); ok {
		t.Error("a Weibull model has an equivalent chain")
	}
}

func TestSemiMarkovDeterministic(t *testing.T) {
	m := testModel()
	a := availability.Take(m.NewSource(availability.StartStationary, stream.New(3, 4)), 10000)
	b := availability.Take(m.NewSource(availability.StartStationary, stream.New(3, 4)), 10000)
	c := availability.Take(m.NewSource(availability.StartStationary, stream.New(3, 5)), 10000)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("same stream differs or different streams agree")
	}
	u := availability.Take(m.NewSource(availability.StartUp, stream.New(3, 4)), 1)
	if u[0] != availability.Up {
		t.Fatal("availability.StartUp does not start UP")
	}
}

func TestSlotsOf(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int64
	}{{0, 1}, {1e-300, 1}, {0.5, 1}, {1, 1}, {1.0000001, 2}, {2, 2}, {2.5, 3}, {math.NaN(), 1}, {1e30, availability.MaxSojournSlots}, {math.Inf(1), availability.MaxSojournSlots}} {
		if got := availability.SlotsOf(c.x); got != c.want {
			t.Errorf("availability.SlotsOf(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestSemiMarkovValidate(t *testing.T) {
	bad := func(f func(m *availability.SemiMarkov)) availability.SemiMarkov { m := testModel(); f(&m); return m }
	for name, c := range map[string]struct {
		m    availability.SemiMarkov
		want string
	}{
		"diagonal":  {bad(func(m *availability.SemiMarkov) { m.Jump[0] = [3]float64{0.1, 0.6, 0.3} }), "jump[u][u] = 0.1, want 0"},
		"row sum":   {bad(func(m *availability.SemiMarkov) { m.Jump[1] = [3]float64{0.5, 0, 0.4} }), "jump row r sums to 0.9"},
		"negative":  {bad(func(m *availability.SemiMarkov) { m.Jump[2] = [3]float64{1.5, -0.5, 0} }), "jump[d][u] = 1.5"},
		"shape":     {bad(func(m *availability.SemiMarkov) { m.Sojourn[0] = sojourn.Weibull{Shape: 0, Scale: 20} }), "sojourn in UP: weibull shape = 0"},
		"sigma":     {bad(func(m *availability.SemiMarkov) { m.Sojourn[1] = sojourn.LogNormal{Mu: 1.5, Sigma: math.NaN()} }), "sojourn in RECLAIMED: lognormal sigma = NaN"},
		"rate":      {bad(func(m *availability.SemiMarkov) { m.Sojourn[2] = sojourn.Exponential{Rate: math.Inf(1)} }), "sojourn in DOWN: exponential rate = +Inf"},
		"tiny k":    {bad(func(m *availability.SemiMarkov) { m.Sojourn[0] = sojourn.Weibull{Shape: 0.01, Scale: 20} }), "want ≥ 0.05"},
		"no law":    {bad(func(m *availability.SemiMarkov) { m.Sojourn[2] = nil }), "sojourn in DOWN: no law"},
		"huge mean": {bad(func(m *availability.SemiMarkov) { m.Sojourn[1] = sojourn.LogNormal{Mu: 710, Sigma: 1} }), "want a finite mean"},
	} {
		err := c.m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}
