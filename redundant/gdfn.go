package redundant

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GDFN is the generalized doubly folded normal distribution the paper uses
// for task-failure probabilities (§3.1): a normal(Mu, Sigma) folded into
// [0, 1] by reflecting barriers at 0 and 1. A value x of the normal maps
// to y = x mod 2 (in [0, 2)), then 2 − y if y > 1.
type GDFN struct {
	Mu, Sigma float64
}

// Validate checks the parameters.
func (g GDFN) Validate() error {
	if math.IsNaN(g.Mu) || math.IsInf(g.Mu, 0) {
		return fmt.Errorf("gdfn: mu = %v, want a finite number", g.Mu)
	}
	if math.IsNaN(g.Sigma) || math.IsInf(g.Sigma, 0) || g.Sigma < 0 {
		return fmt.Errorf("gdfn: sigma = %v, want a finite number >= 0", g.Sigma)
	}
	return nil
}

// Fold reflects x into [0, 1] at barriers 0 and 1.
func Fold(x float64) float64 {
	y := math.Mod(x, 2)
	if y < 0 {
		y += 2
	}
	if y > 1 {
		y = 2 - y
	}
	return y
}

// Sample draws one failure probability.
func (g GDFN) Sample(r *rand.Rand) float64 {
	return Fold(g.Mu + g.Sigma*r.NormFloat64())
}

// SampleN draws m failure probabilities (one per host).
func (g GDFN) SampleN(r *rand.Rand, m int) []float64 {
	p := make([]float64, m)
	for i := range p {
		p[i] = g.Sample(r)
	}
	return p
}

// images returns the range of k for the reflected images x + 2k that carry
// mass (10 standard deviations around the mean).
func (g GDFN) images() (int, int) {
	lo := int(math.Floor((g.Mu-10*g.Sigma)/2)) - 1
	hi := int(math.Ceil((g.Mu+10*g.Sigma)/2)) + 1
	return lo, hi
}

// PDF is the density on [0, 1] (0 outside): the sum of the normal density
// over the images 2k + y and 2k − y of y. Sigma must be > 0.
func (g GDFN) PDF(y float64) float64 {
	if y < 0 || y > 1 || g.Sigma <= 0 {
		return 0
	}
	lo, hi := g.images()
	s := 0.0
	for k := lo; k <= hi; k++ {
		a := (2*float64(k) + y - g.Mu) / g.Sigma
		b := (2*float64(k) - y - g.Mu) / g.Sigma
		s += math.Exp(-a*a/2) + math.Exp(-b*b/2)
	}
	return s / (g.Sigma * math.Sqrt(2*math.Pi))
}

// CDF is P(Y <= y) = Σ_k [Φ((2k+y−µ)/σ) − Φ((2k−y−µ)/σ)].
func (g GDFN) CDF(y float64) float64 {
	switch {
	case y <= 0:
		return 0
	case y >= 1:
		return 1
	case g.Sigma == 0:
		if Fold(g.Mu) <= y {
			return 1
		}
		return 0
	}
	lo, hi := g.images()
	s := 0.0
	for k := lo; k <= hi; k++ {
		s += stdNormalCDF((2*float64(k)+y-g.Mu)/g.Sigma) - stdNormalCDF((2*float64(k)-y-g.Mu)/g.Sigma)
	}
	return math.Min(1, math.Max(0, s))
}

// Mean is the mean failure probability ρ = ∫_0^1 (1 − F(y)) dy (Simpson's
// rule, 2,000 intervals).
func (g GDFN) Mean() float64 {
	if g.Sigma == 0 {
		return Fold(g.Mu)
	}
	const n = 2000
	h := 1.0 / n
	s := (1 - g.CDF(0)) + (1 - g.CDF(1))
	for i := 1; i < n; i++ {
		c := 2.0
		if i%2 == 1 {
			c = 4
		}
		s += c * (1 - g.CDF(float64(i)*h))
	}
	return s * h / 3
}

func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
