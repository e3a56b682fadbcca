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

// Stationary returns the limit distribution (π_u, π_r, π_d) of the chain.
// For a chain with several closed classes the distribution is not unique;
// Stationary then returns the one the chain converges to from the UP state,
// computed by repeated squaring of P.
func (c Chain) Stationary() [3]float64 {
	// Solve π(P − I) = 0, Σπ = 1 by replacing one balance equation with the
	// normalization; fall back to powering when the system is singular
	// (reducible chains).
	var a [3][4]float64
	for j := 0; j < 3; j++ { // equation j: Σ_i π_i (P[i][j] − δ_ij) = 0
		for i := 0; i < 3; i++ {
			a[j][i] = c.P[i][j]
			if i == j {
				a[j][i]--
			}
		}
	}
	a[2] = [4]float64{1, 1, 1, 1}
	if x, ok := solve3(a); ok {
		return x
	}
	m := c.P
	for k := 0; k < 64; k++ {
		m = mul3(m, m)
	}
	return m[Up]
}

func mul3(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// solve3 solves a 3x3 linear system given as an augmented matrix by Gaussian
// elimination with partial pivoting; ok is false when it is singular.
func solve3(a [3][4]float64) (x [3]float64, ok bool) {
	for col := 0; col < 3; col++ {
		piv := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if math.Abs(a[piv][col]) < 1e-13 {
			return x, false
		}
		a[col], a[piv] = a[piv], a[col]
		for r := 0; r < 3; r++ {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for k := col; k < 4; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	for i := 0; i < 3; i++ {
		x[i] = a[i][3] / a[i][i]
		if x[i] < 0 && x[i] > -1e-15 {
			x[i] = 0
		}
	}
	return x, true
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
