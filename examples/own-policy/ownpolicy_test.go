package ownpolicy_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/volsched/volsched/des"
	ownpolicy "github.com/volsched/volsched/examples/own-policy"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/overlay/policytest"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/workload"
)

// TestPolicy: the policy passes what every registered policy must
// (package policytest: executors, aggregation, placement with exact
// summaries, wire, checkpoints), and is found by its name.
func TestPolicy(t *testing.T) {
	if p, err := overlay.ParsePolicy("fifo-cap"); err != nil || p != ownpolicy.Policy {
		t.Fatalf("ParsePolicy(fifo-cap) = %v, %v", p, err)
	}
	policytest.Check(t, ownpolicy.Policy)
}

func simConfig(nodes int, hours float64) *oversim.Config {
	return &oversim.Config{Options: overlay.DefaultOptions(ownpolicy.Policy), Nodes: nodes, Length: des.Seconds(hours * 3600),
		Link: des.FastLink, Proc: des.DefaultProcessing, UpdateBandwidth: ownpolicy.Policy.DefaultBandwidth(),
		DetectTimeout: des.Minute, Seed: 1, Params: workload.DefaultParams(), Dists: workload.EmbeddedDistributions()}
}

func run(t *testing.T, c *oversim.Config) *oversim.Result {
	t.Helper()
	s, err := oversim.New(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSimulator: the simulator runs the policy by its registration, with
// the overlay and both references, with churn and a catastrophe: tasks
// are submitted and finished, and every task is accounted for. The
// overlay finishes more than the random reference (which sends tasks to
// nodes whatever their queue).
func TestSimulator(t *testing.T) {
	finished := map[string]uint64{}
	for _, sch := range []string{"overlay", "centralized", "random"} {
		c := simConfig(64, 6)
		c.Scheduler = sch
		r := run(t, c)
		if r.Policy != ownpolicy.Policy || r.TasksSubmitted == 0 || r.TasksFinished == 0 || !r.Conserved() {
			t.Fatalf("%s: %+v", sch, r)
		}
		finished[sch] = r.TasksFinished
	}
	if finished["overlay"] <= finished["random"] {
		t.Errorf("tasks finished: overlay %d, random %d: want the overlay ahead", finished["overlay"], finished["random"])
	}
	c := simConfig(48, 6)
	c.Churn = failure.Churn{Median: 15 * des.Minute}
	c.Catastrophe = failure.Catastrophe{Fraction: 0.2, At: 3 * des.Hour}
	r := run(t, c)
	if r.Failures == 0 || r.TasksAborted == 0 || !r.Conserved() {
		t.Fatalf("with failures: %+v", r)
	}
}

// TestSimulatorCheckpoint: a run of the policy stopped, saved in a
// checkpoint (its summaries and queues in its own encoding) and resumed in
// a fresh simulator ends as the run that was never stopped.
func TestSimulatorCheckpoint(t *testing.T) {
	c := simConfig(64, 4)
	c.Churn = failure.Churn{Median: 30 * des.Minute}
	whole := run(t, c)
	s, err := oversim.New(c)
	if err != nil {
		t.Fatal(err)
	}
	s.StopAt(whole.Events / 2)
	if _, err := s.Run(context.Background()); !errors.Is(err, oversim.ErrStopped) {
		t.Fatalf("stopped run: %v", err)
	}
	var buf bytes.Buffer
	if _, err := s.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	resumed, err := oversim.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.ReadCheckpoint(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
		t.Fatal(err)
	}
	got, err := resumed.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Resumes != 1 {
		t.Fatalf("resumed %d times, want 1", got.Resumes)
	}
	for _, r := range []*oversim.Result{whole, got} {
		r.WallSeconds, r.EventsPerSecond, r.HeapBytes, r.BytesPerNode, r.CPUSeconds, r.EventsPerCPUSecond, r.Resumes = 0, 0, 0, 0, 0, 0, 0
	}
	if !reflect.DeepEqual(got, whole) {
		t.Fatalf("resumed run:\n%+v\nwant\n%+v", got, whole)
	}
}

// TestAccuracy: the accuracy experiment runs the policy by its
// registration (its generic test: random nodes through the policy's
// executor) and measures the attributes its summaries say; SF_max 64
// keeps more of them than 4.
func TestAccuracy(t *testing.T) {
	if got, want := accuracy.Attributes(ownpolicy.Policy), []string{"memory", "disk", "free"}; !slices.Equal(got, want) {
		t.Fatalf("attributes %v, want %v", got, want)
	}
	var sums []float64
	for _, k := range []int{4, 64} {
		r, err := accuracy.Run(t.Context(), accuracy.Config{Policy: ownpolicy.Policy, Nodes: 1024, SFMax: k, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Aggregations != 1023 || r.Clusters > k || len(r.Accuracy) != 3 {
			t.Fatalf("sfmax %d: %+v", k, r)
		}
		sum := 0.0
		for a, v := range r.Accuracy {
			if !(v >= 0 && v <= 1) || math.IsNaN(v) {
				t.Fatalf("sfmax %d: %s accuracy %g", k, a, v)
			}
			sum += v
		}
		t.Logf("sfmax %d: %v", k, r.Accuracy)
		sums = append(sums, sum)
	}
	if !(sums[1] > sums[0]) {
		t.Errorf("accuracy summed over the attributes: %g at SF_max 64, %g at 4: want more at 64", sums[1], sums[0])
	}
}

// FuzzDecode: any input is refused without a panic or decodes to a valid
// message that re-encodes to the same bytes; the seeds are the policy's
// updates (`go test ./examples/own-policy -run '^$' -fuzz FuzzDecode`).
func FuzzDecode(f *testing.F) {
	for _, s := range []ownpolicy.Summary{
		{{Mem: 1024, Disk: 2048, Free: 3, V: 1}},
		{{Mem: 512, Disk: 100, Free: 1, V: 7}, {Mem: 512, Disk: 100, Free: 4, V: 2}, {Mem: 4096, Disk: 0, Free: 2, V: 1}},
	} {
		b, err := overlay.AppendMsg(nil, &overlay.Msg{Kind: overlay.KindUpdate, From: 2, To: 1, Sum: s})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := overlay.DecodeMsg(b)
		if err != nil {
			return
		}
		again, err := overlay.AppendMsg(nil, &m)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x (%v)", b, m, again, err)
		}
	})
}
