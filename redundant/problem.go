// Package redundant implements seed 003 (Wingstrom & Casanova,
// "Probabilistic Allocation of Tasks on Desktop Grids"): the
// REDUNDANTTASKALLOC problem of placing replicas of n identical tasks on m
// volatile hosts so as to maximize the probability R_sys that every task has
// at least one replica that completes (Eq. 2), the task-failure
// probabilities of Eq. 3 (from an availability-interval distribution and
// each host's age) and Eq. 7 (SAB's linear model), the allocation
// algorithms EA, PPB, EPB, SAB, an exact branch-and-bound solver and a
// greedy constructive method with local search (GLS), the GDFN distribution
// of failure probabilities, the EA analysis of Eqs. 5 and 6, and the
// laboratory and trace-driven studies of §3 and §4.
//
// Notation follows the paper's text (its figure captions swap the letters):
// n tasks, m hosts, an allocation x has x[i] = the task given to host i.
// Tasks are identical, so the failure probability of a task on host i does
// not depend on the task: p[i].
//
// Everything here is pure decision code: no clock, no I/O, no global random
// generator; randomized algorithms take an explicit *rand.Rand.
package redundant

import (
	"fmt"
	"math"
)

// ValidateProbs checks that p holds at least one failure probability and
// that each is a number in [0, 1]. source names the input in errors.
func ValidateProbs(p []float64, source string) error {
	if len(p) == 0 {
		return fmt.Errorf("%s: p is empty, want one failure probability per host", source)
	}
	for i, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fmt.Errorf("%s: p[%d] = %v, want a probability in [0, 1]", source, i, v)
		}
	}
	return nil
}

// MaxHosts bounds the hosts of an instance (the algorithms' tables are
// proportional to them, the exact search's and GLS's to hosts × tasks).
const MaxHosts = 1 << 20

// ValidateInstance checks an instance: valid probabilities, at most
// MaxHosts hosts and 1 <= n <= m (with fewer hosts than tasks some task
// gets no replica and R_sys = 0 for every allocation).
func ValidateInstance(p []float64, n int, source string) error {
	if err := ValidateProbs(p, source); err != nil {
		return err
	}
	if len(p) > MaxHosts {
		return fmt.Errorf("%s: %d hosts, want at most %d", source, len(p), MaxHosts)
	}
	if n < 1 {
		return fmt.Errorf("%s: tasks = %d, want at least 1", source, n)
	}
	if n > len(p) {
		return fmt.Errorf("%s: tasks = %d with %d hosts, want at most as many tasks as hosts", source, n, len(p))
	}
	return nil
}

// ValidateAllocation checks that x gives each of the len(x) hosts a task in
// [0, n).
func ValidateAllocation(x []int, n int) error {
	for i, j := range x {
		if j < 0 || j >= n {
			return fmt.Errorf("allocation[%d] = %d, want a task index in [0, %d)", i, j, n)
		}
	}
	return nil
}

// TaskFailure returns Eq. 1 for every task: the probability that all the
// replicas of task j fail, prod_{i | x_i = j} p_i (1 for a task with no
// replica).
func TaskFailure(p []float64, x []int, n int) []float64 {
	f := make([]float64, n)
	for j := range f {
		f[j] = 1
	}
	for i, j := range x {
		f[j] *= p[i]
	}
	return f
}

// Rsys returns Eq. 2, the probability that every task has at least one
// replica that succeeds: prod_j (1 - prod_{i | x_i = j} p_i). Replicas fail
// independently.
func Rsys(p []float64, x []int, n int) float64 {
	r := 1.0
	for _, f := range TaskFailure(p, x, n) {
		r *= 1 - f
	}
	return r
}

// LogRsys returns log R_sys computed in log space (accurate when R_sys is
// tiny or products of failure probabilities underflow); -Inf when some
// task is certain to fail.
func LogRsys(p []float64, x []int, n int) float64 {
	g := newGroups(p, x, n)
	s := 0.0
	for j := 0; j < n; j++ {
		if g.zeros[j] > 0 {
			continue
		}
		if g.sum[j] <= 0 {
			return math.Inf(-1)
		}
		s += logSuccess(g.sum[j])
	}
	return s
}

// weight is -log p: the "reliability weight" of a host. A task's failure
// probability is exp(-sum of its hosts' weights); p = 0 has infinite weight
// and is tracked separately.
func weight(p float64) float64 { return -math.Log(p) }

// doomed is the value the search uses for log(0), the log success of a
// task certain to fail: a large finite penalty (e^-10000 is 0 for every
// purpose) keeps the differences of the annealing finite so it can move
// away from allocations where some task has only hosts with p = 1.
const doomed = -1e4

// logSuccess is g(S) = log(1 - exp(-S)), the log success probability of a
// task whose hosts' weights sum to S: strictly concave and increasing;
// doomed for S = 0.
func logSuccess(s float64) float64 {
	if s <= 0 {
		return doomed
	}
	return math.Max(doomed, math.Log(-math.Expm1(-s)))
}

// groups keeps, for each task, the sum of the finite weights of its hosts,
// the number of hosts with p = 0 (infinite weight) and the number of hosts.
type groups struct {
	sum   []float64
	zeros []int
	size  []int
	w     []float64 // weight of each host (+Inf for p = 0)
}

func newGroups(p []float64, x []int, n int) *groups {
	g := &groups{sum: make([]float64, n), zeros: make([]int, n), size: make([]int, n), w: make([]float64, len(p))}
	for i, v := range p {
		g.w[i] = weight(v)
	}
	for i, j := range x {
		g.add(j, i, +1)
	}
	return g
}

func (g *groups) add(j, host, sign int) {
	g.size[j] += sign
	if math.IsInf(g.w[host], 1) {
		g.zeros[j] += sign
		return
	}
	g.sum[j] += float64(sign) * g.w[host]
	if g.size[j]-g.zeros[j] == 0 {
		g.sum[j] = 0 // no drift from repeated add/remove
	}
}

// value is the log success probability of task j.
func (g *groups) value(j int) float64 {
	if g.zeros[j] > 0 {
		return 0
	}
	return logSuccess(g.sum[j])
}

// valueWith is the log success probability of task j after adding (sign
// +1) or removing (sign -1) host.
func (g *groups) valueWith(j, host, sign int) float64 {
	w := g.w[host]
	if math.IsInf(w, 1) {
		if g.zeros[j]+sign > 0 {
			return 0
		}
		return logSuccess(g.sum[j])
	}
	if g.zeros[j] > 0 {
		return 0
	}
	if g.size[j]+sign-g.zeros[j] == 0 {
		return doomed
	}
	return logSuccess(g.sum[j] + float64(sign)*w)
}

// valueSwap is the log success probability of task j after removing host
// out and adding host in.
func (g *groups) valueSwap(j, out, in int) float64 {
	z := g.zeros[j]
	s := g.sum[j]
	if math.IsInf(g.w[out], 1) {
		z--
	} else {
		s -= g.w[out]
	}
	if math.IsInf(g.w[in], 1) {
		z++
	} else {
		s += g.w[in]
	}
	if z > 0 {
		return 0
	}
	return logSuccess(s)
}

// TaskSizes returns the number of hosts allocation x gives each task.
func TaskSizes(x []int, n int) []int {
	s := make([]int, n)
	for _, j := range x {
		s[j]++
	}
	return s
}
