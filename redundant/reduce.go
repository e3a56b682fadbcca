package redundant

import "math"

// reduced is an instance stripped of its trivial hosts. Hosts with p = 0
// never fail: each of them runs a task alone (the task then succeeds with
// certainty and more hosts would be wasted there). Hosts with p = 1 always
// fail: they change nothing and are put on any task. What is left, the
// core, is hosts with 0 < p < 1 (finite positive weights −log p) to share
// among the remaining tasks; since every task's success probability
// 1 − exp(−S) is concave and increasing in the sum S of its hosts' weights,
// the core problem is a multiway partition of the weights that balances
// the sums.
type reduced struct {
	m, n     int
	zeros    []int     // hosts with p = 0
	ones     []int     // hosts with p = 1
	core     []int     // hosts with 0 < p < 1
	w        []float64 // weights of the core hosts, same order
	coreN    int       // tasks left for the core (n − len(zeros), if > 0)
	trivial  bool      // the answer needs no search (R = 1 or R = 0)
	doomedRs bool      // R_sys = 0 whatever the allocation
}

func reduce(p []float64, n int) reduced {
	r := reduced{m: len(p), n: n}
	for i, v := range p {
		switch {
		case v == 0:
			r.zeros = append(r.zeros, i)
		case v == 1:
			r.ones = append(r.ones, i)
		default:
			r.core = append(r.core, i)
			r.w = append(r.w, -math.Log(v))
		}
	}
	r.coreN = n - len(r.zeros)
	switch {
	case r.coreN <= 0:
		r.trivial = true
	case len(r.core) < r.coreN:
		r.trivial, r.doomedRs = true, true
	}
	return r
}

// expand builds a full allocation from an assignment of the core hosts to
// core tasks 0..coreN−1 (nil when the instance is trivial).
func (r reduced) expand(coreX []int) []int {
	if r.doomedRs {
		return EA(r.m, r.n)
	}
	x := make([]int, r.m)
	if r.coreN <= 0 { // at least n never-failing hosts: one per task
		for k, i := range r.zeros {
			x[i] = min(k, r.n-1)
			if k >= r.n {
				x[i] = 0
			}
		}
		for _, i := range r.core {
			x[i] = 0
		}
		for _, i := range r.ones {
			x[i] = 0
		}
		return x
	}
	for k, i := range r.zeros {
		x[i] = k
	}
	base := len(r.zeros)
	for k, i := range r.core {
		x[i] = base + coreX[k]
	}
	for _, i := range r.ones {
		x[i] = base
	}
	return x
}

// partitionValue is the log R_sys of the core partition with group sums s.
func partitionValue(s []float64) float64 {
	v := 0.0
	for _, x := range s {
		v += logSuccess(x)
	}
	return v
}
