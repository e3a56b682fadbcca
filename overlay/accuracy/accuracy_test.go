package accuracy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	// A policy registered outside package overlay (fifo-cap): the tests
	// that range over overlay.Policies() run it through the generic test.
	_ "github.com/volsched/volsched/examples/own-policy"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/stream"
)

func TestAccuracyQuick(t *testing.T) {
	for _, c := range []struct {
		pol overlay.Policy
		k   int
	}{{overlay.PolicyIBP, 9}, {overlay.PolicyIBP, 64}, {overlay.PolicyIBP, 225}, {overlay.PolicyMMP, 16}, {overlay.PolicyMMP, 81},
		{overlay.PolicyMMP, 256}, {overlay.PolicyDP, 8}, {overlay.PolicyDP, 64}, {overlay.PolicyDP, 216}} {
		r, err := Run(t.Context(), Config{Policy: c.pol, Nodes: 1024, SFMax: c.k, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %d: %v (root %d clusters, %d aggregations)", c.pol, c.k, r.Accuracy, r.Clusters, r.Aggregations)
		if r.Aggregations != 1023 || r.Clusters > c.k || len(r.Accuracy) != len(Attributes(c.pol)) {
			t.Errorf("%s %d: %d aggregations, %d clusters, %d attributes", c.pol, c.k, r.Aggregations, r.Clusters, len(r.Accuracy))
		}
		for k, v := range r.Accuracy {
			if !(v >= 0 && v <= 1) {
				t.Errorf("%s %d %s = %g, want [0,1]", c.pol, c.k, k, v)
			}
		}
	}
}

// TestAuthorsChoices: the authors' distance is for DP only; with it, and
// with their clustering and cells, the results stay fractions and the root
// within SF_max.
func TestAuthorsChoices(t *testing.T) {
	for _, pol := range []overlay.Policy{overlay.PolicyIBP, overlay.PolicyMMP} {
		if _, err := Run(t.Context(), Config{Policy: pol, Nodes: 16, SFMax: 4, Seed: 1, Distance: DistStars}); err == nil {
			t.Errorf("%s with distance stars: no error", pol)
		}
	}
	r, err := Run(t.Context(), Config{Policy: overlay.PolicyDP, Nodes: 256, SFMax: 8, Seed: 1, Distance: DistStars})
	if err != nil || r.Distance != "stars" || r.Clusters > 8 {
		t.Fatalf("dp stars: %+v, %v", r, err)
	}
	for _, pol := range overlay.Policies() {
		for _, cl := range []Clustering{ClusteringExact, ClusteringStars} {
			c := Config{Policy: pol, Nodes: 256, SFMax: 64, Seed: 2, Clustering: cl, Cells: CellsStars}
			if pol == overlay.PolicyDP {
				c.Distance = DistStars
			}
			r, err := Run(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			if r.Clusters > 64 || (cl == ClusteringStars) != (r.Clustering == "stars") || r.Cells != "stars" {
				t.Errorf("%s %s: %+v", pol, cl, r)
			}
			for k, v := range r.Accuracy {
				if !(v >= 0 && v <= 1) {
					t.Errorf("%s %s %s = %v", pol, cl, k, v)
				}
			}
		}
	}
}

// TestRunStopsWhenCancelled: a large run stops soon after its context is
// cancelled (here at its first progress report, before any aggregation)
// with the context's error, having done at most the aggregations between
// two looks at the context.
func TestRunStopsWhenCancelled(t *testing.T) {
	for _, pol := range overlay.Policies() {
		ctx, cancel := context.WithCancel(t.Context())
		calls, last := 0, 0
		cfg := Config{Policy: pol, Nodes: 1 << 16, SFMax: 16, Seed: 1, Progress: func(done, total int) {
			calls++
			last = done
			if total != 1<<16-1 {
				t.Errorf("total %d, want %d", total, 1<<16-1)
			}
			cancel()
		}}
		_, err := Run(ctx, cfg)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", pol, err)
		}
		if calls != 1 || last != 0 {
			t.Errorf("%s: %d progress reports (last at %d aggregations), want 1 at 0", pol, calls, last)
		}
		cancel()
	}
	// cancelled before the start: nothing is generated
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, Config{Policy: overlay.PolicyDP, Nodes: 1 << 20, SFMax: 216, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
}

// TestConfigRefused: bad configurations are refused with the field named.
func TestConfigRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Policy: overlay.PolicyIBP, Nodes: 0, SFMax: 9}, "nodes 0"},
		{Config{Policy: overlay.PolicyIBP, Nodes: 16, SFMax: 0}, "sfmax 0"},
		{Config{Nodes: 16, SFMax: 9}, "policy: none given: want ibp, mmp"},
		{Config{Policy: overlay.PolicyMMP, Nodes: 16, SFMax: 9, Distance: DistStars}, "policy dp only"},
		{Config{Policy: overlay.PolicyMMP, Nodes: 16, SFMax: 9, Cells: 7}, "cells"},
	} {
		err := c.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.cfg, err, c.want)
		}
	}
}

// TestRandomDPNode: the §7.1 DP nodes hold feasible EDF queues (every task
// ends by its deadline, back to back from the running task's end), about
// one in eight is idle, and the reported l is the admission test's.
func TestRandomDPNode(t *testing.T) {
	r := stream.New(3, 0xd9)
	idle := 0
	const n = 4000
	for i := range n {
		s := UniformInt(r, PowLo, PowHi)
		e := RandomDPNode(r, s)
		cur, end, runs := e.Queue()
		if cur == nil {
			idle++
			if len(runs) != 0 {
				t.Fatal("an idle node with a queue")
			}
			continue
		}
		if end < 0 || end > cur.Duration+1e-9 || end > cur.Deadline {
			t.Fatalf("node %d: running task ends at %g (length %g, deadline %g)", i, end, cur.Duration, cur.Deadline)
		}
		tm := end
		prev := cur.Deadline
		for _, run := range runs {
			if run.Deadline < prev {
				t.Fatalf("node %d: deadlines out of EDF order", i)
			}
			prev = run.Deadline
			tm += float64(run.N) * run.Duration
			if tm > run.Deadline*(1+1e-12) {
				t.Fatalf("node %d: work ends at %g after its deadline %g", i, tm, run.Deadline)
			}
		}
		if i < 200 {
			f := e.Function(0)
			for _, d := range []float64{1, 100, 1000, 5000, 20000, 1e5, 1e6} {
				if math.Abs(f.At(d)-e.LAt(0, d)) > 1e-6*max(1, e.LAt(0, d)) || f.At(d) > s*d+1e-6 {
					t.Fatalf("node %d: l(%g) = %g, admission test %g, power×δ %g", i, d, f.At(d), e.LAt(0, d), s*d)
				}
			}
		}
	}
	if frac := float64(idle) / n; math.Abs(frac-1.0/8) > 0.02 {
		t.Errorf("idle fraction %g, want about 1/8", frac)
	}
}

// TestPaperSFMaxIsTable2s: the paper's SF_max list is the one of its Table
// 2, its largest is Table 3's and overlay's default.
func TestPaperSFMaxIsTable2s(t *testing.T) {
	for pol, sfs := range PaperSFMax {
		var ks []int
		for k := range PaperTable2[pol] {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		if !slices.Equal(ks, sfs) || !slices.IsSorted(sfs) {
			t.Errorf("%s: PaperSFMax %v, Table 2 has %v", pol, sfs, ks)
		}
		if last := sfs[len(sfs)-1]; last != pol.DefaultSFMax() || last != PaperTable3SFMax[pol] {
			t.Errorf("%s: largest SF_max %d, default %d, Table 3 %d", pol, last, pol.DefaultSFMax(), PaperTable3SFMax[pol])
		}
	}
	if len(PaperSFMax) != len(PaperTable2) || len(PaperSFMax) != len(PaperPolicies) {
		t.Errorf("PaperSFMax has %d policies, Table 2 %d", len(PaperSFMax), len(PaperTable2))
	}
}

// BenchmarkAccuracy1024: the whole Table 2 test of one configuration;
// ns/op divided by 1023 is the mean time per aggregation, the figure the
// authors' tool reports.
func BenchmarkAccuracy1024(b *testing.B) {
	for _, pol := range PaperPolicies {
		for _, k := range PaperSFMax[pol] {
			b.Run(fmt.Sprintf("%s/sfmax=%d", pol, k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Run(b.Context(), Config{Policy: pol, Nodes: 1024, SFMax: k, Seed: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestReproduce: the quick reproduction prints both tables with the
// paper's numbers beside ours, writes its results with OutDir, gives the
// report's tables (ours equal to what it printed, the paper's beside), and
// stops when its context is cancelled.
func TestReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("about a second of aggregations")
	}
	var b strings.Builder
	out := t.TempDir()
	r, err := Reproduce(t.Context(), &b, ReproduceOptions{Seed: 1, Quick: true, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Table 2: 1024 nodes", "with the authors' choices", "Table 3:", "59.3", "32768"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	s := r.Section()
	if len(s.Tables) != 9 || len(s.Tables[0].Rows) != 3 || len(s.Tables[1].Columns) != 4 || len(s.Tables[8].Rows) != 4 {
		t.Fatalf("section: %d tables, want Table 2, Table 2 with the authors' choices, Table 3, each per policy (3 SF_max; MMP's 4 attributes; 4 sizes)", len(s.Tables))
	}
	// IBP at SF_max 9, memory: ours as printed ("%.1f / 59.3"), the paper's 59.32.
	c := s.Tables[0].Rows[0].Cells[0]
	if want := fmt.Sprintf("%.1f / 59.3", c.Ours); !strings.Contains(b.String(), want) || math.Abs(c.Paper-59.32) > 1e-9 {
		t.Errorf("IBP 9 memory: ours %v (printed: %v), paper %v; want 59.32", c.Ours, strings.Contains(b.String(), want), c.Paper)
	}
	if l := s.Tables[2].Rows[1].Cells[2]; l.PaperText != "∼37" || math.IsNaN(l.Ours) {
		t.Errorf("DP 64 l(δ): %+v, want the paper's ∼37 beside ours", l)
	}
	back, err := ReadReproduction(filepath.Join(out, ReproductionName, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", back.Section().Tables) != fmt.Sprintf("%+v", s.Tables) { // NaN cells: compared as text
		t.Error("the tables from the written results differ from the run's")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Reproduce(ctx, &b, ReproduceOptions{Seed: 1, Quick: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
