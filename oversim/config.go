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
	// Options are the policy's, any registered one (overlay.NewRules
	// builds its rules and Policy.NewExec its nodes' local schedulers);
	// start from overlay.DefaultOptions.
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
	// Centralized and Random placers; the centralized one for a policy
	// whose rules have it, overlay.CentralPlacer). The references run on a dedicated
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
	// NoDeadlineSlack is the deadline a policy that schedules by deadline
	// (Policy.Deadlines: DP) gives a job that has none (a probe, an SWF
	// job): its submission time plus this (ours: 7 days). The others (IBP,
	// MMP) ignore deadlines.
	NoDeadlineSlack des.Time
	// Sample is the interval of the timeline (results written as the run
	// goes). 0 disables it.
	Sample des.Time
}

// Limits of a configuration, so that every sum of simulated times fits
// des.Time and the cost of a run stays proportional to what it simulates.
const (
	// MaxDuration bounds the simulated length and every duration parameter
	// (100 years): a time plus a duration never overflows.
	MaxDuration = 100 * 365 * des.Day
	// MaxCentralPerNode bounds the modelled decision cost per node of the
	// centralized reference (its product with the network size is a
	// duration).
	MaxCentralPerNode = des.Second
	// MaxTimelineRows bounds Length/Sample, the rows of the timeline.
	MaxTimelineRows = 1_000_000
	// MaxProbes bounds Length/ProbeEvery, the probe requests of a run.
	MaxProbes = 1_000_000
	// MinBandwidth bounds the link's bandwidth from below (bit/s): the
	// link use of Result.PeakLinkUse, bytes·8 / (bandwidth · window), is
	// then at most 2^67 / 1e-9 over the shortest run, a finite number (a
	// denormal bandwidth made it +Inf, or NaN over a whole run whose
	// product underflowed, which JSON cannot hold).
	MinBandwidth = 1.0
)

// Validate checks the configuration; errors name the field and the limit.
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
	if c.CentralPerNode < 0 || c.CentralPerNode > MaxCentralPerNode {
		return fmt.Errorf("central per-node cost %v: want 0 to %v", c.CentralPerNode, MaxCentralPerNode.Duration())
	}
	if err := overlay.ValidateTreeSize(c.Nodes); err != nil {
		return err
	}
	if c.Length <= 0 || c.Length > MaxDuration {
		return fmt.Errorf("simulated length %v: want > 0 and at most %v (100 years)", c.Length, MaxDuration.Duration())
	}
	if err := c.Link.Validate(); err != nil {
		return err
	}
	if c.Link.BandwidthBps < MinBandwidth {
		return fmt.Errorf("link %q: bandwidth %g bit/s: want at least %g bit/s (link use is reported as a fraction of it, which a smaller bandwidth makes infinite)", c.Link.Name, c.Link.BandwidthBps, MinBandwidth)
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
	if c.Catastrophe.At > MaxDuration {
		return fmt.Errorf("catastrophic failure time %v: want at most %v", c.Catastrophe.At, MaxDuration.Duration())
	}
	if c.Churn.Median < 0 || (c.Churn.Median > 0 && c.Churn.Median < failure.MinChurnMedian) || c.Churn.Median > failure.MaxChurnMedian {
		return fmt.Errorf("churn median %v: want 0 (no churn) or %v to %v", c.Churn.Median, failure.MinChurnMedian.Duration(), failure.MaxChurnMedian.Duration())
	}
	if c.DetectTimeout < 0 || c.DetectTimeout > MaxDuration {
		return fmt.Errorf("detection timeout %v: want 0 to %v", c.DetectTimeout, MaxDuration.Duration())
	}
	if c.NoDeadlineSlack < 0 || c.NoDeadlineSlack > MaxDuration {
		return fmt.Errorf("deadline slack %v: want 0 to %v", c.NoDeadlineSlack, MaxDuration.Duration())
	}
	if c.Jobs == nil && c.Dists == nil {
		return fmt.Errorf("workload: neither a trace nor the site-level distributions were given")
	}
	// The parameters the run uses must be valid: a trace replayed without
	// them takes the default nodes (nodeParams), otherwise they give the
	// nodes' hardware (and the generated users').
	if !c.bareTrace() {
		if err := c.Params.Validate(); err != nil {
			return err
		}
	}
	// The longest task must take a representable time on the slowest node.
	slowest := c.nodeParams().PowerMinMIPS
	maxLen := min(workload.MaxLengthMI, des.MaxSeconds*slowest/2)
	for i, j := range c.Jobs {
		if j.Node < 0 || int(j.Node) >= c.Nodes {
			return fmt.Errorf("workload job %d (id %d): node %d: want 0..%d", i, j.ID, j.Node, c.Nodes-1)
		}
		if j.Tasks < 1 || !(j.LengthMI > 0 && j.LengthMI <= maxLen) {
			return fmt.Errorf("workload job %d (id %d): %d tasks of %g MI: want >= 1 task of a length in (0, %g] MI (longer tasks take more simulated time than can be represented on the slowest node, %g MIPS)", i, j.ID, j.Tasks, j.LengthMI, maxLen, slowest)
		}
		if j.Submit < 0 || j.Submit > MaxDuration || j.Deadline < 0 || j.Deadline > MaxDuration {
			return fmt.Errorf("workload job %d (id %d): submitted at %v with deadline %v: want times from 0 to %v", i, j.ID, j.Submit, j.Deadline, MaxDuration.Duration())
		}
		if i > 0 && j.Submit < c.Jobs[i-1].Submit {
			return fmt.Errorf("workload job %d (id %d): submitted at %v before the previous job: want a sorted trace", i, j.ID, j.Submit)
		}
	}
	if c.ProbeEvery < 0 || c.ProbeEvery > MaxDuration {
		return fmt.Errorf("probe interval %v: want 0 to %v", c.ProbeEvery, MaxDuration.Duration())
	}
	if c.ProbeEvery > 0 {
		if c.ProbeTasks < 1 || !(c.ProbeLengthMI > 0 && c.ProbeLengthMI <= maxLen) {
			return fmt.Errorf("probe of %d tasks of %g MI: want >= 1 task of a length in (0, %g] MI", c.ProbeTasks, c.ProbeLengthMI, maxLen)
		}
		if n := c.Length / c.ProbeEvery; n > MaxProbes {
			return fmt.Errorf("probe interval %v: %d probe requests in %v, over the limit of %d (want an interval >= %v)", c.ProbeEvery.Duration(), n, c.Length.Duration(), MaxProbes, (c.Length / MaxProbes).Duration())
		}
	}
	if c.Sample < 0 || c.Sample > MaxDuration {
		return fmt.Errorf("sample interval %v: want 0 to %v", c.Sample, MaxDuration.Duration())
	}
	if c.Sample > 0 {
		if n := c.Length / c.Sample; n > MaxTimelineRows {
			return fmt.Errorf("sample interval %v: %d timeline rows in %v, over the limit of %d (want an interval >= %v)", c.Sample.Duration(), n, c.Length.Duration(), MaxTimelineRows, (c.Length / MaxTimelineRows).Duration())
		}
	}
	return nil
}

// bareTrace reports whether the run replays a trace without workload
// parameters (Params left zero): its nodes are then those of
// workload.DefaultParams.
func (c *Config) bareTrace() bool {
	return c.Jobs != nil && c.Dists == nil && len(c.Params.NodeMemMB) == 0
}

// nodeParams are the parameters the nodes' hardware is drawn from.
func (c *Config) nodeParams() *workload.Params {
	if c.bareTrace() {
		d := workload.DefaultParams()
		return &d
	}
	return &c.Params
}

// reference reports whether a reference scheduler replaces the overlay.
func (c *Config) reference() bool { return c.Scheduler == "centralized" || c.Scheduler == "random" }

func (c *Config) policy() (overlay.Rules, error) { return overlay.NewRules(c.Options) }
