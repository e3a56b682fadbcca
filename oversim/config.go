// Package oversim is the event-driven simulator of seed 004's overlay
// (§7.2–§7.5): it runs the node state machines of package overlay
// (routers, leaves and their local schedulers, unchanged) on the des
// engine, with the site-level workload of package workload (or a replayed
// trace), the slow or fast end-to-end link, per-message processing time,
// and the churn and catastrophic-failure models of package failure.
//
// Physical node i plays the execution and submission roles at leaf i of the
// balanced tree and the routing role at the i-th internal vertex (in
// pre-order); its link and processor are shared by both roles. Everything
// random comes from streams derived from the seed: two runs with the same
// Config produce the same results.
package oversim

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/workload"
)

// Config is one simulation.
type Config struct {
	// Options are the policy's (overlay.NewRules builds its rules from
	// them); zero fields take the defaults of overlay.Options.
	overlay.Options
	Nodes  int      // physical nodes (leaves of the tree)
	Length des.Time // simulated time
	Link   des.Link
	Proc   des.Processing
	// UpdateBandwidth limits update messages per link, bytes/s (§4.3);
	// 0 = unlimited.
	UpdateBandwidth float64
	Churn           failure.Churn
	Catastrophe     failure.Catastrophe
	// DetectTimeout is how long after a failure a submission node notices
	// that tasks were aborted and resubmits them (ours: 60 s).
	DetectTimeout des.Time
	Seed          uint64
	// Workload: Jobs, when not nil, is a trace replayed as is (sorted by
	// submission); otherwise every node's user is generated lazily from
	// Params and Dists (the same jobs for every policy with the same seed).
	Jobs   []workload.Job
	Params workload.Params
	Dists  *workload.Distributions
	// Probes (Fig. 10): every ProbeEvery (0: none) a request of ProbeTasks
	// tasks of ProbeLengthMI each (no memory or disk requirement, no
	// deadline) is submitted from a node drawn from the seed; its
	// allocation time is reported separately. Probe tasks count in the
	// totals like any other.
	ProbeEvery    des.Time
	ProbeTasks    int32
	ProbeLengthMI float64
	// Scheduler is "overlay" (the decentralized model, default),
	// "centralized" or "random" (the references of §7.2, package overlay's
	// Centralized and Random placers). The references run on a dedicated
	// server host: a request travels from its submitter to the server,
	// which decides with every execution node's exact availability at that
	// instant and sends each chosen node its tasks. Its processing time is
	// the message cost plus CentralPerNode for each node it examines (ours:
	// 100 ns, a modelled cost, like the per-message one). Nodes report
	// their availability to the server for free (full knowledge).
	//
	// That cost models a real server examining every node; the simulator
	// itself does not: for IBP it keeps an index of the idle nodes
	// (overlay.IBPIndex) that gives exactly the same placements.
	Scheduler      string
	CentralPerNode des.Time
	// fullScan makes the centralized reference read every node's summary
	// for every request even when its policy has an index (tests: the
	// oracle of the index).
	fullScan bool
	// NoDeadlineSlack is the deadline DP gives a job that has none (a probe,
	// an SWF job): its submission time plus this (ours: 7 days). IBP and
	// MMP ignore deadlines.
	NoDeadlineSlack des.Time
	// Sample is the interval of the timeline (results written as the run
	// goes). 0 disables it.
	Sample des.Time
}

// Validate checks the configuration; errors name the field.
func (c *Config) Validate() error {
	if err := c.Options.Validate(); err != nil {
		return err
	}
	if c.Clustering != nil || c.Cells != nil {
		return fmt.Errorf("clustering and cells: the authors' variants (package overlay/stars) are options of the accuracy experiment; the simulator runs Fig. 3 with the overlay's cells")
	}
	switch c.Scheduler {
	case "", "overlay", "centralized", "random":
	default:
		return fmt.Errorf("scheduler %q: want overlay, centralized or random", c.Scheduler)
	}
	if c.CentralPerNode < 0 {
		return fmt.Errorf("central per-node cost %v: want >= 0", c.CentralPerNode)
	}
	if err := overlay.ValidateTreeSize(c.Nodes); err != nil {
		return err
	}
	if c.Length <= 0 {
		return fmt.Errorf("simulated length %v: want > 0", c.Length)
	}
	if err := c.Link.Validate(); err != nil {
		return err
	}
	if err := c.Proc.Validate(); err != nil {
		return err
	}
	if !(c.UpdateBandwidth >= 0) || math.IsInf(c.UpdateBandwidth, 0) {
		return fmt.Errorf("update bandwidth %g B/s: want a finite value >= 0", c.UpdateBandwidth)
	}
	if err := c.Catastrophe.Validate(); err != nil {
		return err
	}
	if c.Churn.Median < 0 || (c.Churn.Median > 0 && c.Churn.Median < failure.MinChurnMedian) {
		return fmt.Errorf("churn median %v: want 0 (no churn) or >= %v", c.Churn.Median, failure.MinChurnMedian.Duration())
	}
	if c.DetectTimeout < 0 {
		return fmt.Errorf("detection timeout %v: want >= 0", c.DetectTimeout)
	}
	if c.Jobs == nil {
		if c.Dists == nil {
			return fmt.Errorf("workload: neither a trace nor the site-level distributions were given")
		}
		if err := c.Params.Validate(); err != nil {
			return err
		}
	}
	for i, j := range c.Jobs {
		if j.Node < 0 || int(j.Node) >= c.Nodes {
			return fmt.Errorf("workload job %d (id %d): node %d: want 0..%d", i, j.ID, j.Node, c.Nodes-1)
		}
		if j.Tasks < 1 || !(j.LengthMI > 0) {
			return fmt.Errorf("workload job %d (id %d): %d tasks of %g MI: want >= 1 task of > 0 MI", i, j.ID, j.Tasks, j.LengthMI)
		}
		if i > 0 && j.Submit < c.Jobs[i-1].Submit {
			return fmt.Errorf("workload job %d (id %d): submitted at %v before the previous job: want a sorted trace", i, j.ID, j.Submit)
		}
	}
	if c.ProbeEvery < 0 {
		return fmt.Errorf("probe interval %v: want >= 0", c.ProbeEvery)
	}
	if c.ProbeEvery > 0 && (c.ProbeTasks < 1 || !(c.ProbeLengthMI > 0) || math.IsInf(c.ProbeLengthMI, 0)) {
		return fmt.Errorf("probe of %d tasks of %g MI: want >= 1 task of a finite length > 0", c.ProbeTasks, c.ProbeLengthMI)
	}
	if c.Sample < 0 {
		return fmt.Errorf("sample interval %v: want >= 0", c.Sample)
	}
	return nil
}

// reference reports whether a reference scheduler replaces the overlay.
func (c *Config) reference() bool { return c.Scheduler == "centralized" || c.Scheduler == "random" }

func (c *Config) policy() (overlay.Rules, error) { return overlay.NewRules(c.Options) }
