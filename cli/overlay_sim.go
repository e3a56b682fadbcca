package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	simcampaign "github.com/volsched/volsched/oversim/campaign"
	"github.com/volsched/volsched/workload"
)

// simFlags are the flags of `volsched overlay sim`.
type simFlags struct {
	policy, link, churn, fail, workload, swf, data, out string
	params                                              string
	nodes, sfmax                                        int
	hours, updateBW, beta, swfPower                     float64
	seed                                                uint64
	detect, sample, probeEvery                          time.Duration
	probeTasks                                          int
	probeLength                                         float64
	scheduler, cpuProfile, memProfile, distance         string
	centralPerNode                                      time.Duration
	checkpointEvery                                     time.Duration
	resume                                              bool
	interruptAt                                         uint64 // hidden test flag: stop as if interrupted after this many events
	// set: the flags given on the command line (cobra's Changed); a flag
	// whose default is a sentinel (--sfmax 0, --update-bw -1) may not be
	// given that sentinel explicitly.
	set func(name string) bool
}

// given reports whether flag name was given on the command line.
func (f *simFlags) given(name string) bool { return f.set != nil && f.set(name) }

// simConfig turns flags into a validated oversim.Config; usage errors name
// the flag.
func (f *simFlags) config() (*oversim.Config, error) {
	pol, err := overlay.ParsePolicy(f.policy)
	if err != nil {
		return nil, usagef("--%v", err)
	}
	if f.nodes < 2 || f.nodes > 1<<26 {
		return nil, usagef("--nodes %d: want 2 to %d", f.nodes, 1<<26)
	}
	if !(f.hours > 0 && f.hours <= 24*365) {
		return nil, usagef("--hours %g: want a value in (0, 8760]", f.hours)
	}
	link, err := des.LinkByName(f.link)
	if err != nil {
		return nil, usagef("--link: %v", err)
	}
	if f.sfmax == 0 && !f.given("sfmax") {
		f.sfmax = pol.DefaultSFMax()
	}
	if f.updateBW < 0 && !f.given("update-bw") {
		f.updateBW = pol.DefaultBandwidth()
	}
	if !(f.updateBW >= 0) || math.IsInf(f.updateBW, 0) {
		return nil, usagef("--update-bw %g: want a finite number of bytes/s >= 0 (0: no limit; omit it for the paper's %g)", f.updateBW, pol.DefaultBandwidth())
	}
	if f.distance == "stars" {
		return nil, usagef("--distance stars: the authors' DP l clustering is an option of `overlay accuracy --policy dp` only")
	}
	dist, err := overlay.ParseDistance(f.distance)
	if err != nil {
		return nil, usagef("--distance: %v", err)
	}
	opts := overlay.DefaultOptions(pol)
	opts.SFMax, opts.Beta, opts.Distance = f.sfmax, f.beta, dist
	if err := opts.Validate(); err != nil {
		return nil, usagef("--%v", err)
	}
	churn, err := failure.ParseChurn(f.churn)
	if err != nil {
		return nil, usagef("--churn: %v", err)
	}
	var cat failure.Catastrophe
	if f.fail != "" {
		if cat, err = failure.ParseCatastrophe(f.fail); err != nil {
			return nil, usagef("--fail: %v", err)
		}
		if cat.At >= des.Seconds(f.hours*3600) {
			return nil, usagef("--fail %s: the failure time %v is not before the end of the run (--hours %g)", f.fail, cat.At.Duration(), f.hours)
		}
	}
	length := des.Seconds(f.hours * 3600)
	if f.detect < 0 || des.Time(f.detect) > oversim.MaxDuration {
		return nil, usagef("--detect %v: want 0 to %v", f.detect, oversim.MaxDuration.Duration())
	}
	if f.sample < 0 || (f.sample > 0 && length/des.Time(f.sample) > oversim.MaxTimelineRows) {
		return nil, usagef("--sample %v: want 0 (no timeline) or an interval of at least %v (at most %d timeline rows in --hours %g)",
			f.sample, max((length/oversim.MaxTimelineRows).Duration(), time.Nanosecond), oversim.MaxTimelineRows, f.hours)
	}
	if f.probeEvery < 0 || (f.probeEvery > 0 && length/des.Time(f.probeEvery) > oversim.MaxProbes) {
		return nil, usagef("--probe-every %v: want 0 (no probes) or an interval of at least %v (at most %d probe requests in --hours %g)",
			f.probeEvery, max((length/oversim.MaxProbes).Duration(), time.Nanosecond), oversim.MaxProbes, f.hours)
	}
	if f.probeEvery > 0 && (f.probeTasks < 1 || f.probeTasks > 1<<24 || !(f.probeLength > 0 && f.probeLength <= workload.MaxLengthMI)) {
		return nil, usagef("--probe-tasks %d, --probe-length %g: want 1 to %d tasks and a length in (0, %g] MI", f.probeTasks, f.probeLength, 1<<24, workload.MaxLengthMI)
	}
	switch f.scheduler {
	case "overlay", "centralized", "random":
	default:
		return nil, usagef("--scheduler %q: want overlay, centralized or random", f.scheduler)
	}
	if f.centralPerNode < 0 || des.Time(f.centralPerNode) > oversim.MaxCentralPerNode {
		return nil, usagef("--central-per-node %v: want 0 to %v", f.centralPerNode, oversim.MaxCentralPerNode.Duration())
	}
	if f.out == "" {
		return nil, usagef("--out: want a directory for the results")
	}
	params, err := readWorkloadParams(f.params)
	if err != nil {
		return nil, err
	}
	c := &oversim.Config{Options: opts, Nodes: f.nodes,
		Length: des.Seconds(f.hours * 3600), Link: link, Proc: des.DefaultProcessing,
		UpdateBandwidth: f.updateBW, Churn: churn, Catastrophe: cat, DetectTimeout: des.Time(f.detect),
		Seed: f.seed, Params: params, Sample: des.Time(f.sample),
		ProbeEvery: des.Time(f.probeEvery), ProbeTasks: int32(f.probeTasks), ProbeLengthMI: f.probeLength,
		Scheduler: f.scheduler, CentralPerNode: des.Time(f.centralPerNode)}
	switch {
	case f.workload != "" && f.swf != "":
		return nil, usagef("--workload and --swf: give at most one")
	case f.workload != "":
		fh, err := os.Open(f.workload)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		defer fh.Close()
		if c.Jobs, err = workload.ReadTrace(bufio.NewReader(fh), f.workload, f.nodes); err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		if c.Jobs == nil {
			c.Jobs = []workload.Job{} // a trace without jobs (nil means no trace)
		}
	case f.swf != "":
		if !(f.swfPower > 0) {
			return nil, usagef("--swf-power %g: want > 0 MIPS", f.swfPower)
		}
		fh, err := os.Open(f.swf)
		if err != nil {
			return nil, fmt.Errorf("--swf: %w", err)
		}
		defer fh.Close()
		raw, err := workload.ReadSWF(bufio.NewReader(fh), f.swf)
		if err != nil {
			return nil, fmt.Errorf("--swf: %w", err)
		}
		jobs, skipped, err := workload.FromSWF(raw, workload.SWFOptions{Nodes: f.nodes, PowerMIPS: f.swfPower})
		if err != nil {
			return nil, fmt.Errorf("--swf %s: %w", f.swf, err)
		}
		if skipped > 0 {
			fmt.Fprintf(os.Stderr, "swf: skipped %d jobs with unknown run time, unknown processor count or more than 2^31-1 processors\n", skipped)
		}
		c.Jobs = jobs
		if c.Jobs == nil {
			c.Jobs = []workload.Job{}
		}
	default:
		if c.Dists, err = siteDistributions(f.data); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// readWorkloadParams reads --params (workload.ReadParams), or returns the
// defaults when path is empty.
func readWorkloadParams(path string) (workload.Params, error) {
	if path == "" {
		return workload.DefaultParams(), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return workload.Params{}, fmt.Errorf("--params: %w", err)
	}
	defer fh.Close()
	p, err := workload.ReadParams(fh, path)
	if err != nil {
		return workload.Params{}, fmt.Errorf("--params: %w", err)
	}
	return p, nil
}

const paramsUsage = "JSON file of workload and node parameters over the defaults (fields: 'volsched overlay workload --print-params'; durations in ns)"

// stderrProgress is how a long run shows its progress on standard error:
// a redrawn line on a terminal, a line now and then in a log.
func stderrProgress() simcampaign.ProgressMode {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return simcampaign.TerminalProgress
	}
	return simcampaign.LogProgress
}

// inputErr makes the package's *simcampaign.InputError a usage error (exit
// status 2).
func inputErr(err error) error {
	var ie *simcampaign.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}

func init() {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Event-driven simulation of the overlay (seed 004 §7.2–7.5): results in --out",
		Long: `sim runs the decentralized scheduler of seed 004 (routers, execution and
submission nodes of package overlay) on a discrete-event network of --nodes
physical nodes for --hours of simulated time, with the site-level workload
(one user per node, generated from --seed; or --workload TRACE.csv, or --swf
LOG.swf), the slow (10 Mbit/s, 50–300 ms) or fast (1 Gbit/s, 0.1–1 ms)
link, optional churn (--churn MEDIAN, e.g. 15m) and a catastrophic failure
(--fail FRACTION@TIME, e.g. 20%@24h).

It writes DIR/timeline.csv (one row per --sample of simulated time, flushed
as the run goes) and DIR/summary.json (tasks finished, computation finished,
allocation-time statistics, peak link use, events processed, speed,
memory). The same flags and seed give the same results.

It writes DIR/checkpoint.bin (the whole simulation state) every
--checkpoint-every of wall time and when interrupted (SIGINT, SIGTERM);
the same command with --resume continues from it and gives the results
of an uninterrupted run. The checkpoint is removed when the run ends.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.set = cmd.Flags().Changed
			c, err := f.config()
			if err != nil {
				return err
			}
			if f.checkpointEvery < 0 || (f.checkpointEvery > 0 && f.checkpointEvery < time.Second) {
				return usagef("--checkpoint-every %v: want 0 (only when interrupted) or at least 1s (each checkpoint writes the whole state)", f.checkpointEvery)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if f.cpuProfile != "" {
				pf, err := os.Create(f.cpuProfile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pf.Close()
				if err := pprof.StartCPUProfile(pf); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			if f.memProfile != "" {
				defer func() {
					if pf, err := os.Create(f.memProfile); err == nil {
						pprof.Lookup("heap").WriteTo(pf, 0)
						pf.Close()
					} else {
						fmt.Fprintf(os.Stderr, "--memprofile: %v\n", err)
					}
				}()
			}
			r, err := simcampaign.RunDir(ctx, c, f.out, simcampaign.RunOptions{Log: os.Stderr, Progress: stderrProgress(),
				CheckpointEvery: f.checkpointEvery, Resume: f.resume, InterruptAt: f.interruptAt})
			if r != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s, %d nodes, %.3g h: %d tasks finished of %d submitted, %d events in %.1f s (%.0f events/s), %.0f heap bytes per node\n",
					c.Policy, c.Nodes, r.SimulatedSeconds/3600, r.TasksFinished, r.TasksSubmitted, r.Events, r.WallSeconds, r.EventsPerSecond, r.BytesPerNode)
			}
			return inputErr(err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "ibp", "policy: "+overlay.PolicyNames())
	fl.IntVar(&f.nodes, "nodes", 1000, "number of physical nodes")
	fl.Float64Var(&f.hours, "hours", 1, "simulated hours")
	fl.StringVar(&f.link, "link", "fast", "end-to-end link: slow (10 Mbit/s, 50-300 ms) or fast (1 Gbit/s, 0.1-1 ms)")
	fl.IntVar(&f.sfmax, "sfmax", 0, "maximum sampled functions per summary (default: the policy's, for ibp/mmp/dp the paper's largest, 225/256/216)")
	fl.Float64Var(&f.updateBW, "update-bw", -1, "update bandwidth limit per link, bytes/s, 0: no limit (default: the policy's, 1000 for ibp and dp, 10000 for mmp)")
	fl.Float64Var(&f.beta, "beta", overlay.DefaultBeta, "MMP forwarding factor β")
	fl.StringVar(&f.distance, "distance", "mse", "distance of the clustering: mse (the authors') or loss (this project's first reading)")
	fl.StringVar(&f.churn, "churn", "", "median session time of churn, at least 1s (e.g. 60m, 5m, or minutes); empty or 0: no churn")
	fl.StringVar(&f.fail, "fail", "", "catastrophic failure FRACTION@TIME (e.g. 0.2@24h or 20%@24h)")
	fl.DurationVar(&f.detect, "detect", time.Minute, "time a submission node takes to detect aborted tasks")
	fl.StringVar(&f.workload, "workload", "", "replay this trace (CSV from 'volsched overlay workload')")
	fl.StringVar(&f.swf, "swf", "", "replay this Standard Workload Format log")
	fl.Float64Var(&f.swfPower, "swf-power", 1000, "MIPS of the machines of the SWF log (run time × power = task length)")
	fl.StringVar(&f.params, "params", "", paramsUsage)
	fl.StringVar(&f.data, "data", "", dataUsage)
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.DurationVar(&f.sample, "sample", 10*time.Minute, "interval of simulated time between timeline rows (0: none)")
	fl.DurationVar(&f.probeEvery, "probe-every", 0, "submit a probe request (Fig. 10 allocation time) at this interval (0: none)")
	fl.IntVar(&f.probeTasks, "probe-tasks", 1000, "tasks per probe request")
	fl.Float64Var(&f.probeLength, "probe-length", 10000, "task length of probe requests, MI")
	fl.StringVar(&f.scheduler, "scheduler", "overlay", "overlay (the decentralized model), or a reference: centralized or random")
	fl.DurationVar(&f.centralPerNode, "central-per-node", 100*time.Nanosecond, "modelled decision cost of the centralized reference per node examined")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fl.StringVar(&f.memProfile, "memprofile", "", "write a heap profile at the end of the run to this file")
	fl.StringVar(&f.out, "out", "", "output directory (required)")
	fl.DurationVar(&f.checkpointEvery, "checkpoint-every", 30*time.Minute, "write DIR/checkpoint.bin at this interval of wall time (0: only when interrupted by SIGINT/SIGTERM)")
	fl.BoolVar(&f.resume, "resume", false, "continue the interrupted run whose checkpoint is in --out (same flags)")
	fl.Uint64Var(&f.interruptAt, "interrupt-at-events", 0, "testing: stop as if interrupted after this many events")
	fl.MarkHidden("interrupt-at-events")
	overlayCmd.AddCommand(cmd)

	var wf struct {
		nodes       int
		hours       float64
		seed        uint64
		data        string
		params      string
		printParams bool
	}
	gen := &cobra.Command{
		Use:   "workload",
		Short: "Generate the site-level workload trace once (CSV on stdout) for replay with 'overlay sim --workload'",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := readWorkloadParams(wf.params)
			if err != nil {
				return err
			}
			if wf.printParams {
				b, err := json.MarshalIndent(p, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			if wf.nodes < 1 || wf.nodes > 1<<26 {
				return usagef("--nodes %d: want 1 to %d", wf.nodes, 1<<26)
			}
			if !(wf.hours > 0 && wf.hours <= 24*365) {
				return usagef("--hours %g: want a value in (0, 8760]", wf.hours)
			}
			d, err := siteDistributions(wf.data)
			if err != nil {
				return err
			}
			// Streamed: memory proportional to the nodes, and Ctrl-C stops
			// it (the jobs written so far stay on standard output).
			return workload.WriteGenerated(cmd.Context(), cmd.OutOrStdout(), &p, d, wf.seed, wf.nodes, des.Seconds(wf.hours*3600))
		},
	}
	gen.Flags().IntVar(&wf.nodes, "nodes", 1000, "number of nodes (one user each)")
	gen.Flags().Float64Var(&wf.hours, "hours", 60, "hours of submissions")
	gen.Flags().Uint64Var(&wf.seed, "seed", 1, "random seed (the same seed as 'overlay sim' gives the same jobs)")
	gen.Flags().StringVar(&wf.data, "data", "", dataUsage)
	gen.Flags().StringVar(&wf.params, "params", "", paramsUsage)
	gen.Flags().BoolVar(&wf.printParams, "print-params", false, "print the parameters (the defaults, or --params over them) as JSON and exit")
	overlayCmd.AddCommand(stopsAtOnce(gen))
}
