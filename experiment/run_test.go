package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/volsched/volsched/stream"
)

// testResult is a result with floats, a slice and a string, to exercise
// the JSON round trip.
type testResult struct {
	Unit  int       `json:"unit"`
	Mean  float64   `json:"mean"`
	Draws []float64 `json:"draws"`
	Name  string    `json:"name"`
}

const testSeed = 42

// testWork is deterministic in the unit: its numbers come from
// stream.New(testSeed, unit).
func testWork(_ context.Context, u int) (testResult, error) {
	rng := stream.New(testSeed, uint64(u))
	r := testResult{Unit: u, Name: fmt.Sprintf("unit-%d", u)}
	for range 5 {
		x := rng.Float64() / 3 // not exactly representable in decimal
		r.Draws = append(r.Draws, x)
		r.Mean += x / 5
	}
	return r, nil
}

func testManifest(units int, s Shard) Manifest {
	p, err := CanonicalJSON(map[string]any{"p": 20, "ncom": []int{5, 10, 20}, "trials": 10})
	if err != nil {
		panic(err)
	}
	return Manifest{Kind: "test", Seed: testSeed, Units: units, Params: p, Shard: s}
}

func mustRun(t *testing.T, dir string, m Manifest, workers int) {
	t.Helper()
	if err := Run(context.Background(), dir, m, workers, testWork, nil); err != nil {
		t.Fatalf("Run(%s, shard %s, %d workers): %v", dir, m.Shard, workers, err)
	}
}

func mustLoadComplete(t *testing.T, dir string) []testResult {
	t.Helper()
	_, rs, err := LoadComplete[testResult](dir)
	if err != nil {
		t.Fatalf("LoadComplete(%s): %v", dir, err)
	}
	return rs
}

func TestRunWorkersDeterminism(t *testing.T) {
	const units = 37
	d1, d4 := t.TempDir(), t.TempDir()
	mustRun(t, d1, testManifest(units, Whole), 1)
	mustRun(t, d4, testManifest(units, Whole), 4)
	r1, r4 := mustLoadComplete(t, d1), mustLoadComplete(t, d4)
	if !reflect.DeepEqual(r1, r4) {
		t.Fatalf("results differ between 1 and 4 workers")
	}
	for u, r := range r1 {
		want, _ := testWork(context.Background(), u)
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("unit %d: loaded %+v, computed %+v (JSON round trip not exact?)", u, r, want)
		}
	}
}

func TestShardPartition(t *testing.T) {
	for _, total := range []int{0, 1, 7, 24, 25} {
		for n := 1; n <= 6; n++ {
			count := make([]int, total)
			for i := 1; i <= n; i++ {
				s := Shard{i, n}
				for _, u := range s.Units(total) {
					count[u]++
					if !s.Owns(u) {
						t.Errorf("shard %s lists unit %d but does not own it", s, u)
					}
				}
			}
			for u, c := range count {
				if c != 1 {
					t.Errorf("total %d, %d shards: unit %d in %d shards, want 1", total, n, u, c)
				}
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	good := map[string]Shard{"1/1": {1, 1}, "2/8": {2, 8}, " 8/8 ": {8, 8}}
	for in, want := range good {
		got, err := ParseShard("--shard", in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "0/4", "5/4", "-1/4", "1/0", "a/b", "1/2/3", "1.5/2"} {
		_, err := ParseShard("--shard", in)
		if err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
			continue
		}
		if !strings.Contains(err.Error(), "--shard") || !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("ParseShard(%q) error %q does not name the flag and value", in, err)
		}
	}
}

func TestShardsMergeEqualsWhole(t *testing.T) {
	const units, n = 23, 3
	whole := t.TempDir()
	mustRun(t, whole, testManifest(units, Whole), 2)
	var dirs []string
	for i := 1; i <= n; i++ {
		d := t.TempDir()
		mustRun(t, d, testManifest(units, Shard{i, n}), 1+i%2)
		_, _, present, err := Load[testResult](d)
		if err != nil {
			t.Fatal(err)
		}
		for u, ok := range present {
			if ok != (u%n == i-1) {
				t.Fatalf("shard %d/%d: unit %d present=%v", i, n, u, ok)
			}
		}
		dirs = append(dirs, d)
	}
	out := filepath.Join(t.TempDir(), "merged")
	m, err := Merge(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != Whole {
		t.Errorf("merged shard %s, want 1/1", m.Shard)
	}
	if !reflect.DeepEqual(mustLoadComplete(t, out), mustLoadComplete(t, whole)) {
		t.Fatal("merged shards differ from the unsharded run")
	}
	// The merged file is ordered by unit and equal byte for byte to a
	// sorted unsharded file; re-running 1/1 on it has nothing to do.
	calls := int32(0)
	err = Run(context.Background(), out, testManifest(units, Whole), 2, func(ctx context.Context, u int) (testResult, error) {
		atomic.AddInt32(&calls, 1)
		return testWork(ctx, u)
	}, nil)
	if err != nil || calls != 0 {
		t.Fatalf("re-run on merged dir: err %v, %d units recomputed, want 0", err, calls)
	}
	// Duplicates that agree are fine (a shard merged twice).
	if _, err := Merge(filepath.Join(t.TempDir(), "m2"), append(dirs, dirs[0])); err != nil {
		t.Fatalf("merge with an identical duplicate: %v", err)
	}
}

func TestMergeErrors(t *testing.T) {
	const units = 10
	a, b := t.TempDir(), t.TempDir()
	mustRun(t, a, testManifest(units, Shard{1, 2}), 1)
	mustRun(t, b, testManifest(units, Shard{2, 2}), 1)

	t.Run("mismatched manifests", func(t *testing.T) {
		for _, c := range []struct {
			field string
			edit  func(*Manifest)
		}{
			{"seed", func(m *Manifest) { m.Seed++ }},
			{"kind", func(m *Manifest) { m.Kind = "other" }},
			{"units", func(m *Manifest) { m.Units++ }},
			{"params", func(m *Manifest) { m.Params = json.RawMessage(`{"p":21}`) }},
		} {
			c2 := t.TempDir()
			m := testManifest(units, Shard{2, 2})
			c.edit(&m)
			mustRun(t, c2, m, 1)
			_, err := Merge(filepath.Join(t.TempDir(), "out"), []string{a, c2})
			if err == nil || !strings.Contains(err.Error(), c.field+" differ") {
				t.Errorf("%s changed: merge error %v, want one naming %q", c.field, err, c.field)
			}
		}
	})

	t.Run("conflicting duplicate", func(t *testing.T) {
		c := t.TempDir()
		err := Run(context.Background(), c, testManifest(units, Shard{2, 2}), 1, func(ctx context.Context, u int) (testResult, error) {
			r, err := testWork(ctx, u)
			if u == 7 {
				r.Mean += 1e-12
			}
			return r, err
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Merge(filepath.Join(t.TempDir(), "out"), []string{a, b, c})
		if err == nil || !strings.Contains(err.Error(), "unit 7 ") {
			t.Errorf("merge error %v, want one naming unit 7", err)
		}
	})

	t.Run("missing units", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		_, err := Merge(out, []string{a})
		if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "5 of 10 units missing (1, 3, 5, 7, 9)") {
			t.Fatalf("merge of half: %v", err)
		}
		// The partial merge is resumable as a 1/1 run.
		mustRun(t, out, testManifest(units, Whole), 2)
		if got := len(mustLoadComplete(t, out)); got != units {
			t.Fatalf("%d results after completing the merge", got)
		}
	})

	t.Run("output not empty", func(t *testing.T) {
		if _, err := Merge(a, []string{a, b}); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("merge into an input: %v", err)
		}
	})
}

func TestResumeAfterTornLine(t *testing.T) {
	const units = 12
	dir := t.TempDir()
	m := testManifest(units, Whole)
	// A first run that "crashes" after 5 units: its sixth line is cut.
	ctx, cancel := context.WithCancel(context.Background())
	var n int32
	err := Run(ctx, dir, m, 1, func(ctx context.Context, u int) (testResult, error) {
		if atomic.AddInt32(&n, 1) > 5 {
			cancel()
			return testResult{}, ctx.Err()
		}
		return testWork(ctx, u)
	}, nil)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	path := filepath.Join(dir, ResultsFileName(Whole))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"unit":5,"result":{"unit":5,"mean":0.1`)
	f.Close()
	before, _ := os.ReadFile(path)

	_, _, present, err := Load[testResult](dir)
	if err != nil {
		t.Fatalf("Load with torn line: %v", err)
	}
	if got := len(Missing(present)); got != units-5 {
		t.Fatalf("%d units missing after crash, want %d", got, units-5)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("Load modified the results file")
	}

	var recomputed []int
	var mu sync.Mutex
	err = Run(context.Background(), dir, m, 3, func(ctx context.Context, u int) (testResult, error) {
		mu.Lock()
		recomputed = append(recomputed, u)
		mu.Unlock()
		return testWork(ctx, u)
	}, nil)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if len(recomputed) != units-5 {
		t.Errorf("resume recomputed %d units (%v), want %d", len(recomputed), recomputed, units-5)
	}
	want := t.TempDir()
	mustRun(t, want, m, 1)
	if !reflect.DeepEqual(mustLoadComplete(t, dir), mustLoadComplete(t, want)) {
		t.Fatal("resumed campaign differs from an uninterrupted one")
	}
	data, _ := os.ReadFile(path)
	if c := strings.Count(string(data), "\n"); c != units {
		t.Errorf("results file has %d lines, want %d (torn line not truncated?)", c, units)
	}
}

func TestDamagedLineIsAnError(t *testing.T) {
	dir := t.TempDir()
	m := testManifest(4, Whole)
	mustRun(t, dir, m, 1)
	path := filepath.Join(dir, ResultsFileName(Whole))
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "garbage\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	err := Run(context.Background(), dir, m, 1, testWork, nil)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("damaged line 2: %v", err)
	}
}

func TestInterruptKeepsResults(t *testing.T) {
	const units = 40
	dir := t.TempDir()
	m := testManifest(units, Whole)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started int32
	err := Run(ctx, dir, m, 4, func(ctx context.Context, u int) (testResult, error) {
		if atomic.AddInt32(&started, 1) == 10 {
			cancel() // Ctrl-C while units 0..9 are in flight or done
		}
		select { // a unit that checks its context midway
		case <-ctx.Done():
			if u%2 == 0 {
				return testResult{}, fmt.Errorf("simulating unit %d: %w", u, ctx.Err())
			}
		case <-time.After(time.Millisecond):
		}
		return testWork(ctx, u)
	}, nil)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if !strings.Contains(err.Error(), "resume") {
		t.Errorf("interruption error does not say how to resume: %v", err)
	}
	_, rs, present, lerr := Load[testResult](dir)
	if lerr != nil {
		t.Fatal(lerr)
	}
	kept := units - len(Missing(present))
	if kept == 0 || kept == units {
		t.Fatalf("%d units kept after interruption, want some but not all", kept)
	}
	for u, ok := range present {
		if want, _ := testWork(context.Background(), u); ok && !reflect.DeepEqual(rs[u], want) {
			t.Fatalf("unit %d kept a wrong result", u)
		}
	}
	mustRun(t, dir, m, 2)
	if len(mustLoadComplete(t, dir)) != units {
		t.Fatal("re-run did not complete the campaign")
	}
}

func TestUnitErrorNamesUnit(t *testing.T) {
	dir := t.TempDir()
	m := testManifest(20, Whole)
	err := Run(context.Background(), dir, m, 3, func(ctx context.Context, u int) (testResult, error) {
		if u == 13 {
			return testResult{}, errors.New("simulator invariant broken")
		}
		return testWork(ctx, u)
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "unit 13") || !strings.Contains(err.Error(), "simulator invariant broken") {
		t.Fatalf("error %v, want one naming unit 13 and the cause", err)
	}
	if errors.Is(err, ErrInterrupted) {
		t.Error("a unit error is reported as an interruption")
	}
	_, _, present, lerr := Load[testResult](dir)
	if lerr != nil {
		t.Fatal(lerr)
	}
	if present[13] {
		t.Error("the failed unit has a result")
	}
	if len(Missing(present)) == 20 {
		t.Error("no results kept before the error")
	}
}

func TestManifestMismatchOnResume(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, testManifest(5, Whole), 1)
	for _, c := range []struct {
		want string
		m    Manifest
	}{
		{"seed differs", func() Manifest { m := testManifest(5, Whole); m.Seed = 7; return m }()},
		{"units differs", testManifest(6, Whole)},
		{"params differ", func() Manifest { m := testManifest(5, Whole); m.Params = json.RawMessage(`{"p":20}`); return m }()},
		{"shard differs", testManifest(5, Shard{1, 2})},
	} {
		err := Run(context.Background(), dir, c.m, 1, testWork, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume with changed manifest: %v, want %q", err, c.want)
		}
	}
	// Same params, other key order and spacing: the same campaign.
	m := testManifest(5, Whole)
	m.Params = json.RawMessage(` {"trials":10, "ncom":[5,10,20],"p":20}`)
	if err := Run(context.Background(), dir, m, 1, testWork, nil); err != nil {
		t.Errorf("reordered params refused: %v", err)
	}
}

func TestCanonicalJSON(t *testing.T) {
	got, err := CanonicalJSON(json.RawMessage(`{"b": 1.50, "a": {"y": [1, 2], "x": 12345678901234567890}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"x":12345678901234567890,"y":[1,2]},"b":1.50}`; string(got) != want {
		t.Errorf("CanonicalJSON = %s, want %s", got, want)
	}
	if _, err := CanonicalJSON(json.RawMessage(`{"a":1} x`)); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := CanonicalJSON(math.Inf(1)); err == nil {
		t.Error("+Inf accepted")
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		m       Manifest
		workers int
		want    string
	}{
		{Manifest{Seed: 1, Units: 1, Shard: Whole}, 1, "kind"},
		{Manifest{Kind: "k", Units: -1, Shard: Whole}, 1, "units -1"},
		{Manifest{Kind: "k", Units: 1}, 1, "shard"},
		{Manifest{Kind: "k", Units: 1, Shard: Whole, Params: json.RawMessage(`{`)}, 1, "params"},
		{Manifest{Kind: "k", Units: 1, Shard: Whole}, -2, "workers -2"},
	} {
		err := Run(context.Background(), dir, c.m, c.workers, testWork, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%+v, %d workers) = %v, want an error about %q", c.m, c.workers, err, c.want)
		}
	}
}

func TestUnitPanicNamesUnit(t *testing.T) {
	err := Run(context.Background(), t.TempDir(), testManifest(6, Whole), 2, func(ctx context.Context, u int) (testResult, error) {
		if u == 4 {
			var a []int
			_ = a[u] // index out of range
		}
		return testWork(ctx, u)
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "unit 4") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("panic in unit 4: %v", err)
	}
}

// A parameter mismatch names the differing fields, not two whole blobs.
func TestSameCampaignNamesTheDifferingFields(t *testing.T) {
	a := testManifest(5, Whole)
	b := a
	a.Params = json.RawMessage(`{"scenarios":2,"n":[5,10,20,40],"p":20,"order":"observe-decide","long":"` + strings.Repeat("x", 400) + `"}`)
	b.Params = json.RawMessage(`{"scenarios":3,"n":[5,10,21,40],"p":20,"order":"observe-decide","long":"` + strings.Repeat("x", 400) + `","extra":true}`)
	err := SameCampaign(a, b, "run-1", "this run")
	want := `params differ: extra: absent in run-1, true in this run; n[2]: 20 in run-1, 21 in this run; scenarios: 2 in run-1, 3 in this run`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
