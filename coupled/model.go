// Package coupled implements seeds 000/002 (Casanova, Dufossé, Robert,
// Vivien, "Mapping Tightly-Coupled Applications on Volatile Resources"): the
// lock-step iterative application model of §III, the 17 on-line heuristics of
// §VI (RANDOM, the passive IP, IE, IY, IAY and the proactive C-H for
// C ∈ {P, E, Y}), a time-slot simulator, a schedule checker and the scenario
// generator of §VII.A.
//
// The heuristics are pure decision functions over an explicit Snapshot; the
// simulator owns time and availability. docs/model-002.md records every
// choice made where the paper is silent.
package coupled

import (
	"fmt"
)

// Platform is the master-worker platform of §III.B.
type Platform struct {
	// W[q] is the number of slots processor q needs to compute one task.
	W []int `json:"w"`
	// Mu[q] bounds the number of tasks processor q can hold (0: unbounded).
	// Nil means unbounded for every processor.
	Mu []int `json:"mu,omitempty"`
	// NCom is the number of simultaneous communications the master sustains.
	NCom int `json:"ncom"`
	// TProg and TData are the slots needed to send the program and the data
	// of one task.
	TProg int `json:"tprog"`
	TData int `json:"tdata"`
}

// P is the number of processors.
func (p Platform) P() int { return len(p.W) }

// MaxTasks is μ_q, the most tasks processor q may hold (a large number
// when unbounded).
func (p Platform) MaxTasks(q int) int {
	if p.Mu == nil || p.Mu[q] <= 0 {
		return 1 << 30
	}
	return p.Mu[q]
}

// Validate checks the platform for an application of m tasks.
func (p Platform) Validate(m int) error {
	if len(p.W) == 0 {
		return fmt.Errorf("platform: w has no processors, want at least 1")
	}
	for q, w := range p.W {
		if w < 1 {
			return fmt.Errorf("platform: w[%d] = %d, want ≥ 1", q, w)
		}
	}
	if p.Mu != nil && len(p.Mu) != len(p.W) {
		return fmt.Errorf("platform: mu has %d entries but w has %d, want equal", len(p.Mu), len(p.W))
	}
	total := 0
	for q := range p.W {
		mu := p.MaxTasks(q)
		if p.Mu != nil && p.Mu[q] < 0 {
			return fmt.Errorf("platform: mu[%d] = %d, want ≥ 0 (0 = unbounded)", q, p.Mu[q])
		}
		total += min(mu, m)
	}
	if total < m {
		return fmt.Errorf("platform: Σ mu = %d < m = %d, want at least m", total, m)
	}
	if p.NCom < 1 {
		return fmt.Errorf("platform: ncom = %d, want ≥ 1", p.NCom)
	}
	if p.TProg < 0 {
		return fmt.Errorf("platform: tprog = %d, want ≥ 0", p.TProg)
	}
	if p.TData < 0 {
		return fmt.Errorf("platform: tdata = %d, want ≥ 0", p.TData)
	}
	return nil
}

// Application is the iterative application of §III.A.
type Application struct {
	// Tasks is m, the number of tasks of every iteration.
	Tasks int `json:"m"`
	// Iterations is the number of iterations to complete.
	Iterations int `json:"iterations"`
}

// Validate checks the application.
func (a Application) Validate() error {
	if a.Tasks < 1 {
		return fmt.Errorf("application: m = %d, want ≥ 1", a.Tasks)
	}
	if a.Iterations < 1 {
		return fmt.Errorf("application: iterations = %d, want ≥ 1", a.Iterations)
	}
	return nil
}
