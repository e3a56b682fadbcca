package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// exactSet computes, by propagating the joint distribution of the
// processors' states (no formula from the papers involved), the probability
// that W all-UP slots are reached before any DOWN and the expected
// completion time conditioned on that, for processors all UP at slot 0.
func exactSet(chains []availability.Chain, W int) (pSucc, eCond float64) {
	if W <= 1 {
		return 1, 1
	}
	n := len(chains)
	nv := 1 << n // bit i set: processor i RECLAIMED, clear: UP
	// mass[k][v]: probability of having seen k all-UP slots (1..W-1) and being in v.
	mass := make([][]float64, W)
	for k := range mass {
		mass[k] = make([]float64, nv)
	}
	mass[1][0] = 1
	trans := make([][]float64, nv) // trans[v][v'] without DOWN
	for v := 0; v < nv; v++ {
		trans[v] = make([]float64, nv)
		for v2 := 0; v2 < nv; v2++ {
			p := 1.0
			for i, c := range chains {
				from, to := (v>>i)&1, (v2>>i)&1
				p *= c.P[from][to]
			}
			trans[v][v2] = p
		}
	}
	var sumT float64
	for t := 1; t < 10000000; t++ {
		next := make([][]float64, W)
		left := 0.0
		for k := range next {
			next[k] = make([]float64, nv)
		}
		for k := 1; k < W; k++ {
			for v, m := range mass[k] {
				if m == 0 {
					continue
				}
				for v2, p := range trans[v] {
					x := m * p
					if v2 == 0 {
						if k+1 == W {
							pSucc += x
							sumT += x * float64(t+1)
							continue
						}
						next[k+1][v2] += x
					} else {
						next[k][v2] += x
					}
					left += x
				}
			}
		}
		mass = next
		if left < 1e-14 {
			break
		}
	}
	return pSucc, sumT / pSucc
}

func exactNotDown(c availability.Chain, k int) float64 {
	x, y := 1.0, 0.0
	for s := 1; s < k; s++ {
		x, y = x*c.P[0][0]+y*c.P[1][0], x*c.P[0][1]+y*c.P[1][1]
	}
	return x + y
}

func exactStationary(c availability.Chain) [3]float64 {
	v := [3]float64{1, 0, 0}
	for s := 0; s < 200000; s++ {
		var w [3]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				w[j] += v[i] * c.P[i][j]
			}
		}
		v = w
	}
	return v
}

func relClose(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(math.Abs(want), 1e-12) {
		t.Errorf("%s = %.10g, exact %.10g (relative error %.2g)", what, got, want, math.Abs(got-want)/math.Abs(want))
	}
}

func chainJSON(c availability.Chain) string {
	b, _ := json.Marshal(struct {
		P [3][3]float64 `json:"P"`
	}{c.P})
	return string(b)
}

func TestAnalyzeChainAgainstExactComputation(t *testing.T) {
	rng := stream.New(99)
	for i := 0; i < 3; i++ {
		c := availability.Random(rng)
		for _, W := range []int{1, 2, 7} {
			out, errOut, code := runCLI(t, chainJSON(c), "analyze", "--chain", "-", "--work", fmt.Sprint(W))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got struct {
				Stationary struct{ Up, Reclaimed, Down float64 }
				PPlus      float64 `json:"p_plus"`
				E          float64 `json:"expected_time"`
				PUDExact   float64 `json:"p_ud_exact"`
				PUDApprox  float64 `json:"p_ud_approx"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			pi := exactStationary(c)
			relClose(t, "stationary up", got.Stationary.Up, pi[0])
			relClose(t, "stationary reclaimed", got.Stationary.Reclaimed, pi[1])
			relClose(t, "stationary down", got.Stationary.Down, pi[2])
			pPlus, _ := exactSet([]availability.Chain{c}, 2)
			relClose(t, "p_plus", got.PPlus, pPlus)
			_, e := exactSet([]availability.Chain{c}, W)
			relClose(t, "expected_time", got.E, e)
			relClose(t, "p_ud_exact", got.PUDExact, exactNotDown(c, W))
			if got.PUDApprox <= 0 || got.PUDApprox > 1 {
				t.Errorf("p_ud_approx = %g", got.PUDApprox)
			}
		}
	}
}

func TestAnalyzeSetAgainstExactComputation(t *testing.T) {
	rng := stream.New(98)
	chains := []availability.Chain{availability.Random(rng), availability.Random(rng), availability.Random(rng)}
	parts := make([]string, len(chains))
	for i, c := range chains {
		parts[i] = chainJSON(c)
	}
	in := `{"chains": [` + strings.Join(parts, ",") + `]}`
	path := filepath.Join(t.TempDir(), "set.json")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	const W = 6
	out, errOut, code := runCLI(t, "", "analyze", "--set", path, "--work", fmt.Sprint(W), "--ncom", "2", "--comm", "5,3,4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	pPlus, _ := exactSet(chains, 2)
	pW, eW := exactSet(chains, W)
	relClose(t, "p_plus", got["p_plus"].(float64), pPlus)
	relClose(t, "p_success", got["p_success"].(float64), pW)
	relClose(t, "expected_time_conditional", got["expected_time_conditional"].(float64), eW)
	// The published form, recomputed from the exact P+ and E_c = P+·(mean gap).
	ecExact := pPlus * ((eW - 1) / (W - 1))
	relClose(t, "expected_time_published", got["expected_time_published"].(float64), (1+(W-1)*ecExact)/math.Pow(pPlus, W-1))
	// E_comm with 3 members and n_com = 2: max(max_q E^(q)(n_q), (5+3+4)/2).
	mx := 6.0
	for i, n := range []int{5, 3, 4} {
		p1, _ := exactSet(chains[i:i+1], 2)
		_, e1 := exactSet(chains[i:i+1], n)
		// published single-processor form: (1 + (n-1)E_c)/P+^(n-1), E_c = P+·mean gap
		ec := p1 * (e1 - 1) / float64(n-1)
		if v := (1 + float64(n-1)*ec) / math.Pow(p1, float64(n-1)); v > mx {
			mx = v
		}
	}
	relClose(t, "e_comm", got["e_comm"].(float64), mx)
	if p := got["p_comm"].(float64); !(p > 0 && p < 1) {
		t.Errorf("p_comm = %g", p)
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
