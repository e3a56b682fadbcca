package oversim

import (
	"context"
	"fmt"
	"github.com/volsched/volsched/overlay"
	"testing"

	"github.com/volsched/volsched/des"
)

// BenchmarkSim runs each policy on a small network for ten simulated
// minutes per iteration and reports events per wall second.
func BenchmarkSim(b *testing.B) {
	for _, p := range overlay.Policies() {
		for _, sf := range []int{9, p.DefaultSFMax()} {
			b.Run(fmt.Sprintf("%s/sfmax=%d/nodes=1000", p, sf), func(b *testing.B) {
				c := testConfig(b, p, 1000, 10*des.Minute)
				c.SFMax = sf
				var ev uint64
				var wall float64
				for i := 0; i < b.N; i++ {
					s, err := New(c)
					if err != nil {
						b.Fatal(err)
					}
					r, err := s.Run(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					ev += r.Events
					wall += r.WallSeconds
				}
				b.ReportMetric(float64(ev)/wall, "events/s")
			})
		}
	}
}
