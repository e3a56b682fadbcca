package sojourn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/availability"
)

func init() {
	Register(Family{
		Name:    "lognormal",
		Aliases: []string{"log-normal"},
		Params:  []string{"sigma", "mu", "mean_seconds"},
		Decode: func(p Params) (availability.Sojourn, error) {
			sigma, err := p.Positive("sigma")
			if err != nil {
				return nil, err
			}
			which, err := p.OneOf("mu", "mean_seconds")
			if err != nil {
				return nil, err
			}
			if which == "mu" {
				mu, err := p.Finite("mu", "a finite number (mean of ln seconds)")
				if err != nil {
					return nil, err
				}
				return LogNormal{Mu: mu, Sigma: sigma}, nil
			}
			m, err := p.Positive("mean_seconds")
			if err != nil {
				return nil, err
			}
			return LogNormalMean(sigma, m), nil
		},
		OfMean: func(sigma, mean float64) availability.Sojourn { return LogNormalMean(sigma, mean) },
		Shape:  "sigma",
	})
}

// LogNormal is the law of e^(Mu + Sigma·Z), Z standard normal: Mu and Sigma
// are the mean and the standard deviation of the logarithm.
type LogNormal struct {
	Mu, Sigma float64
}

// LogNormalMean is the log-normal law of the given σ and mean (μ = ln mean
// − σ²/2).
func LogNormalMean(sigma, mean float64) LogNormal {
	return LogNormal{Sigma: sigma, Mu: math.Log(mean) - sigma*sigma/2}
}

// Family implements availability.Sojourn.
func (d LogNormal) Family() string { return "lognormal" }

// Validate implements availability.Sojourn: μ finite, σ finite in (0, 10]
// (larger ones overflow the mean).
func (d LogNormal) Validate() error {
	if math.IsNaN(d.Mu) || math.IsInf(d.Mu, 0) {
		return fmt.Errorf("lognormal mu = %v, want a finite number", d.Mu)
	}
	if err := positive("lognormal sigma", d.Sigma); err != nil {
		return err
	}
	if d.Sigma > 10 {
		return fmt.Errorf("lognormal sigma = %v, want ≤ 10 (larger overflow the mean exp(mu+sigma²/2))", d.Sigma)
	}
	return checkMean(d)
}

// Mean implements availability.Sojourn: e^(μ + σ²/2).
func (d LogNormal) Mean() float64 { return math.Exp(d.Mu + d.Sigma*d.Sigma/2) }

// CDF implements availability.Sojourn: Φ((ln x − μ)/σ).
func (d LogNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return normalCDF((math.Log(x) - d.Mu) / d.Sigma)
}

// PartialMean implements availability.Sojourn: mean·(1 − Φ((ln x − μ −
// σ²)/σ)).
func (d LogNormal) PartialMean(x float64) float64 {
	m := math.Exp(d.Mu + d.Sigma*d.Sigma/2)
	return m * distuv.UnitNormal.Survival((math.Log(x)-d.Mu-d.Sigma*d.Sigma)/d.Sigma)
}

// Rand implements availability.Sojourn.
func (d LogNormal) Rand(r *rand.Rand) float64 {
	return math.Exp(d.Mu + d.Sigma*r.NormFloat64())
}

// Residual implements availability.Sojourn: U·X̃ with X̃ the length-biased
// law, log-normal(μ + σ², σ).
func (d LogNormal) Residual(r *rand.Rand) float64 {
	x := math.Exp(d.Mu + d.Sigma*d.Sigma + d.Sigma*r.NormFloat64())
	return r.Float64() * x
}

// Scaled implements availability.Sojourn.
func (d LogNormal) Scaled(u float64) availability.Sojourn {
	d.Mu -= math.Log(u)
	return d
}

// normalCDF is Φ(z), the standard normal CDF (bit-identical to gonum's
// distuv.UnitNormal.CDF: TestGammaRandIsGonums).
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
