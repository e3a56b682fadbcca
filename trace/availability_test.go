package trace

import (
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
)

func TestFitSojourn(t *testing.T) {
	for _, c := range []struct {
		fit  Fit
		want availability.Sojourn
	}{
		{Fit{Name: "exponential", Params: []float64{0.25}}, sojourn.Exponential{Rate: 0.25}},
		{Fit{Name: "weibull", Params: []float64{0.5, 300}}, sojourn.Weibull{Shape: 0.5, Scale: 300}},
		{Fit{Name: "lognormal", Params: []float64{16.42, 2.419}}, sojourn.LogNormal{Mu: 16.42, Sigma: 2.419}},
	} {
		if got, err := c.fit.Sojourn(); err != nil || got != c.want {
			t.Errorf("%+v: %+v %v, want %+v", c.fit, got, err, c.want)
		}
	}
	for _, c := range []struct {
		fit  Fit
		want string
	}{
		{Fit{Name: "gamma", Params: []float64{1, 2}}, `distribution "gamma"`},
		{Fit{Name: "weibull", Params: []float64{0.5}}, "weibull fit has 1 parameters, want 2"},
		{Fit{Name: "exponential", Params: []float64{-1}}, "exponential rate = -1"},
	} {
		if _, err := c.fit.Sojourn(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.fit, err, c.want)
		}
	}
}

func TestStates(t *testing.T) {
	const sample = "1\t0\t7\t1\thostA\t1\t1000\t2000\t1\n2\t0\t7\t1\thostA\t0\t2000\t2500\t1\n3\t0\t7\t1\thostA\t1\t2500\t4000\n4\t0\t9\t1\thostB\t1\t1500\t3000\t0\n5\t0\t9\t1\thostB\t0\t3000\t3000\t1\n"
	tr, err := ReadFTA(strings.NewReader(sample), "s.tab")
	if err != nil {
		t.Fatal(err)
	}
	sl, err := tr.States(availability.Reclaimed).Slots(500, availability.Down)
	if err != nil {
		t.Fatal(err)
	}
	if sl.Len != 6 {
		t.Fatalf("%d slots", sl.Len)
	}
	// hostA: [1000,2000) u, [2000,2500) unavailable = r, [2500,4000) u.
	// hostB: gap [1000,1500) d, u until 3000 (the zero-length event is
	// dropped), gap after.
	for h, want := range []string{"uuruuu", "duuudd"} {
		var got strings.Builder
		for _, s := range availability.Take(sl.Source(h, 0), 6) {
			got.WriteString(s.String())
		}
		if got.String() != want {
			t.Errorf("host %d: %s, want %s", h, got.String(), want)
		}
	}
	if h, err := sl.Find("hostB"); err != nil || h != 1 {
		t.Errorf("Find by name: %d %v", h, err)
	}
	if h, err := sl.Find("7"); err != nil || h != 0 {
		t.Errorf("Find by ID: %d %v", h, err)
	}
}
