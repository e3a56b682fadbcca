package node

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/workload"
)

// modelRunner runs a task for the time the overlay expects it to take
// (its length over the node's power), writing its input as its output:
// execution as the model has it, so that the daemons can be compared with
// the simulator.
type modelRunner struct{}

func (modelRunner) Run(ctx context.Context, s RunSpec) RunResult {
	select {
	case <-time.After(time.Duration(s.Length / s.Power * 1e9)):
	case <-ctx.Done():
		return RunResult{Exit: -1, Err: "cancelled"}
	}
	in, err := os.ReadFile(s.Input)
	if err == nil {
		err = os.WriteFile(s.Output, in, 0o600)
	}
	if err != nil {
		return RunResult{Exit: 1, Err: err.Error()}
	}
	return RunResult{}
}

func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			k, _ := strconv.Atoi(f[1])
			return k
		}
	}
	return -1
}

// simLastStart predicts, with oversim (fast link, default processing,
// the policy's default update limit), the allocation time and the time
// from submission to the last task's start of one request of tasks MI
// tasks submitted at node sub of n nodes, after warm seconds.
func simLastStart(t testing.TB, n, tasks int, length float64, sub int, seed uint64, warm float64) (alloc, last float64) {
	jobs := []workload.Job{{Submit: des.Time(warm * 1e9), Node: int32(sub), Tasks: int32(tasks), LengthMI: length}}
	cfg := &oversim.Config{Options: overlay.DefaultOptions(overlay.PolicyMMP), Nodes: n, Length: des.Time((warm + 600) * 1e9),
		Link: des.FastLink, Proc: des.DefaultProcessing, UpdateBandwidth: overlay.PolicyMMP.DefaultBandwidth(),
		DetectTimeout: 60 * des.Second, Seed: seed, Jobs: jobs, Params: workload.DefaultParams()}
	sim, err := oversim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hw := workload.DefaultParams()
	lastFinish := map[int32]float64{}
	placed := 0.0
	sim.OnTasks(func(e oversim.TaskEvent) {
		switch e.Kind {
		case oversim.TasksPlaced:
			placed = max(placed, e.Time.Seconds())
		case oversim.TasksFinished:
			lastFinish[e.Node] = max(lastFinish[e.Node], e.Time.Seconds())
		}
	})
	res, err := sim.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulator: %d messages sent (all kinds, the first summaries included)", res.MessagesSent)
	for node, f := range lastFinish {
		last = max(last, f-length/hw.NodeOf(seed, int(node)).PowerMIPS)
	}
	return placed - warm, last - warm
}

// BenchmarkDaemons measures what docs/benchmarks.md reports for the node
// daemons (a measurement, not a test: run it on purpose, it takes minutes):
//
//	go test ./overlay/node/ -run '^$' -bench 'Daemons/nodes=256' -benchtime 2x -timeout 30m
//	go test ./overlay/node/ -run '^$' -bench 'Daemons/nodes=64' -benchtime 2x
//	go test ./overlay/node/ -run '^$' -bench 'Daemons/process'
//
// nodes=N: N daemons in this process on loopback TLS (MMP, the defaults of
// a deployment, the simulator's hardware per node, tasks run for the time
// the model gives them): memory per daemon, messages and bytes per node
// and second at idle and during the first 10 s of the first bag, then one
// bag of 1,000 tasks at one node per iteration (-benchtime 2x: the first
// opens the connections it needs, the second finds them open), each
// logged with its allocation time and the time from submission to the last
// task started, against oversim's prediction for the same size. process:
// the resident memory of three daemons run as processes of the command.
func BenchmarkDaemons(b *testing.B) {
	for _, n := range []int{64, 256} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { measureDaemons(b, n) })
	}
	b.Run("process", measureProcessRSS)
}

func measureDaemons(b *testing.B, n int) {
	const tasks, length, seed = 1000, 100.0, 3
	hw := workload.DefaultParams()
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	rss0 := rssKB(os.Getpid())
	cl := newCluster(b, n, false, func(i int, c *Config) {
		c.Policy = overlay.PolicyMMP
		c.Heartbeat, c.DeadAfter, c.Detect, c.StartGrace = time.Second, 8*time.Second, 30*time.Second, 30*time.Second
		c.Bandwidth = 0 // the paper's 10 KB/s for MMP
		c.Runner = modelRunner{}
		sorted := slices.Clone(c.Peers)
		sort.Strings(sorted)
		h := hw.NodeOf(seed, slices.Index(sorted, c.Listener.Addr().String()))
		c.Mem, c.Disk, c.Power = h.MemMB, h.DiskMB, h.PowerMIPS
	})
	waitFor(b, 60*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	time.Sleep(5 * time.Second) // first summaries and connections settle
	runtime.GC()
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	rss1 := rssKB(os.Getpid())
	heap := float64(m1.HeapInuse+m1.StackInuse-m0.HeapInuse-m0.StackInuse) / float64(n) / 1024
	b.Logf("memory per daemon (%d in one process, idle): heap+stacks %.0f KiB, RSS %.0f KiB, goroutines %d (%.1f per daemon)",
		n, heap, float64(rss1-rss0)/float64(n), runtime.NumGoroutine(), float64(runtime.NumGoroutine())/float64(n))

	cpu := func() float64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	window := func(d time.Duration) (msgs, bytes, maxMsgs float64) {
		before := make([]Traffic, n)
		for i, nd := range cl.nodes {
			s, _ := nd.Status()
			before[i] = s.Traffic
		}
		time.Sleep(d)
		for i, nd := range cl.nodes {
			s, _ := nd.Status()
			dm := float64(s.Traffic.MsgsOut - before[i].MsgsOut)
			msgs += dm
			bytes += float64(s.Traffic.BytesOut - before[i].BytesOut)
			maxMsgs = math.Max(maxMsgs, dm)
		}
		sec := d.Seconds()
		return msgs / float64(n) / sec, bytes / float64(n) / sec, maxMsgs / sec
	}
	c0 := cpu()
	im, ib, imax := window(10 * time.Second)
	b.Logf("idle (heartbeat 1 s): %.2f messages/s and %.0f B/s sent per node (busiest %.1f messages/s); CPU %.2f s per s for the %d daemons",
		im, ib, imax, (cpu()-c0)/10, n)

	// 1,000 tasks at one node per iteration.
	sub := 17 % n
	order := make([]string, n)
	for i, nd := range cl.nodes {
		order[i] = nd.Addr()
	}
	sort.Strings(order)
	subIdx := slices.Index(order, cl.nodes[sub].Addr())
	c := cl.client(sub)
	var sumAlloc, sumLast float64
	bags := 0
	for b.Loop() {
		label := "a bag (connections open)"
		var loadDone chan [2]float64
		if bags == 0 {
			label = "first bag (connections opened on the way)"
			loadDone = make(chan [2]float64, 1)
			go func() {
				m, by, _ := window(10 * time.Second)
				loadDone <- [2]float64{m, by}
			}()
		}
		lat0 := schedLatencies()
		tr0 := map[string]uint64{}
		for _, nd := range cl.nodes {
			st, _ := nd.Status()
			for k, v := range st.Traffic.ByType {
				tr0[k] += v
			}
		}
		start := time.Now()
		c1 := cpu()
		id, err := c.Submit(cl.ctx, &Job{Tasks: tasks, Length: length, Program: []byte("#!/bin/sh\n")})
		if err != nil {
			b.Fatal(err)
		}
		var bs BagStatus
		waitFor(b, 5*time.Minute, "bag", func() (bool, string) {
			s, _ := cl.nodes[sub].Status()
			for _, x := range s.Bags {
				if x.ID == id {
					bs = x
					return x.Done == x.Tasks, fmt.Sprintf("%+v", x)
				}
			}
			return false, ""
		})
		wall := time.Since(start)
		tr1 := map[string]uint64{}
		for _, nd := range cl.nodes {
			st, _ := nd.Status()
			for k, v := range st.Traffic.ByType {
				tr1[k] += v
			}
		}
		var tks []string
		for k := range tr1 {
			tks = append(tks, k)
		}
		sort.Strings(tks)
		var tsb strings.Builder
		for _, k := range tks {
			fmt.Fprintf(&tsb, " %s %d", k, tr1[k]-tr0[k])
		}
		b.Logf("frames sent during the bag, all nodes:%s", tsb.String())
		logSchedLatency(b, lat0, schedLatencies())
		used := cpu() - c1
		res, err := c.Results(cl.ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		per := map[string]int{}
		var starts []float64
		for _, r := range res {
			per[r.Node]++
			starts = append(starts, r.Start-bs.Submitted)
		}
		most := 0
		for _, k := range per {
			most = max(most, k)
		}
		sort.Float64s(starts)
		logHandOver(b, res, bs.Submitted, func(addr string) float64 {
			return length / hw.NodeOf(seed, slices.Index(order, addr)).PowerMIPS
		})
		b.Logf("%s: %d tasks of %g MI over %d daemons (MMP): allocation %.3f s, first start %.3f s, last start %.3f s after submission (starts: median %.3f s, 90%% %.3f s), bag done in %.2f s; on %d nodes, at most %d on one; %d returned, %d resubmitted; CPU %.1f s (%.0f%% of 2 cores)",
			label, tasks, length, n, bs.Allocated-bs.Submitted, bs.FirstStart-bs.Submitted, bs.LastStart-bs.Submitted, starts[len(starts)/2], starts[len(starts)*9/10],
			wall.Seconds(), len(per), most, bs.Returned, bs.Resubmitted, used, 100*used/wall.Seconds()/2)
		sumAlloc += bs.Allocated - bs.Submitted
		sumLast += bs.LastStart - bs.Submitted
		bags++
		if loadDone != nil {
			load := <-loadDone
			b.Logf("under load (the first 10 s of a %d-task MMP bag): %.2f messages/s and %.0f B/s sent per node", tasks, load[0], load[1])
		}
	}
	simAlloc, simLast := simLastStart(b, n, tasks, length, subIdx, seed, 100)
	b.Logf("simulator (fast link, 20 µs + 2 ns/B processing, same hardware and tree): allocation %.3f s, last start %.3f s", simAlloc, simLast)
	b.ReportMetric(heap, "heap-KiB/daemon")
	b.ReportMetric(im, "idle-msgs/s/node")
	b.ReportMetric(ib, "idle-B/s/node")
	b.ReportMetric(sumAlloc/float64(bags), "alloc-s/bag")
	b.ReportMetric(sumLast/float64(bags), "last-start-s/bag")
	b.ReportMetric(simLast, "sim-last-start-s")
}

// measureProcessRSS: three daemons as processes of the command (a 3-node
// tree, idle 10 s), their resident memory.
func measureProcessRSS(b *testing.B) {
	bin := volschedBinary(b)
	dir := b.TempDir()
	if _, err := InitCA(filepath.Join(dir, "ca")); err != nil {
		b.Fatal(err)
	}
	lns, addrs := listeners(b, 3)
	for _, ln := range lns {
		ln.Close()
	}
	var cmds []*exec.Cmd
	defer func() {
		for _, cmd := range cmds {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	for i, a := range addrs {
		cr := filepath.Join(dir, fmt.Sprint("c", i))
		if err := Issue(filepath.Join(dir, "ca"), a, []string{"127.0.0.1"}, time.Hour, cr); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "node", "--listen", a, "--state", filepath.Join(dir, fmt.Sprint("s", i)), "--creds", cr,
			"--peers", strings.Join(addrs, ","), "--policy", "mmp")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for b.Loop() {
		time.Sleep(10 * time.Second)
	}
	var rss []int
	sum := 0
	for _, cmd := range cmds {
		k := rssKB(cmd.Process.Pid)
		rss = append(rss, k)
		sum += k
	}
	b.Logf("a daemon as a process (3-node tree, idle 10 s): RSS %v KiB", rss)
	b.ReportMetric(float64(sum)/float64(len(rss)), "RSS-KiB/daemon")
}

// logHandOver breaks a bag's time down per execution node: when its first
// task started (after submission), how much longer than the model's
// length/power each task ran (start to the result's end), and the gap
// between a task's end and the next task's start on the same node.
func logHandOver(b testing.TB, res []TaskResult, submitted float64, expect func(node string) float64) {
	per := map[string][]TaskResult{}
	for _, r := range res {
		per[r.Node] = append(per[r.Node], r)
	}
	var first, over, gap []float64
	for node, rs := range per {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
		first = append(first, rs[0].Start-submitted)
		e := expect(node)
		for i, r := range rs {
			over = append(over, r.End-r.Start-e)
			if i > 0 {
				gap = append(gap, r.Start-rs[i-1].End)
			}
		}
	}
	q := func(x []float64) string {
		if len(x) == 0 {
			return "none"
		}
		sort.Float64s(x)
		return fmt.Sprintf("median %.1f ms, 90%% %.1f ms, max %.1f ms", 1e3*x[len(x)/2], 1e3*x[len(x)*9/10], 1e3*x[len(x)-1])
	}
	b.Logf("per execution node: first start after submission %s; run time over length/power %s; end to next start %s",
		q(first), q(over), q(gap))
}

// schedLatencies is the runtime's histogram of the time goroutines waited,
// runnable, before they ran (sampled by the runtime).
func schedLatencies() *metrics.Float64Histogram {
	sm := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(sm)
	return sm[0].Value.Float64Histogram()
}

// logSchedLatency logs the quantiles of the scheduling latencies between
// two readings (upper bounds of the histogram's buckets).
func logSchedLatency(b testing.TB, h0, h1 *metrics.Float64Histogram) {
	var tot uint64
	d := make([]uint64, len(h1.Counts))
	for i := range d {
		d[i] = h1.Counts[i] - h0.Counts[i]
		tot += d[i]
	}
	q := func(p float64) float64 {
		var c uint64
		for i, x := range d {
			c += x
			if float64(c) >= p*float64(tot) {
				return h1.Buckets[i+1]
			}
		}
		return math.Inf(1)
	}
	b.Logf("goroutine scheduling latency during the bag (%d): median <= %.3f ms, 90%% <= %.3f ms, 99%% <= %.3f ms, 99.9%% <= %.3f ms",
		tot, 1e3*q(0.5), 1e3*q(0.9), 1e3*q(0.99), 1e3*q(0.999))
}
