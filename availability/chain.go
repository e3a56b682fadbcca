// Package availability models the volatility of processors.
//
// The core model is the 3-state discrete-time Markov chain of seed 001 §5 and
// seed 002 §V: at each time slot a processor is UP (u), RECLAIMED (r) or
// DOWN (d), and moves from state i to state j at the next slot with
// probability P[i][j], independently of the past and of other processors.
package availability

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// State is the availability of a processor during one time slot.
type State uint8

// The three states. Their numeric values index the rows and columns of a
// Chain's transition matrix.
const (
	Up State = iota
	Reclaimed
	Down
)

// String returns the papers' one-letter name of the state.
func (s State) String() string {
	switch s {
	case Up:
		return "u"
	case Reclaimed:
		return "r"
	case Down:
		return "d"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// ParseState reads "u", "r" or "d" (also "up", "reclaimed", "down").
func ParseState(s string) (State, error) {
	switch s {
	case "u", "up", "UP":
		return Up, nil
	case "r", "reclaimed", "RECLAIMED":
		return Reclaimed, nil
	case "d", "down", "DOWN":
		return Down, nil
	}
	return 0, fmt.Errorf("state %q: want u, r or d", s)
}

// RowTolerance is how far from 1 a row of a transition matrix may sum.
const RowTolerance = 1e-9

// Chain is a 3-state transition matrix: P[i][j] is the probability of
// moving from state i at slot t to state j at slot t+1, states ordered
// u, r, d.
type Chain struct {
	P [3][3]float64 `json:"P"`
}

// Validate checks that every entry is a probability and every row sums to 1
// within RowTolerance. The error names the row, its sum and source (a file
// name or other description of where the chain came from).
func (c Chain) Validate(source string) error {
	for i := 0; i < 3; i++ {
		sum := 0.0
		for j := 0; j < 3; j++ {
			p := c.P[i][j]
			if math.IsNaN(p) || p < 0 || p > 1 {
				return fmt.Errorf("%s: P[%d][%d] (P_%s%s) = %v, want a probability in [0, 1]",
					source, i, j, State(i), State(j), p)
			}
			sum += p
		}
		if math.Abs(sum-1) > RowTolerance {
			return fmt.Errorf("%s: row %d (from state %s) sums to %.12g, want 1 within %g",
				source, i, State(i), sum, RowTolerance)
		}
	}
	return nil
}

// Stationary returns a stationary distribution π = (π_u, π_r, π_d) of the
// chain: πP = π and π_u + π_r + π_d = 1. When the chain has a single
// closed class (Stationaries has one element) π is its only stationary
// distribution, zero on the transient states. A chain with several closed
// classes (an absorbing UP and an absorbing DOWN, say) has one stationary
// distribution per class and every mixture of them; Stationary then returns
// the long-run law from UP (the limit of the averages of the laws of the
// first n slots from UP): the classes' distributions weighted by the
// probability of ending in each when starting UP. Callers that must not
// pick one silently check StationaryUnique.
//
// The weights come from the Markov chain tree theorem, which uses only the
// off-diagonal entries and adds positive terms (no subtraction, so no
// cancellation): π is accurate to a few units in the last place of every
// component, also for tiny probabilities and chains close to reducible.
// Residual: |(πP)_j − π_j| ≤ π_j·|Σ_k P_jk − 1| plus rounding (a few units
// in the last place of π_j), so πP = π within the row tolerance Validate
// allows.
func (c Chain) Stationary() [3]float64 {
	if w, ok := c.treeWeights(allStates); ok {
		return w
	}
	classes := c.ClosedClasses()
	for _, cl := range classes {
		if cl.Has(Up) {
			return c.classStationary(cl)
		}
	}
	// UP is transient and the closed classes are two absorbing states
	// (with three states, a transient state and two closed classes leave
	// one state per class): UP's first move away decides which it ends in.
	var pi [3]float64
	away := c.P[Up][Reclaimed] + c.P[Up][Down]
	for _, cl := range classes {
		for s := range cl.States() {
			pi[s] = c.P[Up][s] / away
		}
	}
	return pi
}

// StationaryUnique reports whether the chain has exactly one stationary
// distribution (one closed class).
func (c Chain) StationaryUnique() bool {
	return len(c.ClosedClasses()) == 1
}

// Stationaries returns the stationary distribution of each closed class of
// the chain, in the order of ClosedClasses: the chain's stationary
// distributions are exactly their mixtures, so there is one element for a
// chain with a unique stationary distribution and two or three otherwise.
func (c Chain) Stationaries() [][3]float64 {
	classes := c.ClosedClasses()
	out := make([][3]float64, len(classes))
	for i, cl := range classes {
		out[i] = c.classStationary(cl)
	}
	return out
}

// StateSet is a set of states (bit s for state s).
type StateSet uint8

const allStates StateSet = 1<<Up | 1<<Reclaimed | 1<<Down

// Has reports whether s is in the set.
func (m StateSet) Has(s State) bool { return m&(1<<s) != 0 }

// States yields the states of the set in the order u, r, d.
func (m StateSet) States() func(yield func(State) bool) {
	return func(yield func(State) bool) {
		for s := Up; s <= Down; s++ {
			if m.Has(s) && !yield(s) {
				return
			}
		}
	}
}

// String lists the states, e.g. "{u, r}".
func (m StateSet) String() string {
	out := "{"
	for s := range m.States() {
		if len(out) > 1 {
			out += ", "
		}
		out += s.String()
	}
	return out + "}"
}

// ClosedClasses returns the chain's closed communicating classes (its
// recurrent classes: sets of states that reach each other through
// transitions of positive probability and that no transition leaves),
// ordered by their first state. Every chain has at least one; the states in
// none are transient.
func (c Chain) ClosedClasses() []StateSet {
	// reach[i]: the states reachable from i in zero or more steps.
	var reach [3]StateSet
	for i := range reach {
		reach[i] = 1 << i
		for j := range 3 {
			if c.P[i][j] > 0 {
				reach[i] |= 1 << j
			}
		}
	}
	for range 2 { // paths of up to three states
		for i := range reach {
			for j := range State(3) {
				if reach[i].Has(j) {
					reach[i] |= reach[j]
				}
			}
		}
	}
	var out []StateSet
	for i := range State(3) {
		// i is recurrent iff every state it reaches reaches it back; its
		// class is then what it reaches, listed once at its first state.
		closed, first := true, true
		for j := range reach[i].States() {
			if !reach[j].Has(i) {
				closed = false
			}
			if j < i {
				first = false
			}
		}
		if closed && first {
			out = append(out, reach[i])
		}
	}
	return out
}

// classStationary is the stationary distribution of the closed class cl
// (zero outside it).
func (c Chain) classStationary(cl StateSet) [3]float64 {
	w, ok := c.treeWeights(cl)
	if !ok { // cannot happen for a closed class: its restriction is irreducible
		panic(fmt.Sprintf("availability: no stationary distribution on the closed class %v of %v", cl, c.P))
	}
	return w
}

// treeWeights returns the stationary distribution of the chain restricted
// to the states of set, by the Markov chain tree theorem: the weight of
// state i is the sum, over the spanning trees of set directed towards i,
// of the product of their transitions' probabilities, and π is the
// normalized weights. ok is false when no spanning tree has a positive
// product (the restriction has several closed classes). Where some
// probability is below 2^-500, products are formed on mantissas and
// exponents separately and rescaled by a common power of two, so that
// tiny probabilities do not underflow to zero; otherwise the plain
// products give the same bits, faster.
func (c Chain) treeWeights(set StateSet) (pi [3]float64, ok bool) {
	var states [3]State
	n := 0
	for s := range set.States() {
		states[n] = s
		n++
	}
	// The trees, as (root, first factor, second factor); a lone state is
	// one tree with no edge (factors 1).
	var trees [9]tree
	nt := 0
	switch n {
	case 1:
		trees[0], nt = tree{states[0], 1, 1}, 1
	case 2:
		i, j := states[0], states[1]
		trees[0], trees[1], nt = tree{i, c.P[j][i], 1}, tree{j, c.P[i][j], 1}, 2
	case 3:
		for _, i := range states {
			j, k := (i+1)%3, (i+2)%3
			// The trees into i: j→i and k→i, k→j→i, j→k→i.
			trees[nt], trees[nt+1], trees[nt+2] = tree{i, c.P[j][i], c.P[k][i]}, tree{i, c.P[k][j], c.P[j][i]}, tree{i, c.P[j][k], c.P[k][i]}
			nt += 3
		}
	}
	// Plain products when no factor is tiny: every product then lies in
	// [2^-1000, 1], where rescaling by powers of two is exact, so the
	// result is the same bits as the rescaled sum (TestTreeWeightsPlain).
	plain := true
	for _, t := range trees[:nt] {
		plain = plain && (t.a == 0 || t.a >= 0x1p-500) && (t.b == 0 || t.b >= 0x1p-500)
	}
	w := weigh(trees[:nt], !plain)
	sum := w[0] + w[1] + w[2]
	if !(sum > 0) {
		return pi, false
	}
	for i := range pi {
		pi[i] = w[i] / sum
	}
	return pi, true
}

// tree is a spanning tree of the tree theorem: its root and the
// probabilities of its (at most two) transitions.
type tree struct {
	to   State
	a, b float64
}

// weigh sums the trees' products into their roots' weights: plainly, or
// (scaled) on mantissas and exponents apart (m·2^e, m in [0.25, 1)),
// rescaled by the largest exponent, so that tiny products do not
// underflow; the weights are then known up to a common power of two.
func weigh(trees []tree, scaled bool) [3]float64 {
	var w [3]float64
	if !scaled {
		for _, t := range trees {
			w[t.to] += t.a * t.b
		}
		return w
	}
	var m [9]float64
	var e [9]int
	top, seen := 0, false
	for k, t := range trees {
		if t.a <= 0 || t.b <= 0 {
			continue
		}
		ma, ea := math.Frexp(t.a)
		mb, eb := math.Frexp(t.b)
		m[k], e[k] = ma*mb, ea+eb
		if !seen || e[k] > top {
			top, seen = e[k], true
		}
	}
	for k, t := range trees {
		if m[k] > 0 {
			w[t.to] += math.Ldexp(m[k], e[k]-top)
		}
	}
	return w
}

// Next draws the state that follows s, using one uniform draw from r.
func (c Chain) Next(s State, r *rand.Rand) State {
	return c.NextU(s, r.Float64())
}

// NextU returns the state that follows s given a uniform u in [0, 1).
// Separating the draw from the transition lets simulators draw availability
// in bulk.
func (c Chain) NextU(s State, u float64) State {
	row := &c.P[s]
	if u < row[0] {
		return Up
	}
	if u < row[0]+row[1] {
		return Reclaimed
	}
	if row[2] == 0 { // rounding: never land in an impossible state
		if row[1] > 0 {
			return Reclaimed
		}
		return Up
	}
	return Down
}

// Sample returns a state vector S[0..n): S[0] = start and each following
// state drawn from the chain with r.
func (c Chain) Sample(start State, n int, r *rand.Rand) []State {
	if n <= 0 {
		return nil
	}
	s := make([]State, n)
	s[0] = start
	for t := 1; t < n; t++ {
		s[t] = c.Next(s[t-1], r)
	}
	return s
}

// Random draws a chain from the papers' generator (seed 001 §7, seed 002
// §VII.A): each P_xx uniform in [0.90, 0.99], and P_xy = 0.5·(1 − P_xx) for
// x ≠ y.
func Random(r *rand.Rand) Chain {
	return RandomIn(r, 0.90, 0.99)
}

// RandomIn is Random with the diagonal drawn uniformly in [lo, hi].
func RandomIn(r *rand.Rand, lo, hi float64) Chain {
	var c Chain
	for x := 0; x < 3; x++ {
		d := lo + (hi-lo)*r.Float64()
		for y := 0; y < 3; y++ {
			if x == y {
				c.P[x][y] = d
			} else {
				c.P[x][y] = 0.5 * (1 - d)
			}
		}
	}
	return c
}
