package availability

import (
	"math"
	"slices"
	"sort"
)

// The Kolmogorov–Smirnov test, for continuous laws (KSStatistic, used by
// trace's fits) and for laws on the integers (KSDiscrete, used by
// MarkovTest), with Kolmogorov's asymptotic p-value (KSPValue).

// KSStatistic is the one-sample Kolmogorov–Smirnov statistic
// D = sup |F_n(x) − F(x)|.
func KSStatistic(x []float64, cdf func(float64) float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, v := range s {
		f := cdf(v)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// KSPValue is the asymptotic p-value of D for n samples (Kolmogorov's
// distribution with Stephens' small-sample correction). It assumes the
// distribution was not fitted to the same data; with fitted parameters the
// true p-value is smaller.
func KSPValue(d float64, n int) float64 {
	sn := math.Sqrt(float64(n))
	l := (sn + 0.12 + 0.11/sn) * d
	if l < 0.2 {
		return 1
	}
	s := 0.0
	for k := 1; k <= 100; k++ {
		t := 2 * math.Pow(-1, float64(k-1)) * math.Exp(-2*float64(k*k)*l*l)
		s += t
		if math.Abs(t) < 1e-12 {
			break
		}
	}
	return math.Min(1, math.Max(0, s))
}

// KSDiscrete is the one-sample Kolmogorov–Smirnov statistic D = sup_x
// |F_n(x) − F(x)| of integer observations x against a distribution on the
// integers given by its CDF (cdf(n) = P(X ≤ n)). Both functions are step
// functions jumping at integers, so the supremum is taken at each distinct
// observation v and at v − 1. (KSStatistic is for continuous laws:
// on tied data it compares F(v) with the empirical CDF just below v and
// overstates D.)
func KSDiscrete(x []int, cdf func(n int) float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i := 0; i < len(s); {
		v := s[i]
		j := i
		for j < len(s) && s[j] == v {
			j++
		}
		// F_n(v−1) = i/n (no observation in (v−1, v)), F_n(v) = j/n.
		d = math.Max(d, math.Max(math.Abs(float64(j)/n-cdf(v)), math.Abs(float64(i)/n-cdf(v-1))))
		i = j
	}
	return d
}
