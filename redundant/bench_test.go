package redundant

import (
	"context"
	"fmt"
	"testing"

	"github.com/volsched/volsched/stream"
)

// BenchmarkAllocate times each algorithm on the paper's largest instance
// (400 hosts, 200 tasks; failure probabilities from GDFN(0.5, 0.3)) and
// reports the R_sys reached (mean over 8 instances) as a metric.
func BenchmarkAllocate(b *testing.B) {
	for _, size := range [][2]int{{400, 200}, {400, 100}, {100, 50}, {37, 9}} {
		m, n := size[0], size[1]
		var ps [][]float64
		for k := 0; k < 8; k++ {
			ps = append(ps, GDFN{Mu: 0.5, Sigma: 0.3}.SampleN(stream.New(99, uint64(k)), m))
		}
		for _, algo := range []string{"ea", "gls", "epb", "ppb"} {
			b.Run(fmt.Sprintf("%s/m=%d,n=%d", algo, m, n), func(b *testing.B) {
				r := 0.0
				c0 := processCPU()
				for i := 0; i < b.N; i++ {
					res, err := Allocate(context.Background(), algo, ps[i%len(ps)], n, Options{Seed: uint64(i)})
					if err != nil {
						b.Fatal(err)
					}
					r += res.Rsys
				}
				b.ReportMetric(r/float64(b.N), "R_sys")
				b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkExact reports how many search nodes the exact solver needs (and
// whether it finished within its default budget) as m grows.
func BenchmarkExact(b *testing.B) {
	for _, size := range [][2]int{{14, 3}, {20, 5}, {24, 9}, {30, 10}, {37, 9}, {40, 4}} {
		m, n := size[0], size[1]
		b.Run(fmt.Sprintf("m=%d,n=%d", m, n), func(b *testing.B) {
			var nodes, optimal float64
			for i := 0; i < b.N; i++ {
				p := GDFN{Mu: 0.5, Sigma: 0.3}.SampleN(stream.New(98, uint64(i%8)), m)
				res := Exact(p, n, ExactOptions{MaxNodes: 20_000_000})
				nodes += float64(res.Nodes)
				if res.Optimal {
					optimal++
				}
			}
			b.ReportMetric(nodes/float64(b.N), "nodes/op")
			b.ReportMetric(optimal/float64(b.N), "optimal")
		})
	}
}
