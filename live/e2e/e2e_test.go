package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/live/manifest"
)

func TestFaultFreeHashchain(t *testing.T) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=8\nITERATIONS=3\n"})
	want := reference(t, app)
	a, err := manifest.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(4)...)
	c := startMaster(t, masterOptions(a, state))
	for _, n := range names(4) {
		c.addWorker(c.workerOptions(n, toks[n]))
	}
	if err := c.wait(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	checkEventLog(t, state, 3, 2)
}

func TestVolatileJacobi(t *testing.T) {
	app := writeExample(t, "jacobi", map[string]string{"jacobi.conf": "n=32\nblock=4\ntol=1e-6\nmaxiter=40\n"})
	want := reference(t, app)
	a, err := manifest.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, names(6)...)
	c := startMaster(t, masterOptions(a, state))
	for i, n := range names(6) {
		o := c.workerOptions(n, toks[n])
		ch := chainOf(t, 0.9)
		o.Emulate, o.EmulateStart, o.EmulateSeed = &ch, availability.Up, uint64(i+1)
		c.addWorker(o)
	}
	if err := c.wait(150 * time.Second); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, filepath.Join(state, "output")), want)
	checkEventLog(t, state, 3, 2)
}
