package cli

import (
	"encoding/json"
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
