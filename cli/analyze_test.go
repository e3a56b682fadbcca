package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

func chainJSON(c availability.Chain) string {
	b, _ := json.Marshal(struct {
		P [3][3]float64 `json:"P"`
	}{c.P})
	return string(b)
}

// TestAnalyzeCLI: analyze prints analytic.AnalyzeChain and
// analytic.AnalyzeSet (tested against an exact computation in package
// analytic) as indented JSON.
func TestAnalyzeCLI(t *testing.T) {
	rng := stream.New(99)
	c := availability.Random(rng)
	out, errOut, code := runCLI(t, chainJSON(c), "analyze", "--chain", "-", "--work", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, _ := json.MarshalIndent(analytic.AnalyzeChain(c, 7), "", "  ")
	if out != string(want)+"\n" {
		t.Errorf("analyze --chain printed\n%s\nwant\n%s", out, want)
	}
	chains := []availability.Chain{availability.Random(rng), availability.Random(rng), availability.Random(rng)}
	parts := make([]string, len(chains))
	for i, c := range chains {
		parts[i] = chainJSON(c)
	}
	path := filepath.Join(t.TempDir(), "set.json")
	if err := os.WriteFile(path, []byte(`{"chains": [`+strings.Join(parts, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, "", "analyze", "--set", path, "--work", "6", "--ncom", "2", "--comm", "5,3,4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := analytic.AnalyzeSet(chains, 6, 1e-9, 2, []float64{5, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	want, _ = json.MarshalIndent(res, "", "  ")
	if out != string(want)+"\n" {
		t.Errorf("analyze --set printed\n%s\nwant\n%s", out, want)
	}
}

func TestAnalyzeBadInput(t *testing.T) {
	good := `{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`
	cases := []struct {
		stdin string
		args  []string
		want  string
	}{
		{good, []string{"analyze", "--chain", "-"}, "--work"},
		{good, []string{"analyze", "--chain", "-", "--work", "0"}, "--work = 0"},
		{good, []string{"analyze", "--work", "3"}, "exactly one of --chain"},
		{`{"P": [[0.9,0.05,0.06],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`, []string{"analyze", "--chain", "-", "--work", "3"}, "row 0 (from state u) sums to 1.01"},
		{`{"P": [[0.9,0.05,0.05]`, []string{"analyze", "--chain", "-", "--work", "3"}, "<stdin>"},
		{"", []string{"analyze", "--chain", "/no/such/file.json", "--work", "3"}, "/no/such/file.json"},
		{`{"chains": [` + good + `]}`, []string{"analyze", "--set", "-", "--work", "3", "--ncom", "2", "--comm", "1,2"}, "--comm has 2 values, want 1"},
		{`{"chains": [` + good + `]}`, []string{"analyze", "--set", "-", "--work", "3", "--ncom", "0", "--comm", "1"}, "--ncom = 0"},
		{`{"chains": [` + good + `]}`, []string{"analyze", "--set", "-", "--work", "3", "--ncom", "1", "--comm", "x"}, `"x"`},
		{good, []string{"analyze", "--chain", "-", "--work", "abc"}, "--work"},
	}
	for _, tc := range cases {
		_, errOut, code := runCLI(t, tc.stdin, tc.args...)
		if code == 0 {
			t.Errorf("%v: exit 0", tc.args)
		}
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q does not mention %q", tc.args, errOut, tc.want)
		}
		if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
			t.Errorf("%v: panicked: %s", tc.args, errOut)
		}
	}
}

// TestAnalyzeStationary: every stationary vector analyze prints satisfies
// πP = π, and a chain with several closed classes is reported as such (in
// the JSON and on standard error) instead of one distribution being picked
// silently. The first chain is the case the former computation got wrong:
// a period-2 class beside an absorbing DOWN, for which it printed UP with
// probability 1 (not stationary: the next slot is RECLAIMED).
func TestAnalyzeStationary(t *testing.T) {
	for _, tc := range []struct {
		P       [3][3]float64
		classes []string // empty: unique
	}{
		{[3][3]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}, []string{"u r", "d"}},
		{[3][3]float64{{0.5, 0.125, 0.375}, {0, 1, 0}, {0, 0, 1}}, []string{"r", "d"}},
		{[3][3]float64{{1 - 1e-15, 1e-15, 0}, {1e-15, 1 - 1e-15, 0}, {0, 0, 1}}, []string{"u r", "d"}},
		{[3][3]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, nil},
		{[3][3]float64{{0.8, 0.2, 0}, {0.1, 0.9, 0}, {0.5, 0.5, 0}}, nil},
	} {
		c := availability.Chain{P: tc.P}
		out, errOut, code := runCLI(t, chainJSON(c), "analyze", "--chain", "-", "--work", "3")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.P, code, errOut)
		}
		var got struct {
			Stationary    analytic.Stationary `json:"stationary"`
			Unique        *bool               `json:"stationary_unique"`
			ClosedClasses []struct {
				States     []string            `json:"states"`
				Stationary analytic.Stationary `json:"stationary"`
			} `json:"closed_classes"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v in %s", tc.P, err, out)
		}
		pis := []analytic.Stationary{got.Stationary}
		var classes []string
		for _, k := range got.ClosedClasses {
			pis = append(pis, k.Stationary)
			classes = append(classes, strings.Join(k.States, " "))
		}
		for _, s := range pis {
			pi := [3]float64{float64(s.Up), float64(s.Reclaimed), float64(s.Down)}
			for j := range 3 {
				v := pi[0]*c.P[0][j] + pi[1]*c.P[1][j] + pi[2]*c.P[2][j]
				if math.Abs(v-pi[j]) > 1e-15 {
					t.Errorf("%v: printed π = %v, but (πP)[%d] = %v", tc.P, pi, j, v)
				}
			}
		}
		if got.Unique == nil || *got.Unique != (tc.classes == nil) {
			t.Errorf("%v: stationary_unique = %v, want %v", tc.P, got.Unique, tc.classes == nil)
		}
		if strings.Join(classes, ", ") != strings.Join(tc.classes, ", ") {
			t.Errorf("%v: closed_classes %q, want %q", tc.P, classes, tc.classes)
		}
		if warned := strings.Contains(errOut, "several stationary distributions"); warned != (tc.classes != nil) {
			t.Errorf("%v: stderr %q: warning %v, want %v", tc.P, errOut, warned, tc.classes != nil)
		}
	}
}
