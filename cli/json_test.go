package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// negZero finds a JSON number token -0 (or -0.0…).
var negZero = regexp.MustCompile(`(^|[\[,:\s])-0(\.0+)?([,\]}\s]|$)`)

// TestJSONNonFiniteIsNullAndNoNegativeZero: the commands that print JSON
// follow the project's convention (docs/design.md): a number that is not
// finite is null (analyze wrote "+Inf", alloc null), never a string, and
// negative zero is 0.
func TestJSONNonFiniteIsNullAndNoNegativeZero(t *testing.T) {
	for _, c := range []struct {
		stdin string
		args  []string
		null  []string // fields that must be null
	}{
		{`{"P":[[0.5,0.5,0],[0,1,0],[0,0,1]]}`, []string{"analyze", "--chain", "-", "--work", "3"}, nil},
		{`{"P":[[0,0,1],[0,0,1],[1,0,0]]}`, []string{"analyze", "--chain", "-", "--work", "3"}, []string{"expected_time"}},
		{`{"chains":[{"P":[[0.9,0.1,0],[0.2,0.8,0],[0,0,1]]},{"P":[[0.9,0.1,0],[0.2,0.8,0],[0,0,1]]}]}`, []string{"analyze", "--set", "-", "--work", "3"}, []string{"e_u", "a"}},
		{`{"chains":[{"P":[[0.9,0.05,0.05],[0.05,0.9,0.05],[0.05,0.05,0.9]]}]}`, []string{"analyze", "--set", "-", "--work", "10", "--ncom", "1", "--comm", "1e308"}, []string{"e_comm"}},
		{`{"p":[1,1,1]}`, []string{"alloc", "--probs", "-", "--tasks", "2"}, []string{"log_r_sys"}},
		{"", []string{"alloc", "--gdfn", "0.5,1e308", "--hosts", "4", "--tasks", "2"}, nil},
	} {
		out, e, code := runCLI(t, c.stdin, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, e)
			continue
		}
		if strings.Contains(out, "Inf") || strings.Contains(out, "NaN") || negZero.MatchString(out) {
			t.Errorf("%v: output %s: want null for non-finite numbers and no -0", c.args, out)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		for _, f := range c.null {
			if v, ok := m[f]; !ok || v != nil {
				t.Errorf("%v: %s = %v, want null", c.args, f, v)
			}
		}
	}
}

// TestJSONInputEdgeCases (issue 28): every JSON file the command line reads
// skips a UTF-8 byte-order mark (it used to say "got a number, want a JSON
// object" or "invalid character 'ï'") and names the field of a NaN (it used
// to give a line and column only).
func TestJSONInputEdgeCases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const bom = "\uFEFF"
	platform, err := os.ReadFile(filepath.Join(whatifExamples, "platform.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lab.csv", "desktops.tab", "independent.json"} {
		b, err := os.ReadFile(filepath.Join(whatifExamples, f))
		if err != nil {
			t.Fatal(err)
		}
		write(f, string(b))
	}
	app := filepath.Join(dir, "independent.json")
	nanPlatform := strings.Replace(string(platform), `"name": "cluster", "count": 4, "w": 2,`, `"name": "cluster", "count": 4, "w": NaN,`, 1)
	if nanPlatform == string(platform) {
		t.Fatal("the example platform changed: update the NaN case")
	}
	chain := `{"P": [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]]}`
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  string // in stderr; "" for success
	}{
		{"simulate, mark", "", []string{"simulate", "--platform", write("bom.json", bom+string(platform)), "--app", app, "--trials", "2", "--heuristics", "EMCT"}, ""},
		{"simulate, app with a mark", "", []string{"simulate", "--platform", write("p.json", string(platform)), "--app", write("app.json", bom+`{"kind": "independent", "tasks": 5, "iterations": 1}`), "--trials", "2", "--heuristics", "EMCT"}, ""},
		{"simulate, NaN", "", []string{"simulate", "--platform", write("nan.json", nanPlatform), "--app", app}, `nan.json:25:43: field "workers[0].w": got NaN, want a number (JSON has no NaN or infinity)`},
		{"analyze, mark", bom + chain, []string{"analyze", "--chain", "-", "--work", "3"}, ""},
		{"analyze, NaN", `{"P": [[0.9, 0.05, 0.05], [0.1, NaN, 0.1], [0.2, 0.3, 0.5]]}`, []string{"analyze", "--chain", "-", "--work", "3"}, `<stdin>:1:33: field "P[1][1]": got NaN`},
		{"analyze --set, NaN", `{"chains": [` + chain + `, {"P": [[1, 0, 0], [0, 1, 0], [0, 0, -Infinity]]}]}`, []string{"analyze", "--set", "-", "--work", "3"}, `field "chains[1].P[2][2]": got -Infinity`},
		{"alloc, mark", bom + `{"p": [0.1, 0.2]}`, []string{"alloc", "--probs", "-", "--tasks", "1"}, ""},
		{"alloc, NaN", `{"p": [0.1, NaN]}`, []string{"alloc", "--probs", "-", "--tasks", "1"}, `<stdin>:1:13: field "p[1]": got NaN`},
		{"UTF-16", "\xFF\xFE{\x00}\x00", []string{"analyze", "--chain", "-", "--work", "3"}, "UTF-16"},
	} {
		_, errOut, code := runCLI(t, c.stdin, c.args...)
		switch {
		case c.want == "" && code != 0:
			t.Errorf("%s: exit %d: %s", c.name, code, errOut)
		case c.want != "" && (code == 0 || !strings.Contains(errOut, c.want)):
			t.Errorf("%s: exit %d, stderr %q; want an error containing %q", c.name, code, errOut, c.want)
		}
	}
}
