package overlay

import (
	"os"
	"testing"
	"time"
)

// TestAccuracyScale runs Table 3's largest size when OVERLAY_SCALE=1 (a
// measurement, not a check: it only logs times).
func TestAccuracyScale(t *testing.T) {
	if os.Getenv("OVERLAY_SCALE") == "" {
		t.Skip("set OVERLAY_SCALE=1")
	}
	for _, c := range []struct {
		pol string
		k   int
	}{{"ibp", 225}, {"mmp", 256}, {"dp", 216}} {
		for _, n := range []int{512, 2048, 8192, 32768, 131072} {
			st := time.Now()
			r, err := Accuracy(AccuracyConfig{Policy: c.pol, Nodes: n, SFMax: c.k, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s n=%d: %v  %v", c.pol, n, r.Accuracy, time.Since(st))
		}
	}
}
