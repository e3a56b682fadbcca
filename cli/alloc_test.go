package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAllocCLI(t *testing.T) {
	in := `{"p": [0.5, 0.2, 0.1, 0.4, 0.9, 0.3]}`
	var exactR float64
	for _, algo := range []string{"ea", "ppb", "epb", "gls", "exact"} {
		out, errs, code := runCLI(t, in, "alloc", "--probs", "-", "--tasks", "2", "--algo", algo, "--seed", "3")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", algo, code, errs)
		}
		var res struct {
			Allocation []int   `json:"allocation"`
			Rsys       float64 `json:"r_sys"`
			Algo       string  `json:"algo"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v in %q", algo, err, out)
		}
		if len(res.Allocation) != 6 || res.Algo != algo {
			t.Fatalf("%s: %+v", algo, res)
		}
		if algo == "exact" {
			exactR = res.Rsys
		}
	}
	// The optimum of this instance (checked by enumerating the 2^6
	// allocations): {0.1, 0.4, 0.9} and {0.5, 0.2, 0.3}.
	want := (1 - 0.1*0.4*0.9) * (1 - 0.5*0.2*0.3)
	if math.Abs(exactR-want) > 1e-12 {
		t.Fatalf("exact r_sys = %v, want %v", exactR, want)
	}
}

func TestAllocCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"p": [0.5, 1.5]}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"alloc", "--probs", bad, "--tasks", "1"}, "p[1] = 1.5"},
		{[]string{"alloc", "--probs", bad, "--tasks", "1", "--algo", "nope"}, `--algo: algorithm "nope", want one of ea, ppb, epb, sab, gls, exact`},
		{[]string{"alloc", "--gdfn", "0.5", "--hosts", "4", "--tasks", "2"}, "--gdfn"},
		{[]string{"alloc", "--gdfn", "0.5,0.3", "--hosts", "4", "--tasks", "5"}, "--tasks 5 with 4 hosts"},
		{[]string{"alloc", "--tasks", "2"}, "give --probs FILE or --gdfn"},
		{[]string{"exp", "redundant", "--figure", "7"}, "--figure 7"},
	}
	for _, c := range cases {
		_, errs, code := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error containing %q", c.args, code, errs, c.want)
		}
	}
}

func TestTraceCLI(t *testing.T) {
	dir := t.TempDir()
	_, errs, code := runCLI(t, "", "trace", "gen", "--preset", "ucb", "--seed", "2", "--out", filepath.Join(dir, "ucb.tab"))
	if code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, errs)
	}
	out, errs, code := runCLI(t, "", "trace", "fit", filepath.Join(dir, "ucb.tab"))
	if code != 0 {
		t.Fatalf("trace fit: exit %d: %s", code, errs)
	}
	var res struct {
		Hosts int `json:"hosts"`
		Fits  []struct {
			Name string `json:"name"`
		} `json:"fits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Hosts != 80 || len(res.Fits) != 3 {
		t.Fatalf("trace fit output %q (%v)", out, err)
	}
	os.WriteFile(filepath.Join(dir, "bad.tab"), []byte("1\t0\t7\t1\th\t1\t10\t5\t1\n"), 0o644)
	_, errs, code = runCLI(t, "", "trace", "fit", filepath.Join(dir, "bad.tab"))
	if code == 0 || !strings.Contains(errs, "bad.tab:1: event_stop_time") {
		t.Fatalf("bad trace: exit %d, stderr %q", code, errs)
	}
}
