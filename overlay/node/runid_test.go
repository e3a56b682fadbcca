package node

import (
	"context"
	"testing"
)

// TestRunIDUnique: a node made again with the same configuration (the
// same Seed, the same state directory: a restart in the same process, as
// TestSubmissionNodeRestart does) names its run differently, so that its
// task directories never collide with those of the run before.
func TestRunIDUnique(t *testing.T) {
	cr := sharedCreds(t)
	cfg := Config{Listen: "127.0.0.1:0", Policy: "ibp", State: t.TempDir(), Cert: cr.cert, CA: cr.ca, Seed: 7}
	seen := map[string]bool{}
	for range 3 {
		n, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		n.Start(context.Background())
		id := n.runID
		n.Kill()
		if id == "" || seen[id] {
			t.Fatalf("run id %q repeated (or empty) with the same seed; seen %v", id, seen)
		}
		seen[id] = true
	}
}
