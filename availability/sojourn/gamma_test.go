package sojourn

import (
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/stream"
)

// TestGammaRandIsGonums: gammaRand and gonum's distuv.Gamma (which the
// Weibull's residual law drew from before) give bit-identical draws from
// the same stream, for shapes 1 + 1/k of Weibull laws from very heavy to
// almost constant, and normalCDF is distuv.UnitNormal.CDF.
func TestGammaRandIsGonums(t *testing.T) {
	for _, a := range []float64{1, 1 + 1/20.0, 1 + 1/2.5, 2, 3, 1 + 1/0.5, 1 + 1/0.05} {
		mine, theirs := stream.New(11, uint64(a*1000)), stream.New(11, uint64(a*1000))
		g := distuv.Gamma{Alpha: a, Beta: 1, Src: theirs}
		for i := 0; i < 20000; i++ {
			if x, y := gammaRand(a, mine), g.Rand(); x != y {
				t.Fatalf("alpha %v, draw %d: gammaRand %v, distuv.Gamma %v", a, i, x, y)
			}
		}
	}
	for z := -40.0; z <= 40; z += 0.01 {
		if x, y := normalCDF(z), distuv.UnitNormal.CDF(z); x != y {
			t.Fatalf("Φ(%v): normalCDF %v, distuv %v", z, x, y)
		}
	}
}
