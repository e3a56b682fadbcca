package overlay

import (
	"fmt"
	"testing"

	"github.com/volsched/volsched/stream"
)

// fullSummaries returns two summaries of sfmax sampled functions each, as
// aggregated from random nodes (what a router at a high level aggregates).
func fullSummaries(b testing.TB, pol Policy, sfmax int) (Rules, Summary, Summary) {
	return fullSummariesDist(b, pol, sfmax, DistMSE)
}

// fullSummariesDist is fullSummaries with distance dist (DistStars: DP
// leaves keep their whole l, as the authors' did).
func fullSummariesDist(b testing.TB, pol Policy, sfmax int, dist Distance) (Rules, Summary, Summary) {
	p, err := newRules(pol, sfmax)
	if err != nil {
		b.Fatal(err)
	}
	if dp, ok := p.(*DP); ok {
		dp.o.Distance = dist
	}
	r := stream.New(7, 0xbe7c)
	var s [2]Summary
	for h := range s {
		for range 4 * sfmax {
			var leaf Summary
			m, d := uniformInt(r, 1, 4096), uniformInt(r, 1, 5000)
			switch pol {
			case PolicyIBP:
				leaf = IBPSummary{{Mem: float32(m), Disk: float32(d), V: 1}}
			case PolicyMMP:
				leaf = MMPSummary{{Mem: float32(m), Disk: float32(d), Power: float32(uniformInt(r, 1, 3000)), Q: uniformInt(r, 0, 2000), V: 1}}
			case PolicyDP:
				f := randomDPNode(r, uniformInt(r, accPowLo, accPowHi)).Function(0)
				if dist != DistStars {
					f.reduce(10, 100000)
				}
				leaf = DPSummary{{Mem: float32(m), Disk: float32(d), V: 1, L: f}}
			}
			s[h] = p.Aggregate(s[h], leaf)
		}
	}
	return p, s[0], s[1]
}

// BenchmarkAggregateFull: one aggregation of two full summaries (2·SF_max
// sampled functions clustered down to SF_max), the worst case of Fig. 3.
func BenchmarkAggregateFull(b *testing.B) {
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 9}, {PolicyIBP, 64}, {PolicyIBP, 225}, {PolicyMMP, 16}, {PolicyMMP, 81}, {PolicyMMP, 256}, {PolicyDP, 8}, {PolicyDP, 64}, {PolicyDP, 216}} {
		b.Run(fmt.Sprintf("%s/sfmax=%d", c.pol, c.k), func(b *testing.B) {
			p, x, y := fullSummariesDist(b, c.pol, c.k, DistMSE)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Aggregate(x, y)
			}
		})
	}
}

// BenchmarkAggregateStars is BenchmarkAggregateFull for DP with
// DistStars (the authors' l clustering).
func BenchmarkAggregateStars(b *testing.B) {
	for _, k := range []int{8, 64, 216} {
		b.Run(fmt.Sprintf("dp-stars/sfmax=%d", k), func(b *testing.B) {
			p, x, y := fullSummariesDist(b, PolicyDP, k, DistStars)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Aggregate(x, y)
			}
		})
	}
}

// BenchmarkAccuracy1024: the whole Table 2 test of one configuration;
// ns/op divided by 1023 is the mean time per aggregation, the figure the
// authors' tool reports.
func BenchmarkAccuracy1024(b *testing.B) {
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 9}, {PolicyIBP, 64}, {PolicyIBP, 225}, {PolicyMMP, 16}, {PolicyMMP, 81}, {PolicyMMP, 256}, {PolicyDP, 8}, {PolicyDP, 64}, {PolicyDP, 216}} {
		b.Run(fmt.Sprintf("%s/sfmax=%d", c.pol, c.k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Accuracy(AccuracyConfig{Policy: c.pol, Nodes: 1024, SFMax: c.k, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
