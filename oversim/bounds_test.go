package oversim

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/workload"
)

// traceConfig is a small run replaying jobs (no site-level data needed).
func traceConfig(jobs ...workload.Job) *Config {
	o := overlay.DefaultOptions(overlay.PolicyIBP)
	o.SFMax = 9
	return &Config{Options: o, Nodes: 4, Length: des.Hour,
		Link: des.FastLink, Proc: des.DefaultProcessing, UpdateBandwidth: 1000,
		DetectTimeout: des.Minute, Seed: 1, Params: workload.DefaultParams(), Jobs: append([]workload.Job{}, jobs...)}
}

// Parameters whose times cannot be represented, or whose cost is not
// proportional to the run (a timeline row or a probe per nanosecond), are
// refused with the field and the limit named.
func TestConfigRefusesUnrepresentable(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(c *Config)
		want   string
	}{
		{"task of 1e16 MI", func(c *Config) { c.Jobs[0].LengthMI = 1e16 }, "length in (0, 1e+12]"},
		{"task of +Inf MI", func(c *Config) { c.Jobs[0].LengthMI = math.Inf(1) }, "length in"},
		{"probe of 1e300 MI", func(c *Config) { c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = des.Minute, 1, 1e300 }, "probe of 1 tasks of 1e+300 MI"},
		{"a probe per ns", func(c *Config) { c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 1, 1, 1 }, "over the limit of 1000000"},
		{"a timeline row per ns", func(c *Config) { c.Sample = 1 }, "over the limit of 1000000"},
		{"detection after two centuries", func(c *Config) { c.DetectTimeout = 200 * 365 * des.Day }, "detection timeout"},
		{"a run of two centuries", func(c *Config) { c.Length = 200 * 365 * des.Day }, "simulated length"},
		{"job submitted beyond the clock", func(c *Config) { c.Jobs[0].Submit = des.Never }, "submitted at"},
		{"churn median of a century", func(c *Config) { c.Churn = failure.Churn{Median: 100 * 365 * des.Day} }, "churn median"},
		{"central cost of an hour per node", func(c *Config) { c.CentralPerNode = des.Hour }, "central per-node cost"},
		{"tiny node power", func(c *Config) {
			c.Params.PowerMinMIPS = 1e-3
			c.Jobs[0].LengthMI = 1e9
		}, "slowest node"},
	} {
		cfg := traceConfig(workload.Job{Node: 0, Tasks: 1, LengthMI: 1000})
		c.change(cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// A wake-up time beyond the simulated clock (a task longer than 292 years
// at the node's power: the float→time conversion used to wrap around into
// the past, and the node re-fired every nanosecond) is never scheduled.
func TestWakeBeyondTheClockNeverComes(t *testing.T) {
	s, err := New(traceConfig())
	if err != nil {
		t.Fatal(err)
	}
	v := s.leafV[0]
	before, wake := s.eng.Pending(), s.wake[v]
	for _, w := range []float64{1e10, 1e13, 1e300, math.MaxFloat64} {
		s.schedWake(v, w, 0)
	}
	if s.eng.Pending() != before || s.wake[v] != wake {
		t.Fatalf("wakes beyond the clock: %d events pending (was %d), wake %v (was %v)", s.eng.Pending(), before, s.wake[v], wake)
	}
}

// The longest task and probe a configuration accepts run to the end of the
// simulated hour by themselves (unfinished), in a handful of events.
func TestLongestAcceptedTasksEnd(t *testing.T) {
	c := traceConfig(workload.Job{Node: 1, Tasks: 2, LengthMI: workload.MaxLengthMI})
	c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 20*des.Minute, 3, workload.MaxLengthMI
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.TasksFinished != 0 || r.TasksSubmitted != 2+2*3 || r.Events > 10000 {
		t.Errorf("%d tasks finished of %d submitted in %d events; want 0 of 8 in a few events", r.TasksFinished, r.TasksSubmitted, r.Events)
	}
}

// A --params mismatch names the differing fields, not two JSON excerpts.
func TestMismatchNamesTheDifferingParams(t *testing.T) {
	a, b := workload.DefaultParams(), workload.DefaultParams()
	b.ContinueA = 0.7
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	e := &MismatchError{Field: "--params", Checkpoint: string(ja), Run: string(jb)}
	want := "the checkpoint was written by a different run: --params differ: continue_a: 0.8 in the checkpoint, 0.7 in this run"
	if e.Error() != want {
		t.Errorf("%s\nwant %s", e.Error(), want)
	}
}

// TestTraceParams: a library Config replaying a trace without workload
// parameters runs on the default nodes (oversim.New used to panic drawing
// a node from empty hardware lists); parameters given with a trace must be
// valid, and so must those given with the distributions, which are refused
// naming the field instead of panicking.
func TestTraceParams(t *testing.T) {
	bare := traceConfig(workload.Job{Node: 1, Tasks: 2, LengthMI: 1000})
	bare.Params = workload.Params{}
	s, err := New(bare)
	if err != nil {
		t.Fatalf("a trace without parameters: %v", err)
	}
	r, err := s.Run(context.Background())
	if err != nil || r.TasksFinished != 2 || r.WorkloadParams != nil {
		t.Fatalf("a trace without parameters: %v, %d tasks finished, parameters %v", err, r.TasksFinished, r.WorkloadParams)
	}
	// The same nodes as with the defaults given explicitly.
	withDefaults := traceConfig(workload.Job{Node: 1, Tasks: 2, LengthMI: 1000})
	s2, err := New(withDefaults)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s2.Run(context.Background())
	if err != nil || r2.ComputationFinishedMI != r.ComputationFinishedMI || r2.MakespanMax != r.MakespanMax {
		t.Fatalf("defaults given: %v, %+v; left out: %+v", err, r2, r)
	}
	for _, c := range []struct {
		name   string
		change func(c *Config)
		want   string
	}{
		{"memory sizes without disk sizes", func(c *Config) { c.Params = workload.Params{NodeMemMB: []float64{1024}} }, ""},
		{"no disk sizes", func(c *Config) { c.Params.NodeDiskMB = nil }, "node_disk_mb"},
		{"distributions with empty parameters", func(c *Config) {
			c.Jobs, c.Params, c.Dists = nil, workload.Params{}, workload.EmbeddedDistributions()
		}, ""},
		{"trace and distributions, empty parameters", func(c *Config) {
			c.Params, c.Dists = workload.Params{}, workload.EmbeddedDistributions()
		}, ""},
	} {
		cfg := traceConfig(workload.Job{Node: 0, Tasks: 1, LengthMI: 1000})
		c.change(cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), "workload parameter") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a refusal naming the workload parameter %s", c.name, err, c.want)
		}
	}
}

// TestResultFinite: the link use, the one quotient of a Result whose
// denominator a Config sets, is finite at the smallest bandwidth accepted
// and the whole Result encodes as JSON; a smaller bandwidth (which made it
// +Inf or NaN, and summary.json unwritable) is refused naming the link.
func TestResultFinite(t *testing.T) {
	cfg := traceConfig(workload.Job{Node: 0, Tasks: 3, LengthMI: 1000})
	cfg.Link.BandwidthBps = MinBandwidth
	cfg.Length = des.Minute
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("summary at %g bit/s: %v", MinBandwidth, err)
	}
	busy := false
	for _, u := range r.PeakLinkUse {
		if math.IsNaN(u.Fraction) || math.IsInf(u.Fraction, 0) {
			t.Fatalf("link use %+v", u)
		}
		busy = busy || u.Fraction > 1
	}
	if !busy {
		t.Fatalf("a 1 bit/s link carrying messages is not overloaded: %+v", r.PeakLinkUse)
	}
	for _, bw := range []float64{5e-324, 1e-300, 0.5} {
		cfg.Link.BandwidthBps = bw
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "bandwidth") {
			t.Errorf("bandwidth %g bit/s: %v, want a refusal", bw, err)
		}
	}
}
