package availability

import (
	"math"
	"testing"
)

func TestKSPValue(t *testing.T) {
	// Critical values of the Kolmogorov distribution (large n).
	for _, c := range [][2]float64{{1.358, 0.05}, {1.628, 0.01}, {1.224, 0.10}} {
		n := 10000
		d := c[0] / math.Sqrt(float64(n))
		if p := KSPValue(d, n); math.Abs(p-c[1]) > 0.003 {
			t.Fatalf("KSPValue(%v, %d) = %v, want %v", d, n, p, c[1])
		}
	}
}
