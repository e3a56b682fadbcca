package workload

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/volsched/volsched/des"
)

// Lengths and times that the simulated clock cannot represent (they made
// `overlay sim` process hundreds of millions of events at a still
// simulated time) are refused by the readers with the line named.
func TestReadersRefuseUnrepresentable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{TraceHeader + "\n0,0,1,1,1000,0,0,0\n0,0,2,1,1e16,0,0,0\n", "t.csv:3: length_mi"},
		{TraceHeader + "\n0,0,1,1,1e13,0,0,0\n", "t.csv:2: length_mi"},
		{TraceHeader + "\n0,0,1,1,+Inf,0,0,0\n", "t.csv:2: length_mi"},
		{TraceHeader + "\n1e10,0,1,1,10,0,0,0\n", "t.csv:2: submit_s"},
	} {
		if _, err := ReadTrace(strings.NewReader(c.in), "t.csv", 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadTrace(%q): err = %v, want %q", c.in, err, c.want)
		}
	}
	row := func(submit, run string) string {
		return "; log\n1 " + submit + " 0 " + run + " 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n"
	}
	for _, c := range []struct{ in, want string }{
		{row("0", "1e10"), "s.swf:2: field 4 (run time)"},
		{row("1e10", "100"), "s.swf:2: field 2 (submit time)"},
	} {
		if _, err := ReadSWF(strings.NewReader(c.in), "s.swf"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSWF(%q): err = %v, want %q", c.in, err, c.want)
		}
	}
	// A run time the reader accepts may still make a task too long at the
	// given power: the conversion names the line.
	jobs, err := ReadSWF(strings.NewReader(row("0", "100")+"2 0 0 5e9 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n"), "s.swf")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := FromSWF(jobs, SWFOptions{Nodes: 4, PowerMIPS: 1000}); err == nil || !strings.Contains(err.Error(), "line 3 (job 2)") {
		t.Errorf("FromSWF with a 5e9 s job at 1000 MIPS: err = %v, want line 3 named", err)
	}
}

// WriteGenerated writes exactly what Generate then WriteTrace write,
// without holding the jobs; a cancelled context stops it with the
// context's error.
func TestWriteGeneratedMatchesGenerate(t *testing.T) {
	p := DefaultParams()
	d := testDistributions(t)
	for _, c := range []struct {
		nodes int
		days  int
	}{{1, 3}, {7, 2}, {60, 9}} {
		jobs, err := Generate(&p, d, 5, c.nodes, des.Time(c.days)*des.Day)
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := WriteTrace(&want, jobs); err != nil {
			t.Fatal(err)
		}
		if err := WriteGenerated(context.Background(), &got, &p, d, 5, c.nodes, des.Time(c.days)*des.Day); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%d nodes, %d days: streamed trace (%d bytes) differs from Generate's (%d bytes)", c.nodes, c.days, got.Len(), want.Len())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteGenerated(ctx, io.Discard, &p, d, 5, 100_000, 365*des.Day); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
