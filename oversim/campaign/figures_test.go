package campaign

import (
	"testing"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
)

// TestAgainstSFMax: the overlay runs as one line by increasing SF_max, each
// reference as a flat line over [lo, hi] (moved from cmd/volsched's
// TestOverlaySFMaxFigure).
func TestAgainstSFMax(t *testing.T) {
	rs := []*oversim.Result{
		{Policy: overlay.PolicyIBP, SFMax: 64, TasksFinished: 110},
		{Policy: overlay.PolicyIBP, SFMax: 225, Scheduler: "centralized", TasksFinished: 80},
		{Policy: overlay.PolicyIBP, SFMax: 9, TasksFinished: 100},
	}
	s := againstSFMax(rs, nil, 9, 64, func(r *oversim.Result) float64 { return float64(r.TasksFinished) })
	if len(s) != 2 || s[0].Name != "overlay" || s[0].X[0] != 9 || s[0].Y[1] != 110 || s[1].Name != "centralized" || s[1].X[1] != 64 || s[1].Y[0] != 80 {
		t.Fatalf("series %+v", s)
	}
}
