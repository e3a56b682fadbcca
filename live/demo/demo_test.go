package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/testbin"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/whatif/simulate"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// TestDemoRuns builds volsched and runs a small demo (4 workers,
// hashchain, 50 ms slots): it must finish and print the measured makespan
// next to the simulator's prediction.
func TestDemoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs worker processes")
	}
	bin := testbin.Volsched(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := Run(ctx, Options{Predictor: predictor(), Workers: 4, Limit: 90 * time.Second, App: "hashchain", Heuristic: master.DefaultHeuristic, Slot: 50 * time.Millisecond, NCom: 2, Seed: 2, Binary: bin, TaskSlots: 2}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"measured makespan", "simulator predicts", "chains.txt"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

// predictor is the slot simulator's, as the CLI wires it (a test may
// import a simulator; the package does not).
func predictor() master.Predictor { return master.PredictorFunc(simulate.ForecastIterative) }
