package cli

import (
	"strings"
	"testing"
)

// TestDemoRefusesBadFlags: each bad flag of volsched demo is refused
// before anything starts (exit 2, naming the flag).
func TestDemoRefusesBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "0"}, "--workers 0: want 1..256"},
		{[]string{"--minutes", "0"}, "--minutes 0: want > 0"},
		{[]string{"--minutes", "NaN"}, "--minutes NaN: want a number of minutes > 0"},
		{[]string{"--app", "nope"}, `--app "nope": want one of jacobi, hashchain`},
		{[]string{"--heuristic", "FOO"}, `"--heuristic" flag: heuristic "FOO": want one of`},
		{[]string{"--slot", "1ms"}, "--slot 1ms: want ≥ 10ms"},
		{[]string{"--ncom", "0"}, "--ncom 0: want ≥ 1"},
		{[]string{"--task-slots", "101"}, "--task-slots 101: want 0..100"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, "", append([]string{"demo"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
