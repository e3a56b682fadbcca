package coupled

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/stream"
)

// TestTimeUnit is a manual measurement, not a check:
// VOLSCHED_TIME_UNIT=<unit> [VOLSCHED_TIME_CAP=<slots>] go test ./coupled -run TestTimeUnit -v
// prints each heuristic's time and makespan on trial 0 of that unit of the
// paper's campaign.
func TestTimeUnit(t *testing.T) {
	us := os.Getenv("VOLSCHED_TIME_UNIT")
	if us == "" {
		t.Skip("manual measurement; set VOLSCHED_TIME_UNIT")
	}
	u, _ := strconv.Atoi(us)
	c := PaperCampaign()
	if cs := os.Getenv("VOLSCHED_TIME_CAP"); cs != "" {
		c.Cap, _ = strconv.Atoi(cs)
	}
	m, ncom, wmin, si := c.UnitParams(u)
	labels := []uint64{uint64(m), uint64(ncom), uint64(wmin), uint64(si)}
	scn, _ := RandomScenario(stream.New(1, append(labels, purposeScenario)...), ScenarioParams{P: c.P, M: m, NCom: ncom, WMin: wmin, Iterations: c.Iterations})
	tab, _ := analytic.NewTable(scn.Chains, analytic.Options{})
	e, _ := NewEvaluator(tab, scn.Platform, m, analytic.Published)
	rec := NewRecording(NewMarkov(scn.Chains, 1, append(labels, purposeAvailability, 0)...), c.P)
	for _, h := range Heuristics() {
		start := time.Now()
		r, err := Simulate(context.Background(), e, scn.App, h, rec.Replay(), stream.New(1, append(labels, purposeRandom, 0)...), Options{Cap: c.Cap})
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		t.Logf("calls %d hits %d candidates evaluated %d", e.Calls, e.Hits, e.Evals)
		e.Calls, e.Hits, e.Evals = 0, 0, 0
		t.Logf("%-7s makespan %7d failed %v configs %6d  %v  (%.2f µs/slot)", h.Name, r.Makespan, r.Failed, r.Configs, d, float64(d.Microseconds())/float64(r.Makespan))
	}
}
