package experiment

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressWriter(&b, "coupled 1/1")
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	p.Start(100, 20) // 20 done by an earlier run: not in the rate
	now = now.Add(10 * time.Second)
	p.Add(5)
	p.Add(5)
	if got, want := p.Line(), "coupled 1/1: 30/100 (30.0%) 1 units/s, ETA 1m10s"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	p.Finish()
	out := b.String()
	if !strings.HasSuffix(out, "\n") || !strings.Contains(out, "\r") {
		t.Errorf("terminal output %q: want redrawn lines ending with a newline", out)
	}
	// Redraws are throttled: the second Add at the same instant drew nothing.
	if c := strings.Count(out, "30/100"); c != 1 {
		t.Errorf("final state drawn %d times, want 1 (Finish)", c)
	}
}

func TestProgressNilAndConcurrent(t *testing.T) {
	var p *Progress
	p.Start(3, 0)
	p.Add(1)
	p.Finish()
	if p.Line() != "" {
		t.Error("nil Progress has a line")
	}
	var b bytes.Buffer
	q := NewProgressWriter(&b, "")
	q.Start(1000, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 125 {
				q.Add(1)
			}
		}()
	}
	wg.Wait()
	if !strings.HasPrefix(q.Line(), "1000/1000 (100.0%)") {
		t.Errorf("after concurrent adds: %q", q.Line())
	}
}

// In a log (standard error not a terminal: Slurm, nohup, CI) a line is
// printed every LogInterval, none before, and a last one at the end.
func TestProgressLogsWhenNotTerminal(t *testing.T) {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		if p := NewProgress("x"); p == nil || !p.log {
			t.Error("NewProgress with standard error not a terminal: want a log Progress")
		}
	}
	var b bytes.Buffer
	p := NewProgressLog(&b, "independent 1/1")
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	p.Start(100, 0)
	now = now.Add(20 * time.Second)
	p.Add(10)
	if b.Len() != 0 {
		t.Fatalf("a line before %v: %q", LogInterval, b.String())
	}
	now = now.Add(10 * time.Second)
	p.Add(5)
	now = now.Add(1 * time.Second)
	p.Add(5)
	want := "independent 1/1: 15/100 (15.0%) 0.5 units/s, ETA 2m50s [30s elapsed]\n"
	if b.String() != want {
		t.Fatalf("log after 30 s: %q, want %q", b.String(), want)
	}
	p.Finish()
	if !strings.HasSuffix(b.String(), "20/100 (20.0%) 0.645 units/s, ETA 2m4s [31s elapsed]\n") || strings.Contains(b.String(), "\r") {
		t.Errorf("log at the end: %q", b.String())
	}
	// A run shorter than the interval prints nothing.
	var c bytes.Buffer
	q := NewProgressLog(&c, "short")
	q.Start(3, 0)
	q.Add(3)
	q.Finish()
	if c.Len() != 0 {
		t.Errorf("short run logged %q", c.String())
	}
}

// The ETA comes from the rate of the work completed, weighted by what the
// caller knows of the units' costs: cheap first units do not make it
// optimistic.
func TestProgressETAFromCompletedWork(t *testing.T) {
	p := NewProgressWriter(io.Discard, "")
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	// Four units costing 1, 2, 3 and 4: the first (cost 1) took 10 s, so
	// the 9 left take 90 s, not the 30 s three more units "like the
	// first" would.
	p.StartWork(4, 0, 10, 0)
	now = now.Add(10 * time.Second)
	p.AddWork(1, 1)
	if got, want := p.Line(), "1/4 (10.0%) 0.1 units/s, ETA 1m30s"; got != want {
		t.Errorf("weighted: %q, want %q", got, want)
	}
}

func TestRunReportsProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressWriter(&b, "t")
	if err := Run(context.Background(), t.TempDir(), testManifest(7, Whole), 2, testWork, p); err != nil {
		t.Fatal(err)
	}
	if got := p.Line(); !strings.HasPrefix(got, "t: 7/7") {
		t.Errorf("progress after the run: %q", got)
	}
}

func TestSameShardTwiceAtOnceIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	m := testManifest(4, Whole)
	started, release := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		var once sync.Once
		errc <- Run(context.Background(), dir, m, 1, func(ctx context.Context, u int) (testResult, error) {
			once.Do(func() { close(started) })
			<-release
			return testWork(ctx, u)
		}, nil)
	}()
	<-started
	err := Run(context.Background(), dir, m, 1, testWork, nil)
	close(release)
	if err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("second concurrent run: %v, want a refusal", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("first run: %v", err)
	}
	// Once the first has finished the directory is usable again.
	if err := Run(context.Background(), dir, m, 1, testWork, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFileName(Whole))); err != nil {
		t.Fatal(err)
	}
}

// Units are dispatched in a fixed pseudo-random order: a permutation of
// the shard's units, the same for every run of the campaign, and the
// first tenth dispatched spreads over the grid (in grid order it held
// only the first, cheapest, tenth).
func TestDispatchOrderSamplesTheGrid(t *testing.T) {
	m := testManifest(2000, Whole)
	units := m.Shard.Units(m.Units)
	a, b := dispatchOrder(units, m), dispatchOrder(units, m)
	seen := make([]bool, len(units))
	for i, u := range a {
		if u != b[i] {
			t.Fatal("two runs of the same campaign dispatch in different orders")
		}
		if seen[u] {
			t.Fatalf("unit %d dispatched twice", u)
		}
		seen[u] = true
	}
	lo, hi := 0, 0
	for _, u := range a[:200] {
		if u < 1000 {
			lo++
		} else {
			hi++
		}
	}
	if lo < 60 || hi < 60 {
		t.Errorf("first 200 units dispatched: %d in the first half of the grid, %d in the second; want both well represented", lo, hi)
	}
	m2 := m
	m2.Seed++
	if c := dispatchOrder(units, m2); c[0] == a[0] && c[1] == a[1] && c[2] == a[2] {
		t.Error("another seed dispatches in the same order")
	}
}
