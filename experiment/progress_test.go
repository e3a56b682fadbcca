package experiment

import (
	"bytes"
	"context"
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

func TestNewProgressSilentWhenNotTerminal(t *testing.T) {
	// Under `go test` standard error is a pipe or a file.
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		t.Skip("standard error is a terminal")
	}
	if p := NewProgress("x"); p != nil {
		t.Error("NewProgress is not silent when standard error is not a terminal")
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
