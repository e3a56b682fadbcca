package oversim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"github.com/volsched/volsched/overlay"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/volsched/volsched/des"
	ownpolicy "github.com/volsched/volsched/examples/own-policy"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/workload"
)

// runOut is what a run produces: its result and its timeline rows.
type runOut struct {
	res  *Result
	rows []Sample
}

// deterministic clears the fields of r that measure the machine (time,
// memory) or count resumes.
func deterministic(r *Result) *Result {
	x := *r
	x.WallSeconds, x.EventsPerSecond, x.CPUSeconds, x.EventsPerCPUSecond = 0, 0, 0, 0
	x.HeapBytes, x.BytesPerNode, x.Resumes = 0, 0, 0
	return &x
}

func runWhole(t *testing.T, c *Config) runOut {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var o runOut
	s.OnSample(func(x Sample) { o.rows = append(o.rows, x) })
	if o.res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return o
}

// runResumed runs c, stopping after each event count of stops, saving a
// checkpoint and continuing in a fresh Sim built by New and restored from
// it; with inPlace, the same Sim continues after saving instead.
func runResumed(t *testing.T, c *Config, stops []uint64, inPlace bool) runOut {
	t.Helper()
	path := filepath.Join(t.TempDir(), CheckpointFile)
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var o runOut
	collect := func(x Sample) { o.rows = append(o.rows, x) }
	s.OnSample(collect)
	for i, k := range stops {
		s.StopAt(k)
		if _, err := s.Run(context.Background()); !errors.Is(err, ErrStopped) {
			t.Fatalf("stop %d at event %d: %v", i, k, err)
		}
		if s.Events() != k {
			t.Fatalf("stopped after %d events, want %d", s.Events(), k)
		}
		// Drop the row the interrupted Run wrote at its end.
		o.rows = o.rows[:s.TimelineRows()]
		if _, err := s.SaveCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		if inPlace {
			s.StopAt(0)
			continue
		}
		if s, err = New(c); err != nil {
			t.Fatal(err)
		}
		if err := s.LoadCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		if s.Resumes() != i+1 {
			t.Fatalf("resumes %d, want %d", s.Resumes(), i+1)
		}
		s.OnSample(collect)
	}
	if o.res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestCheckpointExact: a run interrupted at one or more event counts,
// checkpointed and resumed in a fresh Sim gives the uninterrupted run's
// result (every deterministic field) and timeline rows, for each policy,
// the two references, with churn, a catastrophe and probes, and a policy
// registered outside package overlay (examples/own-policy).
func TestCheckpointExact(t *testing.T) {
	cases := []struct {
		name  string
		setup func(c *Config)
		pol   overlay.Policy
		nodes int
		cuts  []float64 // fractions of the run's events
	}{
		{"ibp-churn", func(c *Config) { c.Churn = failure.Churn{Median: 20 * des.Minute} }, overlay.PolicyIBP, 300, []float64{0.5}},
		{"mmp-catastrophe-probes", func(c *Config) {
			c.Catastrophe = failure.Catastrophe{Fraction: 0.2, At: 80 * des.Minute}
			c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 20*des.Minute, 50, 5000
		}, overlay.PolicyMMP, 200, []float64{0.3, 0.7}},
		{"dp-churn-catastrophe", func(c *Config) {
			c.Churn = failure.Churn{Median: 30 * des.Minute}
			c.Catastrophe = failure.Catastrophe{Fraction: 0.1, At: time90}
		}, overlay.PolicyDP, 200, []float64{0.25, 0.5, 0.9}},
		{"centralized-ibp-churn", func(c *Config) {
			c.Scheduler, c.CentralPerNode = "centralized", 100
			c.Churn = failure.Churn{Median: 20 * des.Minute}
		}, overlay.PolicyIBP, 200, []float64{0.6}},
		{"fifo-cap-churn", func(c *Config) { c.Churn = failure.Churn{Median: 20 * des.Minute} }, ownpolicy.Policy, 200, []float64{0.3, 0.8}},
		{"random-dp-catastrophe", func(c *Config) {
			c.Scheduler = "random"
			c.Catastrophe = failure.Catastrophe{Fraction: 0.2, At: des.Hour}
		}, overlay.PolicyDP, 200, []float64{0.4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, tc.pol, tc.nodes, 2*des.Hour)
			c.Sample = 10 * des.Minute
			tc.setup(c)
			whole := runWhole(t, c)
			if whole.res.TasksSubmitted == 0 || whole.res.TasksFinished == 0 {
				t.Fatalf("nothing happened: %+v", whole.res)
			}
			if c.Churn.Enabled() || c.Catastrophe.Enabled() {
				if whole.res.Failures == 0 {
					t.Fatalf("no failure happened")
				}
			}
			var stops []uint64
			for _, f := range tc.cuts {
				stops = append(stops, uint64(f*float64(whole.res.Events))|1)
			}
			for _, inPlace := range []bool{false, true} {
				got := runResumed(t, c, stops, inPlace)
				if a, b := deterministic(got.res), deterministic(whole.res); !reflect.DeepEqual(a, b) {
					t.Fatalf("inPlace %v, stops %v: resumed result differs:\n%+v\nwant\n%+v", inPlace, stops, a, b)
				}
				if !reflect.DeepEqual(got.rows, whole.rows) {
					t.Fatalf("inPlace %v, stops %v: timeline differs:\n%+v\nwant\n%+v", inPlace, stops, got.rows, whole.rows)
				}
				if !inPlace && got.res.Resumes != len(stops) {
					t.Fatalf("Resumes %d, want %d", got.res.Resumes, len(stops))
				}
			}
			t.Logf("%d events, %d tasks finished, %d failures, stops %v", whole.res.Events, whole.res.TasksFinished, whole.res.Failures, stops)
		})
	}
}

const time90 = 90 * des.Minute

// smallCheckpoint returns a checkpoint of a small run stopped mid-way.
func smallCheckpoint(t testing.TB, c *Config, at uint64) []byte {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s.StopAt(at)
	if _, err := s.Run(context.Background()); !errors.Is(err, ErrStopped) {
		t.Fatalf("run: %v", err)
	}
	var b bytes.Buffer
	if _, err := s.WriteCheckpoint(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fuzzCheckpointConfig is a small DP run with every kind of state a
// checkpoint holds (jobs in flight, churn, timeline, probes), without the
// site-level data.
func fuzzCheckpointConfig() *Config {
	var jobs []workload.Job
	for i := 0; i < 8; i++ {
		jobs = append(jobs, workload.Job{Submit: des.Time(i) * 3 * des.Minute, Node: int32(i % 4), ID: uint64(i), Tasks: int32(1 + i%3), LengthMI: float64(1+i) * 4e5, MemMB: 64})
	}
	c := traceConfig(jobs...)
	c.Policy, c.Nodes = overlay.PolicyDP, 4
	c.Churn = failure.Churn{Median: 10 * des.Minute}
	c.Sample = 10 * des.Minute
	c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 20*des.Minute, 2, 1e5
	return c
}

func smallConfig(t testing.TB) *Config {
	c := testConfig(t, overlay.PolicyDP, 24, des.Hour)
	c.Churn = failure.Churn{Median: 10 * des.Minute}
	c.Sample = 10 * des.Minute
	return c
}

func TestCheckpointMismatchRefused(t *testing.T) {
	c := smallConfig(t)
	data := smallCheckpoint(t, c, 1001)
	for _, tc := range []struct {
		field  string
		change func(c *Config)
	}{
		{"--nodes", func(c *Config) { c.Nodes = 25 }},
		{"--seed", func(c *Config) { c.Seed = 2 }},
		{"--churn", func(c *Config) { c.Churn.Median = 11 * des.Minute }},
		{"--sample", func(c *Config) { c.Sample = 0 }},
		{"--policy", func(c *Config) { c.Policy = overlay.PolicyIBP }},
		{"--hours", func(c *Config) { c.Length = 2 * des.Hour }},
		{"--params", func(c *Config) { c.Params.ContinueA = 0.7 }},
	} {
		c2 := *c
		tc.change(&c2)
		// the run's key (reproduce's cache) tells the runs apart too
		if c3 := *c; c2.Key() == c.Key() || c3.Key() != c.Key() {
			t.Errorf("%s changed: key %s, unchanged %s (copy %s)", tc.field, c2.Key(), c.Key(), c3.Key())
		}
		s, err := New(&c2)
		if err != nil {
			t.Fatal(err)
		}
		err = s.ReadCheckpoint(bytes.NewReader(data), int64(len(data)))
		var me *MismatchError
		if !errors.As(err, &me) || me.Field != tc.field || len(err.Error()) > 300 {
			t.Errorf("%s changed: error %v, want a short mismatch naming %s", tc.field, err, tc.field)
		}
	}
	// Another build of volsched is refused.
	orig := binaryVersion
	binaryVersion = func() string { return orig() + " rebuilt" }
	s, _ := New(c)
	err := s.ReadCheckpoint(bytes.NewReader(data), int64(len(data)))
	binaryVersion = orig
	if me := (*MismatchError)(nil); !errors.As(err, &me) || me.Field != "the volsched build" {
		t.Errorf("other build: error %v, want a mismatch naming the build", err)
	}
	// The same config is accepted.
	s, _ = New(c)
	if err := s.ReadCheckpoint(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	// Only into a fresh Sim.
	if err := s.ReadCheckpoint(bytes.NewReader(data), int64(len(data))); err == nil {
		t.Fatal("loaded twice into the same Sim")
	}
}

func TestCheckpointCorruptRefused(t *testing.T) {
	c := smallConfig(t)
	data := smallCheckpoint(t, c, 1001)
	bad := map[string][]byte{
		"empty":     {},
		"short":     data[:3],
		"truncated": data[:len(data)/2],
		"no crc":    data[:len(data)-4],
		"other":     []byte("time_s,jobs_submitted\n1,2\n"),
	}
	flip := append([]byte(nil), data...)
	flip[len(flip)*2/3] ^= 0x40
	bad["flipped bit"] = flip
	for name, b := range bad {
		s, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ReadCheckpoint(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
	// A missing file.
	s, _ := New(c)
	if err := s.LoadCheckpoint(filepath.Join(t.TempDir(), "none")); err == nil || !os.IsNotExist(errors.Unwrap(err)) {
		t.Errorf("missing file: %v", err)
	}
}

// withCRC returns b with its trailing checksum recomputed, so that the
// decoder itself meets damaged data.
func withCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	out := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(out[len(out)-4:], crc32.Checksum(out[:len(out)-4], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

// FuzzReadCheckpoint: no input makes the reader panic. Damaged input as is
// is refused by the checksum; with the checksum recomputed it meets the
// decoder, which refuses malformed structure (lengths, tags, references,
// indices) and accepts changed values (a changed float is a valid state).
//
// The fuzz input is an edit of a real checkpoint (of a run on 4 nodes
// replaying a trace: no data needed): byte 0 picks one of three
// checkpoints, bytes 1-2 how many bytes to cut from its end, and each
// further 3 bytes set one byte (a 16-bit position, a value); the checksum
// is then recomputed (and the edit is also read without it, and the input
// itself as a file). Whole checkpoints as inputs (several kilobytes, the
// --params JSON and all) made the fuzzer spend its minute minimizing the
// first new input (the minimizer is quadratic in the input's length): 6
// executions in a minute.
func FuzzReadCheckpoint(f *testing.F) {
	c := fuzzCheckpointConfig()
	var bases [][]byte
	for _, at := range []uint64{1, 120, 300} {
		bases = append(bases, smallCheckpoint(f, c, at))
	}
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{1, 0, 0, 0x40, 0x05, 0xff})
	f.Add([]byte{2, 9, 0, 0x00, 0x07, 0x80, 0x10, 0x00, 0x00})
	f.Add([]byte{2, 0, 0, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, edit []byte) {
		if len(edit) < 3 {
			return
		}
		base := bases[int(edit[0])%len(bases)]
		in := append([]byte(nil), base...)
		if cut := int(edit[1]) | int(edit[2])<<8; cut > 0 {
			in = in[:len(in)-cut%len(in)]
		}
		for k := 3; k+2 < len(edit) && len(in) > 4; k += 3 {
			pos := (int(edit[k]) | int(edit[k+1])<<8) % (len(in) - 4)
			in[pos] = edit[k+2]
		}
		for _, b := range [][]byte{withCRC(in), in, withCRC(edit)} {
			s, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			s.ReadCheckpoint(bytes.NewReader(b), int64(len(b)))
		}
	})
}

// TestCheckpointPeriodic: checkpoints written from inside Run
// (OnCheckpoint, at every 4,096th event here) do not change the run, and
// the last one resumes to the same result.
func TestCheckpointPeriodic(t *testing.T) {
	c := testConfig(t, overlay.PolicyMMP, 200, 2*des.Hour)
	c.Churn = failure.Churn{Median: 20 * des.Minute}
	c.Sample = 10 * des.Minute
	whole := runWhole(t, c)
	path := filepath.Join(t.TempDir(), CheckpointFile)
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var o runOut
	s.OnSample(func(x Sample) { o.rows = append(o.rows, x) })
	saves, lastRows := 0, uint64(0)
	s.OnCheckpoint(func() bool { return true }, func() error {
		saves++
		lastRows = s.TimelineRows()
		_, err := s.SaveCheckpoint(path)
		return err
	})
	if o.res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if saves < 2 {
		t.Fatalf("%d checkpoints written, want several", saves)
	}
	if !reflect.DeepEqual(deterministic(o.res), deterministic(whole.res)) || !reflect.DeepEqual(o.rows, whole.rows) {
		t.Fatal("a run that wrote checkpoints differs from the plain run")
	}
	r, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.LoadCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	rows := append([]Sample(nil), whole.rows[:lastRows]...)
	r.OnSample(func(x Sample) { rows = append(rows, x) })
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deterministic(res), deterministic(whole.res)) || !reflect.DeepEqual(rows, whole.rows) {
		t.Fatal("resumed from the last periodic checkpoint: result differs")
	}
}
