package iterative

import (
	"fmt"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// BenchmarkDecide measures one full decision (Decide, no hints: what a live
// master calls) on a platform of p processors, 80 % of them UP, a third of
// those busy, and as many open unstarted tasks, n_com = 10.
func BenchmarkDecide(b *testing.B) {
	for _, p := range []int{20, 1000} {
		rng := stream.New(47, uint64(p))
		s := &Snapshot{TData: 3, NCom: 10, ExtraReplicas: 2}
		for q := 0; q < p; q++ {
			v := ProcView{ID: int64(q), State: availability.Up, W: 5 + rng.IntN(46)}
			switch x := rng.IntN(10); {
			case x < 2:
				v.State = availability.State(1 + rng.IntN(2))
			case x < 5:
				v.HasCur, v.Cur = true, Work{WorkLeft: 1 + rng.IntN(v.W)}
			}
			s.Procs = append(s.Procs, v)
			s.Crit = append(s.Crit, NewCriteria(availability.Random(rng)))
			s.Tasks = append(s.Tasks, OpenTask{ID: int64(q)})
		}
		for _, h := range []Heuristic{Random2W, MCT, EMCTStar, UDStar} {
			b.Run(fmt.Sprintf("p=%d/%v", p, h), func(b *testing.B) {
				var d Decider
				var out []Pick
				r := stream.New(48)
				for b.Loop() {
					out = d.Decide(h, s, r, out)
				}
			})
		}
	}
}
