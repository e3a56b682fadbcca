package redundant

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// ExactOptions bounds the exact solver's search.
type ExactOptions struct {
	// MaxNodes is the number of search nodes after which the solver stops
	// and returns the best allocation found, not proven optimal. Default
	// 50,000,000; negative means no limit.
	MaxNodes int64
}

// ExactResult is the exact solver's answer.
type ExactResult struct {
	X       []int   // the allocation
	LogRsys float64 // log R_sys of X
	Optimal bool    // the search finished: X is optimal (to 1e-12 relative in log R_sys)
	Nodes   int64   // search nodes visited
}

// Exact solves REDUNDANTTASKALLOC exactly by branch and bound, exploiting
// that tasks are identical. After removing the hosts with p = 0 or 1 (see
// reduce), the problem is to partition the weights w_i = −log p_i into n
// groups maximizing Σ_j log(1 − exp(−S_j)), S_j the sum of group j. The
// search assigns hosts by decreasing weight; a host goes to one group per
// distinct current sum (groups with equal sums, e.g. the empty ones, are
// interchangeable), lightest first, and only to the r lightest groups when
// r hosts remain (see search). A node is cut when fewer hosts remain
// than empty groups, or when its upper bound — the remaining weight poured
// continuously into the lightest groups ("water filling", optimal for the
// relaxation because the objective is concave and increasing in each
// sum) — does not beat the incumbent, which starts as the GLS solution.
//
// The search keeps a table of m·n entries; an instance over MaxExactCells
// (after the reduction) is for the heuristics, and Allocate refuses it.
func Exact(p []float64, n int, opt ExactOptions) ExactResult {
	r, _ := exact(context.Background(), p, n, opt, nil)
	return r
}

// MaxExactCells bounds hosts × tasks of the instances the exact solver
// takes (its tables take 8 bytes per cell: 128 MiB).
const MaxExactCells = 1 << 24

// exact is Exact that stops with ctx's error when ctx is cancelled and
// refuses instances over MaxExactCells.
func exact(ctx context.Context, p []float64, n int, opt ExactOptions, progress func(string, int64, int64)) (ExactResult, error) {
	if opt.MaxNodes == 0 {
		opt.MaxNodes = 50_000_000
	}
	r := reduce(p, n)
	if r.trivial {
		x := r.expand(nil)
		return ExactResult{X: x, LogRsys: LogRsys(p, x, n), Optimal: true}, nil
	}
	if m := len(r.w); m > MaxExactCells/r.coreN {
		return ExactResult{}, fmt.Errorf("exact: %d hosts × %d tasks (after removing the hosts with p = 0 or 1) is over the %d cells the exact search takes (128 MiB of tables); use gls or ppb", m, r.coreN, MaxExactCells)
	}
	coreX, nodes, optimal, err := exactCore(ctx, r.w, r.coreN, opt.MaxNodes, progress)
	if err != nil {
		return ExactResult{}, err
	}
	x := r.expand(coreX)
	return ExactResult{X: x, LogRsys: LogRsys(p, x, n), Optimal: optimal, Nodes: nodes}, nil
}

type bnb struct {
	w        []float64 // sorted decreasing
	suffix   []float64 // suffix[h] = Σ_{i >= h} w[i]
	n        int
	sum      []float64
	assign   []int
	best     float64
	bestX    []int
	nodes    int64
	maxNodes int64
	stopped  bool
	ctx      context.Context
	err      error // ctx's error when it stopped the search
	progress func(string, int64, int64)
	scratch  []float64
	orders   [][]int // per depth: the groups in increasing sum order
}

func exactCore(ctx context.Context, w []float64, n int, maxNodes int64, progress func(string, int64, int64)) ([]int, int64, bool, error) {
	m := len(w)
	init, err := glsCore(ctx, w, n, nil)
	if err != nil {
		return nil, 0, false, err
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
	s := &bnb{w: make([]float64, m), suffix: make([]float64, m+1), n: n, sum: make([]float64, n),
		assign: make([]int, m), bestX: make([]int, m), maxNodes: maxNodes,
		scratch: make([]float64, n), orders: make([][]int, m), ctx: ctx, progress: progress}
	for h := range s.orders {
		s.orders[h] = make([]int, n)
	}
	for k, i := range idx {
		s.w[k] = w[i]
		s.bestX[k] = init[i]
	}
	for k := m - 1; k >= 0; k-- {
		s.suffix[k] = s.suffix[k+1] + s.w[k]
	}
	gs := make([]float64, n)
	for k := range s.w {
		gs[s.bestX[k]] += s.w[k]
	}
	s.best = partitionValue(gs)
	s.search(0, n)
	if s.err != nil {
		return nil, s.nodes, false, s.err
	}
	x := make([]int, m)
	for k, i := range idx {
		x[i] = s.bestX[k]
	}
	return x, s.nodes, !s.stopped, nil
}

// tol is the relative margin by which a node's bound must beat the
// incumbent to be explored.
func (s *bnb) tol() float64 { return 1e-12 * math.Max(1, math.Abs(s.best)) }

func (s *bnb) search(h, empty int) {
	if s.stopped {
		return
	}
	s.nodes++
	if s.maxNodes > 0 && s.nodes > s.maxNodes {
		s.stopped = true
		return
	}
	if s.nodes&(1<<14-1) == 0 {
		if err := s.ctx.Err(); err != nil {
			s.stopped, s.err = true, err
			return
		}
		if s.progress != nil {
			s.progress("search nodes", s.nodes, max(s.maxNodes, 0))
		}
	}
	m := len(s.w)
	if h == m {
		v := partitionValue(s.sum)
		if v > s.best {
			s.best = v
			copy(s.bestX, s.assign)
		}
		return
	}
	if empty > m-h {
		return
	}
	if s.bound(s.suffix[h], m-h) <= s.best+s.tol() {
		return
	}
	// Candidate groups: one per distinct sum, lightest first, and only the
	// r lightest when r hosts remain. Some optimal completion gives hosts
	// to the r lightest groups only: if a heavier group G received a set
	// A, one of the r lightest, L, receives nothing (r hosts reach at most
	// r groups), and moving A from G to L gains at least as much since
	// g(S_L+a) − g(S_L) ≥ g(S_G+a) − g(S_G) for a concave g and S_L ≤ S_G.
	order := s.orders[h]
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return s.sum[order[a]] < s.sum[order[b]] })
	if r := m - h; r < len(order) {
		order = order[:r]
	}
	last := math.NaN()
	for _, j := range order {
		if s.sum[j] == last {
			continue
		}
		last = s.sum[j]
		e := empty
		if s.sum[j] == 0 {
			e--
		}
		s.sum[j] += s.w[h]
		s.assign[h] = j
		s.search(h+1, e)
		s.sum[j] = last
		if s.stopped {
			return
		}
	}
}

// bound is the water-filling upper bound: the remaining weight rem poured
// continuously into the lightest groups — into the r lightest at most,
// since r remaining hosts reach at most r groups and some optimal
// completion uses the r lightest (see search).
func (s *bnb) bound(rem float64, r int) float64 {
	a := s.scratch
	copy(a, s.sum)
	sort.Float64s(a)
	kmax := min(r, len(a))
	acc := 0.0
	k := 0
	level := 0.0
	for k = 1; k <= kmax; k++ {
		acc += a[k-1]
		level = (rem + acc) / float64(k)
		if k == kmax || level <= a[k] {
			break
		}
	}
	v := float64(k) * logSuccess(level)
	for _, x := range a[k:] {
		v += logSuccess(x)
	}
	return v
}
