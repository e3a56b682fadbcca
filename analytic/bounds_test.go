package analytic

import (
	"math"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
)

// Durations beyond the precomputed table, beyond an int, infinite or not a
// number reach P_ND through E_comm (analyze --comm, the coupled
// heuristics): they must give the limit of the sequence, never an index out
// of range.
func TestPNotDownExtremeDurations(t *testing.T) {
	c := ch([3][3]float64{{0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}, {0.05, 0.05, 0.9}})
	never := ch([3][3]float64{{0.9, 0.1, 0}, {0.2, 0.8, 0}, {0.5, 0.2, 0.3}})
	tab, err := NewTable([]availability.Chain{c, never}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{float64(tab.Horizon()) - 1, float64(tab.Horizon()) + 0.5, 1e5, 1e18, 9.3e18, 1e300, math.MaxFloat64, math.Inf(1)} {
		if got := tab.PNotDown(0, s); !(got >= 0 && got < 1e-9) {
			t.Errorf("P_ND(%g) of a chain that goes DOWN = %g, want ≈ 0", s, got)
		}
		if got := tab.PNotDown(1, s); got != 1 {
			t.Errorf("P_ND(%g) of a chain that never goes DOWN = %g, want 1", s, got)
		}
	}
	if got := tab.PNotDown(0, math.NaN()); !math.IsNaN(got) {
		t.Errorf("P_ND(NaN) = %g, want NaN", got)
	}
	// E_comm of an enormous transfer is huge or infinite; P_comm is 0.
	e := tab.EComm([]int{0, 1}, []float64{1e5, 3}, 2, Published)
	if p := tab.PComm([]int{0, 1}, e); p != 0 {
		t.Errorf("P_comm with E_comm = %g: %g, want 0", e, p)
	}
}

// A table whose processors × horizon would not fit in memory is refused
// with the limit named, before anything is allocated; so is a precision
// outside (0, 1).
func TestNewTableBounds(t *testing.T) {
	slow := ch([3][3]float64{{0.999999, 0, 1e-6}, {0.5, 0.5, 0}, {0.5, 0, 0.5}})
	chains := make([]availability.Chain, 200)
	for i := range chains {
		chains[i] = slow
	}
	_, err := NewTable(chains, Options{Epsilon: 1e-300})
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("200 processors at the maximum horizon: err = %v, want the table-size limit", err)
	}
	for _, eps := range []float64{1, 2, math.NaN(), math.Inf(1)} {
		if _, err := NewTable(chains[:1], Options{Epsilon: eps}); err == nil || !strings.Contains(err.Error(), "ε") {
			t.Errorf("ε = %g: err = %v, want a refusal naming ε", eps, err)
		}
	}
}
