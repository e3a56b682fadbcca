package redundant

import (
	"context"
	"testing"
)

func TestLabDeterministicAcrossWorkers(t *testing.T) {
	cfg := LabConfig{Algos: []string{"ea", "ppb", "epb", "gls"}, Reps: 30, Seed: 5, Anneal: AnnealOptions{MovesPerHost: 50}}
	grid := LabGrid{Mus: []float64{0.556}, Sigmas: []float64{0.3}}
	cfg.Workers = 1
	a, err := LabFigure(context.Background(), 1, grid, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 3
	b, _ := LabFigure(context.Background(), 1, grid, cfg)
	for s := range a.Series {
		if a.Series[s].Y[0] != b.Series[s].Y[0] {
			t.Fatalf("%s: %v with 1 worker, %v with 3", a.Series[s].Name, a.Series[s].Y[0], b.Series[s].Y[0])
		}
	}
	g3 := LabGrid{Ms: []int{12}, R0s: []float64{0.4}}
	c, err := LabFigure(context.Background(), 3, g3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Series {
		if s.Y[0] <= 0 || s.Y[0] > 1 {
			t.Fatalf("%s: n/m = %v, want in (0, 1]", s.Name, s.Y[0])
		}
	}
	// EA's ratio is below the probability-based ones.
	if !(c.Series[0].Y[0] <= c.Series[1].Y[0]) {
		t.Fatalf("EA n/m %v above PPB %v", c.Series[0].Y[0], c.Series[1].Y[0])
	}
}
