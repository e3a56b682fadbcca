package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/volsched/volsched/overlay"
)

// TestRunIDUnique: a node made again with the same configuration (the
// same Seed, the same state directory: a restart in the same process, as
// TestSubmissionNodeRestart does) names its run differently, so that its
// task directories never collide with those of the run before.
func TestRunIDUnique(t *testing.T) {
	cr := sharedCreds(t)
	cfg := Config{Listen: "127.0.0.1:0", Options: overlay.Options{Policy: overlay.PolicyIBP}, State: t.TempDir(), Cert: cr.cert, CA: cr.ca, Seed: 7}
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

// TestHeardFromPruned: the nodes a node has heard from are kept only as
// long as they count (formTree's window), not for ever: names heard from
// long ago (peers gone, or names a peer made up in its hello) are dropped.
func TestHeardFromPruned(t *testing.T) {
	cl := newCluster(t, 2, false, nil)
	n := cl.nodes[0]
	old := time.Now().Add(-time.Hour)
	n.call(func() {
		for i := range 1000 {
			n.heardFrom[fmt.Sprintf("10.9.%d.%d:1", i/256, i%256)] = old
		}
	})
	waitFor(t, 10*time.Second, "old names dropped", func() (bool, string) {
		k, peer := 0, false
		n.call(func() {
			k = len(n.heardFrom)
			_, peer = n.heardFrom[cl.nodes[1].Addr()]
		})
		return k <= 1 && peer, fmt.Sprintf("%d names kept (the live peer among them: %v)", k, peer)
	})
}
