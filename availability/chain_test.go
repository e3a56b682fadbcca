package availability

import (
	"math"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
)

func TestValidate(t *testing.T) {
	ok := Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}}}
	if err := ok.Validate("x"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		c    Chain
		want []string
	}{
		{"row sum", Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.2}, {0.2, 0.3, 0.5}}}, []string{"f.json", "row 1", "1.1"}},
		{"negative", Chain{P: [3][3]float64{{0.9, 0.15, -0.05}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}}}, []string{"f.json", "P[0][2]", "-0.05"}},
		{"above one", Chain{P: [3][3]float64{{1.5, -0.25, -0.25}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}}}, []string{"P[0][0]", "1.5"}},
		{"nan", Chain{P: [3][3]float64{{math.NaN(), 0.5, 0.5}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}}}, []string{"NaN"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate("f.json")
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	// Within tolerance is accepted, just beyond is not.
	c := ok
	c.P[0][0] += 5e-10
	if err := c.Validate("x"); err != nil {
		t.Errorf("5e-10 off rejected: %v", err)
	}
	c.P[0][0] += 1e-9
	if err := c.Validate("x"); err == nil {
		t.Error("1.5e-9 off accepted")
	}
}

func TestStationary(t *testing.T) {
	c := Chain{P: [3][3]float64{{0.95, 0.025, 0.025}, {0.03, 0.94, 0.03}, {0.04, 0.04, 0.92}}}
	pi := c.Stationary()
	sum := pi[0] + pi[1] + pi[2]
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("sums to %g", sum)
	}
	for j := 0; j < 3; j++ { // π P = π
		v := 0.0
		for i := 0; i < 3; i++ {
			v += pi[i] * c.P[i][j]
		}
		if math.Abs(v-pi[j]) > 1e-12 {
			t.Errorf("(πP)[%d] = %g, π = %g", j, v, pi[j])
		}
	}
	// Hand-derived: symmetric off-diagonals with equal diagonal give uniform.
	u := Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}, {0.05, 0.05, 0.9}}}
	for _, p := range u.Stationary() {
		if math.Abs(p-1.0/3) > 1e-12 {
			t.Errorf("uniform chain: %v", u.Stationary())
		}
	}
	// Two-state u/r chain that never goes down: π_u = P_ru/(P_ur+P_ru).
	two := Chain{P: [3][3]float64{{0.8, 0.2, 0}, {0.1, 0.9, 0}, {0.5, 0.5, 0}}}
	if got := two.Stationary(); math.Abs(got[0]-1.0/3) > 1e-12 || got[2] != 0 {
		t.Errorf("two-state chain: %v, want [1/3 2/3 0]", got)
	}
	// Reducible (absorbing UP and absorbing DOWN): the limit from UP.
	abs := Chain{P: [3][3]float64{{1, 0, 0}, {0.5, 0, 0.5}, {0, 0, 1}}}
	if got := abs.Stationary(); got != [3]float64{1, 0, 0} {
		t.Errorf("absorbing chain from UP: %v", got)
	}
}

func TestSampleFrequencies(t *testing.T) {
	// Empirical transition frequencies of a long sample match P within 5
	// standard errors.
	rng := stream.New(11, 1)
	c := Random(rng)
	s := c.Sample(Reclaimed, 400000, rng)
	if s[0] != Reclaimed {
		t.Fatal("start state not kept")
	}
	var n [3][3]float64
	for i := 1; i < len(s); i++ {
		n[s[i-1]][s[i]]++
	}
	for i := 0; i < 3; i++ {
		row := n[i][0] + n[i][1] + n[i][2]
		for j := 0; j < 3; j++ {
			p := c.P[i][j]
			se := math.Sqrt(p * (1 - p) / row)
			if d := math.Abs(n[i][j]/row - p); d > 5*se {
				t.Errorf("P[%d][%d]: empirical %g, want %g (±%g)", i, j, n[i][j]/row, p, 5*se)
			}
		}
	}
}

func TestRandomGenerator(t *testing.T) {
	rng := stream.New(5)
	for k := 0; k < 1000; k++ {
		c := Random(rng)
		if err := c.Validate("generated"); err != nil {
			t.Fatal(err)
		}
		for x := 0; x < 3; x++ {
			if c.P[x][x] < 0.90 || c.P[x][x] > 0.99 {
				t.Fatalf("P_xx = %g outside [0.90, 0.99]", c.P[x][x])
			}
			for y := 0; y < 3; y++ {
				if x != y && math.Abs(c.P[x][y]-0.5*(1-c.P[x][x])) > 1e-15 {
					t.Fatalf("P_%d%d = %g, want %g", x, y, c.P[x][y], 0.5*(1-c.P[x][x]))
				}
			}
		}
	}
}

func TestNextUNeverImpossible(t *testing.T) {
	c := Chain{P: [3][3]float64{{0.7, 0.3, 0}, {0.2, 0.8, 0}, {0, 0, 1}}}
	for _, u := range []float64{0, 0.5, 0.7, 0.999999999999, math.Nextafter(1, 0)} {
		if s := c.NextU(Up, u); s == Down {
			t.Errorf("u=%v: went DOWN with P_ud = 0", u)
		}
	}
}

func TestParseState(t *testing.T) {
	for in, want := range map[string]State{"u": Up, "r": Reclaimed, "d": Down, "down": Down} {
		if got, err := ParseState(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseState("x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("bad state: %v", err)
	}
}
