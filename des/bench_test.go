package des

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/volsched/volsched/stream"
)

type benchEvent struct {
	kind uint8
	node int32
	arg  int32
}

// BenchmarkQueueHold measures the classic "hold" operation (pop the
// earliest event, push one later) at a steady number of pending events.
func BenchmarkQueueHold(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			rng := stream.New(1, 2)
			var q Queue[benchEvent]
			q.Grow(n + 1)
			for i := 0; i < n; i++ {
				q.Push(Time(rng.Int64N(int64(Second))), benchEvent{node: int32(i)})
			}
			b.ReportAllocs()
			b.ReportMetric(float64(unsafe.Sizeof(entry[benchEvent]{})), "B/pending-event")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				at, ev, _ := q.Pop()
				q.Push(at+Time(rng.Int64N(int64(Second))), ev)
			}
		})
	}
}

// treeTraffic is a synthetic workload with the shape of seed 004's overlay
// traffic, used to measure the engine at scale before the node state
// machines run on it: n leaves under a balanced binary tree of n-1 routing
// nodes (heap numbering), each leaf submitting a request every `every` on
// average; a request climbs `up` levels and comes back down to a leaf,
// where it occupies the node for a task; every routing node touched sends
// an update of `updBytes` to its father.
type treeTraffic struct {
	sim      Sim[benchEvent]
	net      *Network
	n        int32
	every    Time
	up       int
	reqBytes int
	updBytes int
	rng      interface{ Int64N(int64) int64 }
	sent     uint64
}

const (
	evSubmit uint8 = iota
	evUp
	evDown
	evUpdate
	evTaskEnd
)

func newTreeTraffic(b *testing.B, n int32, link Link) *treeTraffic {
	nw, err := NewNetwork(int(2*n), link, DefaultProcessing, 9, Second, 10*Second)
	if err != nil {
		b.Fatal(err)
	}
	tt := &treeTraffic{net: nw, n: n, every: 10 * Minute, up: 4, reqBytes: 200, updBytes: 1000,
		rng: stream.New(9, 3)}
	tt.sim.Grow(int(n))
	for i := int32(0); i < n; i++ {
		tt.sim.At(Time(tt.rng.Int64N(int64(tt.every))), benchEvent{kind: evSubmit, node: n - 1 + i})
	}
	return tt
}

// nodes are numbered as a heap: 0 is the root, children of i are 2i+1 and
// 2i+2; leaves are n-1 .. 2n-2.
func (tt *treeTraffic) handle(now Time, ev benchEvent) {
	node := ev.node
	switch ev.kind {
	case evSubmit:
		tt.sim.At(now+Time(tt.rng.Int64N(int64(2*tt.every))), benchEvent{kind: evSubmit, node: node})
		tt.forward(now, node, (node-1)/2, benchEvent{kind: evUp, arg: int32(tt.up)})
	case evUp:
		if ev.arg <= 1 || node == 0 {
			tt.forward(now, node, 2*node+1+int32(tt.rng.Int64N(2)), benchEvent{kind: evDown})
		} else {
			tt.forward(now, node, (node-1)/2, benchEvent{kind: evUp, arg: ev.arg - 1})
		}
	case evDown:
		if node >= tt.n-1 { // leaf: run a task, then report
			tt.sim.At(now+Time(tt.rng.Int64N(int64(Hour))), benchEvent{kind: evTaskEnd, node: node})
			return
		}
		tt.forward(now, node, 2*node+1+int32(tt.rng.Int64N(2)), benchEvent{kind: evDown})
	case evTaskEnd, evUpdate:
		if node > 0 && ev.arg < 2 { // updates travel two levels
			tt.forward(now, node, (node-1)/2, benchEvent{kind: evUpdate, arg: ev.arg + 1})
		}
	}
}

func (tt *treeTraffic) forward(now Time, src, dst int32, ev benchEvent) {
	size := tt.reqBytes
	if ev.kind == evUpdate {
		size = tt.updBytes
	}
	done := tt.net.Process(now, src, tt.net.Proc.Cost(size))
	ev.node = dst
	tt.sim.At(tt.net.Send(done, src, dst, size), ev)
	tt.sent++
}

// BenchmarkTreeTraffic runs the synthetic overlay traffic for one
// simulated minute (after a warm-up) and reports events per second.
func BenchmarkTreeTraffic(b *testing.B) {
	for _, n := range []int32{10_000, 100_000, 1_000_000} {
		if testing.Short() && n > 100_000 {
			continue
		}
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			tt := newTreeTraffic(b, n, FastLink)
			tt.sim.Run(10*Minute, tt.handle) // warm-up: fill the queue
			b.ReportAllocs()
			b.ResetTimer()
			start := tt.sim.Processed()
			for i := 0; i < b.N; i++ {
				if !tt.sim.Step(Never, tt.handle) {
					b.Fatal("queue ran dry")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(tt.sim.Processed()-start)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(tt.sim.Pending())/float64(n), "pending/leaf")
		})
	}
}
