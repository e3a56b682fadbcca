package coupled

import (
	"math"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// TestReunionMonteCarlo: ReunionOf against simulation of the members'
// chains from their current states, slot by slot, until all are UP in the
// same slot (success, at that slot) or one goes DOWN: the probability
// within 4.5 standard errors, the mean time to a success within 4.5
// standard errors, on random chains of the papers' generator and sets of
// 1 to 5 processors with some RECLAIMED.
func TestReunionMonteCarlo(t *testing.T) {
	rng := stream.New(77)
	n := 40_000
	if testing.Short() {
		n = 10_000
	}
	for c := 0; c < 8; c++ {
		k := 1 + c%5
		chains := make([]availability.Chain, k)
		states := make([]availability.State, k)
		for q := range chains {
			chains[q] = availability.Random(rng)
			states[q] = availability.Up
			if q%2 == 0 || c%3 == 0 {
				states[q] = availability.Reclaimed
			}
		}
		got, err := ReunionOf(chains, states)
		if err != nil {
			t.Fatal(err)
		}
		mc := stream.New(78, uint64(c))
		succ, sumT, sumT2 := 0, 0.0, 0.0
		cur := make([]availability.State, k)
		for i := 0; i < n; i++ {
			copy(cur, states)
			for s := 1; ; s++ {
				up, down := true, false
				for q := range cur {
					cur[q] = chains[q].NextU(cur[q], mc.Float64())
					up = up && cur[q] == availability.Up
					down = down || cur[q] == availability.Down
				}
				if down {
					break
				}
				if up {
					succ++
					sumT += float64(s)
					sumT2 += float64(s * s)
					break
				}
			}
		}
		p := float64(succ) / float64(n)
		se := math.Sqrt(p * (1 - p) / float64(n))
		if math.Abs(p-got.P) > 4.5*se {
			t.Errorf("case %d (%d processors, states %v): P = %.4f, Monte Carlo %.4f ± %.4f", c, k, states, got.P, p, se)
		}
		mean := sumT / float64(succ)
		seT := math.Sqrt((sumT2/float64(succ) - mean*mean) / float64(succ))
		if math.Abs(mean-got.E) > 4.5*seT {
			t.Errorf("case %d: E = %.3f, Monte Carlo %.3f ± %.3f", c, got.E, mean, seT)
		}
		t.Logf("case %d (%d processors): P %.4f (MC %.4f ± %.4f), E %.2f (MC %.2f ± %.2f)", c, k, got.P, p, se, got.E, mean, seT)
	}
}

// TestReunionAllUpIsPPlus: from a set all UP, the reunion probability is
// P+(S) of Theorem 5.1 as package analytic computes it.
func TestReunionAllUpIsPPlus(t *testing.T) {
	rng := stream.New(79)
	var chains []availability.Chain
	for q := 0; q < 6; q++ {
		chains = append(chains, availability.Random(rng))
	}
	tab, err := analytic.NewTable(chains, analytic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 6; k++ {
		states := make([]availability.State, k)
		for q := range states {
			states[q] = availability.Up
		}
		got, err := ReunionOf(chains[:k], states)
		if err != nil {
			t.Fatal(err)
		}
		qs := make([]int, k)
		for q := range qs {
			qs[q] = q
		}
		want := tab.SetOf(qs...).Stats().PPlus
		if math.Abs(got.P-want) > 1e-9 {
			t.Errorf("%d processors: reunion %v, P+(S) %v", k, got.P, want)
		}
	}
	if _, err := ReunionOf(chains[:2], []availability.State{availability.Up, availability.Down}); err == nil {
		t.Error("a DOWN member: no error")
	}
}

// TestReclaimedTogether: the together reading leaves a configuration
// whose members are all UP as it is, and with a RECLAIMED member
// multiplies P by ReunionOf's probability and adds its expected time; the
// cached value is the computed one (asked twice, and after another
// RECLAIMED set).
func TestReclaimedTogether(t *testing.T) {
	chains := []availability.Chain{chainOf(0.9, 0.05, 0.1, 0.8, 0.3), chainOf(0.95, 0.03, 0.2, 0.7, 0.3), chainOf(0.92, 0.04, 0.15, 0.8, 0.3)}
	e := evaluator(t, chains, Platform{W: []int{2, 3, 2}, NCom: 2, TProg: 1, TData: 1}, 3)
	c := Config{X: []int{1, 1, 1}, Order: []int{2, 0, 1}}
	s := &Snapshot{States: states(true, true, true), Prog: []int{1, 1, 1}, Data: []int{1, 1, 1}}
	v := e.Value(c, s, 0)
	if got := e.reclaimedValue(v, c, s, Together); got != v {
		t.Errorf("all UP: %+v, want %+v", got, v)
	}
	U, R := availability.Up, availability.Reclaimed
	for _, st := range [][]availability.State{{R, U, U}, {U, R, R}, {R, U, U}, {R, R, R}} {
		s.States = st
		want, err := ReunionOf(chains, s.States)
		if err != nil {
			t.Fatal(err)
		}
		got := e.reclaimedValue(v, c, s, Together)
		if !approxEqual(got.P, v.P*want.P) || !approxEqual(got.E, v.E+want.E) || !(want.P > 0 && want.P < 1) {
			t.Errorf("states %v: %+v, want P %v, E %v", s.States, got, v.P*want.P, v.E+want.E)
		}
	}
	if r, err := ParseReclaimed("together"); err != nil || r != Together || r.String() != "together" {
		t.Errorf("ParseReclaimed(together) = %v, %v", r, err)
	}
}
