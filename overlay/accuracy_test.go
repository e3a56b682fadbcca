package overlay

import "testing"

func TestAccuracyQuick(t *testing.T) {
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 9}, {PolicyIBP, 64}, {PolicyIBP, 225}, {PolicyMMP, 16}, {PolicyMMP, 81}, {PolicyMMP, 256}, {PolicyDP, 8}, {PolicyDP, 64}, {PolicyDP, 216}} {
		r, err := Accuracy(AccuracyConfig{Policy: c.pol, Nodes: 1024, SFMax: c.k, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %d: %v (root %d clusters, %d aggregations)", c.pol, c.k, r.Accuracy, r.Clusters, r.Aggregations)
		for k, v := range r.Accuracy {
			if !(v >= 0 && v <= 1) {
				t.Errorf("%s %d %s = %g, want [0,1]", c.pol, c.k, k, v)
			}
		}
	}
}
