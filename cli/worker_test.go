package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkerRefusesBadFlags: each bad flag of volsched worker is refused
// before anything starts (exit 2, a message naming the flag and what is
// wanted).
func TestWorkerRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	chain := filepath.Join(dir, "chain.json")
	if err := os.WriteFile(chain, []byte(`{"P": [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0, 0.9]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"worker", "--master", "https://127.0.0.1:1", "--token", "t", "--fingerprint", strings.Repeat("ab", 32), "--cache", filepath.Join(dir, "cache")}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--reclaim", "gpu"}, `--reclaim "gpu": want cpu or none`},
		{[]string{"--reclaim-load", "2"}, "--reclaim-load 2: want a fraction of the CPUs in (0, 1]"},
		{[]string{"--probe-every", "-1s"}, "--probe-every -1s: want a duration > 0"},
		{[]string{"--cache="}, "--cache is empty"},
		{[]string{"--udp-heartbeat-addr", "nohost"}, `--udp-heartbeat-addr "nohost": want HOST:PORT`},
		{[]string{"--emulate", chain, "--emulate-start", "x"}, "--emulate-start: "},
		{[]string{"--emulate", chain, "--emulate-start", "stationary"}, "--emulate-start stationary needs --emulate-slot"},
		{[]string{"--emulate", chain, "--emulate-start", "d"}, "--emulate-start d needs --emulate-slot"},
		{[]string{"--emulate", chain, "--emulate-slot", "-1s"}, "--emulate-slot -1s: want ≥ 0"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, "", append(base, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
