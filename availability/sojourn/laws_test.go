package sojourn_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/availability/sojourn/sojourntest"
)

// laws are the laws the property tests check, at least one per registered
// family (TestEveryFamilyChecked): heavy and light Weibull tails, a
// moderate log-normal.
var laws = []availability.Sojourn{
	sojourn.ExponentialMean(4),
	sojourn.Weibull{Shape: 0.5, Scale: 3},
	sojourn.Weibull{Shape: 2.5, Scale: 10},
	sojourn.WeibullMean(0.7, 100),
	sojourn.LogNormal{Mu: 1, Sigma: 0.8},
	sojourn.LogNormalMean(0.5, 100),
}

// TestLaws runs sojourntest.Check on every law of the table.
func TestLaws(t *testing.T) {
	for _, d := range laws {
		sojourntest.Check(t, d)
	}
}

// TestEveryFamilyChecked: every registered family has a law in the table,
// so a new law of this package cannot skip the property tests.
func TestEveryFamilyChecked(t *testing.T) {
	for _, n := range sojourn.Names() {
		if !slices.ContainsFunc(laws, func(d availability.Sojourn) bool { return d.Family() == n }) {
			t.Errorf("family %s has no law in the property tests' table", n)
		}
	}
}

// TestMeans checks the constructors by mean, and scaling, by hand.
func TestMeans(t *testing.T) {
	for _, c := range []struct {
		d    availability.Sojourn
		mean float64
	}{
		{sojourn.WeibullMean(0.7, 100), 100},
		{sojourn.LogNormalMean(1.5, 100), 100},
		{sojourn.ExponentialMean(100), 100},
	} {
		if math.Abs(c.d.Mean()-c.mean) > 1e-9 || math.Abs(c.d.Scaled(10).Mean()-c.mean/10) > 1e-9 {
			t.Errorf("%v: mean %v, scaled by 10 %v, want %v", c.d, c.d.Mean(), c.d.Scaled(10).Mean(), c.mean)
		}
	}
	if e := sojourn.ExponentialMean(100); math.Abs(e.CDF(100)-(1-math.Exp(-1))) > 1e-15 || e.SlotStay() != math.Exp(-0.01) {
		t.Errorf("exponential CDF %v, stay %v", e.CDF(100), e.SlotStay())
	}
}

// TestRegistry: lookups by name, alias and case; an unknown law is an
// error naming it and the registered laws; OfMean gives the mean asked.
func TestRegistry(t *testing.T) {
	if got := sojourn.Names(); !slices.Equal(got, []string{"exponential", "lognormal", "weibull"}) {
		t.Errorf("Names() = %v", got)
	}
	for _, n := range []string{"weibull", "Weibull", "log-normal", "LOGNORMAL", "exponential"} {
		f, err := sojourn.Lookup(n)
		if err != nil || !strings.EqualFold(strings.ReplaceAll(n, "-", ""), f.Name) {
			t.Errorf("Lookup(%q) = %q, %v", n, f.Name, err)
		}
		if d := f.OfMean(0.8, 42); math.Abs(d.Mean()-42) > 1e-9 || d.Family() != f.Name {
			t.Errorf("%s.OfMean(0.8, 42): %v, mean %v", f.Name, d, d.Mean())
		}
	}
	_, err := sojourn.Lookup("gamma")
	if err == nil || err.Error() != `sojourn law "gamma": want exponential, lognormal or weibull (the registered laws)` {
		t.Errorf("Lookup(gamma): %v", err)
	}
	for name, f := range map[string]func(){
		"no name": func() {
			sojourn.Register(sojourn.Family{Decode: func(sojourn.Params) (availability.Sojourn, error) { return nil, nil }})
		},
		"no decode": func() { sojourn.Register(sojourn.Family{Name: "x"}) },
		"duplicate": func() {
			sojourn.Register(sojourn.Family{Name: "Log-Normal", Decode: func(sojourn.Params) (availability.Sojourn, error) { return nil, nil }})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register with %s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestDecode: each family's platform parameters, and the errors naming
// the parameter.
func TestDecode(t *testing.T) {
	ok := []struct {
		fam  string
		p    sojourn.Params
		want availability.Sojourn
	}{
		{"exponential", sojourn.Params{"mean_seconds": 60}, sojourn.ExponentialMean(60)},
		{"weibull", sojourn.Params{"shape": 0.5, "scale_seconds": 30}, sojourn.Weibull{Shape: 0.5, Scale: 30}},
		{"weibull", sojourn.Params{"shape": 0.5, "mean_seconds": 30}, sojourn.WeibullMean(0.5, 30)},
		{"lognormal", sojourn.Params{"sigma": 2, "mu": 3}, sojourn.LogNormal{Mu: 3, Sigma: 2}},
		{"lognormal", sojourn.Params{"sigma": 2, "mean_seconds": 30}, sojourn.LogNormalMean(2, 30)},
	}
	for _, c := range ok {
		f, _ := sojourn.Lookup(c.fam)
		if got, err := f.Decode(c.p); err != nil || got != c.want {
			t.Errorf("%s %v: %v %v, want %v", c.fam, c.p, got, err, c.want)
		}
	}
	bad := []struct {
		fam  string
		p    sojourn.Params
		want string
	}{
		{"exponential", sojourn.Params{}, "missing mean_seconds"},
		{"exponential", sojourn.Params{"mean_seconds": -1}, "mean_seconds = -1, want a finite number > 0"},
		{"weibull", sojourn.Params{"shape": 0.5}, "missing scale_seconds or mean_seconds"},
		{"weibull", sojourn.Params{"shape": 0.5, "scale_seconds": 1, "mean_seconds": 1}, "both scale_seconds and mean_seconds given, want one"},
		{"weibull", sojourn.Params{"mean_seconds": 1}, "missing shape"},
		{"lognormal", sojourn.Params{"mu": 3}, "missing sigma"},
		{"lognormal", sojourn.Params{"sigma": 1, "mu": math.NaN()}, "mu = NaN, want a finite number (mean of ln seconds)"},
	}
	for _, c := range bad {
		f, _ := sojourn.Lookup(c.fam)
		if _, err := f.Decode(c.p); err == nil || err.Error() != c.want {
			t.Errorf("%s %v: %v, want %q", c.fam, c.p, err, c.want)
		}
	}
}

// TestValidate: each law refuses what overflows or is not a parameter.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		d    availability.Sojourn
		want string
	}{
		{sojourn.Exponential{Rate: math.Inf(1)}, "exponential rate = +Inf"},
		{sojourn.Weibull{Shape: 0, Scale: 1}, "weibull shape = 0"},
		{sojourn.Weibull{Shape: 0.01, Scale: 1}, "want ≥ 0.05"},
		{sojourn.Weibull{Shape: 1, Scale: -1}, "weibull scale = -1"},
		{sojourn.LogNormal{Mu: math.NaN(), Sigma: 1}, "lognormal mu = NaN"},
		{sojourn.LogNormal{Mu: 0, Sigma: 11}, "want ≤ 10"},
		{sojourn.LogNormal{Mu: 710, Sigma: 1}, "lognormal law with mean +Inf: want a finite mean > 0"},
	} {
		if err := c.d.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.d, err, c.want)
		}
	}
}
