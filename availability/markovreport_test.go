package availability_test

import (
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/trace"
)

// TestReportMarkov: on the synthetic UCB trace (log-normal availability,
// exponential unavailability, seed 2) at 60-second slots, the pooled test
// rejects the UP sojourns at 1 % and not the DOWN ones; the report counts
// per state the hosts whose own test rejects, and names how unavailability
// was read.
func TestReportMarkov(t *testing.T) {
	p, err := trace.PresetByName("ucb")
	if err != nil {
		t.Fatal(err)
	}
	sl, err := trace.Generate(p, 2).States(availability.Down).Slots(60, availability.Down)
	if err != nil {
		t.Fatal(err)
	}
	r, err := availability.ReportMarkov(sl, availability.Down)
	if err != nil {
		t.Fatal(err)
	}
	if r.Slot != 60 || r.Slots != 46*1440 || len(r.Hosts) != 80 || len(r.Pooled) != 2 || r.Unavailable != "down" {
		t.Fatalf("slot %v, %d slots, %d hosts, %d pooled tests, unavailable %q", r.Slot, r.Slots, len(r.Hosts), len(r.Pooled), r.Unavailable)
	}
	for _, p := range r.Pooled {
		t.Logf("%s: %d sojourns, p = %.3g", p.Name, p.Sojourns, p.P)
		if (p.Name == "u") != (p.P < 0.01) {
			t.Errorf("state %s: p = %.3g; want UP (log-normal) rejected at 1 %% and DOWN (exponential) not", p.Name, p.P)
		}
	}
	want := map[string]int{}
	for _, h := range r.Hosts {
		for _, x := range h.Tests {
			if x.P < availability.RejectLevel {
				want[x.Name]++
			}
		}
	}
	if len(want) == 0 || len(want) != len(r.Rejected) {
		t.Errorf("rejected %v, recounted %v", r.Rejected, want)
	}
	for k, n := range want {
		if r.Rejected[k] != n {
			t.Errorf("state %s: %d hosts rejected, recounted %d", k, r.Rejected[k], n)
		}
	}
	if _, err := availability.ReportMarkov(sl, availability.Up); err == nil {
		t.Error("unavailability read as UP was accepted")
	}
}
