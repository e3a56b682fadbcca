package trace

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
	"gonum.org/v1/gonum/stat/distuv"
)

const sample = `# a small FTA trace
1	0	7	1	hostA	1	1000	2000	1
2	0	7	1	hostA	0	2000	2500	1
3	0	7	1	hostA	1	2500	4000
4	0	9	1	hostB	1	1500.5	3000	0

5	0	9	1	hostB	0	3000	4000	1
`

func TestReadFTA(t *testing.T) {
	tr, err := ReadFTA(strings.NewReader(sample), "sample")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Nodes) != 2 || tr.Start != 1000 || tr.End != 4000 {
		t.Fatalf("nodes %d start %v end %v", len(tr.Nodes), tr.Start, tr.End)
	}
	d := tr.AvailabilityDurations()
	if len(d) != 3 || d[0] != 1000 || d[1] != 1500 || d[2] != 1499.5 {
		t.Fatalf("durations %v", d)
	}
	ok, since, until := tr.AvailableAt(0, 2600)
	if !ok || since != 2500 || until != 4000 {
		t.Fatalf("AvailableAt(2600) = %v %v %v", ok, since, until)
	}
	if ok, _, _ := tr.AvailableAt(0, 2100); ok {
		t.Fatal("available during an unavailability event")
	}
	if ok, _, _ := tr.AvailableAt(1, 3500); ok {
		t.Fatal("hostB available at 3500")
	}
}

func TestReadFTAErrors(t *testing.T) {
	cases := map[string]string{
		"1\t0\t7\t1\thostA\t1\t1000":                                         "sample:1: 7 tab-separated fields",
		"# c\n1\t0\t7\t1\thostA\t2\t1000\t2000\t1":                           "sample:2: event_type = \"2\"",
		"1\t0\t7\t1\thostA\t1\tabc\t2000\t1":                                 "sample:1: event_start_time = \"abc\"",
		"1\t0\t7\t1\thostA\t1\t3000\t2000\t1":                                "sample:1: event_stop_time 2000 is before",
		"1\t0\t7\t1\thostA\t1\t1000\t2000\n2\t0\t7\t1\thostA\t0\t1500\t2500": "sample:2: node 7: event [1500, 2500] overlaps the event of line 1",
		"1\t0\t\t1\thostA\t1\t1000\t2000\t1":                                 "sample:1: node_id is empty",
		"# only comments\n":                                                  "sample: no events",
		"1\t0\t7\t1\thostA\t1\t-5\t2000\t1":                                  "event_start_time = \"-5\"",
	}
	for in, want := range cases {
		_, err := ReadFTA(strings.NewReader(in), "sample")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("input %q: error %v, want it to contain %q", in, err, want)
		}
	}
}

func FuzzReadFTA(f *testing.F) {
	f.Add(sample)
	f.Add("1\t0\t7\t1\th\t1\t1e9\t1.5e9\t1\n")
	f.Add("#\n\n1\t0\t7\t1\th\t0\t0\t0")
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ReadFTA(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, n := range tr.Nodes {
			for k, e := range n.Events {
				if e.End < e.Start || e.Start < tr.Start || e.End > tr.End {
					t.Fatalf("invalid event accepted: %+v", e)
				}
				if k > 0 && e.Start < n.Events[k-1].End {
					t.Fatalf("overlap accepted: %+v", e)
				}
			}
		}
		// What was read writes back and reads the same.
		var b bytes.Buffer
		if err := WriteFTA(&b, tr, "round trip"); err != nil {
			t.Fatal(err)
		}
		tr2, err := ReadFTA(&b, "round trip")
		if err != nil {
			t.Fatalf("re-reading written trace: %v", err)
		}
		if len(tr2.Nodes) != len(tr.Nodes) {
			t.Fatalf("round trip: %d nodes, want %d", len(tr2.Nodes), len(tr.Nodes))
		}
	})
}

func TestFitsRecoverParameters(t *testing.T) {
	r := stream.New(3)
	const n = 20000
	draw := func(d interface{ Rand() float64 }) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = d.Rand()
		}
		return x
	}
	cases := []struct {
		name string
		x    []float64
		want []float64
	}{
		{"exponential", draw(distuv.Exponential{Rate: 0.01, Src: r}), []float64{0.01}},
		{"weibull", draw(distuv.Weibull{K: 0.6, Lambda: 5000, Src: r}), []float64{0.6, 5000}},
		{"weibull", draw(distuv.Weibull{K: 2.5, Lambda: 3, Src: r}), []float64{2.5, 3}},
		{"lognormal", draw(distuv.LogNormal{Mu: 16.42, Sigma: 2.419, Src: r}), []float64{16.42, 2.419}},
	}
	for _, c := range cases {
		fits, err := FitAll(c.x)
		if err != nil {
			t.Fatal(err)
		}
		var got Fit
		best := fits[0]
		for _, f := range fits {
			if f.Name == c.name {
				got = f
			}
			if f.KS < best.KS {
				best = f
			}
		}
		for i := range c.want {
			if math.Abs(got.Params[i]-c.want[i]) > 0.03*math.Abs(c.want[i]) {
				t.Fatalf("%s: fitted %v, want %v", c.name, got.Params, c.want)
			}
		}
		if got.KS > 1.95/math.Sqrt(n) {
			t.Fatalf("%s: KS D = %v too large for the true family", c.name, got.KS)
		}
		if best.Name != c.name && !(c.name == "exponential" && best.Name == "weibull") {
			t.Fatalf("%s data: smallest KS is %s (%v)", c.name, best.Name, best.KS)
		}
	}
	if _, err := FitLogNormal([]float64{1, -2, 3}); err == nil {
		t.Fatal("negative duration accepted")
	}
}

func TestGenerateMatchesPreset(t *testing.T) {
	p, err := PresetByName("ucb")
	if err != nil {
		t.Fatal(err)
	}
	tr := Generate(p, 1)
	if len(tr.Nodes) != 80 || tr.End-tr.Start != p.Seconds {
		t.Fatalf("%d nodes, %v s", len(tr.Nodes), tr.End-tr.Start)
	}
	// Intervals not cut by the trace ends follow the preset's log-normal.
	var d []float64
	for _, n := range tr.Nodes {
		for k, e := range n.Events {
			if e.Available && k > 0 && k < len(n.Events)-1 {
				d = append(d, (e.End-e.Start)*p.OpsPerSecond)
			}
		}
	}
	f, err := FitLogNormal(d)
	if err != nil {
		t.Fatal(err)
	}
	// Interior intervals are biased short (long ones tend to be cut), so
	// allow some slack.
	if math.Abs(f.Params[0]-p.Mu) > 0.3 || math.Abs(f.Params[1]-p.Sigma) > 0.3 {
		t.Fatalf("fit of generated intervals %v, preset %v %v (%d intervals)", f.Params, p.Mu, p.Sigma, len(d))
	}
	// Same seed, same trace; written and read back.
	var a, b bytes.Buffer
	WriteFTA(&a, tr, "x")
	WriteFTA(&b, Generate(p, 1), "x")
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("Generate is not deterministic")
	}
	if _, err := ReadFTA(&a, "gen"); err != nil {
		t.Fatal(err)
	}
}
