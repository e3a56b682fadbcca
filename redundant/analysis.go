package redundant

import (
	"math"
	"math/rand/v2"
)

// EAExpected is Eq. 5: the expected R_sys of the EA allocation of n tasks on
// m hosts whose failure probabilities are independent with mean rho,
// Π_j (1 − ρ^{k_j}) with k_j = ⌊m/n⌋ or ⌊m/n⌋+1 hosts. With independent
// failure probabilities the expectation of each product is the product of
// the means, so this is exact, not an approximation.
func EAExpected(m, n int, rho float64) float64 {
	r := 1.0
	for _, k := range EAGroupSizes(m, n) {
		r *= 1 - math.Pow(rho, float64(k))
	}
	return r
}

// EAScaled is Eq. 6: the EA success probability of (m, n) predicted from
// the problem with N tasks and the same host/task ratio,
// P(m, n) = P(mN/n, N)^{n/N}. mN/n must be an integer here (the base
// problem must exist); it is exact when N divides n and EA's k+1 groups
// scale with the problem (α = n/N copies of the base problem). NaN when
// mN/n is not an integer.
func EAScaled(m, n, N int, rho float64) float64 {
	if (m*N)%n != 0 {
		return math.NaN()
	}
	return math.Pow(EAExpected(m*N/n, N, rho), float64(n)/float64(N))
}

// Outcome draws one execution: each replica on host i fails with
// probability p[i], independently; it reports whether every task had a
// replica that succeeded.
func Outcome(p []float64, x []int, n int, r *rand.Rand) bool {
	ok := make([]bool, n)
	for i, j := range x {
		if r.Float64() >= p[i] {
			ok[j] = true
		}
	}
	for _, v := range ok {
		if !v {
			return false
		}
	}
	return true
}
