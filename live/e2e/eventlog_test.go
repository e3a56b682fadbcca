package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/volsched/volsched/live/master"
)

// checkEventLog replays the master's event log (events.jsonl) with
// master.CheckEvents: the rules of §3 and §6.1 (the slot model checker's,
// carried to continuous time: at most ncom channels at once, one per
// worker, only to UP workers holding the program, at most one task ahead,
// DOWN losing copies and transfers, results only for copies given whose
// input arrived, once per master process, at most 1+extra copies,
// iterations ending exactly when all their tasks are done).
func checkEventLog(t *testing.T, state string, ncom, extra int) {
	t.Helper()
	f, err := os.Open(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := master.CheckEvents(f, ncom, extra)
	if err != nil {
		t.Fatalf("events.jsonl: %v", err)
	}
	if sum.MaxHeld == 0 || sum.Iterations == 0 {
		t.Errorf("event log: %+v: no channel held or no iteration ended", sum)
	}
	t.Logf("event log: %+v (ncom %d)", sum, ncom)
}
