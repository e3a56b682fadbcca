package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/examples"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/manifest"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/live/worker"
)

// testSlot is the model's slot in these tests (short: they are bounded).
const testSlot = 25 * time.Millisecond

func logger(t *testing.T) *slog.Logger {
	if os.Getenv("VOLSCHED_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// writeExample writes an embedded example with extra config files.
func writeExample(t *testing.T, name string, extra map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := examples.Write(name, dir); err != nil {
		t.Fatal(err)
	}
	for f, c := range extra {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func addTokens(t *testing.T, state string, names ...string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := master.OpenDB(state)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	toks := map[string]string{}
	for _, n := range names {
		tok, err := db.AddToken(n)
		if err != nil {
			t.Fatal(err)
		}
		toks[n] = tok
	}
	return toks
}

type cluster struct {
	t       *testing.T
	srv     *master.Server
	url     string
	fp      string
	state   string
	done    chan error
	ended   chan struct{} // closed when the master's Run has returned
	cancel  context.CancelFunc
	wcancel context.CancelFunc
	wg      sync.WaitGroup
	workers []*worker.Worker
}

func masterOptions(app *manifest.App, state string) master.Options {
	return master.Options{App: app, State: state, Listen: "127.0.0.1:0", Heuristic: master.DefaultHeuristic, NCom: 3, Slot: testSlot,
		Heartbeat: testSlot, DownAfter: 8 * testSlot, ExtraReplicas: 2, Seed: 1}
}

func startMaster(t *testing.T, opt master.Options) *cluster {
	t.Helper()
	opt.Logger = logger(t)
	srv, err := master.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	c := &cluster{t: t, srv: srv, url: "https://" + srv.Addr(), fp: srv.Fingerprint(), state: opt.State, done: make(chan error, 1), ended: make(chan struct{}), cancel: cancel}
	go func() {
		c.done <- srv.Run(ctx)
		close(c.ended)
	}()
	wctx, wcancel := context.WithCancel(context.Background())
	c.wcancel = wcancel
	_ = wctx
	t.Cleanup(func() {
		cancel()
		c.stopWorkers()
		// The state directory is a TempDir removed after this cleanup: the
		// master must have stopped writing into it (its driver run and
		// persister end with Run). Bounded: Run ends within seconds of
		// its context's end.
		select {
		case <-c.ended:
		case <-time.After(time.Minute):
			t.Error("the master's Run did not return within a minute of its cancellation")
		}
	})
	return c
}

func (c *cluster) workerOptions(name, token string) worker.Options {
	tlsCfg, err := pki.ClientConfigPinned(c.fp)
	if err != nil {
		c.t.Fatal(err)
	}
	return worker.Options{Master: c.url, Token: token, Cache: filepath.Join(c.t.TempDir(), name), TLS: tlsCfg, Logger: logger(c.t)}
}

// addWorker starts an in-process worker.
func (c *cluster) addWorker(opt worker.Options) *worker.Worker {
	w, err := worker.New(opt)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	prev := c.wcancel
	c.wcancel = func() { cancel(); prev() }
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := w.Run(ctx); err != nil {
			c.t.Logf("worker: %v", err)
		}
	}()
	c.workers = append(c.workers, w)
	return w
}

func (c *cluster) stopWorkers() {
	c.wcancel()
	c.wg.Wait()
}

// wait waits for the master to finish.
func (c *cluster) wait(limit time.Duration) error {
	select {
	case err := <-c.done:
		return err
	case <-time.After(limit):
		c.t.Fatalf("master not finished after %v", limit)
	}
	return nil
}

// reference runs the application sequentially and returns its output tree.
func reference(t *testing.T, appDir string) map[string]string {
	t.Helper()
	app, err := manifest.Load(appDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := app.RunLocal(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	return readTree(t, filepath.Join(dir, "output"))
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("reference output is empty")
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !bytes.Equal([]byte(got[k]), []byte(want[k])) {
			t.Errorf("output %s differs from the sequential run:\n got %q\nwant %q", k, trunc(got[k]), trunc(want[k]))
		}
	}
	if len(got) != len(want) {
		t.Errorf("output has %d files, sequential run %d", len(got), len(want))
	}
}

func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func names(n int) []string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, fmt.Sprintf("w%02d", i))
	}
	return s
}

func chainOf(t *testing.T, up float64) availability.Chain {
	r := (1 - up) / 2
	return availability.Chain{P: [3][3]float64{{up, r, r}, {0.3, 0.6, 0.1}, {0.3, 0.1, 0.6}}}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func loadApp(t *testing.T, dir string) *manifest.App {
	t.Helper()
	a, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
