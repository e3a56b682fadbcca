package sojourn

import (
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

func init() {
	Register(Family{
		Name:   "exponential",
		Params: []string{"mean_seconds"},
		Decode: func(p Params) (availability.Sojourn, error) {
			m, err := p.Positive("mean_seconds")
			if err != nil {
				return nil, err
			}
			return ExponentialMean(m), nil
		},
		OfMean: func(_, mean float64) availability.Sojourn { return ExponentialMean(mean) },
	})
}

// Exponential is the memoryless law of rate Rate (mean 1/Rate). Cut into
// slots (availability.SlotsOf) its sojourns are geometric, so a
// semi-Markov model whose sojourns are all exponential is a Markov chain
// (availability.SemiMarkov.EquivalentChain).
type Exponential struct {
	Rate float64
}

// ExponentialMean is the exponential law of the given mean.
func ExponentialMean(mean float64) Exponential { return Exponential{Rate: 1 / mean} }

// Family implements availability.Sojourn.
func (d Exponential) Family() string { return "exponential" }

// Validate implements availability.Sojourn: the rate is finite and > 0.
func (d Exponential) Validate() error {
	if err := positive("exponential rate", d.Rate); err != nil {
		return err
	}
	return checkMean(d)
}

// Mean implements availability.Sojourn.
func (d Exponential) Mean() float64 { return 1 / d.Rate }

// CDF implements availability.Sojourn.
func (d Exponential) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Expm1(-d.Rate * x)
}

// PartialMean implements availability.Sojourn: (x + 1/rate)·e^(−rate·x).
func (d Exponential) PartialMean(x float64) float64 {
	return (x + 1/d.Rate) * math.Exp(-d.Rate*x)
}

// Rand implements availability.Sojourn.
func (d Exponential) Rand(r *rand.Rand) float64 { return r.ExpFloat64() / d.Rate }

// Residual implements availability.Sojourn: U·X̃ with X̃ the length-biased
// law, Gamma(2, rate) (which makes the residual exponential again).
func (d Exponential) Residual(r *rand.Rand) float64 {
	x := (r.ExpFloat64() + r.ExpFloat64()) / d.Rate
	return r.Float64() * x
}

// Scaled implements availability.Sojourn.
func (d Exponential) Scaled(u float64) availability.Sojourn {
	d.Rate *= u
	return d
}

// SlotStay implements availability.Memoryless: with times in slots, the
// probability that a sojourn lasts one more slot, e^(−rate).
func (d Exponential) SlotStay() float64 { return math.Exp(-d.Rate) }
