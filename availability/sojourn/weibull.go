package sojourn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"

	"github.com/volsched/volsched/availability"
)

func init() {
	Register(Family{
		Name:   "weibull",
		Params: []string{"shape", "scale_seconds", "mean_seconds"},
		Decode: func(p Params) (availability.Sojourn, error) {
			k, err := p.Positive("shape")
			if err != nil {
				return nil, err
			}
			which, err := p.OneOf("scale_seconds", "mean_seconds")
			if err != nil {
				return nil, err
			}
			v, err := p.Positive(which)
			if err != nil {
				return nil, err
			}
			if which == "scale_seconds" {
				return Weibull{Shape: k, Scale: v}, nil
			}
			return WeibullMean(k, v), nil
		},
		OfMean: func(shape, mean float64) availability.Sojourn { return WeibullMean(shape, mean) },
		Shape:  "shape",
	})
}

// Weibull is the law of shape Shape k and scale Scale λ: CDF
// 1 − exp(−(x/λ)^k). Shapes below 1 are heavy-tailed (seed 003's fits of
// availability intervals).
type Weibull struct {
	Shape, Scale float64
}

// WeibullMean is the Weibull law of the given shape and mean (scale =
// mean / Γ(1 + 1/shape)).
func WeibullMean(shape, mean float64) Weibull {
	return Weibull{Shape: shape, Scale: mean / math.Gamma(1+1/shape)}
}

// Family implements availability.Sojourn.
func (d Weibull) Family() string { return "weibull" }

// Validate implements availability.Sojourn: shape and scale finite and
// > 0, shape ≥ 0.05 (smaller shapes overflow the mean).
func (d Weibull) Validate() error {
	if err := positive("weibull shape", d.Shape); err != nil {
		return err
	}
	if err := positive("weibull scale", d.Scale); err != nil {
		return err
	}
	if d.Shape < 0.05 {
		return fmt.Errorf("weibull shape = %v, want ≥ 0.05 (smaller shapes overflow: the mean is Γ(1+1/shape)·scale)", d.Shape)
	}
	return checkMean(d)
}

// Mean implements availability.Sojourn: λ·Γ(1 + 1/k).
func (d Weibull) Mean() float64 { return d.Scale * math.Gamma(1+1/d.Shape) }

// CDF implements availability.Sojourn.
func (d Weibull) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Expm1(-math.Pow(x/d.Scale, d.Shape))
}

// PartialMean implements availability.Sojourn: λ·Γ(a)·Q(a, (x/λ)^k) with
// a = 1 + 1/k and Q the regularized upper incomplete gamma function.
func (d Weibull) PartialMean(x float64) float64 {
	a := 1 + 1/d.Shape
	return d.Scale * math.Gamma(a) * mathext.GammaIncRegComp(a, math.Pow(x/d.Scale, d.Shape))
}

// Rand implements availability.Sojourn, by inversion: λ·E^(1/k), E ~
// Exp(1).
func (d Weibull) Rand(r *rand.Rand) float64 {
	return d.Scale * math.Pow(r.ExpFloat64(), 1/d.Shape)
}

// Residual implements availability.Sojourn: U·X̃ with X̃ the length-biased
// law, λ·G^(1/k) with G ~ Gamma(1 + 1/k, 1).
func (d Weibull) Residual(r *rand.Rand) float64 {
	g := gammaRand(1+1/d.Shape, r)
	x := d.Scale * math.Pow(g, 1/d.Shape)
	return r.Float64() * x
}

// Scaled implements availability.Sojourn.
func (d Weibull) Scaled(u float64) availability.Sojourn {
	d.Scale /= u
	return d
}

// gammaRand draws from the Gamma(a, 1) law, a ≥ 1, by Marsaglia and
// Tsang's method ("A simple method for generating gamma variables", ACM
// TOMS 26(3), 2000): one normal and one uniform per try, squeeze test
// first. The draws and the arithmetic are those of gonum's distuv.Gamma
// (v0.17.0) for a ≥ 1, so the same stream gives bit-identical times
// (TestGammaRandIsGonums); a = 1 is the exponential law.
func gammaRand(a float64, r *rand.Rand) float64 {
	if a == 1 {
		return r.ExpFloat64()
	}
	d := a - 1.0/3
	c := 1 / (3 * math.Sqrt(d))
	for {
		x := r.NormFloat64()
		v := 1 + x*c
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
