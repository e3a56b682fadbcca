package analytic

import (
	"math"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

func ch(rows [3][3]float64) availability.Chain { return availability.Chain{P: rows} }

// Degenerate chains whose values are derived by hand in docs/analytic.md.
func TestSeed001Degenerate(t *testing.T) {
	t.Run("P_ur=0", func(t *testing.T) {
		// From UP: stay UP (0.9) or go DOWN (0.1); RECLAIMED is never reached.
		c := ch([3][3]float64{{0.9, 0, 0.1}, {0.3, 0.5, 0.2}, {0.5, 0.2, 0.3}})
		near(t, "P+", PPlus(c), 0.9, 1e-15)
		near(t, "E(7)", ExpectedTime(c, 7), 7, 1e-15)
		for k := 1; k <= 12; k++ {
			near(t, "P_UD exact", PUDExact(c, k), math.Pow(0.9, float64(k-1)), 1e-13)
		}
		near(t, "P_ND(2.5)", PNotDown(c, 2.5), math.Pow(0.9, 2.5), 1e-13)
		near(t, "P_u->u(5)", PUpToUp(c, 5), math.Pow(0.9, 5), 1e-13)
		// The printed matrix form adds P(RECLAIMED -> UP) paths: it differs.
		if math.Abs(PUDPublishedMatrix(c, 6)-PUDExact(c, 6)) < 0.1 {
			t.Errorf("published matrix form %g vs exact %g: expected a visible difference", PUDPublishedMatrix(c, 6), PUDExact(c, 6))
		}
	})
	t.Run("P_rr=0", func(t *testing.T) {
		c := ch([3][3]float64{{0.8, 0.15, 0.05}, {0.6, 0, 0.4}, {0.5, 0.5, 0}})
		near(t, "P+", PPlus(c), 0.8+0.15*0.6, 1e-15)
		for _, W := range []float64{1, 2, 10} {
			near(t, "E(W)", ExpectedTime(c, W), W+(W-1)*0.09/0.89, 1e-14)
		}
		// Two slots: UP then anything but DOWN.
		near(t, "P_UD(2)", PUDExact(c, 2), 0.95, 1e-15)
		// Three slots: u u {u,r} + u r u.
		near(t, "P_UD(3)", PUDExact(c, 3), 0.8*0.95+0.15*0.6, 1e-15)
	})
	t.Run("never DOWN", func(t *testing.T) {
		c := ch([3][3]float64{{0.7, 0.3, 0}, {0.2, 0.8, 0}, {0.4, 0.4, 0.2}})
		near(t, "P+", PPlus(c), 1, 1e-15)
		// Each UP slot is followed by a geometric run of RECLAIMED slots of
		// mean P_ur/P_ru.
		near(t, "E(5)", ExpectedTime(c, 5), 5+4*0.3/0.2, 1e-14)
		near(t, "P_UD(50)", PUDExact(c, 50), 1, 1e-12)
		near(t, "P_UD approx", PUDApprox(c, 50), 1, 1e-15)
	})
	t.Run("same DOWN rate from u and r", func(t *testing.T) {
		// P_ud = P_rd = h: P_UD(k) = (1-h)^(k-1) and the approximation is exact.
		c := ch([3][3]float64{{0.85, 0.1, 0.05}, {0.25, 0.7, 0.05}, {0.3, 0.3, 0.4}})
		for _, k := range []int{2, 5, 30} {
			want := math.Pow(0.95, float64(k-1))
			near(t, "exact", PUDExact(c, k), want, 1e-13)
			near(t, "approx", PUDApprox(c, float64(k)), want, 1e-13)
		}
	})
	t.Run("cannot return", func(t *testing.T) {
		c := ch([3][3]float64{{0, 0, 1}, {0, 1, 0}, {0, 0, 1}})
		near(t, "P+", PPlus(c), 0, 0)
		if e := ExpectedTime(c, 3); !math.IsInf(e, 1) {
			t.Errorf("E(3) = %g, want +Inf", e)
		}
	})
	t.Run("edges", func(t *testing.T) {
		c := availability.Random(stream.New(1))
		near(t, "E(0)", ExpectedTime(c, 0), 0, 0)
		near(t, "E(1)", ExpectedTime(c, 1), 1, 0)
		near(t, "P_UD(1)", PUDExact(c, 1), 1, 0)
		near(t, "P_UD approx(1)", PUDApprox(c, 1), 1, 0)
		near(t, "P_UD approx(2)", PUDApprox(c, 2), 1-c.P[0][2], 1e-15)
		near(t, "P_ND(0)", PNotDown(c, 0), 1, 0)
	})
}

func TestSeed002Degenerate(t *testing.T) {
	t.Run("no RECLAIMED", func(t *testing.T) {
		// P_ur = 0 for all: P^(S)_{u->u}(t) = Λ^t with Λ = ∏ P_uu, so
		// E_u = Λ/(1-Λ), P+ = Λ, E_c = Λ (the only return is at t = 1).
		a := []float64{0.95, 0.9, 0.97}
		chains := make([]availability.Chain, len(a))
		lam := 1.0
		for i, x := range a {
			chains[i] = ch([3][3]float64{{x, 0, 1 - x}, {0.3, 0.5, 0.2}, {0.5, 0.2, 0.3}})
			lam *= x
		}
		tab, err := NewTable(chains, Options{Epsilon: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		st := tab.SetOf(0, 1, 2).Stats()
		near(t, "E_u", st.EU, lam/(1-lam), 1e-10)
		near(t, "P+", st.PPlus, lam, 1e-11)
		near(t, "E_c", st.Ec, lam, 1e-10)
		near(t, "E conditional", st.ExpectedTime(9, Conditional), 9, 1e-9)
		near(t, "E published", st.ExpectedTime(9, Published), (1+8*lam)/math.Pow(lam, 8), 1e-9)
		near(t, "P success", st.PSuccess(9), math.Pow(lam, 8), 1e-10)
	})
	t.Run("never DOWN", func(t *testing.T) {
		// Kac: mean return time to all-UP is 1/∏π_u with π_u = P_ru/(P_ur+P_ru).
		c1 := ch([3][3]float64{{0.7, 0.3, 0}, {0.2, 0.8, 0}, {0.4, 0.4, 0.2}}) // π_u = 0.4
		c2 := ch([3][3]float64{{0.9, 0.1, 0}, {0.5, 0.5, 0}, {0.4, 0.4, 0.2}}) // π_u = 5/6
		tab, _ := NewTable([]availability.Chain{c1, c2}, Options{})
		st := tab.SetOf(0, 1).Stats()
		near(t, "P+", st.PPlus, 1, 0)
		near(t, "E_c", st.Ec, 1/(0.4*5.0/6), 1e-12)
		near(t, "E(4)", st.ExpectedTime(4, Published), 1+3/(0.4*5.0/6), 1e-12)
		near(t, "E(4)", st.ExpectedTime(4, Conditional), 1+3/(0.4*5.0/6), 1e-12)
		// A singleton agrees with seed 001's Theorem 2.
		near(t, "single", tab.SetOf(0).Stats().ExpectedTime(5, Conditional), 5+4*0.3/0.2, 1e-12)
	})
	t.Run("empty set", func(t *testing.T) {
		tab, _ := NewTable([]availability.Chain{availability.Random(stream.New(3))}, Options{})
		st := tab.NewSet().Stats()
		near(t, "P+", st.PPlus, 1, 0)
		near(t, "E", st.ExpectedTime(6, Published), 6, 0)
	})
}

// randomTable returns a table of p chains from the papers' generator plus,
// at index p, a processor that is always UP (its P_{u→u}(t) = 1), which lets
// tests force the truncated-sum path for a single real processor.
func randomTable(t testing.TB, seed uint64, p int, opt Options) *Table {
	rng := stream.New(seed)
	chains := make([]availability.Chain, p+1)
	for i := 0; i < p; i++ {
		chains[i] = availability.Random(rng)
	}
	chains[p] = ch([3][3]float64{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}})
	tab, err := NewTable(chains, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// The truncated sums of seed 002 reduce to seed 001's closed forms for one
// processor, to within ε.
func TestSingletonSumsMatchClosedForms(t *testing.T) {
	const p = 20
	tab := randomTable(t, 7, p, Options{Epsilon: 1e-10})
	for q := 0; q < p; q++ {
		c := tab.Chain(q)
		sums := tab.SetOf(q, p).Stats() // {q, always-UP}: summed, not closed form
		near(t, "P+ vs Lemma 1", sums.PPlus, PPlus(c), 1e-9)
		near(t, "E_u", sums.EU, tab.Single(q).EU, 1e-8)
		near(t, "A", sums.A, tab.Single(q).A, 1e-7)
		for _, W := range []float64{2, 5, 30} {
			near(t, "conditional E vs Theorem 2", sums.ExpectedTime(W, Conditional), ExpectedTime(c, W), 1e-8)
			near(t, "single conditional", tab.ExpectedTimeSingle(q, W, Conditional), ExpectedTime(c, W), 1e-12)
		}
		if sums.TailBound > 1e-10 {
			t.Errorf("tail bound %g above ε", sums.TailBound)
		}
		for s := 0; s < 50; s += 7 {
			near(t, "table P_u->u", tab.PUpToUp(q, s), PUpToUp(c, s), 1e-12)
			near(t, "table P_ND", tab.PNotDown(q, float64(s)+0.3), PNotDown(c, float64(s)+0.3), 1e-12)
		}
	}
}

// Incremental evaluation gives the same numbers as building the set.
func TestIncrementalMatchesFromScratch(t *testing.T) {
	const p = 20
	tab := randomTable(t, 9, p, Options{})
	s := tab.NewSet()
	order := []int{3, 17, 0, 9, 12, 5, 19, 1}
	for i, q := range order {
		with := s.StatsWith(q)
		s.Add(q)
		got := s.Stats()
		scratch := tab.SetOf(order[:i+1]...).Stats()
		// A set built in another order multiplies in another order: equal
		// to rounding.
		near(t, "StatsWith vs Add", with.PPlus, got.PPlus, 1e-14)
		near(t, "Add vs scratch P+", got.PPlus, scratch.PPlus, 1e-12)
		near(t, "Add vs scratch E_c", got.Ec, scratch.Ec, 1e-12)
		if s.Len() != i+1 || !s.Has(q) {
			t.Fatalf("membership wrong after adding %d", q)
		}
	}
	// Adding a member twice changes nothing.
	before := s.Stats()
	s.Add(order[0])
	if s.Stats() != before || s.StatsWith(order[1]) != before {
		t.Error("re-adding a member changed the stats")
	}
	c := s.Clone()
	c.Add(4)
	if s.Has(4) || !c.Has(4) {
		t.Error("Clone shares membership")
	}
	// P+ decreases as the set grows.
	prev := 1.0
	s.Reset()
	for _, q := range order {
		s.Add(q)
		if pp := s.Stats().PPlus; pp > prev+1e-15 {
			t.Errorf("P+ grew from %g to %g", prev, pp)
		} else {
			prev = pp
		}
	}
}

func TestComm(t *testing.T) {
	// P_ur = 0: E^(q)(n) = n in the conditional form, (1+(n-1)a)/a^(n-1)
	// published, P_ND(t) = a^t.
	a0, a1 := 0.95, 0.9
	c0 := ch([3][3]float64{{a0, 0, 1 - a0}, {0.3, 0.5, 0.2}, {0.5, 0.2, 0.3}})
	c1 := ch([3][3]float64{{a1, 0, 1 - a1}, {0.3, 0.5, 0.2}, {0.5, 0.2, 0.3}})
	tab, _ := NewTable([]availability.Chain{c0, c1}, Options{})
	qs, n := []int{0, 1}, []float64{3, 5}
	near(t, "E_comm |S| ≤ n_com", tab.EComm(qs, n, 2, Conditional), 5, 1e-15)
	near(t, "E_comm |S| > n_com", tab.EComm(qs, n, 1, Conditional), 8, 1e-15)
	pub := math.Max((1+2*a0)/(a0*a0), (1+4*a1)/math.Pow(a1, 4))
	near(t, "E_comm published", tab.EComm(qs, n, 2, Published), pub, 1e-13)
	near(t, "P_comm", tab.PComm(qs, 8), math.Pow(a0*a1, 8), 1e-13)
	near(t, "P_comm(7.5)", tab.PComm(qs, 7.5), math.Pow(a0*a1, 7.5), 1e-13)
	near(t, "nothing to send", tab.EComm(qs, []float64{0, 0}, 1, Published), 0, 0)
}

func TestHorizon(t *testing.T) {
	for _, lam := range []float64{0.5, 0.9, 0.99, 0.999} {
		for _, eps := range []float64{1e-6, 1e-9, 1e-12} {
			T := horizon(lam, eps, 1<<30)
			tf := float64(T)
			tailEU := math.Pow(lam, tf) / (1 - lam)
			tailA := math.Pow(lam, tf) * (tf/(1-lam) + lam/((1-lam)*(1-lam)))
			if tailEU > eps || tailA > eps {
				t.Errorf("λ=%g ε=%g: T=%d leaves tails %g, %g", lam, eps, T, tailEU, tailA)
			}
			tf -= 2 // and it is not much larger than needed
			if math.Pow(lam, tf)*(tf/(1-lam)+lam/((1-lam)*(1-lam))) <= eps {
				t.Errorf("λ=%g ε=%g: T=%d is not the smallest", lam, eps, T)
			}
		}
	}
}

func TestNewTableRejectsBadChains(t *testing.T) {
	if _, err := NewTable(nil, Options{}); err == nil {
		t.Error("empty table accepted")
	}
	bad := ch([3][3]float64{{0.9, 0.2, 0}, {0.5, 0.5, 0}, {0, 0, 1}})
	if _, err := NewTable([]availability.Chain{bad}, Options{}); err == nil {
		t.Error("invalid chain accepted")
	}
}
