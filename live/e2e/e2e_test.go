package e2e

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/volsched/volsched/availability"

	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/manifest"
	"github.com/volsched/volsched/trace"
)

func TestFaultFreeHashchain(t *testing.T) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=8\nITERATIONS=3\n"})
	want := reference(t, app)
	a, err := manifest.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(4)...)
	c := startMaster(t, masterOptions(a, state))
	for _, n := range names(4) {
		c.addWorker(c.workerOptions(n, toks[n]))
	}
	checkStatusAndMetrics(t, c, toks["w00"])
	if err := c.wait(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	checkEventLog(t, state, 3, 2)
	// The workers' availability as an FTA trace the trace package reads.
	f, err := os.Open(filepath.Join(state, "availability.fta"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.ReadFTA(f, "availability.fta")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Nodes) != 4 {
		t.Fatalf("trace has %d nodes, want the 4 workers", len(tr.Nodes))
	}
	for _, n := range tr.Nodes {
		if len(n.Events) == 0 || !n.Events[0].Available || n.Events[0].End <= n.Events[0].Start {
			t.Errorf("node %s: events %+v, want an available interval first", n.ID, n.Events)
		}
	}
}

// checkStatusAndMetrics waits for a first result, then reads the Status
// RPC and the Prometheus endpoint.
func checkStatusAndMetrics(t *testing.T, c *cluster, tok string) {
	t.Helper()
	hc, cl := rawClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var st *livepb.StatusResponse
	for {
		r, err := cl.Status(ctx, authed(&livepb.StatusRequest{}, tok))
		if err != nil {
			t.Fatal(err)
		}
		if st = r.Msg; st.Completions > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(st.Workers) == 0 || len(st.Workers[0].P) != 9 || st.Heuristic != "EMCT*" || st.Ncom != 3 {
		t.Errorf("status: %+v", st)
	}
	if _, err := cl.Status(ctx, authed(&livepb.StatusRequest{}, "wrong")); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("status with a wrong token: %v", err)
	}
	resp, err := hc.Get(c.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range []string{"volsched_completions_total", "volsched_workers{state=\"up\"}", "volsched_channels_held", "volsched_decision_seconds_bucket", "volsched_heartbeats_total"} {
		if !strings.Contains(string(body), m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
}

func TestVolatileJacobi(t *testing.T) {
	app := writeExample(t, "jacobi", map[string]string{"jacobi.conf": "n=32\nblock=4\ntol=1e-6\nmaxiter=40\n"})
	want := reference(t, app)
	a, err := manifest.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(6)...)
	c := startMaster(t, masterOptions(a, state))
	for i, n := range names(6) {
		o := c.workerOptions(n, toks[n])
		ch := chainOf(t, 0.9)
		o.Emulate, o.EmulateStart, o.EmulateSeed = &ch, availability.Up, uint64(i+1)
		c.addWorker(o)
	}
	if err := c.wait(150 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	checkEventLog(t, state, 3, 2)
}

// TestLargeResults: results above the inline limit (64 KiB) go by PUT
// /blobs/DIGEST then SubmitResult; the output equals the sequential run's.
func TestLargeResults(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"volsched.toml": "program = \"big.sh\"\ndriver = \"d.sh\"\n",
		"big.sh":        "#!/bin/sh\nset -eu\n{ cat \"$1\"; i=0; while [ $i -lt 2000 ]; do echo \"line $i of task $VOLSCHED_TASK: 0123456789abcdef0123456789\"; i=$((i+1)); done; } > \"$2\"\n",
		"d.sh": "#!/bin/sh\nset -eu\nif [ \"$1\" -eq 0 ]; then for t in a b c; do echo \"input $t\" > \"$3/$t\"; done; exit 0; fi\n" +
			"for f in \"$2\"/*; do printf '%s %s %s\\n' \"$(basename \"$f\")\" \"$(wc -c < \"$f\")\" \"$(sha256sum < \"$f\" | cut -c1-16)\"; done > \"$VOLSCHED_OUTPUT/sizes.txt\"\n",
	}
	for f, c := range files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(c, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	want := reference(t, dir)
	if !strings.Contains(want["sizes.txt"], "a 94898 ") { // results of 95 kB
		t.Fatalf("reference: %q", want["sizes.txt"])
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(2)...)
	c := startMaster(t, masterOptions(loadApp(t, dir), state))
	for _, n := range names(2) {
		c.addWorker(c.workerOptions(n, toks[n]))
	}
	if err := c.wait(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	big := 0
	filepath.Walk(filepath.Join(state, "blobs", "sha256"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Size() > 64<<10 {
			big++
		}
		return nil
	})
	if big != 3 {
		t.Errorf("%d blobs over 64 KiB in the master's store, want the 3 results (by PUT)", big)
	}
}
