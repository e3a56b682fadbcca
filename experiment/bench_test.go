package experiment

import (
	"context"
	"testing"
)

// BenchmarkRunOverhead measures what the runner costs per unit (dispatch,
// JSON encoding of a 17-heuristic result, one write per line, fsync once a
// second) with work that does nothing: ns/op is per unit.
func BenchmarkRunOverhead(b *testing.B) {
	type res struct {
		Makespan [17]float64 `json:"makespan"`
	}
	work := func(_ context.Context, u int) (res, error) {
		var r res
		for i := range r.Makespan {
			r.Makespan[i] = float64(u*17+i) / 3
		}
		return r, nil
	}
	m := Manifest{Kind: "bench", Seed: 1, Units: b.N, Shard: Whole}
	b.ReportAllocs()
	b.ResetTimer()
	if err := Run(context.Background(), b.TempDir(), m, 2, work, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoad measures reading results back (per unit).
func BenchmarkLoad(b *testing.B) {
	type res struct {
		Makespan [17]float64 `json:"makespan"`
	}
	dir := b.TempDir()
	m := Manifest{Kind: "bench", Seed: 1, Units: b.N, Shard: Whole}
	err := Run(context.Background(), dir, m, 2, func(_ context.Context, u int) (res, error) {
		var r res
		r.Makespan[0] = float64(u) / 7
		return r, nil
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if _, _, err := LoadComplete[res](dir); err != nil {
		b.Fatal(err)
	}
}
