package campaign

import (
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// Scenario is one experimental scenario: the processors' availability
// chains, the platform and the application.
type Scenario struct {
	Chains   []availability.Chain `json:"chains"`
	Platform coupled.Platform     `json:"platform"`
	App      coupled.Application  `json:"app"`
}

// ScenarioParams are the §VII.A parameters of a scenario.
type ScenarioParams struct {
	P, Tasks, NCom, WMin, Iterations int
}

// Validate checks the parameters.
func (sp ScenarioParams) Validate() error {
	switch {
	case sp.P < 1:
		return fmt.Errorf("scenario: p = %d, want ≥ 1", sp.P)
	case sp.Tasks < 1:
		return fmt.Errorf("scenario: m = %d, want ≥ 1", sp.Tasks)
	case sp.NCom < 1:
		return fmt.Errorf("scenario: ncom = %d, want ≥ 1", sp.NCom)
	case sp.WMin < 1:
		return fmt.Errorf("scenario: wmin = %d, want ≥ 1", sp.WMin)
	case sp.Iterations < 1:
		return fmt.Errorf("scenario: iterations = %d, want ≥ 1", sp.Iterations)
	}
	return nil
}

// RandomScenario draws a scenario as §VII.A does: each processor's chain
// from availability.Random (P_xx uniform in [0.90, 0.99], P_xy =
// 0.5·(1−P_xx)), w_q uniform among the integers wmin…10·wmin, T_data = wmin,
// T_prog = 5·wmin, μ unbounded.
func RandomScenario(rng *rand.Rand, sp ScenarioParams) (Scenario, error) {
	if err := sp.Validate(); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		Chains:   make([]availability.Chain, sp.P),
		Platform: coupled.Platform{W: make([]int, sp.P), NCom: sp.NCom, TProg: 5 * sp.WMin, TData: sp.WMin},
		App:      coupled.Application{Tasks: sp.Tasks, Iterations: sp.Iterations},
	}
	for q := range sp.P {
		s.Chains[q] = availability.Random(rng)
		s.Platform.W[q] = sp.WMin + rng.IntN(9*sp.WMin+1)
	}
	return s, nil
}
