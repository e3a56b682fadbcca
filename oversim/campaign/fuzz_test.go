package campaign

import (
	"math"
	"testing"

	"github.com/volsched/volsched/oversim"
)

// FuzzRunSummary: the figure commands' reader of a run's summary.json
// accepts only summaries of a policy, nodes and hours, or errs; what it
// accepts goes through the figures' comparisons without panicking.
func FuzzRunSummary(f *testing.F) {
	// Small seeds: the minimizer is quadratic in the input's length.
	f.Add([]byte(`{"policy":"ibp","nodes":100,"hours":60,"simulated_seconds":216000,"sfmax":9,"tasks_finished":10}`))
	f.Add([]byte(`{"policy":"dp","nodes":1,"hours":1e-300,"simulated_seconds":-5,"peak_link_use":[{"window_ns":1000000000,"fraction":1e308}]}`))
	f.Add([]byte(`{"policy":"x","nodes":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseSummary(b, "run")
		if err != nil {
			return
		}
		if !r.Policy.Valid() || r.Nodes <= 0 || !(r.Hours > 0) {
			t.Fatalf("accepted %+v", r)
		}
		_ = Unfinished("run", r)
		if d := SetupDiff(r, r); d != "" {
			t.Fatalf("a run differs from itself: %s", d)
		}
		againstSFMax([]*oversim.Result{r, r}, nil, 1, 2, func(r *oversim.Result) float64 { return r.ComputationFinishedMI })
		peak1s(r)
	})
}

// FuzzMakespanTimeline: the reader of a run's timeline.csv returns equal
// numbers of finite times and makespans >= 0, a reason to leave the run
// out, or an error.
func FuzzMakespanTimeline(f *testing.F) {
	f.Add([]byte(TimelineHeader + "\n600,1,2,3,4,5,6,7,8,9,10,11,12,0.5\n"))
	f.Add([]byte("time_s,row_makespan_max_s\n1,2\n3\n"))
	f.Add([]byte("time_s,row_makespan_max_s\nNaN,-1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, ms, why, err := ParseMakespanTimeline(b, "timeline.csv")
		if err != nil || why != "" {
			return
		}
		if len(ts) != len(ms) || len(ts) == 0 {
			t.Fatalf("%d times, %d makespans", len(ts), len(ms))
		}
		for i := range ts {
			if math.IsNaN(ts[i]) || math.IsInf(ts[i], 0) || !(ms[i] >= 0) || math.IsInf(ms[i], 0) {
				t.Fatalf("row %d: %g, %g", i, ts[i], ms[i])
			}
		}
	})
}
