package redundant

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalDistribution is the distribution φ of availability-interval
// durations. distuv.Exponential, distuv.Weibull and distuv.LogNormal
// satisfy it.
type IntervalDistribution interface {
	CDF(x float64) float64
	Survival(x float64) float64
}

// NewIntervalDistribution returns the named distribution: "exponential"
// (params: rate), "weibull" (shape k, scale λ) or "lognormal" (µ, σ of the
// log). Parameters are checked.
func NewIntervalDistribution(name string, params []float64) (IntervalDistribution, error) {
	need := map[string]int{"exponential": 1, "weibull": 2, "lognormal": 2}
	k, ok := need[name]
	if !ok {
		return nil, fmt.Errorf("distribution %q: unknown, want exponential, weibull or lognormal", name)
	}
	if len(params) != k {
		return nil, fmt.Errorf("distribution %s: %d parameters, want %d", name, len(params), k)
	}
	for i, v := range params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("distribution %s: parameter %d = %v, want a finite number", name, i, v)
		}
	}
	switch name {
	case "exponential":
		if params[0] <= 0 {
			return nil, fmt.Errorf("distribution exponential: rate = %v, want > 0", params[0])
		}
		return distuv.Exponential{Rate: params[0]}, nil
	case "weibull":
		if params[0] <= 0 || params[1] <= 0 {
			return nil, fmt.Errorf("distribution weibull: shape = %v, scale = %v, want both > 0", params[0], params[1])
		}
		return distuv.Weibull{K: params[0], Lambda: params[1]}, nil
	default:
		if params[1] <= 0 {
			return nil, fmt.Errorf("distribution lognormal: sigma = %v, want > 0", params[1])
		}
		return distuv.LogNormal{Mu: params[0], Sigma: params[1]}, nil
	}
}

// FailureProb is Eq. 3: the probability that a task of size t started on a
// host that has been available for a duration age fails before it
// completes, (φ(γ+t) − φ(γ)) / (1 − φ(γ)), computed as 1 − S(γ+t)/S(γ)
// with the survival function S = 1 − φ (accurate in the tail; in log space
// for the exponential and Weibull). When S(γ) underflows to 0 (an age so far
// in the tail that the distribution gives it no mass) the result is 1.
func FailureProb(d IntervalDistribution, age, t float64) (float64, error) {
	if math.IsNaN(age) || age < 0 || math.IsInf(age, 0) {
		return 0, fmt.Errorf("age = %v, want a finite duration >= 0", age)
	}
	if math.IsNaN(t) || t < 0 || math.IsInf(t, 0) {
		return 0, fmt.Errorf("task size = %v, want a finite size >= 0", t)
	}
	switch d := d.(type) {
	case distuv.Exponential:
		return -math.Expm1(-d.Rate * t), nil
	case distuv.Weibull:
		return clamp01(-math.Expm1(d.LogSurvival(age+t) - d.LogSurvival(age))), nil
	}
	s0 := d.Survival(age)
	if s0 <= 0 {
		return 1, nil
	}
	return clamp01(1 - d.Survival(age+t)/s0), nil
}

func clamp01(p float64) float64 { return math.Min(1, math.Max(0, p)) }

// FailureProbs applies Eq. 3 to every host age.
func FailureProbs(d IntervalDistribution, ages []float64, t float64) ([]float64, error) {
	p := make([]float64, len(ages))
	for i, a := range ages {
		v, err := FailureProb(d, a, t)
		if err != nil {
			return nil, fmt.Errorf("host %d: %w", i, err)
		}
		p[i] = v
	}
	return p, nil
}

// SABProbs is SAB's linear model (Eq. 7): p_i = 1 − (γ_i + t)/C, the longer
// a host has been available the less likely the task is to fail. The paper
// requires γ_i + t ≤ C; C must be positive and every γ_i + t must be at
// most C.
func SABProbs(ages []float64, t, c float64) ([]float64, error) {
	if math.IsNaN(c) || c <= 0 || math.IsInf(c, 0) {
		return nil, fmt.Errorf("SAB constant C = %v, want a finite number > 0", c)
	}
	if math.IsNaN(t) || t < 0 || math.IsInf(t, 0) {
		return nil, fmt.Errorf("task size = %v, want a finite size >= 0", t)
	}
	p := make([]float64, len(ages))
	for i, a := range ages {
		if math.IsNaN(a) || a < 0 || math.IsInf(a, 0) {
			return nil, fmt.Errorf("host %d: age = %v, want a finite duration >= 0", i, a)
		}
		if a+t > c {
			return nil, fmt.Errorf("host %d: age + task size = %v exceeds C = %v, want age + t <= C (Eq. 7)", i, a+t, c)
		}
		p[i] = 1 - (a+t)/c
	}
	return p, nil
}
