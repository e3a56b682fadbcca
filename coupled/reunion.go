package coupled

import (
	"fmt"

	"github.com/volsched/volsched/availability"
)

// Reunion is the chance that a set of processors, each UP or RECLAIMED
// now, are all UP together at some later slot before any of them goes
// DOWN, and the expected number of slots until the first such slot given
// that it comes (the --reclaimed together reading, docs/model-002.md).
type Reunion struct {
	P float64 // probability
	E float64 // E[T | reunion before any DOWN], slots (0 when P = 0)
}

// ReunionOf computes the Reunion of processors with the given chains and
// current states (UP or RECLAIMED; one of each per processor) from their
// independent chains. With M_q the UP/RECLAIMED block of processor q's
// matrix, a(t) = Π_q (M_q^t)_{UU} is the probability that a set all UP now
// is all UP at t without a DOWN before (a(0) = 1), and b(t) = Π_q
// (M_q^t)_{x_q U} the same from the current states x. Splitting b(t) at
// the first reunion g(s) (a renewal equation, b(t) = Σ_{s≤t} g(s)·a(t−s),
// t ≥ 1) and summing over t gives
//
//	P = Σ_{t≥1} b(t) / Σ_{t≥0} a(t),
//	P·E = Σ_s s·g(s) = (Σ_t t·b(t) − P·Σ_t t·a(t)) / Σ_t a(t).
//
// With every processor UP now, P is P+(S) of seed 002's Theorem 5.1
// (1 − 1/Σ a). The sums are taken term by term until the terms fall below
// 10⁻¹⁷ of the sums (they decay geometrically as the processors go DOWN);
// a set that never goes DOWN has no finite sum and gets P = 1, E = the
// sums at 10⁶ terms.
func ReunionOf(chains []availability.Chain, states []availability.State) (Reunion, error) {
	if len(chains) != len(states) || len(chains) == 0 {
		return Reunion{}, fmt.Errorf("reunion: %d chains and %d states, want as many, at least one", len(chains), len(states))
	}
	k := len(chains)
	// u[q] = row UP of M_q^t, x[q] = row x_q of M_q^t (entries UP, RECL).
	u := make([][2]float64, k)
	x := make([][2]float64, k)
	all := true
	for q, s := range states {
		switch s {
		case availability.Up:
			x[q] = [2]float64{1, 0}
		case availability.Reclaimed:
			x[q] = [2]float64{0, 1}
			all = false
		default:
			return Reunion{}, fmt.Errorf("reunion: processor %d is %v, want UP or RECLAIMED", q, s)
		}
		u[q] = [2]float64{1, 0}
	}
	step := func(v [2]float64, P [3][3]float64) [2]float64 {
		return [2]float64{v[0]*P[0][0] + v[1]*P[1][0], v[0]*P[0][1] + v[1]*P[1][1]}
	}
	A, A1, B, B1 := 1.0, 0.0, 0.0, 0.0
	const maxTerms = 1_000_000
	for t := 1; t <= maxTerms; t++ {
		a, b := 1.0, 1.0
		for q := range chains {
			u[q] = step(u[q], chains[q].P)
			a *= u[q][0]
			if all {
				continue
			}
			x[q] = step(x[q], chains[q].P)
			b *= x[q][0]
		}
		if all {
			b = a
		}
		ft := float64(t)
		A += a
		A1 += ft * a
		B += b
		B1 += ft * b
		if ft*(a+b) < 1e-17*(A+B) {
			break
		}
	}
	p := B / A
	if p > 1 { // rounding, or a set that never goes DOWN
		p = 1
	}
	if p <= 0 {
		return Reunion{}, nil
	}
	return Reunion{P: p, E: (B1 - p*A1) / A / p}, nil
}
