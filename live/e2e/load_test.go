package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/beat"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/live/worker"
)

// The load measurements of docs/benchmarks.md: benchmarks, so that
// `go test ./...` never runs them; each is one measurement of minutes that
// logs what it measures and reports its main numbers as metrics:
//
//	go test -run XXX -bench 'LoadCompletions$' -benchtime 1x -v -timeout 30m ./live/e2e
//
// The master is a volsched process; the workers are protocol clients in
// this process that run no program (no-op tasks): on a Run they report the
// input received, PUT a small result and submit it at once.

// benchOnce refuses a second round: each benchmark is one measurement of
// minutes (run them with -benchtime 1x); the testing package calls it again
// only with a larger -benchtime.
func benchOnce(b *testing.B) {
	if b.N > 1 {
		b.Skip("one measurement per run: use -benchtime 1x")
	}
}

func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ = 100
}

func procRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// noopApp: tasks tasks per iteration, iters iterations, a driver in sh.
func noopApp(t testing.TB, tasks, iters int) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "volsched.toml"), []byte("program = \"p.sh\"\ndriver = \"d.sh\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.sh"), []byte("#!/bin/sh\ncp \"$1\" \"$2\"\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "d.sh"), []byte(fmt.Sprintf("#!/bin/sh\n[ \"$1\" -ge %d ] && exit 0\ncd \"$3\" && seq -w 1 %d | xargs touch\n", iters, tasks)), 0o755)
	return dir
}

type fakeWorker struct {
	name, tok string
	hc        *http.Client
	cl        livepbconnect.MasterClient
	tls       *tls.Config
	udp       *net.UDPConn // shared by all fake workers: heart-beat datagrams
	udpAddr   *net.UDPAddr // the master's
	url       string
	done      *atomic.Int64
	heartbeat time.Duration
	runTasks  bool
	put       bool // results by PUT (VOLSCHED_LOAD_PUT=1), else inline
}

func (f *fakeWorker) run(ctx context.Context, program string) {
	for ctx.Err() == nil {
		f.session(ctx, program)
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

func (f *fakeWorker) session(ctx context.Context, program string) {
	reg, err := f.cl.Register(ctx, authed(&livepb.RegisterRequest{Cached: []string{program}}, f.tok))
	if err != nil {
		return
	}
	sess := reg.Msg.Session
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The real worker's session socket (worker.DialSession).
	st, err := worker.DialSession(sctx, f.url, f.tok, f.tls)
	if err != nil {
		return
	}
	defer st.Close()
	send := func(m *livepb.WorkerMessage) error {
		m.Session = sess
		return st.Send(m)
	}
	if send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}}) != nil {
		return
	}
	// Heart-beats as the real worker sends them: a datagram every period
	// when the master offers UDP, and on the socket until the master says
	// it receives the datagrams (BeatMode).
	var udpMode, udpOff atomic.Bool
	key, useUDP := reg.Msg.BeatKey, f.udp != nil && reg.Msg.BeatPort > 0
	go func() {
		t := time.NewTicker(f.heartbeat)
		defer t.Stop()
		seq := uint64(0)
		for {
			select {
			case <-t.C:
				if useUDP && !udpOff.Load() {
					seq++
					f.udp.WriteToUDP(beat.Encode(key, beat.Datagram{Session: sess, Seq: seq, State: byte(livepb.State_STATE_UP)}), f.udpAddr)
					if udpMode.Load() {
						continue
					}
				}
				if send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}}) != nil {
					cancel()
					return
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	for {
		m, err := st.Receive()
		if err != nil {
			return
		}
		if bm := m.GetBeatMode(); bm != nil {
			udpMode.Store(bm.Udp)
			udpOff.Store(!bm.Udp)
			continue
		}
		if fe := m.GetFetch(); fe != nil {
			send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: fe.Digest, ActiveNs: 1000}}})
			continue
		}
		r := m.GetRun()
		if r == nil || !f.runTasks {
			continue
		}
		if r.Fetch {
			send(&livepb.WorkerMessage{Msg: &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: r.InputDigest, ActiveNs: 1000}}})
		}
		res := []byte(fmt.Sprintf("%d %d\n", r.Iteration, r.Task))
		d := blob.Sum(res)
		sub := &livepb.SubmitResultRequest{Session: sess, Iteration: r.Iteration, Task: r.Task, Attempt: r.Attempt, Digest: d, ComputeNs: 1000, Data: res}
		if f.put { // the blob path: PUT /blobs/DIGEST, then SubmitResult naming it
			req, _ := http.NewRequestWithContext(sctx, http.MethodPut, f.url+"/blobs/"+d, bytes.NewReader(res))
			req.Header.Set("Authorization", "Bearer "+f.tok)
			resp, err := f.hc.Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			sub.Data = nil
		}
		sr, err := f.cl.SubmitResult(sctx, authed(sub, f.tok))
		if err == nil && sr.Msg.Accepted {
			f.done.Add(1)
		}
	}
}

type loadRig struct {
	proc  *masterProc
	url   string
	fp    string
	state string
	toks  map[string]string
	pprof string // the master's --pprof address, with VOLSCHED_LOAD_PROFILE
}

// profile saves the master's profile kind ("heap", or "profile?seconds=N"
// for CPU) to VOLSCHED_LOAD_PROFILE/name, in the background for a CPU
// profile; it does nothing without VOLSCHED_LOAD_PROFILE.
func (r *loadRig) profile(t testing.TB, kind, name string) {
	dir := os.Getenv("VOLSCHED_LOAD_PROFILE")
	if dir == "" || r.pprof == "" {
		return
	}
	get := func() {
		resp, err := http.Get("http://" + r.pprof + "/debug/pprof/" + kind)
		if err != nil {
			t.Logf("profile %s: %v", kind, err)
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Logf("profile %s: %v", kind, err)
			return
		}
		defer f.Close()
		io.Copy(f, resp.Body)
		t.Logf("profile saved: %s", filepath.Join(dir, name))
	}
	if strings.HasPrefix(kind, "profile") {
		go get()
		return
	}
	get()
}

func startLoadMaster(t testing.TB, app string, workers int, args ...string) *loadRig {
	bin := volschedBinary(t)
	state := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(state, 0o700)
	db, err := master.OpenDB(state)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := db.AddTokens(names(workers))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	args = append([]string{"--app", app, "--state", state, "--listen", addr, "--log-level", "error"}, args...)
	pp := ""
	if os.Getenv("VOLSCHED_LOAD_PROFILE") != "" {
		pp = freePort(t)
		args = append(args, "--pprof", pp)
	}
	p := startMasterProc(t, bin, args...)
	fp := waitFile(t, filepath.Join(state, "fingerprint"), 60*time.Second)
	return &loadRig{proc: p, url: "https://" + addr, fp: fp, state: state, toks: toks, pprof: pp}
}

// metrics reads the master's /metrics (the samples without labels).
func (r *loadRig) metrics() (map[string]float64, error) {
	tlsCfg, _ := pki.ClientConfigPinned(r.fp)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(r.url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	val := map[string]float64{}
	for _, l := range strings.Split(string(body), "\n") {
		if f := strings.Fields(l); len(f) == 2 && !strings.HasPrefix(l, "#") {
			v, _ := strconv.ParseFloat(f[1], 64)
			val[f[0]] = v
		}
	}
	return val, nil
}

// memStats reads the master's memory from its /metrics: Go heap in use,
// goroutine stacks, goroutines, resident set.
// waitRegistered waits (at most 5 minutes) until the event log counts n
// registrations.
func (r *loadRig) waitRegistered(t testing.TB, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		b, _ := os.ReadFile(filepath.Join(r.state, "events.jsonl"))
		got := bytes.Count(b, []byte(`"k":"register"`))
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d registered", got, n)
		}
		time.Sleep(time.Second)
	}
}

// registrations counts the registrations in the master's event log.
func (r *loadRig) registrations() int {
	b, _ := os.ReadFile(filepath.Join(r.state, "events.jsonl"))
	return bytes.Count(b, []byte(`"k":"register"`))
}

// waitSockets waits until n session sockets are open and no worker has
// registered for 5 s (the connection storm of the start is over).
func (r *loadRig) waitSockets(t testing.TB, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	regs, quiet := -1, 0
	for {
		val, err := r.metrics()
		got := r.registrations()
		if got == regs {
			quiet++
		} else {
			regs, quiet = got, 0
		}
		if err == nil && int(val["volsched_session_sockets"]) == n && quiet >= 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v session sockets of %d open, %d registrations, after 5 minutes (%v)", val["volsched_session_sockets"], n, got, err)
		}
		time.Sleep(time.Second)
	}
}

func (r *loadRig) memStats(t testing.TB) string {
	val, err := r.metrics()
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("heap in use %.1f MB, stacks %.1f MB, %0.f goroutines, RSS %.1f MB",
		val["go_memstats_heap_inuse_bytes"]/1e6, val["go_memstats_stack_inuse_bytes"]/1e6, val["go_goroutines"], val["process_resident_memory_bytes"]/1e6)
}

func (r *loadRig) workers(t testing.TB, ctx context.Context, n, perClient int, hb time.Duration, runTasks bool, done *atomic.Int64) {
	tlsCfg, _ := pki.ClientConfigPinned(r.fp)
	tlsCfg.NextProtos = []string{"http/1.1"} // as the real worker's transport
	program := ""
	// the program digest: the master's only blob before the first iteration
	bs, _ := blob.Open(filepath.Join(r.state, "blobs"))
	for _, d := range bs.List() {
		program = d
	}
	var hc *http.Client
	var cl livepbconnect.MasterClient
	uc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	uc.SetWriteBuffer(1 << 20)
	t.Cleanup(func() { uc.Close() })
	ua, err := net.ResolveUDPAddr("udp", strings.TrimPrefix(r.url, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names(n) {
		if i%perClient == 0 {
			// Unary calls share a connection between perClient workers
			// (each has its own session socket).
			// (HTTP/1.1, as the real worker's: at most 4 connections
			// for the perClient workers, the file descriptors of 10,000
			// sockets and their calls must fit the process's limit).
			hc = &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, MaxConnsPerHost: 4, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}
			cl = livepbconnect.NewMasterClient(hc, r.url)
		}
		f := &fakeWorker{name: name, tok: r.toks[name], hc: hc, cl: cl, tls: tlsCfg, udp: uc, udpAddr: ua, url: r.url, done: done, heartbeat: hb, runTasks: runTasks, put: os.Getenv("VOLSCHED_LOAD_PUT") != ""}
		go f.run(ctx, program)
	}
}

// BenchmarkLoadCompletions: 1,000 no-op workers (each with its own TLS
// connection); the completions per second the master sustains, its CPU and
// its memory per worker.
func BenchmarkLoadCompletions(b *testing.B) {
	benchOnce(b)
	var t testing.TB = b
	const p = 1000
	app := noopApp(t, 2000, 10)
	r := startLoadMaster(t, app, p, "--slot", "1s", "--heartbeat", "1s", "--ncom", "50", "--down-after", "30s")
	time.Sleep(2 * time.Second)
	rss0 := procRSS(r.proc.cmd.Process.Pid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	r.workers(t, ctx, p, 1, time.Second, true, &done)
	start := time.Now()
	cpu0 := procCPU(r.proc.cmd.Process.Pid)
	fin := make(chan error, 1)
	go func() { fin <- r.proc.wait() }()
	var rssMax int64
	var cpuLast time.Duration
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	limit := time.After(10 * time.Minute)
	secs := 0
wait:
	for {
		select {
		case err := <-fin:
			if err != nil {
				t.Fatalf("master: %v\n%s", err, r.proc.stderr)
			}
			break wait
		case <-tick.C:
			switch secs++; secs {
			case 5:
				r.profile(t, "profile?seconds=20", "completions-cpu.pprof")
			case 15:
				r.profile(t, "heap", "completions-heap.pprof")
				t.Logf("master memory under load: %s", r.memStats(t))
			}
			rssMax = max(rssMax, procRSS(r.proc.cmd.Process.Pid))
			if c := procCPU(r.proc.cmd.Process.Pid); c > 0 {
				cpuLast = c
			}
			t.Logf("%5.1fs: %d results", time.Since(start).Seconds(), done.Load())
		case <-limit:
			t.Fatal("not finished")
		}
	}
	wall := time.Since(start)
	iterTime, iters, _ := master.IterationTime(r.state)
	t.Logf("%d results acknowledged; %d iterations of 2000 tasks; %.0f completions/s in iterations (%.1f s), %.0f/s wall (%.1f s, with driver runs and start-up)",
		done.Load(), iters, float64(iters*2000)/iterTime.Seconds(), iterTime.Seconds(), float64(iters*2000)/wall.Seconds(), wall.Seconds())
	t.Logf("master CPU %.1f s (from the first worker on): %.0f µs per completion; RSS %.1f MB idle, %.1f MB max with %d workers: %.1f KB per worker",
		(cpuLast - cpu0).Seconds(), (cpuLast-cpu0).Seconds()*1e6/float64(iters*2000), float64(rss0)/1e6, float64(rssMax)/1e6, p, float64(rssMax-rss0)/p/1e3)
	b.ReportMetric(float64(iters*2000)/iterTime.Seconds(), "completions/s")
	b.ReportMetric((cpuLast-cpu0).Seconds()*1e6/float64(iters*2000), "master-µs/completion")
	b.ReportMetric(float64(rssMax-rss0)/p/1e3, "KB/worker")
}

// BenchmarkLoadHeartbeats: 10,000 workers heart-beating at 1 Hz, each on
// its own session socket (their unary calls share 100 connections), the
// master's defaults: plain heart-beats by UDP datagram once the master has
// received one. The master's CPU over 30 s of steady state, and its memory.
func BenchmarkLoadHeartbeats(b *testing.B) { benchHeartbeats(b, true) }

// BenchmarkLoadHeartbeatsSocket: the same with --udp-heartbeats=false:
// every heart-beat on its worker's session socket.
func BenchmarkLoadHeartbeatsSocket(b *testing.B) { benchHeartbeats(b, false) }

func benchHeartbeats(b *testing.B, udp bool) {
	benchOnce(b)
	var t testing.TB = b
	const p = 10000
	app := sleeperApp(t, time.Second, 100000, 1, 1)
	r := startLoadMaster(t, app, p, "--slot", "1s", "--heartbeat", "1s", "--down-after", "60s", "--udp-heartbeats="+strconv.FormatBool(udp))
	time.Sleep(2 * time.Second)
	rss0 := procRSS(r.proc.cmd.Process.Pid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	r.workers(t, ctx, p, 100, time.Second, false, &done)
	r.waitSockets(t, p)
	pid := r.proc.cmd.Process.Pid
	// The heart-beats the master received in the window: on a loaded
	// machine the clients (on the same cores) fall behind 1 Hz, and the
	// CPU alone would undercount the cost of 10,000 heart-beats/s.
	m0, err := r.metrics()
	if err != nil {
		t.Fatal(err)
	}
	regs0 := r.registrations()
	cpu0, t0 := procCPU(pid), time.Now()
	r.profile(t, "profile?seconds=25", "heartbeats-cpu.pprof")
	time.Sleep(30 * time.Second)
	cpu := procCPU(pid) - cpu0
	el := time.Since(t0)
	m1, err := r.metrics()
	if err != nil {
		t.Fatal(err)
	}
	regs := r.registrations() - regs0
	r.profile(t, "heap?gc=1", "heartbeats-heap.pprof")
	rss := procRSS(pid)
	rate := (m1["volsched_heartbeats_total"] - m0["volsched_heartbeats_total"]) / el.Seconds()
	pct := 100 * cpu.Seconds() / el.Seconds()
	t.Logf("10,000 workers at 1 Hz, a session socket each, UDP %v: %.0f heart-beats/s by UDP; master CPU %.1f %% of one core over %.0f s for %.0f heart-beats/s received (%.1f %% per 10,000/s), %d registrations in the window; RSS %.1f MB (%.1f MB idle): %.1f KB per worker; %s",
		udp, (m1["volsched_udp_heartbeats_total"]-m0["volsched_udp_heartbeats_total"])/el.Seconds(), pct, el.Seconds(), rate, pct*1e4/rate, regs, float64(rss)/1e6, float64(rss0)/1e6, float64(rss-rss0)/p/1e3, r.memStats(t))
	b.ReportMetric(pct, "%core")
	b.ReportMetric(rate, "heartbeats/s")
	b.ReportMetric(pct*1e4/rate, "%core/10k-hb/s")
	b.ReportMetric(float64(rss-rss0)/p/1e3, "KB/worker")
	cancel()
}

// BenchmarkLoadConnectedWorkers: 1,000 workers each with its own
// connections (a session socket, and an HTTP/2 connection for its unary
// calls that, as a real worker's, closes after 30 s idle), registered and
// heart-beating at 1 Hz, no task to run: the master's memory per connected
// worker (RSS and Go's accounts) once all sockets are open, and 30 s later
// when the idle HTTP/2 connections have closed; its CPU for the
// heart-beats over those 30 s.
func BenchmarkLoadConnectedWorkers(b *testing.B) {
	benchOnce(b)
	var t testing.TB = b
	const p = 1000
	app := sleeperApp(t, time.Second, 100000, 1, 1)
	r := startLoadMaster(t, app, p, "--slot", "1s", "--heartbeat", "1s", "--down-after", "60s")
	time.Sleep(2 * time.Second)
	pid := r.proc.cmd.Process.Pid
	rss0 := procRSS(pid)
	t.Logf("idle master: %s", r.memStats(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	r.workers(t, ctx, p, 1, time.Second, false, &done)
	r.waitSockets(t, p)
	rss1 := procRSS(pid)
	t.Logf("%d workers connected: RSS %.1f MB (%.1f MB idle): %.1f KB per worker; %s", p, float64(rss1)/1e6, float64(rss0)/1e6, float64(rss1-rss0)/p/1e3, r.memStats(t))
	cpu0, t0 := procCPU(pid), time.Now()
	r.profile(t, "profile?seconds=25", "connected-cpu.pprof")
	time.Sleep(30 * time.Second)
	cpu := procCPU(pid) - cpu0
	el := time.Since(t0)
	rss := procRSS(pid)
	r.profile(t, "heap?gc=1", "connected-heap.pprof")
	t.Logf("%d connected workers at 1 Hz, 30 s later: master CPU %.1f %% of one core; RSS %.1f MB (%.1f MB idle): %.1f KB per worker; %s",
		p, 100*cpu.Seconds()/el.Seconds(), float64(rss)/1e6, float64(rss0)/1e6, float64(rss-rss0)/p/1e3, r.memStats(t))
	b.ReportMetric(100*cpu.Seconds()/el.Seconds(), "%core")
	b.ReportMetric(float64(rss-rss0)/p/1e3, "KB/worker")
	b.ReportMetric(float64(rss1-rss0)/p/1e3, "KB/worker-connecting")
}
