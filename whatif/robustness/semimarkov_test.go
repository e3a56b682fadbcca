package robustness

import (
	"math"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/stream"
)

// TestSlotMeanSeries: SlotMean against the series summed term by term far
// enough for the tail to vanish, and against the exponential's closed form
// (a geometric number of slots of mean 1/(1 − e^(−λ))).
func TestSlotMeanSeries(t *testing.T) {
	for _, d := range []availability.Sojourn{
		sojourn.ExponentialMean(7.5),
		sojourn.WeibullMean(0.7, 20),
		sojourn.WeibullMean(1.8, 40),
		sojourn.LogNormalMean(1, 30),
		sojourn.WeibullMean(0.45, 3),
	} {
		direct := 1.0
		for k := 1; k <= 20_000_000; k++ {
			s := 1 - d.CDF(float64(k))
			direct += s
			if s < 1e-17 {
				break
			}
		}
		if got := SlotMean(d); math.Abs(got-direct) > 1e-6*direct {
			t.Errorf("%+v: SlotMean %v, direct sum %v", d, got, direct)
		}
	}
	d := sojourn.ExponentialMean(7.5)
	if got, want := SlotMean(d), 1/(1-math.Exp(-1/7.5)); math.Abs(got-want) > 1e-9 {
		t.Errorf("exponential: %v, want %v", got, want)
	}
}

// TestSemiMarkovOfMeans: the heavy-tailed laws of the study, calibrated to
// a chain's mean sojourns, give those means in slots: checked by drawing
// 400 000 sojourns per state and rounding them as the sources do (5
// standard errors; log-normal σ = 2.419 has a huge variance, so its check
// uses the sample's own standard error). The jump chain and the fractions
// of slots in each state equal the chain's; with exponential sojourns the
// model is the chain itself.
func TestSemiMarkovOfMeans(t *testing.T) {
	c := availability.Chain{P: [3][3]float64{{0.95, 0.03, 0.02}, {0.08, 0.9, 0.02}, {0.02, 0.01, 0.97}}}
	pi := c.Stationary()
	for _, fam := range []struct {
		name  string
		shape float64
		label uint64 // of the test's streams
	}{{"weibull", UCBWeibullShape, 1}, {"lognormal", UCBSigma, 2}, {"exponential", 0, 0}} {
		f, err := sojourn.Lookup(fam.name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := SemiMarkovOf(c, f, fam.shape)
		if err != nil {
			t.Fatal(err)
		}
		r := stream.New(8, fam.label)
		for i := 0; i < 3; i++ {
			want := 1 / (1 - c.P[i][i])
			if got := SlotMean(m.Sojourn[i]); math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s state %d: SlotMean %v, want %v", fam.name, i, got, want)
			}
			const n = 400_000
			sum, sum2 := 0.0, 0.0
			for k := 0; k < n; k++ {
				x := float64(availability.SlotsOf(m.Sojourn[i].Rand(r)))
				sum += x
				sum2 += x * x
			}
			mean := sum / n
			se := math.Sqrt((sum2/n - mean*mean) / n)
			if math.Abs(mean-want) > 5*se {
				t.Errorf("%s state %d: sampled mean %.3f ± %.3f slots, want %.3f", fam.name, i, mean, se, want)
			}
			for j := 0; j < 3; j++ {
				if j != i && math.Abs(m.Jump[i][j]*(1-c.P[i][i])-c.P[i][j]) > 1e-12 {
					t.Errorf("jump %d→%d = %v", i, j, m.Jump[i][j])
				}
			}
		}
		if fam.name == "exponential" {
			eq, ok := m.EquivalentChain()
			if !ok {
				t.Fatal("exponential: no equivalent chain")
			}
			for i := range eq.P {
				for j := range eq.P[i] {
					if math.Abs(eq.P[i][j]-c.P[i][j]) > 1e-9 {
						t.Errorf("exponential: equivalent chain %v, want %v", eq.P, c.P)
					}
				}
			}
		}
		// The long-run fraction of slots in each state is π (the jump
		// chain's stationary law times the slot means is ∝ π), from a long
		// source (heavy tails: a loose tolerance, fixed seed).
		src := m.NewSource(availability.StartStationary, stream.New(9, fam.label))
		var cnt [3]float64
		const slots = 2_000_000
		for k := 0; k < slots; k++ {
			cnt[src.Next()]++
		}
		for i := range cnt {
			if got := cnt[i] / slots; math.Abs(got-pi[i]) > 0.1*pi[i]+0.01 {
				t.Errorf("%s: fraction of slots in %d = %.4f, π = %.4f", fam.name, i, got, pi[i])
			}
		}
	}
	w, _ := sojourn.Lookup("weibull")
	if _, err := SemiMarkovOf(availability.Chain{P: [3][3]float64{{1, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}}}, w, 0.5); err == nil {
		t.Error("P_uu = 1: no error")
	}
}
