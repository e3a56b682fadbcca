package experiment

import "math"

// KendallTau returns Kendall's rank correlation τ-b of the paired values
// (a[i], b[i]): (C − D) / sqrt((n0 − n1)(n0 − n2)), where C and D count the
// concordant and discordant pairs, n0 = n(n−1)/2, and n1, n2 count the
// pairs tied in a and in b. Ties count neither as concordant nor as
// discordant, so τ-b is 1 when both orders agree (ties included), −1 when
// they are reversed.
//
// Use it on the values the rankings come from (e.g. our average dfb and
// the paper's, per heuristic), not on rank numbers, so ties are honoured.
// It returns NaN when the lengths differ, when there are fewer than two
// pairs, when a value is NaN, or when a or b is constant (τ-b undefined).
// O(n²), meant for tens of items.
func KendallTau(a, b []float64) float64 {
	n := len(a)
	if n != len(b) || n < 2 {
		return math.NaN()
	}
	var conc, disc, tieA, tieB int
	for i := range n {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			return math.NaN()
		}
		for j := i + 1; j < n; j++ {
			sa, sb := sign(a[i]-a[j]), sign(b[i]-b[j])
			if sa == 0 {
				tieA++
			}
			if sb == 0 {
				tieB++
			}
			switch sa * sb {
			case 1:
				conc++
			case -1:
				disc++
			}
		}
	}
	n0 := n * (n - 1) / 2
	den := math.Sqrt(float64(n0-tieA) * float64(n0-tieB))
	if den == 0 {
		return math.NaN()
	}
	return float64(conc-disc) / den
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
