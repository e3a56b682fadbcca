package overlay

import "testing"

func TestAccuracyQuick(t *testing.T) {
	for _, c := range []struct {
		pol string
		k   int
	}{{"ibp", 9}, {"ibp", 64}, {"ibp", 225}, {"mmp", 16}, {"mmp", 81}, {"mmp", 256}, {"dp", 8}, {"dp", 64}, {"dp", 216}} {
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
