package redundant

import (
	"fmt"

	"github.com/volsched/volsched/internal/jsonin"
	"github.com/volsched/volsched/internal/jsonnum"
)

// allocInput is the failure-probability input of an allocation (the FILE
// of `volsched alloc --probs FILE`): either the failure probabilities p,
// or host ages with a task size and an availability-interval distribution
// (Eq. 3), or, for SAB, ages, a size and the constant C of Eq. 7.
type allocInput struct {
	P    []float64 `json:"p"`
	Ages []float64 `json:"ages"`
	Size *float64  `json:"size"`
	Dist *struct {
		Name   string    `json:"name"`
		Params []float64 `json:"params"`
	} `json:"dist"`
	C *float64 `json:"C"`
}

// ParseAllocInput reads the hosts' failure probabilities for algorithm
// algo from JSON data, in one of three forms:
//
//	{"p": [p_1, ..., p_m]}                                   given directly
//	{"ages": [...], "size": t, "dist": {"name": ..., "params": [...]}}   Eq. 3 (NewIntervalDistribution)
//	{"ages": [...], "size": t, "C": c}                       for algo "sab" (Eq. 7)
//
// The JSON is read by the rules of the project's JSON inputs
// (internal/jsonin: unknown fields, duplicate keys and NaN refused, the
// field named); the probabilities are checked with ValidateProbs. Errors
// begin with source, the input's name.
func ParseAllocInput(data []byte, source, algo string) ([]float64, error) {
	var in allocInput
	if err := jsonin.Decode(data, &in, source); err != nil {
		return nil, fmt.Errorf("%w (want {\"p\": [...]} or {\"ages\": [...], \"size\": t, \"dist\": {\"name\": ..., \"params\": [...]}} or, for sab, {\"ages\": [...], \"size\": t, \"C\": c})", err)
	}
	if algo == SAB {
		if in.Ages == nil || in.Size == nil || in.C == nil {
			return nil, fmt.Errorf("%s: algo sab needs \"ages\", \"size\" and \"C\" (Eq. 7)", source)
		}
		p, err := SABProbs(in.Ages, *in.Size, *in.C)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		return p, ValidateProbs(p, source+": ages")
	}
	switch {
	case in.P != nil && in.Ages == nil:
		return in.P, ValidateProbs(in.P, source)
	case in.P == nil && in.Ages != nil:
		if in.Size == nil || in.Dist == nil {
			return nil, fmt.Errorf("%s: \"ages\" needs \"size\" and \"dist\" (Eq. 3)", source)
		}
		d, err := NewIntervalDistribution(in.Dist.Name, in.Dist.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: dist: %w", source, err)
		}
		p, err := FailureProbs(d, in.Ages, *in.Size)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		return p, ValidateProbs(p, source+": ages")
	default:
		return nil, fmt.Errorf("%s: give either \"p\" or \"ages\" (with \"size\" and \"dist\"), not both or neither", source)
	}
}

// AllocReport is an allocation as `volsched alloc` prints it, in JSON by
// the project's convention for numbers (internal/jsonnum).
type AllocReport struct {
	Algo       string          `json:"algo"`
	Tasks      int             `json:"tasks"`
	Hosts      int             `json:"hosts"`
	Seed       uint64          `json:"seed"`
	Allocation []int           `json:"allocation"`
	Rsys       jsonnum.Float   `json:"r_sys"`
	LogRsys    jsonnum.Float   `json:"log_r_sys"` // null: -Inf (R_sys = 0)
	Optimal    *bool           `json:"optimal,omitempty"`
	P          []jsonnum.Float `json:"p,omitempty"`
}

// NewAllocReport is the report of res, the allocation of tasks tasks by
// algo on the failure probabilities p with seed: with "optimal" for the
// exact solver, and with the probabilities when withP (they were drawn or
// computed, not given).
func NewAllocReport(algo string, tasks int, seed uint64, p []float64, res Result, withP bool) AllocReport {
	r := AllocReport{Algo: algo, Tasks: tasks, Hosts: len(p), Seed: seed, Allocation: res.X, Rsys: jsonnum.Float(res.Rsys), LogRsys: jsonnum.Float(res.LogRsys)}
	if algo == "exact" {
		optimal := res.Optimal
		r.Optimal = &optimal
	}
	if withP {
		r.P = jsonnum.Floats(p)
	}
	return r
}
