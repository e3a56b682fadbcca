package master

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/volsched/volsched/trace"
)

// TestFTANoOverlap replays a worker's records in which back-fills move the
// start of its current state into the past: a return before it registered
// (which removes the DOWN interval), then silence detected later (DOWN
// since its first missed heart-beat, after its UP interval was merged
// with the one before). The trace must stay a sequence of disjoint
// intervals (trace.ReadFTA refuses overlaps) that cover the worker's time
// from its first registration. (The merged interval's start was lost once
// the DOWN interval had been removed, and the second back-fill overlapped
// it: TestFaultFreeHashchain failed that way on a loaded machine.)
func TestFTANoOverlap(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	f := newFTARecorder(start)
	ms := func(x int64) int64 { return x * int64(time.Millisecond) }
	for _, r := range []LogRecord{
		{T: ms(0), Kind: LogRegister},
		{T: ms(100), Kind: LogDown},
		{T: ms(100), Kind: LogBackfill, Since: ms(80)}, // silent since 80
		{T: ms(150), Kind: LogRegister},
		{T: ms(150), Kind: LogBackfill, Since: ms(50)}, // UP all along: no DOWN interval
		{T: ms(300), Kind: LogDown},
		{T: ms(300), Kind: LogBackfill, Since: ms(250)},
		{T: ms(400), Kind: LogRegister},
		{T: ms(400), Kind: LogBackfill, Since: ms(380)},
		{T: ms(450), Kind: LogState, Info: "RECLAIMED"},
		{T: ms(440), Kind: LogState, Info: "UP"}, // out of order: not before the last
	} {
		f.record("w", r)
	}
	path := filepath.Join(t.TempDir(), "a.fta")
	if err := f.write(path, ms(500)); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tr, err := trace.ReadFTA(file, "a.fta")
	if err != nil {
		t.Fatal(err)
	}
	ev := tr.Nodes[0].Events
	t.Logf("%+v", ev)
	if got, want := ev[0].Start, f.at(0); got != want {
		t.Errorf("first interval starts at %v, want %v", got, want)
	}
	if got, want := ev[len(ev)-1].End, f.at(ms(500)); got != want {
		t.Errorf("last interval ends at %v, want %v", got, want)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].Start != ev[i-1].End {
			t.Errorf("interval %d starts at %v, the one before ends at %v", i, ev[i].Start, ev[i-1].End)
		}
	}
	var down float64
	for _, e := range ev {
		if e.EndReason == "down" {
			down += e.End - e.Start
		}
	}
	if want := 0.130; down < want-1e-6 || down > want+1e-6 { // 250-380 only; 80-100 removed by the return at 50
		t.Errorf("DOWN for %.3f s, want %.3f", down, want)
	}
}
