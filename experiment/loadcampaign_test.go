package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// loadTestParams are the parameters of the campaigns of LoadCampaign's
// tests: one unit per value of N.
type loadTestParams struct {
	Trials int   `json:"trials"`
	N      []int `json:"n"`
	Sub    struct {
		Rate float64 `json:"rate"`
	} `json:"sub"`
}

func (p *loadTestParams) Validate() error {
	if p.Trials < 1 {
		return fmt.Errorf("trials = %d, want ≥ 1", p.Trials)
	}
	return nil
}

func (p *loadTestParams) Units() int { return len(p.N) }

const loadTestKind = "load-test"

// runLoadTest runs a campaign of kind with params (any JSON value) and
// units units in a new directory and returns it.
func runLoadTest(t *testing.T, kind string, params any, units int) string {
	t.Helper()
	raw, err := CanonicalJSON(params)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := Manifest{Kind: kind, Seed: testSeed, Units: units, Params: raw, Shard: Whole}
	mustRun(t, dir, m, 2)
	return dir
}

func goodLoadTestParams() map[string]any {
	return map[string]any{"trials": 3, "n": []int{10, 20, 30, 40}, "sub": map[string]any{"rate": 0.5}}
}

func TestLoadCampaign(t *testing.T) {
	dir := runLoadTest(t, loadTestKind, goodLoadTestParams(), 4)
	m, p, results, err := LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != loadTestKind || m.Seed != testSeed || m.Units != 4 {
		t.Errorf("manifest %+v", m)
	}
	if p.Trials != 3 || !reflect.DeepEqual(p.N, []int{10, 20, 30, 40}) || p.Sub.Rate != 0.5 {
		t.Errorf("params %+v", *p)
	}
	if !reflect.DeepEqual(results, mustLoadComplete(t, dir)) || results[2].Unit != 2 {
		t.Errorf("results %+v, want LoadComplete's, ordered by unit", results)
	}
	// The campaign's files are readable by others, as figures and reports
	// (they were 0600: a temporary file's mode).
	if st, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, want 0644", ManifestFile, st.Mode().Perm())
	}
}

func TestLoadCampaignIncomplete(t *testing.T) {
	dir := runLoadTest(t, loadTestKind, goodLoadTestParams(), 4)
	path := filepath.Join(dir, ResultsFileName(Whole))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the lines of units 0 and 3 only.
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(l, `{"unit":0,`) || strings.HasPrefix(l, `{"unit":3,`) {
			kept = append(kept, l)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("results file %q: want lines for units 0 and 3", data)
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "2 of 4 units missing (1, 2)") {
		t.Errorf("incomplete campaign: %v, want ErrIncomplete naming %s and units 1, 2", err, dir)
	}

	// The partial form returns what is there.
	_, p, results, present, err := LoadCampaignPartial[loadTestParams, testResult](dir, loadTestKind)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(present, []bool{true, false, false, true}) || results[3].Unit != 3 || p.Trials != 3 {
		t.Errorf("partial: present %v, results %+v, params %+v", present, results, *p)
	}
}

func TestLoadCampaignBadParams(t *testing.T) {
	manifest := func(dir string) string { return filepath.Join(dir, ManifestFile) }
	for _, tc := range []struct {
		name   string
		kind   string
		params any
		units  int
		want   []string
	}{
		{"wrong type", loadTestKind, map[string]any{"trials": "ten", "n": []int{1}}, 1,
			[]string{`params: field "trials" is "ten", want a value of type int`}},
		{"wrong type nested", loadTestKind, map[string]any{"trials": 1, "n": []int{1}, "sub": map[string]any{"rate": []int{7}}}, 1,
			[]string{`params: field "sub.rate" is [7], want a value of type float64`}},
		{"wrong type in a list", loadTestKind, map[string]any{"trials": 1, "n": []any{1, "x"}}, 2,
			[]string{`params: field "n" is [1,"x"]: an element is a JSON string, want a value of type int`}},
		{"not an object", loadTestKind, []int{1, 2}, 2,
			[]string{"params: a JSON array, want an object"}},
		{"refused by Validate", loadTestKind, map[string]any{"trials": 0, "n": []int{1}}, 1,
			[]string{"params: trials = 0, want ≥ 1"}},
		{"units differ", loadTestKind, map[string]any{"trials": 1, "n": []int{1, 2}}, 3,
			[]string{"units 3, but its params give 2 units"}},
		{"another kind", "other-kind", goodLoadTestParams(), 4,
			[]string{`kind "other-kind", want "load-test"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runLoadTest(t, tc.kind, tc.params, tc.units)
			_, p, rs, err := LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
			if err == nil {
				t.Fatalf("loaded params %+v and %d results, want an error", *p, len(rs))
			}
			t.Log(err)
			for _, w := range append(tc.want, manifest(dir)) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}

	// A manifest without params, or with null.
	for _, params := range []any{json.RawMessage(nil), nil} {
		dir := runLoadTest(t, loadTestKind, params, 1)
		_, _, _, err := LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
		if err == nil || !strings.Contains(err.Error(), manifest(dir)+": params: none") {
			t.Errorf("params %v: %v", params, err)
		}
	}
}

func TestLoadCampaignDamagedResults(t *testing.T) {
	dir := runLoadTest(t, loadTestKind, goodLoadTestParams(), 4)
	path := filepath.Join(dir, ResultsFileName(Whole))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")

	// A line before the last that is not JSON.
	damaged := append([]string(nil), lines...)
	damaged[1] = "{\"unit\":1,\"result\":{\"mean\":\n"
	if err := os.WriteFile(path, []byte(strings.Join(damaged, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
	if err == nil || !strings.Contains(err.Error(), path+" line 2") {
		t.Errorf("damaged line 2: %v, want an error naming %s line 2", err, path)
	}

	// A well-formed line whose result is not a testResult.
	damaged = append([]string(nil), lines...)
	var first struct{ Unit int }
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	unit := fmt.Sprint(first.Unit)
	damaged[0] = `{"unit":` + unit + `,"result":{"mean":"high"}}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Join(damaged, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
	if err == nil || !strings.Contains(err.Error(), path+": unit "+unit+": decode result") {
		t.Errorf("result of the wrong type: %v, want an error naming %s and unit %s", err, path, unit)
	}
}

func TestLoadCampaignMissingManifest(t *testing.T) {
	dir := runLoadTest(t, loadTestKind, goodLoadTestParams(), 4)
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := LoadCampaign[loadTestParams, testResult](dir, loadTestKind)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
		t.Errorf("missing manifest: %v, want os.ErrNotExist naming the file", err)
	}
	_, _, _, err = LoadCampaign[loadTestParams, testResult](filepath.Join(dir, "nowhere"), loadTestKind)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: %v, want os.ErrNotExist", err)
	}
}
