package redundant

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/volsched/volsched/stream"
)

// bruteForce enumerates all n^m allocations.
func bruteForce(p []float64, n int) float64 {
	m := len(p)
	x := make([]int, m)
	best := math.Inf(-1)
	for {
		if v := Rsys(p, x, n); v > best {
			best = v
		}
		i := 0
		for i < m {
			x[i]++
			if x[i] < n {
				break
			}
			x[i] = 0
			i++
		}
		if i == m {
			return best
		}
	}
}

func randomProbs(r *rand.Rand, m int, special bool) []float64 {
	p := make([]float64, m)
	for i := range p {
		p[i] = r.Float64()
		if special {
			switch r.IntN(8) {
			case 0:
				p[i] = 0
			case 1:
				p[i] = 1
			case 2:
				p[i] = 0.5 // ties
			}
		}
	}
	return p
}

func TestRsysByHand(t *testing.T) {
	p := []float64{0.5, 0.2, 0.1, 0.4}
	x := []int{0, 0, 1, 1}
	want := (1 - 0.5*0.2) * (1 - 0.1*0.4)
	if got := Rsys(p, x, 2); math.Abs(got-want) > 1e-15 {
		t.Fatalf("Rsys = %v, want %v", got, want)
	}
	if got := LogRsys(p, x, 2); math.Abs(got-math.Log(want)) > 1e-14 {
		t.Fatalf("LogRsys = %v, want %v", got, math.Log(want))
	}
	if got := Rsys(p, []int{0, 0, 0, 0}, 2); got != 0 {
		t.Fatalf("task without host: Rsys = %v, want 0", got)
	}
	if got := LogRsys(p, []int{0, 0, 0, 0}, 2); !math.IsInf(got, -1) {
		t.Fatalf("task without host: LogRsys = %v, want -Inf", got)
	}
}

func TestEA(t *testing.T) {
	for _, c := range [][2]int{{24, 9}, {37, 9}, {9, 9}, {10, 3}} {
		m, n := c[0], c[1]
		sizes := EAGroupSizes(m, n)
		k := m / n
		for j, s := range sizes {
			if s != k && s != k+1 {
				t.Fatalf("m=%d n=%d: task %d has %d hosts, want %d or %d", m, n, j, s, k, k+1)
			}
		}
		if err := ValidateAllocation(EA(m, n), n); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExactMatchesBruteForce proves the branch and bound right on every
// small instance drawn, including p = 0, p = 1 and ties.
func TestExactMatchesBruteForce(t *testing.T) {
	r := stream.New(1, 1)
	count := 0
	maxN := map[int]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 7: 5, 8: 4, 9: 3}
	for m := 1; m <= 9; m++ {
		for n := 1; n <= maxN[m]; n++ {
			for trial := 0; trial < 12; trial++ {
				p := randomProbs(r, m, trial%2 == 1)
				want := bruteForce(p, n)
				res := Exact(p, n, ExactOptions{})
				if !res.Optimal {
					t.Fatalf("m=%d n=%d: not optimal", m, n)
				}
				if err := ValidateAllocation(res.X, n); err != nil {
					t.Fatal(err)
				}
				got := Rsys(p, res.X, n)
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("m=%d n=%d p=%v: exact R=%v, brute force %v", m, n, p, got, want)
				}
				// Heuristics are never better than the optimum.
				for _, x := range [][]int{GLS(p, n), EA(m, n), PPB(p, n, stream.New(2, uint64(trial)), AnnealOptions{})} {
					if v := Rsys(p, x, n); v > want+1e-12 {
						t.Fatalf("m=%d n=%d: heuristic R=%v beats optimum %v", m, n, v, want)
					}
				}
				count++
			}
		}
	}
	t.Logf("%d instances checked against brute force", count)
}

// TestExactAgainstHeuristicsLarger: on instances too big for brute force,
// no heuristic beats the proven optimum and PPB/GLS come close.
func TestExactAgainstHeuristicsLarger(t *testing.T) {
	r := stream.New(1, 2)
	for trial := 0; trial < 10; trial++ {
		m, n := 12+trial, 2+trial%4
		p := randomProbs(r, m, false)
		ex := Exact(p, n, ExactOptions{})
		if !ex.Optimal {
			t.Fatalf("m=%d n=%d: exact did not finish (%d nodes)", m, n, ex.Nodes)
		}
		for name, x := range map[string][]int{
			"gls": GLS(p, n),
			"ppb": PPB(p, n, stream.New(3, uint64(trial)), AnnealOptions{}),
			"epb": EPB(p, n, stream.New(4, uint64(trial)), AnnealOptions{}),
			"ea":  EA(m, n),
		} {
			v := LogRsys(p, x, n)
			if v > ex.LogRsys+1e-9 {
				t.Fatalf("%s beats the exact optimum: %v > %v", name, v, ex.LogRsys)
			}
		}
	}
}

func TestAnnealNeverWorseThanStart(t *testing.T) {
	r := stream.New(5)
	for trial := 0; trial < 50; trial++ {
		m := 2 + r.IntN(60)
		n := 1 + r.IntN(m)
		p := randomProbs(r, m, trial%3 == 0)
		start := EA(m, n)
		base := LogRsys(p, start, n)
		for _, eq := range []bool{false, true} {
			x := Anneal(p, n, start, eq, stream.New(6, uint64(trial)), AnnealOptions{MovesPerHost: 20})
			if err := ValidateAllocation(x, n); err != nil {
				t.Fatal(err)
			}
			if v := LogRsys(p, x, n); v < base-1e-12 {
				t.Fatalf("trial %d equal=%v: anneal %v worse than start %v", trial, eq, v, base)
			}
			if eq {
				got := TaskSizes(x, n)
				want := TaskSizes(start, n)
				if !slices.Equal(got, want) {
					t.Fatalf("EPB changed the host counts: %v, want %v", got, want)
				}
			}
		}
		if !slices.Equal(start, EA(m, n)) {
			t.Fatal("Anneal modified its start")
		}
	}
}

func TestDeterministicBySeed(t *testing.T) {
	p := randomProbs(stream.New(7), 20, false)
	for _, algo := range Algorithms {
		a, err := Allocate(context.Background(), algo, p, 6, Options{Seed: 11}, 3)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Allocate(context.Background(), algo, p, 6, Options{Seed: 11}, 3)
		if !slices.Equal(a.X, b.X) {
			t.Fatalf("%s: two runs with the same seed differ", algo)
		}
	}
	a, _ := Allocate(context.Background(), "ppb", p, 20, Options{Seed: 11}, 3)
	c, _ := Allocate(context.Background(), "ppb", p, 20, Options{Seed: 12}, 3)
	if slices.Equal(a.X, c.X) {
		t.Log("note: seeds 11 and 12 gave the same PPB allocation")
	}
}

// TestPPBImprovesOnEA: with heterogeneous hosts the probability-based
// methods must beat EA clearly on average (the paper's central claim, in
// laboratory conditions), and EPB must sit between EA and PPB.
func TestPPBImprovesOnEA(t *testing.T) {
	r := stream.New(8)
	var ea, epb, ppb, gls float64
	const trials = 40
	for trial := 0; trial < trials; trial++ {
		p := GDFN{Mu: 0.6, Sigma: 0.3}.SampleN(r, 37)
		ea += Rsys(p, EA(37, 9), 9)
		epb += Rsys(p, EPB(p, 9, stream.New(9, uint64(trial)), AnnealOptions{}), 9)
		ppb += Rsys(p, PPB(p, 9, stream.New(10, uint64(trial)), AnnealOptions{}), 9)
		gls += Rsys(p, GLS(p, 9), 9)
	}
	if !(ppb > epb && epb > ea && ppb > 1.1*ea) {
		t.Fatalf("mean R over %d trials: EA %.4f EPB %.4f PPB %.4f; want PPB > EPB > EA and PPB > 1.1 EA", trials, ea/trials, epb/trials, ppb/trials)
	}
	if gls < 0.999*ppb {
		t.Fatalf("GLS %.4f well below PPB %.4f", gls/trials, ppb/trials)
	}
}

func TestAllocateErrors(t *testing.T) {
	for _, c := range []struct {
		p    []float64
		n    int
		algo string
	}{
		{nil, 1, "ea"},
		{[]float64{0.5, 1.5}, 1, "ea"},
		{[]float64{0.5, math.NaN()}, 1, "ea"},
		{[]float64{0.5}, 2, "ea"},
		{[]float64{0.5}, 0, "ea"},
		{[]float64{0.5}, 1, "nope"},
	} {
		if _, err := Allocate(context.Background(), c.algo, c.p, c.n, Options{}); err == nil {
			t.Fatalf("Allocate(%q, %v, %d): no error", c.algo, c.p, c.n)
		} else {
			t.Log(err)
		}
	}
}

// TestExactNodeLimit: a search stopped by its node limit says so and
// still returns a valid allocation at least as good as GLS (its incumbent).
func TestExactNodeLimit(t *testing.T) {
	p := GDFN{Mu: 0.5, Sigma: 0.3}.SampleN(stream.New(12), 40)
	res := Exact(p, 10, ExactOptions{MaxNodes: 1000})
	if res.Optimal {
		t.Fatal("40 hosts proven optimal in 1000 nodes: unexpected")
	}
	if err := ValidateAllocation(res.X, 10); err != nil {
		t.Fatal(err)
	}
	if g := LogRsys(p, GLS(p, 10), 10); res.LogRsys < g-1e-12 {
		t.Fatalf("stopped exact search %v worse than GLS %v", res.LogRsys, g)
	}
}
