package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/workload"
)

func init() {
	register(command{"footprint", "heap per node of a built overlay (--nodes, --policy)", footprint})
	register(command{"dp", "DP with the overlay and the references: tasks by length, busy nodes, backlog (--nodes, --hours, ...)", dpDiag})
	register(command{"ckpt-scale", "checkpoint of a large simulation: size, time, heap per node (--policy, --nodes, --hours)", ckptScale})
}

// buildOverlay builds n leaves with random execution nodes of the policy
// and delivers every update bottom-up, returning what a simulator would
// keep: the tree, routers, leaves and the execs they point to.
func buildOverlay(pol overlay.Policy, n, sfmax int) (*overlay.Tree, []overlay.Router, []overlay.Leaf, error) {
	o := overlay.DefaultOptions(pol)
	o.SFMax = sfmax
	p, err := overlay.NewRules(o)
	if err != nil {
		return nil, nil, nil, err
	}
	c := &overlay.Config{Rules: p}
	t := overlay.NewTree(n)
	routers := make([]overlay.Router, t.Vertices())
	leaves := make([]overlay.Leaf, n)
	r := stream.New(3, 0xf007)
	u := func(lo, hi int) float64 { return float64(lo + r.IntN(hi-lo+1)) }
	pending := make([][]overlay.Msg, t.Vertices())
	for i := range leaves {
		m, d, s := u(1, 4096), u(1, 5000), u(1, 3000)
		var e overlay.Exec
		switch pol {
		case overlay.PolicyIBP:
			e = &overlay.IBPExec{Mem: m, Disk: d, Power: s}
		case overlay.PolicyMMP:
			e = &overlay.MMPExec{Mem: m, Disk: d, Power: s, Q: u(0, 2000)}
		case overlay.PolicyDP:
			de := &overlay.DPExec{Mem: m, Disk: d, Power: s}
			de.Accept(0, overlay.App{Length: s * u(300, 3600), Deadline: 5000}, 1, 0)
			e = de
		}
		if leaves[i], err = t.NewLeaf(i, e); err != nil {
			return nil, nil, nil, err
		}
		for _, m := range leaves[i].Step(c, 0, overlay.Msg{Kind: overlay.KindTick}, nil) {
			pending[m.To] = append(pending[m.To], m)
		}
	}
	for v := t.Vertices() - 1; v >= 0; v-- { // children before fathers (pre-order numbering)
		if t.IsLeaf(overlay.Addr(v)) {
			continue
		}
		routers[v] = t.Router(overlay.Addr(v))
		// Only the last update of each child: delivering every one would
		// make each level send twice as many updates as the level below
		// (the cascade §4.3 warns about), O(n log n) aggregations.
		last := map[overlay.Addr]overlay.Msg{}
		for _, m := range pending[v] {
			last[m.From] = m
		}
		for _, from := range []overlay.Addr{routers[v].Left, routers[v].Right} {
			m, ok := last[from]
			if !ok {
				continue
			}
			for _, o := range routers[v].Step(c, 0, m, nil) {
				if o.Kind == overlay.KindUpdate {
					pending[o.To] = append(pending[o.To], o)
				}
			}
		}
		pending[v] = nil
	}
	return t, routers, leaves, nil
}

// footprint measures the heap per simulated node of a built overlay: tree,
// a Router per vertex, leaves, execs, all summaries; random nodes as in
// §7.1 (docs/overlay.md, "Per-node footprint").
func footprint(ctx context.Context, args []string) error {
	fs := flags("footprint")
	n := fs.Int("nodes", 16384, "nodes")
	pol := fs.String("policy", "", "policies, comma-separated (default all)")
	fs.Parse(args)
	ps, err := policies(*pol)
	if err != nil {
		return err
	}
	if err := overlay.ValidateTreeSize(*n); err != nil {
		return fmt.Errorf("--nodes: %v", err)
	}
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return err
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st := time.Now()
		tr, routers, leaves, err := buildOverlay(p, *n, p.DefaultSFMax())
		if err != nil {
			return err
		}
		el := time.Since(st)
		runtime.GC()
		runtime.ReadMemStats(&after)
		root := routers[0].Summary()
		fmt.Printf("%s n=%d sfmax=%d: %.0f bytes per node (heap %d MB), root covers %d, built in %v\n",
			p, *n, p.DefaultSFMax(), float64(after.HeapAlloc-before.HeapAlloc)/float64(*n), (after.HeapAlloc-before.HeapAlloc)>>20, root.Nodes(), el)
		runtime.KeepAlive(tr)
		runtime.KeepAlive(leaves)
	}
	return nil
}

// simConfig is the configuration of a diagnostic run (the tests' setup:
// fast link, default processing, 1-minute detection, seed 1).
func simConfig(pol overlay.Policy, nodes int, hours float64, data string) (*oversim.Config, error) {
	if data == "" {
		data = workload.FindDataDir()
	}
	if data == "" {
		return nil, fmt.Errorf("--data: the site-level workload distributions were not found (set %s or give --data)", workload.DataDirEnv)
	}
	d, err := workload.LoadDistributions(data)
	if err != nil {
		return nil, err
	}
	return &oversim.Config{Options: overlay.DefaultOptions(pol), Nodes: nodes, Length: des.Seconds(hours * 3600),
		Link: des.FastLink, Proc: des.DefaultProcessing, UpdateBandwidth: pol.DefaultBandwidth(),
		DetectTimeout: des.Minute, Seed: 1, Params: workload.DefaultParams(), Dists: d}, nil
}

// dpDiag runs a policy (DP by default) with the overlay and the centralized
// and random references and prints, by task length, the tasks placed,
// unallocated and finished, the tasks of one request per node, the busy
// nodes by hour (sampled every simulated minute) and the mean power of the
// busy ones over 0–7 h, the work of the tasks still running at the end,
// and the queues left. docs/reproduction-004.md ("DP: why random finishes
// twice the overlay's computation") reports its output at 2000 nodes over
// 12 h.
func dpDiag(ctx context.Context, args []string) error {
	fs := flags("dp")
	nodes := fs.Int("nodes", 500, "nodes")
	hours := fs.Float64("hours", 12, "simulated hours")
	sched := fs.String("scheduler", "", "overlay, centralized or random (default: all three)")
	polName := fs.String("policy", "dp", "policy")
	churn := fs.Float64("churn", 0, "churn median in minutes (0: none)")
	sfmax := fs.Int("sfmax", 0, "SF_max (0: the policy's default)")
	maxPer := fs.Int("max-per-node", 0, "DP's diagnostic cap of tasks per request and node (0: the paper's rule)")
	data := fs.String("data", "", "site-level workload directory (default: found as the tests find it)")
	fs.Parse(args)
	pol, err := overlay.ParsePolicy(*polName)
	if err != nil {
		return err
	}
	scheds := []string{"overlay", "centralized", "random"}
	if *sched != "" {
		scheds = []string{*sched}
	}
	for _, sch := range scheds {
		c, err := simConfig(pol, *nodes, *hours, *data)
		if err != nil {
			return err
		}
		if *churn > 0 {
			c.Churn = failure.Churn{Median: des.Time(*churn * float64(des.Minute))}
		}
		if *sfmax > 0 {
			c.SFMax = *sfmax
		}
		c.MaxPerNode, c.Scheduler, c.Sample = *maxPer, sch, des.Minute
		s, err := oversim.New(c)
		if err != nil {
			return err
		}
		if err := dpRun(ctx, s, c, sch, *nodes, *hours); err != nil {
			return err
		}
	}
	return nil
}

func dpRun(ctx context.Context, s *oversim.Sim, c *oversim.Config, sch string, nodes int, hours float64) error {
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
	// tasks held by each node: job -> tasks, and each job's task length
	held := make([]map[int32]int32, nodes)
	length := map[int32]float64{}
	s.OnTasks(func(e oversim.TaskEvent) {
		a := get(bin(e.LengthMI))
		switch e.Kind {
		case oversim.TasksPlaced:
			a.placed += int(e.N)
			a.events++
			a.sq += float64(e.N) * float64(e.N)
			pernode[e.Node] += int(e.N)
			for range e.N {
				slackPl = append(slackPl, (e.Deadline-e.Time.Seconds())/3600)
			}
			if held[e.Node] == nil {
				held[e.Node] = map[int32]int32{}
			}
			held[e.Node][e.Job] += e.N
			length[e.Job] = e.LengthMI
		case oversim.TasksUnallocated:
			a.unalloc += int(e.N)
			for range e.N {
				slackUn = append(slackUn, (e.Deadline-e.Time.Seconds())/3600)
			}
		case oversim.TasksFinished:
			a.fin += int(e.N)
			a.finMI += float64(e.N) * e.LengthMI
			held[e.Node][e.Job] -= e.N
		case oversim.TasksAborted:
			held[e.Node][e.Job] -= e.N
		}
	})
	var util []string
	busyInt, hb := 0.0, 0.0
	nightP, nightN := 0.0, 0.0
	power := func(i int) float64 { return c.Params.NodeOf(c.Seed, i).PowerMIPS }
	s.OnSample(func(sm oversim.Sample) {
		busy := 0
		bp, np := 0.0, 0.0
		for i := range s.Nodes() {
			if !math.IsInf(s.Exec(i).Wake(), 1) {
				busy++
				np++
				bp += power(i)
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
	r, err := s.Run(ctx)
	if err != nil {
		return err
	}
	// backlog at the end, hours of work
	backlog := make([]float64, nodes)
	for li, h := range held {
		for job, n := range h {
			backlog[li] += float64(n) * length[job] / power(li) / 3600
		}
	}
	partial := map[int]float64{}
	partialN := map[int]int{}
	for li := range s.Nodes() {
		ex, isDP := s.Exec(li).(*overlay.DPExec)
		if !isDP {
			break
		}
		app, start, _, ok := ex.Running()
		if !ok {
			continue
		}
		b := bin(length[int32(app)])
		partial[b] += (hours*3600 - start) * power(li)
		partialN[b]++
	}
	tot := 0.0
	for b, v := range partial {
		tot += v
		fmt.Printf("  running at end, length 1e%d: %d tasks, %.3g MI done of them\n", b, partialN[b], v)
	}
	allP, capMI := 0.0, 0.0
	for li := range s.Nodes() {
		allP += power(li)
		capMI += power(li) * hours * 3600
	}
	fmt.Printf("mean power of busy nodes over 0-7 h %.0f MIPS (all nodes %.0f)\n", nightP/nightN, allP/float64(nodes))
	fmt.Printf("capacity %.4g MI; finished %.4g (%.1f%%); partial at end %.4g (%.1f%%)\n", capMI, r.ComputationFinishedMI, 100*r.ComputationFinishedMI/capMI, tot, 100*tot/capMI)
	sort.Float64s(backlog)
	used := 0
	for _, k := range pernode {
		if k > 0 {
			used++
		}
	}
	sort.Ints(pernode)
	fmt.Printf("== %s: finished %d (%.4g MI) unalloc %d submitted %d\n", sch, r.TasksFinished, r.ComputationFinishedMI, r.TasksUnallocated, r.TasksSubmitted)
	fmt.Printf("busy %% by hour: %v; mean busy over window %.1f%%\n", util, 100*busyInt/hours)
	fmt.Printf("nodes that received tasks %d/%d; tasks per node p50 %d p90 %d max %d\n", used, nodes, pernode[nodes/2], pernode[nodes*9/10], pernode[nodes-1])
	fmt.Printf("end backlog (h of work) p50 %.2f p90 %.2f max %.2f; nodes with backlog>0: %d\n", backlog[nodes/2], backlog[nodes*9/10], backlog[nodes-1], nodes-sort.SearchFloat64s(backlog, 1e-12))
	var ks []int
	for k := range by {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		a := by[k]
		fmt.Printf("  length 1e%d MI: placed %6d unalloc %6d finished %6d  finMI %.3g  placements %6d tasks/placement %.1f (task-weighted %.1f)\n", k, a.placed, a.unalloc, a.fin, a.finMI, a.events, float64(a.placed)/float64(max(a.events, 1)), a.sq/float64(max(a.placed, 1)))
	}
	q := func(x []float64, p float64) float64 {
		if len(x) == 0 {
			return math.NaN()
		}
		sort.Float64s(x)
		return x[int(p*float64(len(x)-1))]
	}
	fmt.Printf("slack (h) placed p10/50/90 %.1f/%.1f/%.1f unalloc %.1f/%.1f/%.1f\n", q(slackPl, .1), q(slackPl, .5), q(slackPl, .9), q(slackUn, .1), q(slackUn, .5), q(slackUn, .9))
	return nil
}

// deterministic clears the fields of r that measure the machine (time,
// memory) or count resumes.
func deterministic(r *oversim.Result) *oversim.Result {
	x := *r
	x.WallSeconds, x.EventsPerSecond, x.CPUSeconds, x.EventsPerCPUSecond = 0, 0, 0, 0
	x.HeapBytes, x.BytesPerNode, x.Resumes = 0, 0, 0
	return &x
}

// ckptScale measures a checkpoint of a large run (docs/benchmarks.md): it
// runs the simulation, writes the checkpoint of its final state, drops the
// simulator, restores the checkpoint into a fresh one and reports size,
// CPU and wall time of each step and the live heap per node before the
// save and after the restore; the restored run must give the same result.
func ckptScale(ctx context.Context, args []string) error {
	fs := flags("ckpt-scale")
	polName := fs.String("policy", "ibp", "policy")
	nodes := fs.Int("nodes", 100000, "nodes")
	hours := fs.Float64("hours", 1, "simulated hours")
	data := fs.String("data", "", "site-level workload directory (default: found as the tests find it)")
	fs.Parse(args)
	pol, err := overlay.ParsePolicy(*polName)
	if err != nil {
		return err
	}
	c, err := simConfig(pol, *nodes, *hours, *data)
	if err != nil {
		return err
	}
	c.Sample = 10 * des.Minute
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	step := func(name string, f func() error) error {
		c0, w0 := cpuTime(), time.Now()
		if err := f(); err != nil {
			return err
		}
		fmt.Printf("%s: %.2f CPU-s, %.2f s wall\n", name, (cpuTime() - c0).Seconds(), time.Since(w0).Seconds())
		return nil
	}
	var s *oversim.Sim
	var res *oversim.Result
	if err := step("run", func() (err error) {
		if s, err = oversim.New(c); err != nil {
			return err
		}
		res, err = s.Run(ctx)
		return err
	}); err != nil {
		return err
	}
	before := heap()
	fmt.Printf("%s %d nodes %g h: %d events, live heap %.0f B/node\n", pol, *nodes, *hours, res.Events, float64(before)/float64(*nodes))
	dir, err := os.MkdirTemp("", "overlaydiag")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, oversim.CheckpointFile)
	var size int64
	if err := step("save", func() (err error) { size, err = s.SaveCheckpoint(path); return err }); err != nil {
		return err
	}
	fmt.Printf("checkpoint %d bytes, %.0f B/node\n", size, float64(size)/float64(*nodes))
	s = nil
	base := heap()
	if err := step("new+load", func() (err error) {
		if s, err = oversim.New(c); err != nil {
			return err
		}
		return s.LoadCheckpoint(path)
	}); err != nil {
		return err
	}
	after := heap()
	per := func(h uint64) float64 { return (float64(h) - float64(base)) / float64(*nodes) }
	fmt.Printf("live heap of the simulator: %.0f B/node before the save, %.0f B/node after the restore (%+.1f %%); heap without it %d B\n",
		per(before), per(after), 100*(per(after)/per(before)-1), base)
	// The restored state continues like the original: the run is over, so
	// its result is the original's.
	r2, err := s.Run(ctx)
	if err != nil {
		return err
	}
	if a, b := deterministic(r2), deterministic(res); !reflect.DeepEqual(a, b) {
		return fmt.Errorf("restored result differs:\n%+v\nwant\n%+v", a, b)
	}
	fmt.Println("restored result: identical")
	return nil
}
