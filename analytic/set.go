package analytic

import (
	"errors"
	"fmt"
	"math"

	"github.com/volsched/volsched/availability"
)

// Form selects the expression used for E(S)(W), the expected time for a set
// of processors to complete W slots of simultaneous computation.
type Form int

const (
	// Published is Theorem 5.1 of seed 002 as printed:
	// E(S)(W) = (1 + (W−1)·E_c) / (P+)^{W−1}. It is not the expectation
	// conditioned on success (docs/analytic.md) but it is what the paper's
	// heuristics used, so it is the default for reproducing Tables I and II.
	Published Form = iota
	// Conditional is the expectation conditioned on success that the
	// definition asks for: E(S)(W) = 1 + (W−1)·E_c/P+. For a single
	// processor it equals Theorem 2 of seed 001.
	Conditional
)

// String names the form as the CLI flags do.
func (f Form) String() string {
	switch f {
	case Published:
		return "published"
	case Conditional:
		return "conditional"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// ParseForm reads "published" or "conditional".
func ParseForm(s string) (Form, error) {
	switch s {
	case "published":
		return Published, nil
	case "conditional":
		return Conditional, nil
	}
	return 0, fmt.Errorf("expected-time form %q: want published or conditional", s)
}

// Stats are the seed-002 quantities of one set of processors, all UP at
// slot 0.
type Stats struct {
	// EU is E_u(S) = Σ_{t>0} P^{(S)}_{u→u}(t), the expected number of later
	// slots with every member UP before the first DOWN (+Inf when no member
	// can go DOWN).
	EU float64
	// A is A(S) = Σ_{t>0} t·P^{(S)}_{u→u}(t) (+Inf when no member can go
	// DOWN).
	A float64
	// PPlus is P+(S): the probability that all members are UP together again
	// before any goes DOWN.
	PPlus float64
	// Ec is E_c(S) = Σ_{t>0} t·P+(S)(t), the first-return time weighted by its
	// probability (not conditioned on returning).
	Ec float64
	// Terms is the number of slots summed (0 for closed forms).
	Terms int
	// TailBound bounds the truncation error of EU by the appendix's bound
	// Λ^T/(1−Λ); it is at most the table's ε unless the horizon was capped.
	TailBound float64
}

// MeanGap is the expected number of slots between two consecutive all-UP
// slots conditioned on the set not going DOWN in between, E_c/P+.
func (s Stats) MeanGap() float64 {
	if s.PPlus == 0 {
		return math.Inf(1)
	}
	return s.Ec / s.PPlus
}

// PSuccess is the probability that W slots of simultaneous computation
// complete before any member goes DOWN, (P+)^{W−1} (exact under the Markov
// model: the all-UP slots form a renewal process).
func (s Stats) PSuccess(W float64) float64 {
	if W <= 1 {
		return 1
	}
	return math.Pow(s.PPlus, W-1)
}

// ExpectedTime is E(S)(W) in the chosen form. W ≤ 0 gives 0 and W = 1 gives
// 1 in both forms.
func (s Stats) ExpectedTime(W float64, f Form) float64 {
	if W <= 0 {
		return 0
	}
	if W <= 1 {
		return W
	}
	if s.PPlus == 0 {
		return math.Inf(1)
	}
	if f == Conditional {
		return 1 + (W-1)*s.Ec/s.PPlus
	}
	return (1 + (W-1)*s.Ec) / math.Pow(s.PPlus, W-1)
}

// fromSums derives P+ and E_c from E_u and A (appendix of seed 002):
// P+ = E_u/(1+E_u) and E_c = A·(1−P+)/(1+E_u) = A/(1+E_u)².
func fromSums(eu, a float64) Stats {
	k := 1 + eu
	return Stats{EU: eu, A: a, PPlus: eu / k, Ec: a / (k * k)}
}

// Options tune a Table.
type Options struct {
	// Epsilon is the precision ε to which E_u(S) and A(S) are summed
	// (default 1e-9).
	Epsilon float64
	// MaxHorizon caps the number of slots summed (default 1<<20); a processor
	// whose decay is so slow that ε would need more reports the larger
	// TailBound in its Stats.
	MaxHorizon int
}

func (o Options) withDefaults() Options {
	if o.Epsilon <= 0 {
		o.Epsilon = 1e-9
	}
	if o.MaxHorizon <= 0 {
		o.MaxHorizon = 1 << 20
	}
	return o
}

// proc is what a Table precomputes for one processor.
type proc struct {
	chain availability.Chain
	// lam is the decay rate of P_{u→u}(t): P_{u→u}(t) ≤ lam^t.
	lam float64
	// piU is the UP share of the UP/RECLAIMED chain, used when the processor
	// can never go DOWN (lam = 1).
	piU    float64
	single Stats
}

// Table precomputes, once per scenario, each processor's sequence
// P^{(q)}_{u→u}(t) for t = 0…L, so that the quantities of any set of
// processors are products and sums over these sequences. A Table is
// immutable and safe for concurrent use; Sets built from it are not.
type Table struct {
	opt   Options
	procs []proc
	seq   [][]float64 // seq[q][t] = P^{(q)}_{u→u}(t)
	nd    [][]float64 // nd[q][t] = P_ND^{(q)}(t)
	L     int
}

// decayRate returns lam with P_{u→u}(t) ≤ lam^t, the appendix's λ_1 where the
// UP/RECLAIMED block is irreducible, and P_uu where it is not (then
// P_{u→u}(t) = P_uu^t exactly).
func decayRate(c availability.Chain) float64 {
	a, b, cc, dd := c.P[u][u], c.P[u][r], c.P[r][u], c.P[r][r]
	if b == 0 || cc == 0 {
		return a
	}
	h := (a - dd) / 2
	l := (a+dd)/2 + math.Sqrt(h*h+b*cc)
	if l > 1 {
		l = 1
	}
	if c.P[u][d] == 0 && c.P[r][d] == 0 { // the block is stochastic: never DOWN
		return 1
	}
	return l
}

// horizon returns the number of slots T such that summing t = 1…T−1 leaves a
// tail at most eps for both E_u (Λ^T/(1−Λ)) and A
// (Λ^T·(T/(1−Λ) + Λ/(1−Λ)²)), as in the appendix of seed 002.
func horizon(lam, eps float64, max int) int {
	if lam <= 0 {
		return 1
	}
	if lam >= 1 {
		return max
	}
	ln := math.Log(lam)
	om := 1 - lam
	t := math.Ceil(math.Log(eps*om) / ln)
	for i := 0; i < 50; i++ { // fixed point of the A bound; converges in a few steps
		next := math.Ceil(math.Log(eps/(t/om+lam/(om*om))) / ln)
		if next <= t {
			break
		}
		t = next
	}
	if t < 1 {
		t = 1
	}
	if t > float64(max) {
		return max
	}
	return int(t) + 1
}

func tailBound(lam float64, T int) float64 {
	if lam >= 1 {
		return math.Inf(1)
	}
	return math.Pow(lam, float64(T)) / (1 - lam)
}

// MaxTableSlots bounds a Table's processors × horizon: each slot of each
// processor takes 16 bytes (two sequences), so the limit is 1 GiB.
const MaxTableSlots = 1 << 26

// NewTable validates the chains and precomputes their sequences. It refuses
// a table of more than MaxTableSlots slots in all.
func NewTable(chains []availability.Chain, opt Options) (*Table, error) {
	opt = opt.withDefaults()
	if !(opt.Epsilon < 1) {
		return nil, fmt.Errorf("analytic: ε = %g, want a precision in (0, 1)", opt.Epsilon)
	}
	if len(chains) == 0 {
		return nil, errors.New("analytic: a table needs at least one processor")
	}
	t := &Table{opt: opt, procs: make([]proc, len(chains))}
	L := 1
	for q, c := range chains {
		if err := c.Validate(fmt.Sprintf("processor %d", q)); err != nil {
			return nil, err
		}
		p := proc{chain: c, lam: decayRate(c)}
		p.single = singleStats(c)
		if p.lam >= 1 {
			p.piU = 1
			if c.P[u][r] > 0 {
				p.piU = c.P[r][u] / (c.P[u][r] + c.P[r][u])
			}
		} else if T := horizon(p.lam, opt.Epsilon, opt.MaxHorizon); T > L {
			L = T
		}
		t.procs[q] = p
	}
	if len(chains) > MaxTableSlots/L {
		return nil, fmt.Errorf("analytic: %d processors × %d slots (the horizon that ε = %g needs for the slowest decay) = %d precomputed slots, over the limit of %d (%d MiB): use a larger ε or fewer processors",
			len(chains), L, opt.Epsilon, len(chains)*L, MaxTableSlots, MaxTableSlots*16>>20)
	}
	t.L = L
	t.seq = make([][]float64, len(chains))
	t.nd = make([][]float64, len(chains))
	for q := range chains {
		t.seq[q], t.nd[q] = sequences(t.procs[q].chain, L)
	}
	return t, nil
}

// sequences returns P_{u→u}(t) and P_ND(t) for t = 0…L−1 by propagating the
// distribution over {UP, RECLAIMED} of a processor that has not gone DOWN.
func sequences(c availability.Chain, L int) (puu, pnd []float64) {
	puu = make([]float64, L)
	pnd = make([]float64, L)
	x, y := 1.0, 0.0 // P(UP at t, no DOWN), P(RECLAIMED at t, no DOWN)
	for t := 0; t < L; t++ {
		puu[t] = x
		pnd[t] = x + y
		x, y = x*c.P[u][u]+y*c.P[r][u], x*c.P[u][r]+y*c.P[r][r]
	}
	return puu, pnd
}

// singleStats gives the Stats of a one-processor set in closed form
// (Lemma 1 of seed 001 for P+; E_u = P+/(1−P+); A = E_c·(1+E_u)²).
func singleStats(c availability.Chain) Stats {
	pp := PPlus(c)
	ec := meanGapMass(c)
	if pp >= 1 {
		return Stats{EU: math.Inf(1), A: math.Inf(1), PPlus: 1, Ec: ec}
	}
	eu := pp / (1 - pp)
	return Stats{EU: eu, A: ec * (1 + eu) * (1 + eu), PPlus: pp, Ec: ec}
}

// Len is the number of processors.
func (t *Table) Len() int { return len(t.procs) }

// Horizon is the number of slots L precomputed per processor.
func (t *Table) Horizon() int { return t.L }

// Chain returns processor q's chain.
func (t *Table) Chain(q int) availability.Chain { return t.procs[q].chain }

// Single returns the closed-form Stats of the set {q}.
func (t *Table) Single(q int) Stats { return t.procs[q].single }

// PUpToUp returns P^{(q)}_{u→u}(t), from the precomputed sequence when
// t < Horizon().
func (t *Table) PUpToUp(q, s int) float64 {
	if s >= 0 && s < t.L {
		return t.seq[q][s]
	}
	return PUpToUp(t.procs[q].chain, s)
}

// PNotDown returns P_ND^{(q)}(s) for real s (see the package-level
// PNotDown), from the precomputed sequence when s < Horizon()−1.
func (t *Table) PNotDown(q int, s float64) float64 {
	if s <= 0 {
		return 1
	}
	// Beyond the table (or not a number), the closed form; compare as
	// floats: a huge s does not fit an int.
	if !(s < float64(t.L-1)) {
		return PNotDown(t.procs[q].chain, s)
	}
	lo := math.Floor(s)
	nd := t.nd[q]
	if lo == s {
		return nd[int(lo)]
	}
	return interpolateLog(nd[int(lo)], nd[int(lo)+1], s-lo)
}

// ExpectedTimeSingle is E^{(P_q)}(W), the single-processor expected time in
// the chosen form (Conditional equals Theorem 2 of seed 001).
func (t *Table) ExpectedTimeSingle(q int, W float64, f Form) float64 {
	return t.procs[q].single.ExpectedTime(W, f)
}
