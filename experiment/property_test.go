package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestPropertyShardsInterruptsMerge: for random campaign sizes, shard
// counts, worker counts and interruption points, running every shard
// (interrupted once, then resumed) and merging gives exactly the results
// of computing every unit directly.
func TestPropertyShardsInterruptsMerge(t *testing.T) {
	root := t.TempDir()
	var run int64
	rapid.Check(t, func(rt *rapid.T) {
		units := rapid.IntRange(0, 30).Draw(rt, "units")
		n := rapid.IntRange(1, 5).Draw(rt, "shards")
		base := filepath.Join(root, fmt.Sprint(atomic.AddInt64(&run, 1)))
		var dirs []string
		for i := 1; i <= n; i++ {
			d := filepath.Join(base, fmt.Sprintf("shard%d", i))
			m := testManifest(units, Shard{i, n})
			stopAfter := rapid.IntRange(0, 8).Draw(rt, fmt.Sprintf("stop%d", i))
			workers := rapid.IntRange(1, 4).Draw(rt, fmt.Sprintf("workers%d", i))
			ctx, cancel := context.WithCancel(context.Background())
			var calls int32
			err := Run(ctx, d, m, workers, func(ctx context.Context, u int) (testResult, error) {
				if int(atomic.AddInt32(&calls, 1)) > stopAfter {
					cancel()
					return testResult{}, ctx.Err()
				}
				return testWork(ctx, u)
			}, nil)
			cancel()
			if err != nil && !errors.Is(err, ErrInterrupted) {
				rt.Fatalf("shard %d/%d first run: %v", i, n, err)
			}
			if err := Run(context.Background(), d, m, rapid.IntRange(1, 4).Draw(rt, fmt.Sprintf("resume%d", i)), testWork, nil); err != nil {
				rt.Fatalf("shard %d/%d resume: %v", i, n, err)
			}
			dirs = append(dirs, d)
		}
		out := filepath.Join(base, "merged")
		if _, err := Merge(out, dirs); err != nil {
			rt.Fatalf("merge: %v", err)
		}
		_, got, err := LoadComplete[testResult](out)
		if err != nil {
			rt.Fatal(err)
		}
		for u := range units {
			want, _ := testWork(context.Background(), u)
			if !reflect.DeepEqual(got[u], want) {
				rt.Fatalf("unit %d: %+v, want %+v", u, got[u], want)
			}
		}
		os.RemoveAll(base)
	})
}
