package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
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

// FuzzReadParams: whatever --params holds, ReadParams returns parameters
// that validate, or an error; what it returns writes back as JSON and reads
// the same.
func FuzzReadParams(f *testing.F) {
	b, _ := json.Marshal(DefaultParams())
	f.Add(string(b))
	f.Add(`{"power_min_mips": 500, "power_max_mips": 100}`)
	f.Add(`{"think_a": 1e308, "node_mem_mb": []}`)
	f.Add(`{"deadline_a": -1} {}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadParams(strings.NewReader(s), "p.json")
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted parameters that do not validate: %v", err)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("accepted parameters do not encode: %v", err)
		}
		back, err := ReadParams(bytes.NewReader(out), "again")
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, back, p)
		}
	})
}

// FuzzReadCDF and FuzzReadAppHist: the readers of the site-level data
// files return distributions whose draws are finite for every u in [0, 1),
// or an error.
func FuzzReadCDF(f *testing.F) {
	f.Add("10 0.5\n600 1\n")
	f.Add("# c\n1 0.2\n1 0.2\n3 1")
	f.Add("5 1e-300\n6 1")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ReadCDF(strings.NewReader(s), "x.cdf")
		if err != nil {
			return
		}
		for _, u := range []float64{0, 1e-300, 0.25, 0.5, 0.999999, math.Nextafter(1, 0)} {
			if q := c.Quantile(u); math.IsNaN(q) || math.IsInf(q, 0) {
				t.Fatalf("Quantile(%g) = %g", u, q)
			}
		}
	})
}

func FuzzReadAppHist(f *testing.F) {
	f.Add("100000 1 0 -1 5\n3000000 10 0 1024 1\n")
	f.Add("1 1 0 -1 1e300\n")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ReadAppHist(strings.NewReader(s), "apps.hist")
		if err != nil {
			return
		}
		for _, u := range []float64{0, 0.3, 0.999999, math.Nextafter(1, 0)} {
			c := h.Sample(u)
			if !(c.LengthMI > 0) || math.IsInf(c.LengthMI, 0) || c.Tasks < 1 {
				t.Fatalf("Sample(%g) = %+v", u, c)
			}
		}
	})
}
