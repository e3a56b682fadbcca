package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/master"
)

// sleeperApp is an application whose tasks compute for w slots (in steps
// of a slot, so that a SIGSTOPped task loses the stopped time), tasks
// tasks per iteration, iters iterations.
func sleeperApp(t *testing.T, slot time.Duration, w, tasks, iters int) string {
	dir := t.TempDir()
	files := map[string]string{
		"volsched.toml": "program = \"task.sh\"\ndriver = \"driver.sh\"\n",
		"task.sh":       fmt.Sprintf("#!/bin/sh\ni=0\nwhile [ $i -lt %d ]; do sleep %.3f; i=$((i+1)); done\ncp \"$1\" \"$2\"\n", w, slot.Seconds()),
		"driver.sh": fmt.Sprintf("#!/bin/sh\nset -eu\n[ \"$1\" -ge %d ] && exit 0\ni=0\nwhile [ $i -lt %d ]; do echo \"$1 $i\" > \"$3/t$(printf %%03d $i)\"; i=$((i+1)); done\n",
			iters, tasks),
	}
	for f, c := range files {
		mode := os.FileMode(0o644)
		if c[0] == '#' {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// iterationSlots is the time the runtime spent in iterations (from each
// iteration's start to its last result, driver runs excluded), in slots,
// read from the event log.
func iterationSlots(t *testing.T, state string, slot time.Duration) float64 {
	f, err := os.Open(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total, start int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r master.LogRecord
		json.Unmarshal(sc.Bytes(), &r)
		switch r.Kind {
		case master.LogIter:
			start = r.T
		case master.LogIterDone:
			total += r.T - start
		}
	}
	return float64(total) / float64(slot)
}

// TestRuntimeAgreesWithSimulator runs the same application on emulated
// workers (known chains, every worker UP at start, tasks of w slots,
// transfers of well under a slot) several times and compares the mean
// makespan in slots (iterations only: the driver runs between them are
// not in the model) with the slot simulator's for the same chains,
// heuristic, T_prog = T_data = 1 and w. The runtime is a continuous-time
// system on a shared 2-core machine (process start-up, heart-beat lag,
// decisions at events instead of slot boundaries), so the test asks for
// agreement within 3 standard errors of the difference plus 25 % of the
// simulator's mean; the measured numbers are logged.
func TestRuntimeAgreesWithSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the runtime several times (about 30 s)")
	}
	const (
		slot  = 40 * time.Millisecond
		w     = 3
		tasks = 8
		iters = 2
		runs  = 5
		p     = 4
	)
	ch := availability.Chain{P: [3][3]float64{{0.9, 0.06, 0.04}, {0.3, 0.65, 0.05}, {0.3, 0.1, 0.6}}}
	app := sleeperApp(t, slot, w, tasks, iters)
	var ms []float64
	for r := 0; r < runs; r++ {
		state := filepath.Join(t.TempDir(), "state")
		toks := addTokens(t, state, names(p)...)
		opt := masterOptions(loadApp(t, app), state)
		opt.Slot, opt.Heartbeat, opt.DownAfter, opt.NCom = slot, slot/2, 6*slot, 2
		c := startMaster(t, opt)
		for i, n := range names(p) {
			o := c.workerOptions(n, toks[n])
			chain := ch
			o.Emulate, o.EmulateStart, o.EmulateSeed = &chain, availability.Up, uint64(100*r+i)
			c.addWorker(o)
		}
		if err := c.wait(120 * time.Second); err != nil {
			t.Fatal(err)
		}
		c.stopWorkers()
		ms = append(ms, iterationSlots(t, state, slot))
	}
	mean, sd := meanSD(ms)
	chains := make([]availability.Chain, p)
	ws := make([]int, p)
	for i := range chains {
		chains[i], ws[i] = ch, w
	}
	smean, ssd, err := master.PredictFrom(master.PredictParams{Chains: chains, W: ws, TProg: 1, TData: 1, NCom: 2, Tasks: tasks, Iterations: iters,
		Heuristic: "EMCT*", ExtraReplicas: 2, Runs: 1000, Seed: 3}, true)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(sd*sd/runs + ssd*ssd/1000)
	tol := 3*se + 0.25*smean
	t.Logf("runtime %.1f ± %.1f slots over %d runs %v; simulator %.1f ± %.1f (1000 runs); tolerance %.1f", mean, sd, runs, round1(ms), smean, ssd, tol)
	if math.Abs(mean-smean) > tol {
		t.Errorf("runtime mean %.1f and simulator mean %.1f differ by more than %.1f slots", mean, smean, tol)
	}
}

func meanSD(x []float64) (float64, float64) {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	n := float64(len(x))
	m := s / n
	return m, math.Sqrt(math.Max(0, (s2-n*m*m)/(n-1)))
}

func round1(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Round(v*10) / 10
	}
	return out
}

// TestEmulatedEstimatesConverge lets emulated workers follow a chain far
// from the estimator's prior for about 500 slots and checks the master's
// estimates (read through Status) against the true chain: the UP row within
// 0.07 of it with P_uu closer to it than the prior mean is, and P_dd (a
// DOWN worker reconnects as soon as its chain lets it) within 0.2 (about
// 50 transitions out of DOWN). (The machine-level
// TestMachineEstimatesConverge checks every row to 0.02 over 30 000 slots
// without sockets.)
func TestEmulatedEstimatesConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the runtime for about 10 s")
	}
	const slot = 20 * time.Millisecond
	truth := availability.Chain{P: [3][3]float64{{0.8, 0.15, 0.05}, {0.4, 0.55, 0.05}, {0.4, 0.1, 0.5}}}
	app := sleeperApp(t, slot, 2, 6, 100000)
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(3)...)
	opt := masterOptions(loadApp(t, app), state)
	opt.Slot, opt.Heartbeat, opt.DownAfter = slot, slot/2, 5*slot
	c := startMaster(t, opt)
	for i, n := range names(3) {
		o := c.workerOptions(n, toks[n])
		chain := truth
		o.Emulate, o.EmulateStart, o.EmulateSeed = &chain, availability.Up, uint64(7+i)
		c.addWorker(o)
	}
	_, cl := rawClient(t, c)
	prior := availability.Estimator{Prior: availability.DefaultPrior()}
	pp := prior.Chain()
	deadline := time.Now().Add(60 * time.Second)
	for {
		time.Sleep(500 * time.Millisecond)
		r, err := cl.Status(t.Context(), authed(&livepb.StatusRequest{}, toks["w00"]))
		if err != nil {
			t.Fatal(err)
		}
		minObs := math.Inf(1)
		for _, w := range r.Msg.Workers {
			minObs = math.Min(minObs, w.Transitions)
		}
		if len(r.Msg.Workers) < 3 || minObs < 500 {
			if time.Now().After(deadline) {
				t.Fatalf("only %v transitions observed after 60 s", minObs)
			}
			continue
		}
		for _, w := range r.Msg.Workers {
			for j := 0; j < 3; j++ {
				got, want := w.P[j], truth.P[0][j]
				if math.Abs(got-want) > 0.07 || (j == 0 && math.Abs(got-want) >= math.Abs(pp.P[0][j]-want)) {
					t.Errorf("%s: P[u][%d] = %.3f after %.0f slots, true %.3f, prior %.3f", w.Name, j, got, w.Transitions, want, pp.P[0][j])
				}
			}
			if d := math.Abs(w.P[8] - truth.P[2][2]); d > 0.2 {
				t.Errorf("%s: P[d][d] = %.3f, true %.2f", w.Name, w.P[8], truth.P[2][2])
			}
			t.Logf("%s after %.0f slots: estimated UP row %.3f %.3f %.3f (true %.2f %.2f %.2f); RECLAIMED row %.3f %.3f %.3f; DOWN row %.3f %.3f %.3f",
				w.Name, w.Transitions, w.P[0], w.P[1], w.P[2], truth.P[0][0], truth.P[0][1], truth.P[0][2], w.P[3], w.P[4], w.P[5], w.P[6], w.P[7], w.P[8])
		}
		return
	}
}
