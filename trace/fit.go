package trace

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/stats"
)

// Fit is a maximum-likelihood fit of a distribution to durations.
type Fit struct {
	Name   string    `json:"name"`   // exponential, weibull, lognormal
	Params []float64 `json:"params"` // exponential [rate]; weibull [shape, scale]; lognormal [mu, sigma]
	LogLik float64   `json:"log_likelihood"`
	KS     float64   `json:"ks"`      // Kolmogorov–Smirnov statistic D
	KSP    float64   `json:"ks_p"`    // asymptotic p-value of D (too high when parameters are fitted: see Lilliefors)
	N      int       `json:"samples"` // number of durations
}

// CDF returns the fitted distribution's CDF.
func (f Fit) CDF() func(float64) float64 {
	switch f.Name {
	case "exponential":
		return distuv.Exponential{Rate: f.Params[0]}.CDF
	case "weibull":
		return distuv.Weibull{K: f.Params[0], Lambda: f.Params[1]}.CDF
	default:
		return distuv.LogNormal{Mu: f.Params[0], Sigma: f.Params[1]}.CDF
	}
}

func checkDurations(x []float64) error {
	if len(x) < 2 {
		return fmt.Errorf("%d durations, want at least 2", len(x))
	}
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("duration %d = %v, want a finite number > 0", i, v)
		}
	}
	return nil
}

// FitExponential is the MLE rate = 1/mean.
func FitExponential(x []float64) (Fit, error) {
	if err := checkDurations(x); err != nil {
		return Fit{}, err
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	rate := float64(len(x)) / s
	d := distuv.Exponential{Rate: rate}
	return finish(Fit{Name: "exponential", Params: []float64{rate}}, x, d.LogProb, d.CDF), nil
}

// FitLogNormal is the MLE: mean and (1/n) standard deviation of log x.
func FitLogNormal(x []float64) (Fit, error) {
	if err := checkDurations(x); err != nil {
		return Fit{}, err
	}
	m := logMoments(x)
	mu, sigma := m.Mean, m.PopulationSD()
	if sigma == 0 {
		return Fit{}, fmt.Errorf("all durations equal: log-normal sigma would be 0")
	}
	d := distuv.LogNormal{Mu: mu, Sigma: sigma}
	return finish(Fit{Name: "lognormal", Params: []float64{mu, sigma}}, x, d.LogProb, d.CDF), nil
}

// logMoments are the moments of log x (internal/stats).
func logMoments(x []float64) stats.Moments {
	logs := make([]float64, len(x))
	for i, v := range x {
		logs[i] = math.Log(v)
	}
	return stats.Of(logs)
}

// FitWeibull maximizes the Weibull likelihood numerically (gonum optimize,
// BFGS over log shape and log scale, started from the moment estimates of
// log x).
func FitWeibull(x []float64) (Fit, error) {
	if err := checkDurations(x); err != nil {
		return Fit{}, err
	}
	n := float64(len(x))
	// Scale the data so the optimizer works near 1.
	lm := logMoments(x)
	scale0 := math.Exp(lm.Mean)
	sd := lm.PopulationSD()
	if sd == 0 {
		return Fit{}, fmt.Errorf("all durations equal: no Weibull fit")
	}
	y := make([]float64, len(x))
	ly := make([]float64, len(x))
	for i, v := range x {
		y[i] = v / scale0
		ly[i] = math.Log(y[i])
	}
	// Negative log-likelihood in (log k, log λ) for data y.
	nll := func(p []float64) float64 {
		k, lam := math.Exp(p[0]), math.Exp(p[1])
		s := n*(math.Log(k)-k*math.Log(lam)) - 0
		for i := range y {
			s += (k-1)*ly[i] - math.Pow(y[i]/lam, k)
		}
		return -s
	}
	grad := func(g, p []float64) {
		k, lam := math.Exp(p[0]), math.Exp(p[1])
		var a, b float64 // Σ (y/λ)^k·log(y/λ), Σ (y/λ)^k
		sl := 0.0
		for i := range y {
			z := math.Pow(y[i]/lam, k)
			a += z * (ly[i] - math.Log(lam))
			b += z
			sl += ly[i] - math.Log(lam)
		}
		// d/dk log L = n/k + Σ log(y/λ) − Σ (y/λ)^k log(y/λ)
		dk := n/k + sl - a
		// d/dλ log L = (k/λ)(Σ (y/λ)^k − n)
		dl := k / lam * (b - n)
		g[0] = -dk * k
		g[1] = -dl * lam
	}
	k0 := 1.2825 / sd // Gumbel moments of log x
	res, err := optimize.Minimize(optimize.Problem{Func: nll, Grad: grad}, []float64{math.Log(k0), 0}, nil, &optimize.BFGS{})
	if err != nil && res == nil {
		return Fit{}, fmt.Errorf("weibull fit: %w", err)
	}
	k, lam := math.Exp(res.X[0]), math.Exp(res.X[1])*scale0
	if math.IsNaN(k) || math.IsNaN(lam) || k <= 0 || lam <= 0 {
		return Fit{}, fmt.Errorf("weibull fit did not converge (shape %v, scale %v)", k, lam)
	}
	d := distuv.Weibull{K: k, Lambda: lam}
	return finish(Fit{Name: "weibull", Params: []float64{k, lam}}, x, d.LogProb, d.CDF), nil
}

// FitAll fits the three distributions.
func FitAll(x []float64) ([]Fit, error) {
	var out []Fit
	for _, f := range []func([]float64) (Fit, error){FitExponential, FitWeibull, FitLogNormal} {
		r, err := f(x)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func finish(f Fit, x []float64, logProb, cdf func(float64) float64) Fit {
	f.N = len(x)
	for _, v := range x {
		f.LogLik += logProb(v)
	}
	f.KS = availability.KSStatistic(x, cdf)
	f.KSP = availability.KSPValue(f.KS, len(x))
	return f
}
