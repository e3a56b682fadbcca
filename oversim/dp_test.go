package oversim

import (
	"math"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
)

// TestDPPacksRequests: at night (the first 3 h from Monday 00:00), DP's
// rule (every task a node can finish by the deadline, least l(δ) first)
// keeps most nodes idle, where random placement keeps most busy, and
// capping the tasks of a request per node (DPMaxPerNode 1) spreads them
// like random placement. The measured mechanism of docs/reproduction-004.md.
func TestDPPacksRequests(t *testing.T) {
	busy := func(sched string, perNode int) (float64, float64) {
		c := testConfig(t, overlay.PolicyDP, 128, 3*des.Hour)
		c.SFMax, c.Scheduler, c.MaxPerNode, c.Sample = 216, sched, perNode, des.Minute
		s, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		sum, n := 0.0, 0
		s.OnSample(func(Sample) {
			for i := range s.leaves {
				if !math.IsInf(s.leaves[i].Exec.Wake(), 1) {
					sum++
				}
			}
			n++
		})
		r, err := s.Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return sum / float64(n*len(s.leaves)), r.ComputationFinishedMI
	}
	bo, co := busy("overlay", 0)
	bs, cs := busy("overlay", 1)
	br, cr := busy("random", 0)
	t.Logf("busy nodes: overlay %.3f, overlay 1 task/node %.3f, random %.3f; computation %.3g, %.3g, %.3g MI", bo, bs, br, co, cs, cr)
	if !(bo < br/2 && bs > 2*bo && co < cr/2 && cs > 2*co) {
		t.Fatalf("DP overlay should pack requests (busy %.3f, computation %.3g) where spreading keeps nodes busy (1 task/node: %.3f, %.3g; random: %.3f, %.3g)", bo, co, bs, cs, br, cr)
	}
}
