package stats

import (
	"math"
	"testing"
)

func TestMoments(t *testing.T) {
	m := Of([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if m.N != 8 || m.Mean != 5 || m.SS != 32 {
		t.Fatalf("Of = %+v, want N 8, mean 5, SS 32", m)
	}
	if got := m.PopulationSD(); got != 2 {
		t.Errorf("population SD %v, want 2", got)
	}
	if got, want := m.SampleSD(), math.Sqrt(32.0/7); got != want {
		t.Errorf("sample SD %v, want %v", got, want)
	}
	if got, want := m.SE(), math.Sqrt(32.0/7/8); got != want {
		t.Errorf("SE %v, want %v", got, want)
	}

	one := Of([]float64{3})
	if one.Mean != 3 || one.PopulationSD() != 0 || !math.IsNaN(one.SampleSD()) || one.SE() != 0 {
		t.Errorf("one value: %+v, population SD %v, sample SD %v, SE %v", one, one.PopulationSD(), one.SampleSD(), one.SE())
	}
	empty := Of(nil)
	if !math.IsNaN(empty.Mean) || !math.IsNaN(empty.PopulationSD()) || empty.SE() != 0 {
		t.Errorf("empty: %+v, population SD %v, SE %v", empty, empty.PopulationSD(), empty.SE())
	}
}

// TestTwoPassOrder: the mean is the sum in the sample's order divided by
// N, bit for bit (the summaries' digits depend on it), and two passes keep
// the spread of values far from zero that one pass (Σx² − N·mean²) loses.
func TestTwoPassOrder(t *testing.T) {
	xs := []float64{0.1, 0.2, 0.3, 1e16, -1e16, 0.7}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	if m := Of(xs); m.Mean != sum/6 {
		t.Errorf("mean %v, want the in-order sum / 6 = %v", m.Mean, sum/6)
	}
	big := []float64{1e9 + 1, 1e9 + 2, 1e9 + 3}
	if sd := Of(big).SampleSD(); sd != 1 {
		t.Errorf("sample SD of 1e9+{1,2,3}: %v, want 1", sd)
	}
}
