// Package demo runs `volsched demo`: a master and local worker processes
// with emulated volatility (chains from the papers' generator) on an
// example application, with progress, ending with the measured makespan
// next to the slot simulator's prediction for the same chains, heuristic
// and measured T_prog, T_data and w_q.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/examples"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
	"github.com/volsched/volsched/live/manifest"
	"github.com/volsched/volsched/live/master"
)

// Options of a demo: `volsched demo`'s flags, which the CLI only maps
// (errors name the flag).
type Options struct {
	Workers   int              // --workers: worker processes
	Limit     time.Duration    // --minutes: stop after this long (the state is kept)
	App       string           // --app: an embedded example's name
	Heuristic master.Heuristic // --heuristic (zero: master.DefaultHeuristic)
	Slot      time.Duration    // --slot
	NCom      int              // --ncom
	Seed      uint64           // --seed: the chains' and the emulation's
	Dir       string           // --dir: working directory (kept); empty: a temporary one, removed
	Binary    string           // the volsched executable, for the worker processes
	Logger    *slog.Logger     // nil: none
	// TaskSlots (--task-slots): every task lasts at least this many slots more than the
	// example's own computation (which takes milliseconds), so that the
	// slot model applies: a task shorter than a slot counts as one. 0: the
	// example as it is.
	TaskSlots int
	// Predictor makes the prediction printed beside the measured makespan
	// (the CLI gives whatif/simulate's: the slot simulator).
	Predictor master.Predictor
}

// DefaultOptions are the defaults of `volsched demo`'s flags.
func DefaultOptions() Options {
	return Options{Workers: 8, Limit: 2 * time.Minute, App: "jacobi", Heuristic: master.DefaultHeuristic, Slot: 100 * time.Millisecond, NCom: 3, Seed: 1, TaskSlots: 3}
}

// Validate checks the options; errors name the flag, the value and what is
// wanted.
func (o *Options) Validate() error {
	switch {
	case o.Workers < 1 || o.Workers > 256:
		return fmt.Errorf("--workers %d: want 1..256", o.Workers)
	case o.Limit <= 0:
		return fmt.Errorf("--minutes %v: want > 0", o.Limit.Minutes())
	case !slices.Contains(examples.Names(), o.App):
		return fmt.Errorf("--app %q: want one of %s", o.App, strings.Join(examples.Names(), ", "))
	case o.Slot < 10*time.Millisecond:
		return fmt.Errorf("--slot %v: want ≥ 10ms", o.Slot)
	case o.NCom < 1:
		return fmt.Errorf("--ncom %d: want ≥ 1", o.NCom)
	case o.TaskSlots < 0 || o.TaskSlots > 100:
		return fmt.Errorf("--task-slots %d: want 0..100", o.TaskSlots)
	case o.Binary == "":
		return errors.New("no volsched executable for the workers")
	case o.Predictor == nil:
		return errors.New("no predictor")
	}
	return nil
}

// Run runs the demo, printing to out.
func Run(ctx context.Context, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !o.Heuristic.Valid() {
		o.Heuristic = master.DefaultHeuristic
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "volsched-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	appDir := filepath.Join(dir, "app")
	if err := examples.Write(o.App, appDir); err != nil {
		return err
	}
	app, err := manifest.Load(appDir)
	if err != nil {
		return err
	}
	if o.TaskSlots > 0 {
		if app, err = padTasks(app, o.Slot, o.TaskSlots); err != nil {
			return err
		}
	}
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	db, err := master.OpenDB(state)
	if err != nil {
		return err
	}
	tokens := make([]string, o.Workers)
	for i := range tokens {
		if tokens[i], err = db.AddToken(fmt.Sprintf("demo-%02d", i)); err != nil {
			db.Close()
			return err
		}
	}
	db.Close()
	// The platform: the papers' generator (P_xx uniform in [0.90, 0.99]).
	rng := rand.New(rand.NewPCG(o.Seed, 0xde40))
	chains := make([]availability.Chain, o.Workers)
	for i := range chains {
		chains[i] = availability.Random(rng)
	}
	srv, err := master.New(master.Options{App: app, State: state, Listen: "127.0.0.1:0", Heuristic: o.Heuristic, NCom: o.NCom, Slot: o.Slot,
		Heartbeat: o.Slot / 2, DownAfter: 5 * o.Slot, ExtraReplicas: 2, Seed: o.Seed, Logger: o.Logger})
	if err != nil {
		return err
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	url := "https://" + srv.Addr()
	fmt.Fprintf(out, "volsched demo: %s on %d emulated workers, heuristic %s, slot %v, n_com %d\n", o.App, o.Workers, o.Heuristic, o.Slot, o.NCom)
	if o.TaskSlots > 0 {
		fmt.Fprintf(out, "every task computes, then waits %d slots (--task-slots): the slot model counts anything shorter than a slot as a slot\n", o.TaskSlots)
	}
	fmt.Fprintf(out, "master %s (CA fingerprint %s…), state in %s\n", url, srv.Fingerprint()[:16], state)
	rctx, cancel := context.WithTimeout(ctx, o.Limit)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- srv.Run(rctx) }()
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}()
	for i := range chains {
		cf := filepath.Join(dir, fmt.Sprintf("chain-%02d.json", i))
		b, _ := json.Marshal(chains[i])
		if err := os.WriteFile(cf, b, 0o644); err != nil {
			return err
		}
		cmd := exec.Command(o.Binary, "worker", "--master", url, "--token", tokens[i], "--fingerprint", srv.Fingerprint(),
			"--cache", filepath.Join(dir, fmt.Sprintf("cache-%02d", i)), "--emulate", cf, "--emulate-seed", fmt.Sprint(o.Seed*1000+uint64(i)),
			"--emulate-start", "stationary", "--emulate-slot", o.Slot.String(), "--exit-when-done", "--log-level", "error")
		cmd.Stderr = os.Stderr
		dieWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting worker %d: %v", i, err)
		}
		procs = append(procs, cmd)
	}
	// Progress, once a second.
	tlsCfg, _ := pki.ClientConfigPinned(srv.Fingerprint())
	cl := livepbconnect.NewMasterClient(&http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}, url)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var runErr error
loop:
	for {
		select {
		case runErr = <-done:
			break loop
		case <-tick.C:
			req := connect.NewRequest(&livepb.StatusRequest{})
			req.Header().Set("Authorization", "Bearer "+tokens[0])
			r, err := cl.Status(rctx, req)
			if err != nil {
				continue
			}
			up, rec, down := 0, 0, 0
			for _, w := range r.Msg.Workers {
				switch w.State {
				case livepb.State_STATE_UP:
					up++
				case livepb.State_STATE_RECLAIMED:
					rec++
				default:
					down++
				}
			}
			down += o.Workers - len(r.Msg.Workers)
			fmt.Fprintf(out, "%6.1fs  iteration %d: %d/%d tasks  workers UP %d RECLAIMED %d DOWN %d  channels %d/%d  results %d\n",
				time.Since(start).Seconds(), r.Msg.Iteration, r.Msg.Done, r.Msg.Tasks, up, rec, down, r.Msg.Held, r.Msg.Ncom, r.Msg.Completions)
		}
	}
	wall := time.Since(start)
	kept := "the state is kept in " + state
	if o.Dir == "" {
		kept = "the demo's temporary directory is removed (--dir keeps it)"
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(out, "interrupted after %v; %s\n", wall.Round(time.Millisecond), kept)
	case errors.Is(runErr, context.DeadlineExceeded):
		fmt.Fprintf(out, "stopped after %v (--minutes); %s\n", o.Limit, kept)
	case runErr != nil:
		return runErr
	}
	st := srv.FinalStatus()
	iterTime, iters, err := master.IterationTime(state)
	if err != nil {
		return err
	}
	if iters == 0 {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("no iteration completed in %v", wall.Round(time.Millisecond))
	}
	fmt.Fprintf(out, "\n%d iterations in %v (%.1f s in iterations, the rest in the driver and start-up)\n", iters, wall.Round(time.Millisecond), iterTime.Seconds())
	// The prediction: same chains, heuristic, measured T_prog, T_data, w_q.
	byName := map[string]master.WorkerInfo{}
	for _, w := range st.Workers {
		byName[w.Name] = w
	}
	ws := make([]int, o.Workers)
	for i := range ws {
		ws[i] = 1
		if w, ok := byName[fmt.Sprintf("demo-%02d", i)]; ok {
			ws[i] = max(1, w.W)
		}
	}
	tasks := st.Tasks
	if tasks == 0 {
		tasks = 8
	}
	f, err := o.Predictor.Predict(master.PredictParams{Heuristic: o.Heuristic, ExtraReplicas: 2, Runs: 500, Seed: o.Seed,
		Instance: iterative.Instance{Chains: chains, W: ws, TProg: st.TProg, TData: st.TData, NCom: o.NCom, Tasks: tasks, Iterations: iters}})
	if err != nil {
		return err
	}
	mean, sd := f.Mean, f.SD
	measured := iterTime.Seconds() / o.Slot.Seconds()
	fmt.Fprintf(out, "measured makespan   %7.1f slots (%.1f s)\n", measured, iterTime.Seconds())
	fmt.Fprintf(out, "simulator predicts  %7.1f ± %.1f slots (%.1f s; 500 runs of the slot simulator, same chains and heuristic, T_prog %d, T_data %d, w_q %v)\n",
		mean, sd, mean*o.Slot.Seconds(), st.TProg, st.TData, compact(ws))
	if sd > 0 {
		fmt.Fprintf(out, "the measured run is %.1f standard deviations of one simulated run from the simulator's mean\n", (measured-mean)/sd)
	}
	fmt.Fprintf(out, "\nworker   true P_uu  estimated P_uu  (transitions observed)\n")
	for i, ch := range chains {
		name := fmt.Sprintf("demo-%02d", i)
		if w, ok := byName[name]; ok {
			fmt.Fprintf(out, "%-8s %9.3f  %14.3f  (%.0f)\n", name, ch.P[0][0], w.Chain.P[0][0], w.Transitions)
		} else {
			fmt.Fprintf(out, "%-8s %9.3f  %14s  (never came UP)\n", name, ch.P[0][0], "-")
		}
	}
	if files, _ := os.ReadDir(filepath.Join(state, "output")); len(files) > 0 {
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		if o.Dir == "" {
			fmt.Fprintf(out, "\noutput: %s (removed with the demo's temporary directory: --dir keeps it)\n", strings.Join(names, ", "))
		} else {
			fmt.Fprintf(out, "\noutput: %s (%s)\n", filepath.Join(state, "output"), strings.Join(names, ", "))
		}
	}
	return nil
}

// padTasks wraps the application's program (a file) in a directory with
// run.sh, which runs it, then sleeps n slots in steps of one (so that a
// task stopped while RECLAIMED loses the stopped time, give or take a
// slot), and rewrites the manifest (volsched.json) to run it.
func padTasks(app *manifest.App, slot time.Duration, n int) (*manifest.App, error) {
	if app.ProgramIsDir {
		return nil, fmt.Errorf("--task-slots: the program of %s is a directory; want a file", app.Manifest.Name)
	}
	data, err := os.ReadFile(app.ProgramPath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(app.Dir, "demo-program")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Base(app.ProgramPath)
	if err := os.WriteFile(filepath.Join(dir, base), data, 0o755); err != nil {
		return nil, err
	}
	run := fmt.Sprintf("#!/bin/sh\n# volsched demo: the example's program, then %d slots of %v.\n\"$(dirname \"$0\")/%s\" \"$@\" || exit $?\ni=0\nwhile [ $i -lt %d ]; do sleep %.3f; i=$((i + 1)); done\n",
		n, slot, base, n, slot.Seconds())
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(run), 0o755); err != nil {
		return nil, err
	}
	m := app.Manifest
	m.Program, m.Entry = "demo-program", "run.sh"
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(app.Dir, "volsched.json"), b, 0o644); err != nil {
		return nil, err
	}
	if err := os.Remove(app.File); err != nil {
		return nil, err
	}
	return manifest.Load(app.Dir)
}

func compact(ws []int) string {
	return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ws)), " "), "[]")
}
