package overlay

import (
	"fmt"
	"math"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestAccuracyScale runs Table 3's largest size when OVERLAY_SCALE=1 (a
// measurement, not a check: it only logs times).
func TestAccuracyScale(t *testing.T) {
	if os.Getenv("OVERLAY_SCALE") == "" {
		t.Skip("set OVERLAY_SCALE=1")
	}
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 225}, {PolicyMMP, 256}, {PolicyDP, 216}} {
		for _, n := range []int{512, 2048, 8192, 32768, 131072} {
			st := time.Now()
			r, err := Accuracy(AccuracyConfig{Policy: c.pol, Nodes: n, SFMax: c.k, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s n=%d: %v  %v", c.pol, n, r.Accuracy, time.Since(st))
		}
	}
}

// TestAccuracySeeds reports the spread of Table 2 over seeds, for each
// distance (DistStars: DP only), with Fig. 3's clustering and the authors'
// approximate one, our grid cells and the authors', and the effect of the
// grid (OVERLAY_SEEDS=1; a measurement).
func TestAccuracySeeds(t *testing.T) {
	if os.Getenv("OVERLAY_SEEDS") == "" {
		t.Skip("set OVERLAY_SEEDS=1")
	}
	for _, c := range []struct {
		dist              Distance
		clustering, cells string
	}{{DistMSE, "exact", "clamp"}, {DistLoss, "exact", "clamp"}, {DistMSE, "stars", "clamp"}, {DistStars, "exact", "clamp"},
		{DistStars, "stars", "clamp"}, {DistMSE, "exact", "stars"}, {DistMSE, "stars", "stars"}, {DistStars, "stars", "stars"}} {
		for _, pol := range []Policy{PolicyIBP, PolicyMMP, PolicyDP} {
			if CheckDistance(pol, c.dist) != nil {
				continue // DistStars: DP only
			}
			accuracySeeds(t, pol, c.dist, c.clustering, c.cells)
		}
	}
	// Without the grid penalty (seed 1).
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 9}, {PolicyIBP, 64}, {PolicyIBP, 225}, {PolicyMMP, 16}, {PolicyMMP, 81}, {PolicyMMP, 256}, {PolicyDP, 8}, {PolicyDP, 64}, {PolicyDP, 216}} {
		st := time.Now()
		r, err := accuracyNoGrid(c.pol, 1024, c.k, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("no grid: %s sfmax=%d: %v (%v)", c.pol, c.k, fmtAcc(r), time.Since(st))
	}
}

// accuracySeeds logs the mean and standard deviation of Table 2's cells
// of pol over 10 seeds.
func accuracySeeds(t *testing.T, pol Policy, dist Distance, clustering, cells string) {
	ks := PaperSFMax[pol]
	for _, k := range ks {
		{
			sum, sq := map[string]float64{}, map[string]float64{}
			const seeds = 10
			for s := uint64(1); s <= seeds; s++ {
				r, err := Accuracy(AccuracyConfig{Policy: pol, Nodes: 1024, SFMax: k, Seed: s, Distance: dist, Clustering: clustering, Cells: cells})
				if err != nil {
					t.Fatal(err)
				}
				for a, v := range r.Accuracy {
					sum[a] += v
					sq[a] += v * v
				}
			}
			line := ""
			for _, a := range PolicyAttributes[pol] {
				m := sum[a] / seeds
				sd := math.Sqrt(max(0, sq[a]/seeds-m*m))
				line += fmt.Sprintf(" %s %.1f±%.1f (paper %.1f)", a, 100*m, 100*sd, 100*PaperTable2[pol][k][a])
			}
			t.Logf("%s %s cells=%s %s sfmax=%d, 10 seeds:%s", dist, clustering, cells, pol, k, line)
		}
	}
}

func fmtAcc(r AccuracyResult) string {
	s := ""
	for _, a := range PolicyAttributes[r.Policy] {
		s += fmt.Sprintf(" %s %.1f", a, 100*r.Accuracy[a])
	}
	return s
}

// TestAccuracyCPU reports CPU time (getrusage, less sensitive than wall
// time to a loaded machine) per aggregation of the Table 2 tests
// (OVERLAY_CPU=1; a measurement).
func TestAccuracyCPU(t *testing.T) {
	if os.Getenv("OVERLAY_CPU") == "" {
		t.Skip("set OVERLAY_CPU=1")
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, pol := range []Policy{PolicyIBP, PolicyMMP, PolicyDP} {
		for _, sf := range PaperSFMax[pol] {
			const reps = 30
			c0 := cpu()
			aggs := 0
			var wall time.Duration
			for s := uint64(1); s <= reps; s++ {
				r, err := Accuracy(AccuracyConfig{Policy: pol, Nodes: 1024, SFMax: sf, Seed: s})
				if err != nil {
					t.Fatal(err)
				}
				aggs += r.Aggregations
				wall += r.AggregateTime
			}
			t.Logf("%s sfmax=%d: %.2f µs CPU per aggregation (whole test incl. node generation, %d runs); aggregation alone %.2f µs wall",
				pol, sf, float64((cpu()-c0).Nanoseconds())/1e3/float64(aggs), reps, float64(wall.Nanoseconds())/1e3/float64(aggs))
		}
	}
}

// TestPaperSFMaxIsTable2s: the paper's SF_max list is the one of its Table 2.
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
	}
	if len(PaperSFMax) != len(PaperTable2) {
		t.Errorf("PaperSFMax has %d policies, Table 2 %d", len(PaperSFMax), len(PaperTable2))
	}
}
