package oversim

import (
	"reflect"
	"slices"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
)

// placement is one group of tasks accepted by a leaf (TasksPlaced).
type placement struct {
	t      des.Time
	li, n  int32
	length float64
}

// runRecorded runs c and returns the result (its deterministic fields),
// the timeline and every acceptance of tasks by a leaf, in order.
func runRecorded(t *testing.T, c *Config, onSample func(*Sim, Sample)) (*Sim, *Result, []Sample, []placement) {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var samples []Sample
	var placed []placement
	s.OnSample(func(x Sample) {
		samples = append(samples, x)
		if onSample != nil {
			onSample(s, x)
		}
	})
	s.OnTasks(func(e TaskEvent) {
		if e.Kind == TasksPlaced {
			placed = append(placed, placement{t: e.Time, li: e.Node, n: e.N, length: e.LengthMI})
		}
	})
	r, err := s.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r.WallSeconds, r.EventsPerSecond, r.HeapBytes, r.BytesPerNode, r.CPUSeconds, r.EventsPerCPUSecond = 0, 0, 0, 0, 0, 0
	return s, r, samples, placed
}

// TestCentralizedIndexMatchesScan: the centralized IBP reference with its
// index (overlay.IBPIndex) and with the full scan of every node's summary
// for every request (the oracle) give the same run — every task accepted
// by the same leaf at the same time, the same timeline, the same Result in
// every deterministic field — with churn and a catastrophic failure. And
// the index the run maintained incrementally places like one rebuilt from
// the leaves at the end (it is derived state).
func TestCentralizedIndexMatchesScan(t *testing.T) {
	cases := []struct {
		nodes    int
		hours    des.Time
		churn    des.Time
		mem, dsk []float64 // node hardware values (nil: the defaults, 4 × 4)
	}{{300, 8, 15 * des.Minute, nil, nil}, {1000, 6, 0, nil, nil},
		{600, 6, 30 * des.Minute, []float64{512, 768, 1024, 1536, 2048, 3072, 4096}, []float64{1000, 5000, 20000, 60000, 300000}},
		{2000, 3, 30 * des.Minute, nil, nil}}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, k := range cases {
		c := testConfig(t, overlay.PolicyIBP, k.nodes, k.hours*des.Hour)
		c.Scheduler, c.CentralPerNode, c.Sample = "centralized", 100, 30*des.Minute
		c.Churn = failure.Churn{Median: k.churn}
		c.Catastrophe = failure.Catastrophe{Fraction: 0.2, At: k.hours * des.Hour / 2}
		if k.mem != nil {
			c.Params.NodeMemMB, c.Params.NodeDiskMB = k.mem, k.dsk
		}
		var checks indexChecks
		s, a, sa, pa := runRecorded(t, c, func(s *Sim, x Sample) { checks.check(t, s, x.Time) })
		if s.index == nil {
			t.Fatal("centralized IBP without an index")
		}
		if k.mem != nil {
			if n := s.index.(*overlay.IBPIndex).Classes(); n != len(k.mem)*len(k.dsk) {
				t.Fatalf("%d classes of idle nodes, want %d (%d memory × %d disk values)", n, len(k.mem)*len(k.dsk), len(k.mem), len(k.dsk))
			}
		}
		scan := *c
		scan.fullScan = true
		s2, b, sb, pb := runRecorded(t, &scan, nil)
		if s2.index != nil {
			t.Fatal("fullScan: the index is used")
		}
		if a.TasksFinished == 0 || a.Failures == 0 || a.TasksAborted == 0 || a.TasksUnallocated == 0 {
			t.Fatalf("%d nodes: a run that exercises too little: %+v", k.nodes, a)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%d nodes: index and scan differ:\n%+v\n%+v", k.nodes, a, b)
		}
		if !slices.Equal(sa, sb) {
			t.Fatalf("%d nodes: timelines differ:\n%v\n%v", k.nodes, sa, sb)
		}
		if !slices.Equal(pa, pb) {
			t.Fatalf("%d nodes: placements differ (%d and %d acceptances)", k.nodes, len(pa), len(pb))
		}
		t.Logf("%d nodes, %d h: %d acceptances, %d tasks finished, %d unallocated, %d failures: identical",
			k.nodes, int(k.hours), len(pa), a.TasksFinished, a.TasksUnallocated, a.Failures)

		if checks.idle == 0 {
			t.Fatalf("%d nodes: no idle node at any sample, the rebuilt index was not compared", k.nodes)
		}
		t.Logf("%d samples, %d idle node-samples: the incremental and rebuilt indexes place as the scan", checks.samples, checks.idle)
	}
}

type indexChecks struct{ samples, idle int }

// check compares, at time at of a run, the index the simulator maintained
// incrementally, one rebuilt from the leaves' summaries (it is derived
// state) and the full scan, on requests of a few sizes and requirements.
func (c *indexChecks) check(t *testing.T, s *Sim, at des.Time) {
	now := at.Seconds()
	ref := overlay.Centralized{Rules: s.oc.Rules}
	rebuilt := ref.Index(len(s.leaves))
	sums := make([]overlay.Summary, len(s.leaves))
	for i := range s.leaves {
		sums[i] = s.leaves[i].Exec.Summary(now)
		rebuilt.Update(i, sums[i])
		if sums[i] != nil {
			c.idle++
		}
	}
	c.samples++
	for _, mem := range []float64{0, 1500, 5000} {
		for _, n := range []int{1, 7, len(s.leaves)} {
			req := overlay.Request{App: overlay.App{Length: 1, Mem: mem, Disk: 20000}, N: n}
			want := ref.Place(now, req, sums, nil)
			if x := s.index.PlaceIndexed(now, req, nil); !slices.Equal(x, want) {
				t.Fatalf("at %v, mem %g, %d tasks: incremental index places %v, the scan %v", at, mem, n, x, want)
			}
			if y := rebuilt.PlaceIndexed(now, req, nil); !slices.Equal(y, want) {
				t.Fatalf("at %v, mem %g, %d tasks: rebuilt index places %v, the scan %v", at, mem, n, y, want)
			}
		}
	}
}

// TestCentralizedSummaryCacheMatchesScan: the centralized MMP and DP
// references keep the summaries that hold until their node changes
// (overlay.StableSummary) instead of recomputing every node's per request;
// with churn and a catastrophe, every acceptance, the timeline and the
// Result equal those of the reference that recomputes every summary, and
// the cache is used.
func TestCentralizedSummaryCacheMatchesScan(t *testing.T) {
	for _, p := range []overlay.Policy{overlay.PolicyMMP, overlay.PolicyDP} {
		c := testConfig(t, p, 200, 8*des.Hour)
		c.Scheduler, c.CentralPerNode, c.Sample = "centralized", 100, 30*des.Minute
		c.Churn = failure.Churn{Median: 30 * des.Minute}
		c.Catastrophe = failure.Catastrophe{Fraction: 0.2, At: 4 * des.Hour}
		s, a, sa, pa := runRecorded(t, c, nil)
		scan := *c
		scan.fullScan = true
		s2, b, sb, pb := runRecorded(t, &scan, nil)
		if s.sumCacheHits == 0 || s2.sumCache != nil {
			t.Fatalf("%s: %d summaries from the cache; the scan has a cache: %v", p, s.sumCacheHits, s2.sumCache != nil)
		}
		if a.TasksFinished == 0 || a.Failures == 0 || a.TasksAborted == 0 {
			t.Fatalf("%s: a run that exercises too little: %+v", p, a)
		}
		if !reflect.DeepEqual(a, b) || !slices.Equal(sa, sb) || !slices.Equal(pa, pb) {
			t.Fatalf("%s: the cached and the recomputing reference differ:\n%+v\n%+v", p, a, b)
		}
		t.Logf("%s: %d acceptances, %d tasks finished, %d failures, %d summaries read from the cache: identical", p, len(pa), a.TasksFinished, a.Failures, s.sumCacheHits)
	}
}
