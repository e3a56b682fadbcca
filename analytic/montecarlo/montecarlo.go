// Package montecarlo checks the analytic results of the Markov availability
// model (package analytic) by simulating the chains: a set of processors
// run slot by slot until W all-UP slots (success) or a DOWN (failure).
// Reproduce is the reproduction `volsched reproduce --only analytic`: each
// formula next to its Monte Carlo estimate, with the distance in standard
// errors (docs/analytic.md).
package montecarlo

import (
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

// runSet simulates processors that are all UP at slot 0 until W slots with
// all of them UP have been seen (success; returns the number of slots from
// the first to the W-th, both included) or one of them goes DOWN (failure).
func runSet(chains []availability.Chain, W int, rng *rand.Rand, state []availability.State) (bool, int) {
	for i := range state {
		state[i] = availability.Up
	}
	seen := 1
	for t := 1; ; t++ {
		all := true
		for i, c := range chains {
			state[i] = c.Next(state[i], rng)
			if state[i] == availability.Down {
				return false, t
			}
			all = all && state[i] == availability.Up
		}
		if all {
			seen++
			if seen == W {
				return true, t + 1
			}
		}
	}
}

// Result is the outcome of a Monte Carlo estimate: N runs, Succ of them
// completed, and the mean completion time among those (with its standard
// error).
type Result struct {
	N, Succ      int
	Mean, MeanSE float64
}

// P is the success frequency.
func (m Result) P() float64 { return float64(m.Succ) / float64(m.N) }

// PSE is the standard error of P.
func (m Result) PSE() float64 {
	p := m.P()
	return math.Sqrt(math.Max(p*(1-p), 1e-12) / float64(m.N))
}

// Simulate simulates n times a set of processors (given by their chains)
// that are all UP at slot 0, until W slots with all of them UP (success) or
// until one goes DOWN (failure). It estimates P+(S)^(W-1) and the expected
// completion time conditioned on success, the quantities of seed 002
// Theorem 5.1 (and, for one processor, of seed 001 Lemma 1 and Theorem 2).
func Simulate(chains []availability.Chain, W, n int, rng *rand.Rand) Result {
	state := make([]availability.State, len(chains))
	var sum, sum2 float64
	res := Result{N: n}
	for i := 0; i < n; i++ {
		ok, t := runSet(chains, W, rng, state)
		if ok {
			res.Succ++
			sum += float64(t)
			sum2 += float64(t) * float64(t)
		}
	}
	if res.Succ > 1 {
		k := float64(res.Succ)
		res.Mean = sum / k
		res.MeanSE = math.Sqrt((sum2/k - res.Mean*res.Mean) / (k - 1))
	}
	return res
}

// NotDown estimates by n simulations the probability that a
// processor UP at its first slot is not DOWN during k slots (P_UD(k) of
// seed 001, P_ND(k−1) of seed 002); it returns the frequency and its
// standard error.
func NotDown(c availability.Chain, k, n int, rng *rand.Rand) (p, se float64) {
	notDown := 0
	for i := 0; i < n; i++ {
		s := availability.Up
		ok := true
		for step := 1; step < k; step++ {
			if s = c.Next(s, rng); s == availability.Down {
				ok = false
				break
			}
		}
		if ok {
			notDown++
		}
	}
	p = float64(notDown) / float64(n)
	return p, math.Sqrt(math.Max(p*(1-p), 1e-12) / float64(n))
}
