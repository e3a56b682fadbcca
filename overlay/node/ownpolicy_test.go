package node

import (
	"testing"

	ownpolicy "github.com/volsched/volsched/examples/own-policy"
)

// TestOwnPolicySameDecisionsAsSimulator: a policy registered outside
// package overlay (examples/own-policy, "fifo-cap": FCFS queues of at
// most 4 tasks; an ID whose wire tag takes two bytes) runs in real
// daemons by its registration alone — its rules, its executor as the
// daemons' model of their queue, its summaries on the wire — and they
// place its requests as the simulator does (TestSameDecisionsAsSimulator,
// on 32 daemons, 24 with -short: requests of up to 8 or 6 tasks, more
// than one node's queue holds).
func TestOwnPolicySameDecisionsAsSimulator(t *testing.T) {
	n := 32
	if testing.Short() {
		n = 24
	}
	sameDecisions(t, ownpolicy.Policy, n, 10)
}
