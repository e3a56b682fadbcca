package availability

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/volsched/volsched/stream"
)

// The stationary computation's contract, checked over many chains:
//
//   - every vector Stationary and Stationaries return is a probability
//     vector with |(πP)_j − π_j| ≤ π_j·|Σ_k P_jk − 1| + stationaryUlps·ε·max(π_j, (πP)_j)
//     (componentwise: tiny components are held to the same relative
//     standard as large ones, down to stationaryUlps subnormal units,
//     2^-1074, where relative precision ends);
//   - Stationaries has as many elements as the chain has independent
//     stationary distributions, 3 − rank(P − I) in exact arithmetic, and
//     StationaryUnique agrees;
//   - where it is unique, π agrees with the exact rational solution of
//     π(P − I) = 0, Σπ = 1 (P's rows normalized exactly) within
//     stationaryUlps·ε + 2·max_i |Σ_k P_ik − 1| relative, per component
//     (normalizing row i multiplies π_i by about its sum), and the same
//     subnormal floor.
const stationaryUlps = 16

// chainFamilies draws chains of the kinds that break naive methods:
// reducible (several closed classes, absorbing states, a state never
// reached), periodic, close to reducible, rows with zeros, tiny (down to
// subnormal) and nearly-one probabilities.
var chainFamilies = []struct {
	name string
	draw func(r *rand.Rand) Chain
}{
	{"papers", func(r *rand.Rand) Chain { return Random(r) }},
	{"mixed entries", func(r *rand.Rand) Chain {
		return normalizedChain(r, func(r *rand.Rand) float64 {
			switch r.IntN(6) {
			case 0:
				return 0
			case 1:
				return math.Pow(10, -300*r.Float64())
			case 2:
				return math.Pow(10, -15*r.Float64())
			case 3:
				return 5e-324 * float64(1+r.IntN(1000)) // subnormal
			}
			return r.Float64()
		})
	}},
	{"sparse", func(r *rand.Rand) Chain {
		return normalizedChain(r, func(r *rand.Rand) float64 {
			if r.IntN(2) == 0 {
				return 0
			}
			return r.Float64()
		})
	}},
	{"near identity", func(r *rand.Rand) Chain {
		var c Chain
		for i := range c.P {
			for j := range c.P[i] {
				if i != j && r.IntN(4) != 0 {
					c.P[i][j] = math.Pow(10, -3-15*r.Float64())
				}
			}
			c.P[i][i] = 1 - c.P[i][(i+1)%3] - c.P[i][(i+2)%3]
		}
		return c
	}},
	{"permutation mixtures", func(r *rand.Rand) Chain {
		// A permutation (periodic or reducible) mixed with another,
		// sometimes with weight 0 or a tiny weight.
		perms := [][3]int{{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}}
		a, b := perms[r.IntN(6)], perms[r.IntN(6)]
		w := []float64{0, 1e-300, 1e-12, r.Float64()}[r.IntN(4)]
		var c Chain
		for i := range 3 {
			c.P[i][a[i]] += 1 - w
			c.P[i][b[i]] += w
		}
		return c
	}},
	{"rows off by the tolerance", func(r *rand.Rand) Chain {
		c := Random(r)
		for i := range c.P {
			// Validate accepts rows that sum to 1 within RowTolerance.
			c.P[i][r.IntN(3)] *= 1 + (2*r.Float64()-1)*RowTolerance*0.9
			if err := c.Validate("drawn"); err != nil {
				c.P[i] = Random(r).P[i]
			}
		}
		return c
	}},
}

// normalizedChain draws each entry with entry and divides each row by its
// sum (a row of zeros becomes an absorbing state).
func normalizedChain(r *rand.Rand, entry func(*rand.Rand) float64) Chain {
	var c Chain
	for i := range c.P {
		s := 0.0
		for j := range c.P[i] {
			c.P[i][j] = entry(r)
			s += c.P[i][j]
		}
		if s == 0 {
			c.P[i][i], s = 1, 1
		}
		for j := range c.P[i] {
			c.P[i][j] /= s
		}
	}
	return c
}

func TestStationaryProperties(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	rng := stream.New(28, 11)
	for _, fam := range chainFamilies {
		t.Run(fam.name, func(t *testing.T) {
			bad := 0
			for k := range n {
				c := fam.draw(rng)
				if err := checkStationary(c); err != nil {
					t.Errorf("chain %d %v: %v", k, c.P, err)
					if bad++; bad == 5 {
						t.FailNow()
					}
				}
			}
		})
	}
}

// The cases that defeated the former computation (Gaussian elimination,
// falling back to P^(2^64) from UP when singular), and the textbook ones.
func TestStationaryCases(t *testing.T) {
	cases := []struct {
		name   string
		P      [3][3]float64
		want   [3]float64
		unique bool
	}{
		// P^(2^64) of a period-2 class is the identity on it: the former
		// answer [1 0 0] is not stationary.
		{"periodic class beside an absorbing state", [3][3]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}, [3]float64{0.5, 0.5, 0}, false},
		{"periodic, irreducible", [3][3]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, true},
		// Rows that sum to 1 + 2^-52 in floating point: 64 squarings blew
		// them up (the former answer was about 1.27e6 per state).
		{"near-singular class beside an absorbing state", [3][3]float64{{1 - 1e-15, 1e-15, 0}, {1e-15, 1 - 1e-15, 0}, {0, 0, 1}}, [3]float64{0.5, 0.5, 0}, false},
		// A row within the tolerance but above 1: the former powering
		// overflowed and answered the other class, [0 0 1].
		{"row above 1 within the tolerance", [3][3]float64{{0.5 + 1e-10, 0.5, 0}, {0.5, 0.5, 0}, {0, 0, 1}}, [3]float64{0.5, 0.5, 0}, false},
		// Doubly stochastic, so uniform; elimination lost 5 digits.
		{"close to the identity", [3][3]float64{{1 - 1e-12, 1e-12, 0}, {0, 1 - 1e-12, 1e-12}, {1e-12, 0, 1 - 1e-12}}, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, true},
		{"three absorbing states", [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, [3]float64{1, 0, 0}, false},
		{"absorbing UP and DOWN", [3][3]float64{{1, 0, 0}, {0.5, 0, 0.5}, {0, 0, 1}}, [3]float64{1, 0, 0}, false},
		// UP transient into two absorbing states: the long-run law from UP
		// weights them by UP's first move away.
		{"UP transient, two absorbing states", [3][3]float64{{0.5, 0.125, 0.375}, {0, 1, 0}, {0, 0, 1}}, [3]float64{0, 0.25, 0.75}, false},
		{"DOWN never reached", [3][3]float64{{0.8, 0.2, 0}, {0.1, 0.9, 0}, {0.5, 0.5, 0}}, [3]float64{1.0 / 3, 2.0 / 3, 0}, true},
		{"absorbing DOWN", [3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0, 0, 1}}, [3]float64{0, 0, 1}, true},
		// P_ur·P_rd·… underflow as plain products (1e-200 · 1e-200).
		{"tiny transitions", [3][3]float64{{1 - 1e-200, 1e-200, 0}, {0, 1 - 1e-200, 1e-200}, {1e-200, 0, 1 - 1e-200}}, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, true},
		{"uniform rows", [3][3]float64{{0.3, 0.3, 0.4}, {0.3, 0.3, 0.4}, {0.3, 0.3, 0.4}}, [3]float64{0.3, 0.3, 0.4}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Chain{P: tc.P}
			got := c.Stationary()
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 4e-16*math.Max(tc.want[i], 1e-300) {
					t.Errorf("Stationary = %v, want %v", got, tc.want)
					break
				}
			}
			if c.StationaryUnique() != tc.unique {
				t.Errorf("StationaryUnique = %v, want %v (closed classes %v)", c.StationaryUnique(), tc.unique, c.ClosedClasses())
			}
			if err := checkStationary(c); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestClosedClasses(t *testing.T) {
	u, r, d := StateSet(1<<Up), StateSet(1<<Reclaimed), StateSet(1<<Down)
	for _, tc := range []struct {
		P    [3][3]float64
		want []StateSet
	}{
		{[3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}}, []StateSet{u | r | d}},
		{[3][3]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}, []StateSet{u | r, d}},
		{[3][3]float64{{0.5, 0.25, 0.25}, {0, 1, 0}, {0, 0, 1}}, []StateSet{r, d}},
		{[3][3]float64{{0, 1, 0}, {0, 0, 1}, {0, 1, 0}}, []StateSet{r | d}}, // u → r ⇄ d
		{[3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, []StateSet{u, r, d}},
		{[3][3]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, []StateSet{u | r | d}}, // u → d → r → u
	} {
		got := Chain{P: tc.P}.ClosedClasses()
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%v: ClosedClasses = %v, want %v", tc.P, got, tc.want)
		}
	}
	if s := (u | d).String(); s != "{u, d}" {
		t.Errorf("String = %q", s)
	}
}

// checkStationary checks the contract above for chain c.
func checkStationary(c Chain) error {
	exact := exactChain(c)
	dim := 3 - rankRat(minusIdentity(exact))
	all := c.Stationaries()
	if len(all) != dim {
		return fmt.Errorf("Stationaries gives %d distributions, want %d (3 − rank(P − I))", len(all), dim)
	}
	if c.StationaryUnique() != (dim == 1) {
		return fmt.Errorf("StationaryUnique = %v with %d independent stationary distributions", c.StationaryUnique(), dim)
	}
	pi := c.Stationary()
	for _, v := range append(all, pi) {
		if err := checkResidual(c, v); err != nil {
			return fmt.Errorf("π = %v: %w", v, err)
		}
	}
	if dim != 1 {
		// Stationary is one of the mixtures: zero on the transient states.
		on := StateSet(0)
		for _, cl := range c.ClosedClasses() {
			on |= cl
		}
		for s := range State(3) {
			if !on.Has(s) && pi[s] != 0 {
				return fmt.Errorf("Stationary = %v: %v is transient, want 0", pi, s)
			}
		}
		return nil
	}
	rowErr := 0.0
	for i := range 3 {
		rowErr = math.Max(rowErr, math.Abs(c.P[i][0]+c.P[i][1]+c.P[i][2]-1))
	}
	want := exactStationary(exact)
	rel := stationaryUlps*0x1p-52 + 2*rowErr
	for i := range pi {
		w, _ := want[i].Float64()
		if math.Abs(pi[i]-w) > rel*w+stationaryUlps*0x1p-1074 {
			return fmt.Errorf("Stationary = %v, want %v (exact) within %g relative", pi, ratFloats(want), rel)
		}
	}
	return nil
}

func checkResidual(c Chain, pi [3]float64) error {
	sum := 0.0
	for _, p := range pi {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("not a probability vector")
		}
		sum += p
	}
	if math.Abs(sum-1) > 4*0x1p-52 {
		return fmt.Errorf("sums to 1%+g", sum-1)
	}
	for j := range 3 {
		v, row := 0.0, 0.0
		for i := range 3 {
			v += pi[i] * c.P[i][j]
			row += c.P[j][i]
		}
		tol := pi[j]*math.Abs(row-1) + stationaryUlps*(0x1p-52*math.Max(pi[j], v)+0x1p-1074)
		if math.Abs(v-pi[j]) > tol {
			return fmt.Errorf("(πP)[%v] = %g, π[%v] = %g: differ by %g, more than %g", State(j), v, State(j), pi[j], v-pi[j], tol)
		}
	}
	return nil
}

// exactChain is c's matrix in rationals with each row divided by its sum
// (exactly stochastic).
func exactChain(c Chain) [3][3]*big.Rat {
	var p [3][3]*big.Rat
	for i := range 3 {
		s := new(big.Rat)
		for j := range 3 {
			p[i][j] = new(big.Rat).SetFloat64(c.P[i][j])
			s.Add(s, p[i][j])
		}
		for j := range 3 {
			p[i][j].Quo(p[i][j], s)
		}
	}
	return p
}

func minusIdentity(p [3][3]*big.Rat) [][]*big.Rat {
	m := make([][]*big.Rat, 3)
	for i := range m {
		m[i] = make([]*big.Rat, 3)
		for j := range m[i] {
			m[i][j] = new(big.Rat).Set(p[i][j])
			if i == j {
				m[i][j].Sub(m[i][j], big.NewRat(1, 1))
			}
		}
	}
	return m
}

// rankRat is the rank of m by exact Gaussian elimination (m is modified).
func rankRat(m [][]*big.Rat) int {
	rank := 0
	for col := 0; col < len(m[0]) && rank < len(m); col++ {
		piv := -1
		for r := rank; r < len(m); r++ {
			if m[r][col].Sign() != 0 {
				piv = r
				break
			}
		}
		if piv < 0 {
			continue
		}
		m[rank], m[piv] = m[piv], m[rank]
		for r := range m {
			if r == rank || m[r][col].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(m[r][col], m[rank][col])
			for k := col; k < len(m[r]); k++ {
				m[r][k].Sub(m[r][k], new(big.Rat).Mul(f, m[rank][k]))
			}
		}
		rank++
	}
	return rank
}

// exactStationary solves π(P − I) = 0, Σπ = 1 exactly for a chain with a
// unique stationary distribution: the equations are the columns of P − I
// and the normalization, as rows [coefficients of π | right-hand side].
func exactStationary(p [3][3]*big.Rat) [3]*big.Rat {
	m := make([][]*big.Rat, 4)
	for j := range 3 {
		m[j] = make([]*big.Rat, 4)
		for i := range 3 {
			m[j][i] = new(big.Rat).Set(p[i][j])
			if i == j {
				m[j][i].Sub(m[j][i], big.NewRat(1, 1))
			}
		}
		m[j][3] = new(big.Rat)
	}
	m[3] = []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 1), big.NewRat(1, 1), big.NewRat(1, 1)}
	if r := rankRat(m); r != 3 {
		panic(fmt.Sprintf("rank %d, want 3", r))
	}
	// Reduced row echelon form: the first three rows are the identity.
	var x [3]*big.Rat
	for i := range x {
		x[i] = new(big.Rat).Quo(m[i][3], m[i][i])
	}
	return x
}

func ratFloats(x [3]*big.Rat) [3]float64 {
	var f [3]float64
	for i := range x {
		f[i], _ = x[i].Float64()
	}
	return f
}

// TestTreeWeightsPlain: the plain products Stationary uses when no
// probability is below 2^-500 give the same bits as the rescaled ones.
func TestTreeWeightsPlain(t *testing.T) {
	rng := stream.New(28, 12)
	for k := range 20000 {
		var trees []tree
		for i := range 9 {
			x := func() float64 {
				switch rng.IntN(4) {
				case 0:
					return 0
				case 1:
					return math.Pow(2, -500*rng.Float64())
				}
				return rng.Float64()
			}
			trees = append(trees, tree{State(i % 3), x(), x()})
		}
		a, b := weigh(trees, false), weigh(trees, true)
		sa, sb := a[0]+a[1]+a[2], b[0]+b[1]+b[2]
		for i := range a {
			if sa > 0 && a[i]/sa != b[i]/sb {
				t.Fatalf("case %d %v: plain %v, scaled %v give different distributions", k, trees, a, b)
			}
		}
	}
}
