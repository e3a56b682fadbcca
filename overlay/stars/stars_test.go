package stars_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/overlay/stars"
	"github.com/volsched/volsched/stream"
)

func newDP(t interface{ Fatal(...any) }, sfmax int, knn bool) *stars.DP {
	o := overlay.DefaultOptions(overlay.PolicyDP)
	o.SFMax = sfmax
	if knn {
		o.Clustering = stars.NewKNN(overlay.PolicyDP)
	}
	p, err := stars.NewDP(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSummaryConservative: over random DP nodes of the §7.1 test and random
// SF_max, with the exact or the authors' clustering, every summary covers
// exactly its nodes, has at most SF_max functions and never says its nodes
// can take more tasks than they can.
func TestSummaryConservative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 12).Draw(t, "sfmax")
		p := newDP(t, k, rapid.Bool().Draw(t, "knn"))
		r := stream.New(rapid.Uint64().Draw(t, "seed"), 0x57a5)
		n := rapid.IntRange(1, 40).Draw(t, "n")
		nodes := make([]overlay.DPCluster, n)
		leaves := make([]overlay.Summary, n)
		for i := range nodes {
			s := accuracy.UniformInt(r, accuracy.PowLo, accuracy.PowHi)
			nodes[i] = overlay.DPCluster{Mem: float32(accuracy.UniformInt(r, 1, 64)), Disk: float32(accuracy.UniformInt(r, 1, 64)), V: 1,
				L: accuracy.RandomDPNode(r, s).Function(0)}
			leaves[i] = overlay.DPSummary{nodes[i]}
		}
		var agg func(lo, hi int) overlay.Summary
		agg = func(lo, hi int) overlay.Summary {
			if hi-lo == 1 {
				return leaves[lo]
			}
			mid := lo + (hi-lo+1)/2
			s := p.Aggregate(agg(lo, mid), agg(mid, hi))
			if s.Nodes() != hi-lo || s.Len() > k {
				t.Fatalf("summary of [%d,%d): %d nodes in %d functions (SF_max %d)", lo, hi, s.Nodes(), s.Len(), k)
			}
			plain, _ := overlay.Plain(s).(overlay.DPSummary)
			for _, d := range []float64{1, 100, 5000, 20000, 1e5} {
				for _, m := range []float64{0, 16, 48} {
					a := overlay.App{Length: accuracy.UniformInt(r, 1e5, 2e7), Mem: m, Disk: m, Deadline: d}
					want := 0
					for _, u := range nodes[lo:hi] {
						want += u.AF(a)
					}
					if got := plain.Admits(a); got > want {
						t.Fatalf("summary admits %d tasks of %+v, nodes take %d", got, a, want)
					}
				}
			}
			return s
		}
		agg(0, n)
	})
}

// TestNewDPRefuses: DP is the authors' DP l clustering only.
func TestNewDPRefuses(t *testing.T) {
	for _, pol := range []overlay.Policy{overlay.PolicyIBP, overlay.PolicyMMP} {
		if _, err := stars.NewDP(overlay.DefaultOptions(pol)); err == nil {
			t.Errorf("%s: no error", pol)
		}
	}
	o := overlay.DefaultOptions(overlay.PolicyDP)
	o.Distance = overlay.DistLoss
	if _, err := stars.NewDP(o); err == nil {
		t.Error("distance loss: no error")
	}
}

// BenchmarkAggregateStars: one aggregation of two full DP summaries
// (2·SF_max functions down to SF_max) with the authors' l clustering.
func BenchmarkAggregateStars(b *testing.B) {
	for _, k := range []int{8, 64, 216} {
		b.Run(fmt.Sprintf("dp-stars/sfmax=%d", k), func(b *testing.B) {
			p := newDP(b, k, false)
			r := stream.New(7, 0xbe7c)
			var s [2]overlay.Summary
			for h := range s {
				for range 4 * k {
					u := accuracy.UniformInt
					m, d := u(r, 1, 4096), u(r, 1, 5000)
					f := accuracy.RandomDPNode(r, u(r, accuracy.PowLo, accuracy.PowHi)).Function(0)
					s[h] = p.Aggregate(s[h], overlay.DPSummary{{Mem: float32(m), Disk: float32(d), V: 1,
						L: overlay.LFunc{P: slices.Clone(f.P), Slope: f.Slope}}})
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Aggregate(s[0], s[1])
			}
		})
	}
}
