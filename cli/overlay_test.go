package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// accuracyJSON runs overlay accuracy with args and decodes its output.
func accuracyJSON(t *testing.T, args ...string) (out string, r accuracyOut) {
	t.Helper()
	out, _, code := runCLI(t, "", append([]string{"overlay", "accuracy"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d", args, code)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v: %q", err, out)
	}
	return out, r
}

type accuracyOut struct {
	Policy     string             `json:"policy"`
	Nodes      int                `json:"nodes"`
	SFMax      int                `json:"sfmax"`
	Distance   string             `json:"distance"`
	Clustering string             `json:"clustering"`
	Cells      string             `json:"cells"`
	Accuracy   map[string]float64 `json:"accuracy"`
}

func TestOverlayAccuracyJSON(t *testing.T) {
	out, r := accuracyJSON(t, "--policy", "mmp", "--nodes", "256", "--sfmax", "16", "--seed", "3")
	if r.Policy != "mmp" || r.Nodes != 256 || r.SFMax != 16 || len(r.Accuracy) != 4 {
		t.Fatalf("got %+v", r)
	}
	for k, v := range r.Accuracy {
		if !(v >= 0 && v <= 1) {
			t.Errorf("%s = %g, want a fraction", k, v)
		}
	}
	again, _, _ := runCLI(t, "", "overlay", "accuracy", "--policy", "mmp", "--nodes", "256", "--sfmax", "16", "--seed", "3")
	if again != out {
		t.Errorf("same seed, different output:\n%s\n%s", out, again)
	}
}

// TestOverlayAccuracyDefaultSFMax: without --sfmax a policy's own
// default SF_max is used (it was IBP's, 225, for every policy).
func TestOverlayAccuracyDefaultSFMax(t *testing.T) {
	for _, c := range []struct {
		policy string
		sfmax  int
	}{{"ibp", 225}, {"mmp", 256}, {"dp", 216}} {
		if _, r := accuracyJSON(t, "--policy", c.policy, "--nodes", "64"); r.SFMax != c.sfmax {
			t.Errorf("--policy %s: SF_max %d, want its default %d", c.policy, r.SFMax, c.sfmax)
		}
	}
}

func TestOverlayAccuracyBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "xyz"}, `--policy "xyz"`},
		{[]string{"--nodes", "0"}, "nodes 0"},
		{[]string{"--sfmax", "0"}, "--sfmax 0"},
		{[]string{"--nodes", "abc"}, "nodes"},
		{[]string{"--distance", "l2"}, "--distance"},
		{[]string{"--policy", "ibp", "--distance", "stars"}, "policy dp only"},
		{[]string{"--policy", "mmp", "--distance", "stars"}, "policy dp only"},
		{[]string{"--cells", "max"}, `--cells "max"`},
		{[]string{"--clustering", "knn"}, `--clustering "knn"`},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"overlay", "accuracy"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errOut, c.want)
		}
	}
}

func TestOverlayAccuracyStars(t *testing.T) {
	_, r := accuracyJSON(t, "--policy", "dp", "--nodes", "256", "--sfmax", "8", "--distance", "stars")
	if r.Distance != "stars" || len(r.Accuracy) != 3 {
		t.Fatalf("got %+v", r)
	}
}

// TestOverlayAccuracyAuthorsChoices: the authors' three choices are
// recorded in the JSON, and their cells change a small-SF_max result.
func TestOverlayAccuracyAuthorsChoices(t *testing.T) {
	_, def := accuracyJSON(t, "--policy", "mmp", "--nodes", "1024", "--sfmax", "16")
	if def.Clustering != "" || def.Cells != "" {
		t.Fatalf("default run records clustering %q, cells %q; want neither", def.Clustering, def.Cells)
	}
	_, r := accuracyJSON(t, "--policy", "mmp", "--nodes", "1024", "--sfmax", "16", "--clustering", "stars", "--cells", "stars")
	if r.Clustering != "stars" || r.Cells != "stars" {
		t.Fatalf("got clustering %q, cells %q; want stars, stars", r.Clustering, r.Cells)
	}
	_, c := accuracyJSON(t, "--policy", "mmp", "--nodes", "1024", "--sfmax", "16", "--cells", "stars")
	if c.Accuracy["memory"] == def.Accuracy["memory"] {
		t.Errorf("--cells stars left memory at %v", c.Accuracy["memory"])
	}
}

// TestReproduceOverlayQuick: the reduced Tables 2 and 3 are printed, Table 2
// twice (ours, then with the authors' choices), and a cell of the second
// is what `overlay accuracy` gives with the same flags.
func TestReproduceOverlayQuick(t *testing.T) {
	out, errOut, code := runCLI(t, "", "reproduce", "--quick", "--only", "overlay", "--seed", "1")
	if code != 0 || strings.Contains(out, "FAILED") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	const authors = "Table 2 with the authors' choices"
	for _, want := range []string{"Table 2: 1024 nodes", authors, "Table 3:"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// the DP l row of the authors' table: first cell is SF_max 8
	var cell string
	for _, line := range strings.Split(out[strings.Index(out, authors):], "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "l" {
			cell = f[1]
			break
		}
	}
	_, r := accuracyJSON(t, "--policy", "dp", "--nodes", "1024", "--sfmax", "8", "--seed", "1",
		"--distance", "stars", "--clustering", "stars", "--cells", "stars")
	if want := fmt.Sprintf("%.1f", 100*r.Accuracy["l"]); cell != want {
		t.Errorf("authors' table DP l at SF_max 8: %q, overlay accuracy gives %s", cell, want)
	}
}
