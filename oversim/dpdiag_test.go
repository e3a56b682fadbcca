package oversim

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
)

// TestDebugDP is a diagnostic, skipped unless DPDEBUG=nodes,hours is set:
// it runs DP with the overlay and the centralized and random references
// (DPSCHED=one of them; DPSF=SF_max, default 216; DPCAP=DPMaxPerNode) and
// logs, by task length, the tasks placed, unallocated and finished, the
// tasks of one request per node, the busy nodes by hour (sampled every
// simulated minute) and the mean power of the busy ones over 0–7 h, the
// work of the tasks still running at the end, and the queues left.
// docs/reproduction-004.md ("DP: why random finishes twice the overlay's
// computation") reports its output at 2000 nodes over 12 h.
func TestDebugDP(t *testing.T) {
	nodes, hours := 500, 12.0
	if v := os.Getenv("DPDEBUG"); v == "" {
		t.Skip("DPDEBUG not set")
	} else {
		fmt.Sscanf(v, "%d,%g", &nodes, &hours)
	}
	scheds := []string{"overlay", "centralized", "random"}
	if v := os.Getenv("DPSCHED"); v != "" {
		scheds = []string{v}
	}
	for _, sch := range scheds {
		pol := overlay.PolicyDP
		if v := os.Getenv("DPPOLICY"); v != "" {
			pol, _ = overlay.ParsePolicy(v)
		}
		c := testConfig(t, pol, nodes, des.Time(hours*float64(des.Hour)))
		c.SFMax = pol.DefaultSFMax()
		if v, err := strconv.ParseFloat(os.Getenv("DPCHURN"), 64); err == nil && v > 0 {
			c.Churn = failure.Churn{Median: des.Time(v * float64(des.Minute))}
		}
		c.Scheduler = sch
		c.Sample = des.Minute
		if sf, err := strconv.Atoi(os.Getenv("DPSF")); err == nil {
			c.SFMax = sf
		}
		if v, err := strconv.Atoi(os.Getenv("DPCAP")); err == nil {
			c.MaxPerNode = v
		}
		s, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		bin := func(l float64) int { return int(math.Floor(math.Log10(l))) }
		type agg struct {
			placed, unalloc, fin, events int
			finMI, sq                    float64
		}
		by := map[int]*agg{}
		get := func(b int) *agg {
			if by[b] == nil {
				by[b] = &agg{}
			}
			return by[b]
		}
		pernode := make([]int, nodes)
		var slackPl, slackUn []float64
		s.onPlaced = func(tt des.Time, j *jobState, li, n int32) {
			a := get(bin(j.length))
			a.placed += int(n)
			a.events++
			a.sq += float64(n) * float64(n)
			pernode[li] += int(n)
			for range n {
				slackPl = append(slackPl, (j.deadline-tt.Seconds())/3600)
			}
		}
		s.onUnalloc = func(tt des.Time, j *jobState, n int32) {
			get(bin(j.length)).unalloc += int(n)
			for range n {
				slackUn = append(slackUn, (j.deadline-tt.Seconds())/3600)
			}
		}
		s.onFinish = func(now float64, j *jobState, li, n int32) {
			a := get(bin(j.length))
			a.fin += int(n)
			a.finMI += float64(n) * j.length
		}
		var util []string
		busyInt, hb := 0.0, 0.0
		nightP, nightN := 0.0, 0.0
		s.OnSample(func(sm Sample) {
			busy := 0
			bp, np := 0.0, 0.0
			for i := range s.leaves {
				pw := c.Params.NodeOf(c.Seed, i).PowerMIPS
				if !math.IsInf(s.leaves[i].Exec.Wake(), 1) {
					busy++
					np++
					bp += pw
				}
			}
			if sm.Time < 7*des.Hour && np > 0 {
				nightP += bp
				nightN += np
			}
			busyInt += float64(busy) / float64(nodes) / 60
			hb += float64(busy) / float64(nodes) / 60
			if sm.Time%des.Hour == 0 {
				util = append(util, fmt.Sprintf("%.1f", 100*hb))
				hb = 0
			}
		})
		r, err := s.Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// backlog at the end
		backlog := make([]float64, nodes)
		for li, rs := range s.runs {
			p := c.Params.NodeOf(c.Seed, li).PowerMIPS
			for _, x := range rs {
				backlog[li] += float64(x.n) * s.jobs[x.job].length / p / 3600
			}
		}
		partial := map[int]float64{}
		partialN := map[int]int{}
		for li := range s.leaves {
			ex, isDP := s.leaves[li].Exec.(*overlay.DPExec)
			if !isDP {
				break
			}
			app, start, _, ok := ex.Running()
			if !ok {
				continue
			}
			now := hours * 3600
			p := c.Params.NodeOf(c.Seed, li).PowerMIPS
			b := bin(s.jobs[app].length)
			partial[b] += (now - start) * p
			partialN[b]++
		}
		tot := 0.0
		for b, v := range partial {
			tot += v
			t.Logf("  running at end, length 1e%d: %d tasks, %.3g MI done of them", b, partialN[b], v)
		}
		allP := 0.0
		for li := range s.leaves {
			allP += c.Params.NodeOf(c.Seed, li).PowerMIPS
		}
		t.Logf("mean power of busy nodes over 0-7 h %.0f MIPS (all nodes %.0f)", nightP/nightN, allP/float64(nodes))
		capMI := 0.0
		for li := range s.leaves {
			capMI += c.Params.NodeOf(c.Seed, li).PowerMIPS * hours * 3600
		}
		t.Logf("capacity %.4g MI; finished %.4g (%.1f%%); partial at end %.4g (%.1f%%)", capMI, r.ComputationFinishedMI, 100*r.ComputationFinishedMI/capMI, tot, 100*tot/capMI)
		sort.Float64s(backlog)
		used := 0
		for _, k := range pernode {
			if k > 0 {
				used++
			}
		}
		sort.Ints(pernode)
		t.Logf("== %s: finished %d (%.4g MI) unalloc %d submitted %d", sch, r.TasksFinished, r.ComputationFinishedMI, r.TasksUnallocated, r.TasksSubmitted)
		t.Logf("busy %% by hour: %v; mean busy over window %.1f%%", util, 100*busyInt/hours)
		t.Logf("nodes that received tasks %d/%d; tasks per node p50 %d p90 %d max %d", used, nodes, pernode[nodes/2], pernode[nodes*9/10], pernode[nodes-1])
		t.Logf("end backlog (h of work) p50 %.2f p90 %.2f max %.2f; nodes with backlog>0: %d", backlog[nodes/2], backlog[nodes*9/10], backlog[nodes-1], nodes-sort.SearchFloat64s(backlog, 1e-12))
		var ks []int
		for k := range by {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		for _, k := range ks {
			a := by[k]
			t.Logf("  length 1e%d MI: placed %6d unalloc %6d finished %6d  finMI %.3g  placements %6d tasks/placement %.1f (task-weighted %.1f)", k, a.placed, a.unalloc, a.fin, a.finMI, a.events, float64(a.placed)/float64(max(a.events, 1)), a.sq/float64(max(a.placed, 1)))
		}
		q := func(x []float64, p float64) float64 {
			if len(x) == 0 {
				return math.NaN()
			}
			sort.Float64s(x)
			return x[int(p*float64(len(x)-1))]
		}
		t.Logf("slack (h) placed p10/50/90 %.1f/%.1f/%.1f unalloc %.1f/%.1f/%.1f", q(slackPl, .1), q(slackPl, .5), q(slackPl, .9), q(slackUn, .1), q(slackUn, .5), q(slackUn, .9))
	}
}

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
