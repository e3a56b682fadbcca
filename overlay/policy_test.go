package overlay_test

import (
	"testing"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/policytest"
)

// TestBuiltinPolicies: IBP, MMP and DP pass the checks every registered
// policy must (package policytest).
func TestBuiltinPolicies(t *testing.T) {
	for _, p := range []overlay.Policy{overlay.PolicyIBP, overlay.PolicyMMP, overlay.PolicyDP} {
		t.Run(p.String(), func(t *testing.T) { policytest.Check(t, p) })
	}
}
