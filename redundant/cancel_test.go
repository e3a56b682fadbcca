package redundant

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
)

// Every algorithm that can run long stops on a cancelled context with its
// error (Ctrl-C in `volsched alloc` and `exp redundant`), on instances that
// would otherwise take minutes to hours.
func TestAllocateStopsWhenCancelled(t *testing.T) {
	g := GDFN{Mu: 0.5, Sigma: 0.3}
	big := g.SampleN(stream.New(1, 2), 200_000)
	small := g.SampleN(stream.New(1, 3), 300)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		algo string
		p    []float64
		n    int
	}{
		{"ppb", big, 100_000},
		{"epb", big, 100_000},
		{"gls", big, 100_000},
		{"exact", small, 100},
	} {
		_, err := Allocate(ctx, c.algo, c.p, c.n, Options{Exact: ExactOptions{MaxNodes: -1}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s on %d hosts, %d tasks with a cancelled context: err = %v, want context.Canceled", c.algo, len(c.p), c.n, err)
		}
	}
}

// Sizes whose memory would not be proportional to the request (the exact
// search's hosts × tasks tables, more hosts than any study uses, move
// counts that overflow) are refused with the limit in the message.
func TestAllocateRefusesUnboundedInstances(t *testing.T) {
	g := GDFN{Mu: 0.5, Sigma: 0.3}
	ctx := context.Background()
	p := g.SampleN(stream.New(1, 4), 20_000)
	if _, err := Allocate(ctx, "exact", p, 5000, Options{}); err == nil || !strings.Contains(err.Error(), "16777216") {
		t.Errorf("exact on 20000 hosts × 5000 tasks: err = %v, want the %d-cell limit", err, MaxExactCells)
	}
	if _, err := Allocate(ctx, "ppb", p[:10], 2, Options{Anneal: AnnealOptions{MovesPerHost: MaxMovesPerHost + 1}}); err == nil || !strings.Contains(err.Error(), "moves per host") {
		t.Errorf("moves per host over the limit: err = %v", err)
	}
	if err := ValidateInstance(make([]float64, MaxHosts+1), 1, "test"); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d hosts: err = %v, want the host limit", MaxHosts+1, err)
	}
	for _, cfg := range []LabConfig{{Reps: 0}, {Reps: MaxReps + 1}, {Reps: 1, Workers: MaxWorkers + 1}, {Reps: 1, Algos: []string{"nope"}}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("LabConfig %+v: no error", cfg)
		}
	}
	if n := len(Grid(1, 1e-9, nil).Sigmas); n != 1001 {
		t.Errorf("Grid with step 1e-9: %d points, want the finest grid, 1001", n)
	}
}
