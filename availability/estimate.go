package availability

import (
	"fmt"
	"math"
)

// Estimator estimates a processor's 3-state chain from its observed
// transitions: the Bayesian posterior mean of each row of P under a
// Dirichlet prior. Row i of the estimate is
//
//	P̂[i][j] = (Prior[i][j] + Counts[i][j]) / Σ_k (Prior[i][k] + Counts[i][k])
//
// so it is a valid chain from the first observation on (the prior alone
// before any), and it converges to the maximum-likelihood estimate
// Counts[i][j] / Σ_k Counts[i][k] as transitions out of state i accumulate.
// One Estimator serves the live master (one per worker, fed with the state
// of every slot), `volsched trace fit` and the what-if simulator (fed with a
// trace cut into slots). The zero value has no prior (use NewEstimator).
type Estimator struct {
	// Prior holds the Dirichlet pseudo-counts α[i][j] ≥ 0, each row
	// summing to more than 0.
	Prior [3][3]float64 `json:"prior"`
	// Counts[i][j] is the number of observed transitions from state i at
	// one slot to state j at the next.
	Counts [3][3]float64 `json:"counts"`
}

// PriorWeight is the number of pseudo-observations per row of DefaultPrior.
const PriorWeight = 2

// DefaultPrior is the prior the project uses when none is given: the mean
// chain of the papers' generator (seed 001 §7, seed 002 §VII.A: P_xx
// uniform in [0.90, 0.99], so 0.945 on average, and the rest split evenly,
// 0.0275 each) weighted as PriorWeight observed transitions per row. It is
// weak: after 20 transitions out of a state the observations carry 91 % of
// that row's estimate. A processor never seen in a state is assumed to
// behave there like the papers' average processor.
func DefaultPrior() [3][3]float64 {
	const stay, move = 0.945, 0.0275
	var a [3][3]float64
	for i := range a {
		for j := range a[i] {
			if i == j {
				a[i][j] = PriorWeight * stay
			} else {
				a[i][j] = PriorWeight * move
			}
		}
	}
	return a
}

// NewEstimator returns an estimator with the given prior, checked: every
// pseudo-count finite and ≥ 0, every row with a positive sum.
func NewEstimator(prior [3][3]float64) (*Estimator, error) {
	for i := range prior {
		sum := 0.0
		for j, a := range prior[i] {
			if !(a >= 0) || math.IsInf(a, 0) {
				return nil, fmt.Errorf("prior[%s][%s] = %g: want a finite pseudo-count ≥ 0", State(i), State(j), a)
			}
			sum += a
		}
		if !(sum > 0) {
			return nil, fmt.Errorf("prior row %s sums to %g: want > 0 (a row needs some prior mass)", State(i), sum)
		}
	}
	return &Estimator{Prior: prior}, nil
}

// Observe counts one transition: the processor was in state from at one
// slot and in state to at the next.
func (e *Estimator) Observe(from, to State) { e.Counts[from][to]++ }

// ObserveStay counts n consecutive transitions from s to s (a processor seen
// in state s for n+1 slots in a row).
func (e *Estimator) ObserveStay(s State, n int) {
	if n > 0 {
		e.Counts[s][s] += float64(n)
	}
}

// ObserveSequence counts every transition of a state sequence, one state
// per slot.
func (e *Estimator) ObserveSequence(states []State) {
	for t := 1; t < len(states); t++ {
		e.Counts[states[t-1]][states[t]]++
	}
}

// Transitions is the number of transitions observed (not counting the
// prior).
func (e *Estimator) Transitions() float64 {
	n := 0.0
	for i := range e.Counts {
		for _, c := range e.Counts[i] {
			n += c
		}
	}
	return n
}

// Chain returns the posterior-mean chain. It is valid (rows sum to 1)
// whenever the prior is valid.
func (e *Estimator) Chain() Chain {
	var c Chain
	for i := range c.P {
		e.rowInto(&c, i)
	}
	return c
}

// rowInto sets row i of c to the estimate's row i.
func (e *Estimator) rowInto(c *Chain, i int) {
	sum := 0.0
	for j := range c.P[i] {
		sum += e.Prior[i][j] + e.Counts[i][j]
	}
	for j := range c.P[i] {
		c.P[i][j] = (e.Prior[i][j] + e.Counts[i][j]) / sum
	}
}
