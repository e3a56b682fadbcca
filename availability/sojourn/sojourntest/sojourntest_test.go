package sojourntest_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/availability/sojourn/sojourntest"
)

// recorder is a testing.TB that keeps the errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// wrongResidual draws its residual from the plain law.
type wrongResidual struct{ sojourn.Weibull }

func (d wrongResidual) Residual(r *rand.Rand) float64 { return d.Rand(r) }

// wrongPartialMean forgets the x·S(x) term.
type wrongPartialMean struct{ sojourn.LogNormal }

func (d wrongPartialMean) PartialMean(x float64) float64 {
	return d.LogNormal.PartialMean(x) - x*(1-d.CDF(x))
}

// wrongRand draws one slot too long.
type wrongRand struct{ sojourn.Exponential }

func (d wrongRand) Rand(r *rand.Rand) float64 { return d.Exponential.Rand(r) + 1 }

// wrongScale scales the wrong way.
type wrongScale struct{ sojourn.Exponential }

func (d wrongScale) Scaled(u float64) availability.Sojourn { return d.Exponential.Scaled(1 / u) }

// TestCheckHasPower: each property Check tests catches a law that breaks
// it, and passes the law it was taken from.
func TestCheckHasPower(t *testing.T) {
	for _, c := range []struct {
		d    availability.Sojourn
		want string
	}{
		{wrongResidual{sojourn.Weibull{Shape: 0.5, Scale: 3}}, "Residual against the equilibrium law"},
		{wrongPartialMean{sojourn.LogNormal{Mu: 1, Sigma: 0.8}}, "PartialMean("},
		{wrongRand{sojourn.ExponentialMean(4)}, "Rand against CDF"},
		{wrongScale{sojourn.ExponentialMean(4)}, "Scaled(60).Mean()"},
		{sojourn.Weibull{Shape: 0.01, Scale: 1}, "Validate"},
	} {
		r := &recorder{TB: t}
		sojourntest.Check(r, c.d)
		if !strings.Contains(strings.Join(r.errs, "\n"), c.want) {
			t.Errorf("%T: errors %q, want one containing %q", c.d, r.errs, c.want)
		}
	}
	r := &recorder{TB: t}
	sojourntest.Check(r, sojourn.Weibull{Shape: 0.5, Scale: 3})
	if len(r.errs) != 0 {
		t.Errorf("a correct law fails: %q", r.errs)
	}
}
