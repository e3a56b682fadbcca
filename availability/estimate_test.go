package availability

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEstimatorConvergesToChain(t *testing.T) {
	truth := Chain{P: [3][3]float64{{0.95, 0.03, 0.02}, {0.10, 0.85, 0.05}, {0.20, 0.05, 0.75}}}
	e, err := NewEstimator(DefaultPrior())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := truth.Sample(Up, 200001, r)
	e.ObserveSequence(s)
	if got := e.Transitions(); got != 200000 {
		t.Fatalf("Transitions = %g, want 200000", got)
	}
	got := e.Chain()
	if err := got.Validate("estimate"); err != nil {
		t.Fatal(err)
	}
	// Row i has n_i ≈ 200000·π_i transitions; the standard error of an
	// entry is at most sqrt(0.25/n_i). Allow 5 standard errors.
	pi := truth.Stationary()
	for i := range truth.P {
		tol := 5 * math.Sqrt(0.25/(200000*pi[i]))
		for j := range truth.P[i] {
			if d := math.Abs(got.P[i][j] - truth.P[i][j]); d > tol {
				t.Errorf("P[%d][%d] = %.4f, want %.4f ± %.4f", i, j, got.P[i][j], truth.P[i][j], tol)
			}
		}
	}
}

func TestEstimatorPriorAndCounts(t *testing.T) {
	e, err := NewEstimator(DefaultPrior())
	if err != nil {
		t.Fatal(err)
	}
	if c := e.Chain(); math.Abs(c.P[Up][Up]-0.945) > 1e-12 || math.Abs(c.P[Down][Up]-0.0275) > 1e-12 {
		t.Fatalf("prior alone gives %v, want the generator's mean chain", c.P)
	}
	e.ObserveStay(Up, 98)
	e.Observe(Up, Down)
	e.Observe(Down, Up)
	c := e.Chain()
	// Row u: prior (1.89, 0.055, 0.055) + counts (98, 0, 1), total 101.
	if want := (1.89 + 98) / 101; math.Abs(c.P[Up][Up]-want) > 1e-12 {
		t.Errorf("P[u][u] = %g, want %g", c.P[Up][Up], want)
	}
	if want := (0.055 + 1) / 101; math.Abs(c.P[Up][Down]-want) > 1e-12 {
		t.Errorf("P[u][d] = %g, want %g", c.P[Up][Down], want)
	}
	// Row d: prior + one transition to u, total 3.
	if want := (0.055 + 1) / 3; math.Abs(c.P[Down][Up]-want) > 1e-12 {
		t.Errorf("P[d][u] = %g, want %g", c.P[Down][Up], want)
	}
}

func TestNewEstimatorRefusesBadPrior(t *testing.T) {
	var zeroRow [3][3]float64
	zeroRow[0][0], zeroRow[2][2] = 1, 1
	neg := DefaultPrior()
	neg[1][2] = -1
	nan := DefaultPrior()
	nan[0][1] = math.NaN()
	for name, c := range map[string]struct {
		prior [3][3]float64
		want  string
	}{
		"zero row": {zeroRow, "prior row r sums to 0"},
		"negative": {neg, "prior[r][d] = -1"},
		"NaN":      {nan, "prior[u][r] = NaN"},
	} {
		if _, err := NewEstimator(c.prior); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", name, err, c.want)
		}
	}
}
