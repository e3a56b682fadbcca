package simulate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

func forecastInput() iterative.ForecastInput {
	rng := rand.New(rand.NewPCG(5, 6))
	p := iterative.ForecastInput{Heuristic: iterative.EMCTStar, ExtraReplicas: 2, Runs: 60, Seed: 3,
		Instance: iterative.Instance{TProg: 2, TData: 1, NCom: 2, Tasks: 8, Iterations: 2}}
	for range 5 {
		p.Chains = append(p.Chains, availability.RandomIn(rng, 0.8, 0.99))
		p.W = append(p.W, 1+rng.IntN(4))
	}
	return p
}

// TestForecastInterval: a forecast is reproducible; its interval holds
// the mean's neighbourhood, is nested by level, and shrinks to the one
// makespan of a single run.
func TestForecastInterval(t *testing.T) {
	p := forecastInput()
	a, err := ForecastIterative(p)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := ForecastIterative(p); a != b {
		t.Fatalf("two forecasts of the same input: %+v, %+v", a, b)
	}
	if a.Level != DefaultForecastLevel || a.Runs != 60 || !(a.Lo <= a.Mean && a.Mean <= a.Hi) || !(a.SD > 0) {
		t.Errorf("forecast %+v: want level %v, 60 runs, Lo ≤ mean ≤ Hi, SD > 0", a, DefaultForecastLevel)
	}
	p.Level = 0.5
	half, err := ForecastIterative(p)
	if err != nil || half.Mean != a.Mean || !(a.Lo <= half.Lo && half.Lo <= half.Hi && half.Hi <= a.Hi) {
		t.Errorf("50 %% interval %+v (%v) not inside the 90 %% one %+v", half, err, a)
	}
	p.Runs = 1
	one, err := ForecastIterative(p)
	if err != nil || one.Lo != one.Mean || one.Hi != one.Mean || one.SD != 0 {
		t.Errorf("one run: %+v, %v; want the interval and mean of its makespan, SD 0", one, err)
	}
}

// TestForecastRefuses: bad inputs are errors naming what is wrong.
func TestForecastRefuses(t *testing.T) {
	cases := []struct {
		change func(*iterative.ForecastInput)
		want   string
	}{
		{func(p *iterative.ForecastInput) { p.Level = 1 }, "level 1: want a fraction in (0, 1)"},
		{func(p *iterative.ForecastInput) { p.Runs = 0 }, "runs = 0"},
		{func(p *iterative.ForecastInput) { p.Start = []availability.State{availability.Up} }, "1 initial states for 5 processors"},
		{func(p *iterative.ForecastInput) { p.Heuristic = iterative.Heuristic{} }, "no heuristic"},
	}
	for _, c := range cases {
		p := forecastInput()
		c.change(&p)
		if _, err := ForecastIterative(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", p, err, c.want)
		}
	}
}
