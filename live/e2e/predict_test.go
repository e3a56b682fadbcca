package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/live/worker"
)

// waitingApp writes an application of one task that runs until the file
// dir/go exists (so that the iteration stays open while the test looks).
func waitingApp(t *testing.T, dir string) string {
	t.Helper()
	app := t.TempDir()
	files := map[string]string{
		"volsched.toml": "program = \"task.sh\"\ndriver = \"driver.sh\"\n",
		"task.sh":       fmt.Sprintf("#!/bin/sh\nwhile [ ! -e %s/go ]; do sleep 0.02; done\ncp \"$1\" \"$2\"\n", dir),
		"driver.sh":     "#!/bin/sh\nset -eu\n[ \"$1\" -ge 1 ] && exit 0\necho task > \"$3/t0\"\n",
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(app, f), []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "go"), nil, 0o644) }) // never leave the task waiting
	return app
}

// TestStatusPrediction: the master predicts the time left in the
// iteration with the Predictor it is given (it imports no simulator), for
// the open tasks on the workers it knows, and status shows the mean; with
// no Predictor, status shows none.
func TestStatusPrediction(t *testing.T) {
	for _, with := range []bool{true, false} {
		t.Run(fmt.Sprint("predictor=", with), func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(t.TempDir(), "state")
			toks := addTokens(t, state, "w00")
			opt := masterOptions(loadApp(t, waitingApp(t, dir)), state)
			var mu sync.Mutex
			var asked []master.PredictParams
			if with {
				opt.Predictor = master.PredictorFunc(func(p master.PredictParams) (master.Forecast, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, p)
					return master.Forecast{Mean: 42.5, SD: 1, Lo: 40, Hi: 45, Level: 0.9, Runs: p.Runs}, nil
				})
			}
			c := startMaster(t, opt)
			c.addWorker(c.workerOptions("w00", toks["w00"]))
			_, cl := rawClient(t, c)
			var st *livepb.StatusResponse
			deadline := time.Now().Add(60 * time.Second)
			for {
				r, err := cl.Status(t.Context(), authed(&livepb.StatusRequest{}, toks["w00"]))
				if err == nil && r.Msg.Phase == "running" && r.Msg.Tasks == 1 && len(r.Msg.Workers) == 1 && r.Msg.Workers[0].State == livepb.State_STATE_UP {
					st = r.Msg
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no running iteration with its worker UP after 60 s: %v %v", r, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !with {
				if st.PredictedSlots != -1 {
					t.Errorf("predicted %v slots with no predictor, want -1 (none)", st.PredictedSlots)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if st.PredictedSlots != 42.5 || len(asked) == 0 {
				t.Fatalf("predicted %v slots after %d predictions, want the predictor's 42.5", st.PredictedSlots, len(asked))
			}
			p := asked[len(asked)-1]
			if len(p.Chains) != 1 || len(p.Start) != 1 || p.Tasks != 1 || p.Iterations != 1 || p.Heuristic != opt.Heuristic || p.NCom != opt.NCom || p.Runs < 1 {
				t.Errorf("the prediction was asked for %+v; want the one worker, its state, the open task, this iteration, the master's heuristic and n_com", p)
			}
		})
	}
}

// TestStatusCommandPredicts runs `volsched master` and `volsched status`:
// the CLI gives the master the slot simulator's prediction
// (whatif/simulate), and status prints it.
func TestStatusCommandPredicts(t *testing.T) {
	bin := volschedBinary(t)
	dir := t.TempDir()
	app := waitingApp(t, dir)
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "w00")
	addr := freePort(t)
	startMasterProc(t, bin, "--app", app, "--state", state, "--listen", addr, "--slot", "50ms", "--heartbeat", "50ms", "--log-level", "warn")
	fp := waitFile(t, filepath.Join(state, "fingerprint"), 30*time.Second)
	tlsCfg, err := pki.ClientConfigPinned(fp)
	if err != nil {
		t.Fatal(err)
	}
	w, err := worker.New(worker.Options{Master: "https://" + addr, Token: toks["w00"], Cache: filepath.Join(t.TempDir(), "w00"), TLS: tlsCfg, Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	const want = "predicted time to finish the iteration (slot simulator, estimated chains): "
	var out []byte
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(string(out), want) {
		if time.Now().After(deadline) {
			t.Fatalf("volsched status never printed %q; last output:\n%s", want, out)
		}
		time.Sleep(100 * time.Millisecond)
		out, _ = exec.Command(bin, "status", "--master", "https://"+addr, "--token", toks["w00"], "--fingerprint", fp).CombinedOutput()
	}
}
