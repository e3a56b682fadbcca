package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/master"
)

// TestNextApplication: a worker left waiting after its application
// finished (no ExitWhenDone) is accepted by the master of the next
// application, on the same address, once that master's new state
// directory was given the old one's tokens and CA (what 'volsched master
// token copy' does), and computes it: its output equals the sequential
// reference.
func TestNextApplication(t *testing.T) {
	app1 := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=2\nITERATIONS=2\n"})
	state1 := filepath.Join(t.TempDir(), "state1")
	toks := addTokens(t, state1, "w")
	c1 := startMaster(t, masterOptions(loadApp(t, app1), state1))
	c1.addWorker(c1.workerOptions("w", toks["w"])) // no ExitWhenDone: it waits
	if err := c1.wait(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The next application: another program (the other example), a new
	// state directory with the old tokens and CA.
	app2 := writeExample(t, "jacobi", nil)
	state2 := filepath.Join(t.TempDir(), "state2")
	if _, err := pki.CopyCA(state1, state2); err != nil {
		t.Fatal(err)
	}
	db1, err := master.OpenDB(state1)
	if err != nil {
		t.Fatal(err)
	}
	db2, err := master.OpenDB(state2)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := db2.CopyTokens(db1)
	db1.Close()
	db2.Close()
	if err != nil || n != 1 {
		t.Fatalf("copied %d tokens: %v", n, err)
	}
	opt := masterOptions(loadApp(t, app2), state2)
	opt.Listen = c1.srv.Addr() // the same address: the waiting worker knows only it
	// (the first master's Run has returned: its sockets are closed)
	c2 := startMaster(t, opt)
	if c2.fp != c1.fp {
		t.Fatal("the next master has another fingerprint")
	}
	if err := c2.wait(90 * time.Second); err != nil {
		t.Fatalf("the next application, computed by the waiting worker: %v", err)
	}
	sameTree(t, readTree(t, filepath.Join(state2, "output")), reference(t, app2))
}
