package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceFitMarkov: trace fit --slot reports the test of the Markov
// assumption. On the synthetic UCB trace (log-normal availability,
// exponential unavailability, seed 2) at 60-second slots, the pooled test
// rejects the UP sojourns at 1 % and not the DOWN ones; without --slot
// there is no "markov" section.
func TestTraceFitMarkov(t *testing.T) {
	dir := t.TempDir()
	tab := filepath.Join(dir, "ucb.tab")
	if _, errs, code := runCLI(t, "", "trace", "gen", "--preset", "ucb", "--seed", "2", "--out", tab); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, errs)
	}
	out, errs, code := runCLI(t, "", "trace", "fit", "--slot", "60", tab)
	if code != 0 {
		t.Fatalf("trace fit --slot 60: exit %d: %s", code, errs)
	}
	var res struct {
		Markov *struct {
			Slot   float64 `json:"slot_seconds"`
			Slots  int     `json:"slots"`
			Pooled []struct {
				State    string  `json:"state"`
				Sojourns int     `json:"sojourns"`
				P        float64 `json:"ks_p"`
			} `json:"pooled"`
			Hosts []json.RawMessage `json:"hosts"`
		} `json:"markov"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Markov == nil {
		t.Fatalf("output %q: %v", out, err)
	}
	m := res.Markov
	if m.Slot != 60 || m.Slots != 46*1440 || len(m.Hosts) != 80 || len(m.Pooled) != 2 {
		t.Fatalf("markov section: slot %v, %d slots, %d hosts, %d pooled tests", m.Slot, m.Slots, len(m.Hosts), len(m.Pooled))
	}
	for _, p := range m.Pooled {
		t.Logf("%s: %d sojourns, p = %.3g", p.State, p.Sojourns, p.P)
		if (p.State == "u") != (p.P < 0.01) {
			t.Errorf("state %s: p = %.3g; want UP (log-normal) rejected at 1 %% and DOWN (exponential) not", p.State, p.P)
		}
	}
	out, _, code = runCLI(t, "", "trace", "fit", tab)
	if code != 0 || strings.Contains(out, `"markov"`) {
		t.Errorf("without --slot: exit %d, markov section present: %v", code, strings.Contains(out, `"markov"`))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slot", "-1"}, "--slot -1: want a finite number of seconds > 0"},
		{[]string{"--slot", "60", "--unavailable", "gone"}, `--unavailable "gone": want down or reclaimed`},
		{[]string{"--slot", "1e12"}, "shorter than one slot"},
	} {
		_, errs, code := runCLI(t, "", append(append([]string{"trace", "fit"}, c.args...), tab)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}
