package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/failure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/workload"
)

// Table 4 of seed 004: maximum percentage of link bandwidth used (whole
// simulation, 10 s, 1 s), for the largest SF_max of each policy.
// paperTable4 is the paper's Table 4 by policy, SF_max and link: the
// maximum percentage of link bandwidth used over the whole simulation, 10 s
// and 1 s windows.
var paperTable4 = map[string]map[int]map[string][3]string{
	"ibp": {
		9:   {"slow": {"0.07%", "1.23%", "12%"}, "fast": {".001%", ".012%", ".12%"}},
		64:  {"slow": {"0.16%", "1.23%", "12.2%"}, "fast": {".002%", ".012%", ".12%"}},
		225: {"slow": {"0.21%", "1.42%", "12.1%"}, "fast": {".002%", ".014%", ".12%"}},
	},
	"mmp": {
		16:  {"slow": {"0.18%", "1.72%", "6.1%"}, "fast": {".002%", ".010%", ".05%"}},
		81:  {"slow": {"0.44%", "2.09%", "11%"}, "fast": {".004%", ".016%", ".11%"}},
		256: {"slow": {"0.79%", "2.62%", "13.1%"}, "fast": {".009%", ".027%", ".15%"}},
	},
	"dp": {
		8:   {"slow": {"1.60%", "2.26%", "3.9%"}, "fast": {".015%", ".023%", ".06%"}},
		64:  {"slow": {"1.86%", "2.80%", "10.1%"}, "fast": {".018%", ".024%", ".12%"}},
		216: {"slow": {"1.99%", "2.94%", "9.5%"}, "fast": {".020%", ".026%", ".13%"}},
	},
}

// table4UpdateBandwidth is the update limit of Table 4's runs: §7.3 says
// the maxima were "recorded ... with an update bandwidth limit of 100Kbps,
// thus giving a reference for the very worst case". We read Kbps as
// kilobits per second (100 000 / 8 = 12 500 bytes/s): the paper writes
// bytes per second as "Bps" ("100, 1000 and 10000 bytes per second (Bps)",
// "1 KBps") and bits with a lower-case b ("10 Mbps", "1 Gbps").
const table4UpdateBandwidth = 100e3 / 8

func pct(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }

func init() {
	registerReproduction(reproduction{
		Name:  "overlay-sim",
		Order: 410,
		Title: "seed 004 §7.3-7.5 (reduced): event-driven overlay simulation - Table 4, Figs. 9, 10, 11, 12-17, 18, catastrophic failure",
		Run:   reproduceOverlaySim,
	})
}

func reproduceOverlaySim(ctx context.Context, w io.Writer, opt reproduceOptions) error {
	dists, err := workload.DefaultDistributions()
	if err != nil {
		return err
	}
	nodes, hours, churnHours := 2000, 6.0, 12.0
	sizes := []int{1000, 2000, 4000, 8000}
	if opt.Quick {
		nodes, hours, churnHours = 200, 1, 3
		sizes = []int{100, 200, 400}
	}
	if opt.OutDir != "" {
		if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
			return err
		}
	}
	var failures []string
	note := func(what string, err error) string {
		failures = append(failures, fmt.Sprintf("%s: %v", what, err))
		return "FAILED"
	}
	base := func(pol overlay.Policy, n int, h float64, link des.Link) *oversim.Config {
		return &oversim.Config{Options: overlay.DefaultOptions(pol), Nodes: n,
			Length: des.Seconds(h * 3600), Link: link, Proc: des.DefaultProcessing,
			UpdateBandwidth: pol.DefaultBandwidth(), DetectTimeout: des.Minute, CentralPerNode: 100,
			Seed: opt.Seed, Params: workload.DefaultParams(), Dists: dists}
	}
	progress := term.IsTerminal(int(os.Stderr.Fd()))
	// A run used by several tables (Figs. 12-17 and Fig. 18's reference
	// runs are the plain runs at the largest SF_max) is simulated once,
	// with or without --out.
	done := map[string]*oversim.Result{}
	runOne := func(c *oversim.Config) (*oversim.Result, error) {
		if r, ok := done[c.Key()]; ok {
			return r, nil
		}
		r, err := cachedSimRun(ctx, c, opt.OutDir, progress)
		if err == nil {
			done[c.Key()] = r
		}
		return r, err
	}
	fmt.Fprintf(w, "Seed 004 §7.3-7.5, reduced: event-driven simulation of the overlay (seed %d).\n", opt.Seed)
	fmt.Fprintf(w, "Site-level workload (one user per node, from time 0 = Monday 00:00), SF_max = 225/256/216,\n")
	fmt.Fprintf(w, "update limit 1 KB/s (IBP, DP) and 10 KB/s (MMP), processing %v + %d ns/byte per message.\n", des.DefaultProcessing.PerMessage, des.DefaultProcessing.PerByte)
	fmt.Fprintf(w, "The paper: IBP on 10^6 nodes, MMP and DP on 10^5, 60 simulated hours.\n")
	if dists.Model != "" {
		fmt.Fprintf(w, "Workload: the embedded model %s fitted to the authors' empirical distributions (docs/workload-model.md),\n", dists.Model)
		fmt.Fprintf(w, "not the distributions themselves: set %s to their folder to use them.\n", workload.DataDirEnv)
	}
	fmt.Fprintln(w)

	// Table 4.
	fmt.Fprintf(w, "Table 4: maximum link use over nodes (%d nodes, %g h; update limit 100 kbit/s = %g bytes/s, as the paper's Table 4)\n", nodes, hours, table4UpdateBandwidth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tSF_max\tlink\tsim\t10s\t1s\tpaper sim\tpaper 10s\tpaper 1s\t")
	var rows [][]string
	for _, pol := range overlay.Policies() {
		p := pol.String()
		for _, sf := range accuracy.PaperSFMax[pol] {
			for _, l := range []des.Link{des.SlowLink, des.FastLink} {
				c := base(pol, nodes, hours, l)
				c.SFMax, c.UpdateBandwidth = sf, table4UpdateBandwidth
				r, err := runOne(c)
				pp := paperTable4[p][sf][l.Name]
				if err != nil {
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t-\t-\t%s\t%s\t%s\t\n", p, sf, l.Name, note(fmt.Sprintf("%s %d %s", p, sf, l.Name), err), pp[0], pp[1], pp[2])
					continue
				}
				u := r.PeakLinkUse // 1 s, 10 s, whole run
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p, sf, l.Name, pct(u[2].Fraction), pct(u[1].Fraction), pct(u[0].Fraction), pp[0], pp[1], pp[2])
				rows = append(rows, []string{p, strconv.Itoa(sf), l.Name, strconv.FormatFloat(u[2].Fraction, 'g', -1, 64),
					strconv.FormatFloat(u[1].Fraction, 'g', -1, 64), strconv.FormatFloat(u[0].Fraction, 'g', -1, 64)})
			}
		}
	}
	tw.Flush()
	if opt.OutDir != "" {
		if err := experiment.WriteCSVFile(filepath.Join(opt.OutDir, "overlay-sim-table4.csv"),
			[]string{"policy", "sfmax", "link", "sim", "10s", "1s"}, rows); err != nil {
			return err
		}
	}

	// Fig. 9: throughput against size.
	fmt.Fprintf(w, "\nFig. 9: throughput (tasks finished per hour) against network size (fast link, %g h)\n", churnHours)
	var sruns []sizeRun
	for _, pol := range overlay.Policies() {
		p := pol.String()
		for _, n := range sizes {
			r, err := runOne(base(pol, n, churnHours, des.FastLink))
			x := sizeRun{policy: p, nodes: n, r: r}
			if err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s %d nodes", p, n), err)
			}
			sruns = append(sruns, x)
		}
	}
	prefix := ""
	if opt.OutDir != "" {
		prefix = filepath.Join(opt.OutDir, "overlay-sim-")
	}
	if err := sizeFigures(w, prefix, " (reduced)", sruns); err != nil {
		return err
	}

	// Fig. 10: allocation time of a probe request against size.
	probeTasks, probeSizes := int32(1000), []int{2000, 8000, 32000}
	if opt.Quick {
		probeTasks, probeSizes = 100, []int{200, 400, 800}
	}
	fmt.Fprintf(w, "\nFig. 10: mean allocation time (s) of a %d-task request, distributed (a) and centralized (b, modelled decision cost 100 ns per node);\n", probeTasks)
	fmt.Fprintln(w, "one request every 2 min for 20 min, from nodes drawn from the seed")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\tlink\t")
	for _, n := range probeSizes {
		fmt.Fprintf(tw, "%d\t", n)
	}
	fmt.Fprintln(tw, "unallocated tasks\t")
	rows = nil
	fig10 := map[string][]experiment.Series{} // by link
	for _, sch := range []string{"overlay", "centralized"} {
		for _, pol := range overlay.Policies() {
			p := pol.String()
			for _, l := range []des.Link{des.SlowLink, des.FastLink} {
				label := p
				if sch == "centralized" {
					label = p + " (central)"
				}
				fmt.Fprintf(tw, "%s\t%s\t", label, l.Name)
				s10 := experiment.Series{Name: label}
				var unalloc uint64
				for _, n := range probeSizes {
					c := base(pol, n, 1.0/3, l)
					c.Scheduler = sch
					c.ProbeEvery, c.ProbeTasks, c.ProbeLengthMI = 2*des.Minute, probeTasks, 10000
					r, err := runOne(c)
					if err != nil {
						fmt.Fprintf(tw, "%s\t", note(fmt.Sprintf("%s %s %d nodes (probes)", p, l.Name, n), err))
						continue
					}
					unalloc += r.ProbeTasksUnallocated
					fmt.Fprintf(tw, "%.3f\t", r.ProbeAllocTimeMean)
					s10.X, s10.Y = append(s10.X, float64(n)), append(s10.Y, r.ProbeAllocTimeMean)
					rows = append(rows, []string{p, sch, l.Name, strconv.Itoa(n), strconv.FormatFloat(r.ProbeAllocTimeMean, 'g', -1, 64),
						strconv.FormatUint(r.ProbeTasksUnallocated, 10)})
				}
				fmt.Fprintf(tw, "%d\t\n", unalloc)
				if len(s10.X) > 0 {
					fig10[l.Name] = append(fig10[l.Name], s10)
				}
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "paper (figure; text): distributed allocation time grows logarithmically with size; a 1000-task request on 10^5 nodes")
	fmt.Fprintln(w, "with the slow link is allocated in under 3.5 s; MMP is the slowest distributed policy; the centralized time grows almost")
	fmt.Fprintln(w, "linearly with size (there from the measured CPU time of a real scheduler; here from the modelled per-node cost).")
	if opt.OutDir != "" && len(rows) > 0 {
		if err := experiment.WriteCSVFile(filepath.Join(opt.OutDir, "overlay-sim-fig10.csv"), []string{"policy", "scheduler", "link", "nodes", "alloc_time_mean_s", "unallocated_tasks"}, rows); err != nil {
			return err
		}
		for _, l := range []string{"slow", "fast"} {
			if len(fig10[l]) == 0 {
				continue
			}
			if err := experiment.LinePlot(filepath.Join(opt.OutDir, "overlay-sim-fig10-"+l+".svg"),
				fmt.Sprintf("Allocation time of a %d-task request, %s link (reduced)", probeTasks, l), "nodes", "mean allocation time (s)", fig10[l]); err != nil {
				return err
			}
		}
	}

	// Figs. 12-17: each policy against SF_max and the references.
	sfs := accuracy.PaperSFMax
	fmt.Fprintf(w, "\nFigs. 12-17: performance against SF_max and the centralized and random references (%d nodes, %g h, fast link)\n", nodes, churnHours)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tscheduler\tSF_max\ttasks finished\tin time\tcomputation (MI)\tmakespan mean (s)\tmakespan max (s)\t")
	rows = nil
	fig12 := map[string][]experiment.Series{} // by policy
	for _, pol := range overlay.Policies() {
		p := pol.String()
		var got []*oversim.Result
		type variant struct {
			sch string
			sf  int
		}
		var vs []variant
		for _, sf := range sfs[pol] {
			vs = append(vs, variant{"overlay", sf})
		}
		vs = append(vs, variant{"centralized", pol.DefaultSFMax()}, variant{"random", pol.DefaultSFMax()})
		for _, v := range vs {
			c := base(pol, nodes, churnHours, des.FastLink)
			c.Scheduler, c.SFMax = v.sch, v.sf
			sf := strconv.Itoa(v.sf)
			if v.sch != "overlay" {
				sf = "-"
			}
			r, err := runOne(c)
			if err != nil {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\n", p, v.sch, sf, note(fmt.Sprintf("%s %s sfmax %s", p, v.sch, sf), err))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.4g\t%.0f\t%.0f\t\n", p, v.sch, sf, r.TasksFinished, r.TasksFinishedInTime,
				r.ComputationFinishedMI, r.MakespanMean, r.MakespanMax)
			got = append(got, r)
			rows = append(rows, []string{p, v.sch, sf, strconv.FormatUint(r.TasksFinished, 10), strconv.FormatUint(r.TasksFinishedInTime, 10),
				strconv.FormatFloat(r.ComputationFinishedMI, 'g', -1, 64), strconv.FormatFloat(r.MakespanMean, 'g', -1, 64), strconv.FormatFloat(r.MakespanMax, 'g', -1, 64)})
		}
		sfr := sfs[pol]
		fig12[p] = againstSFMax(got, nil, float64(sfr[0]), float64(sfr[len(sfr)-1]),
			func(r *oversim.Result) float64 { return r.ComputationFinishedMI })
	}
	tw.Flush()
	fmt.Fprintln(w, "paper (figures): IBP 10^6 nodes: distributed finishes more tasks than centralized, computation ~20 % behind centralized, random far behind;")
	fmt.Fprintln(w, "MMP 10^5: SF_max 81 and 256 close to centralized, 16 bad; DP 10^5: SF_max 216 about 5 % behind centralized.")
	if opt.OutDir != "" && len(rows) > 0 {
		if err := experiment.WriteCSVFile(filepath.Join(opt.OutDir, "overlay-sim-fig12-17.csv"), []string{"policy", "scheduler", "sfmax", "tasks_finished", "tasks_finished_in_time", "computation_mi", "makespan_mean_s", "makespan_max_s"}, rows); err != nil {
			return err
		}
		for _, pol := range overlay.Policies() {
			p := pol.String()
			if len(fig12[p]) == 0 {
				continue
			}
			if err := experiment.LinePlot(filepath.Join(opt.OutDir, "overlay-sim-fig12-17-"+p+".svg"),
				fmt.Sprintf("%s: finished computation against SF_max and the references (reduced)", p), "SF_max", "computation finished (MI)", fig12[p]); err != nil {
				return err
			}
		}
	}

	// Fig. 18 and the catastrophic failure.
	medians := []des.Time{60 * des.Minute, 30 * des.Minute, 15 * des.Minute, 5 * des.Minute}
	fracs := []float64{0.05, 0.1, 0.2, 0.4}
	fmt.Fprintf(w, "\nFig. 18: finished computation with churn, normalized to the run without failures (%d nodes, %g h, fast link);\n", nodes, churnHours)
	fmt.Fprintf(w, "catastrophic failure of a fraction of the nodes at %g h, same normalization\n", churnHours/2)
	var fruns []failRun
	for _, pol := range overlay.Policies() {
		p := pol.String()
		r0, err := runOne(base(pol, nodes, churnHours, des.FastLink))
		if err == nil && r0.ComputationFinishedMI == 0 {
			err = fmt.Errorf("no computation finished without failures")
		}
		if err != nil {
			fruns = append(fruns, failRun{policy: p, failed: note(p+" without failures", err)})
			continue
		}
		fruns = append(fruns, failRun{policy: p, r: r0})
		for _, m := range medians {
			c := base(pol, nodes, churnHours, des.FastLink)
			c.Churn = failure.Churn{Median: m}
			x := failRun{policy: p, kind: "churn", param: m.Seconds() / 60}
			if x.r, err = runOne(c); err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s churn %v", p, m.Duration()), err)
			}
			fruns = append(fruns, x)
		}
		for _, f := range fracs {
			c := base(pol, nodes, churnHours, des.FastLink)
			c.Catastrophe = failure.Catastrophe{Fraction: f, At: des.Seconds(churnHours * 1800)}
			x := failRun{policy: p, kind: "catastrophe", param: f}
			if x.r, err = runOne(c); err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s catastrophe %g", p, f), err)
			}
			fruns = append(fruns, x)
		}
	}
	if err := failureFigures(w, prefix, " (reduced)", fmt.Sprintf("%g h", churnHours/2), fruns); err != nil {
		return err
	}
	if len(failures) > 0 {
		fmt.Fprintf(w, "\n%d runs failed:\n", len(failures))
		for _, f := range failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	return nil
}

// cachedSimRun runs c, or, when dir is set and the run was done before,
// reads its result from dir/overlay-sim-runs/KEY.json: each run's result is
// written there as soon as it ends, so an interrupted reproduction resumes
// where it stopped (the results are deterministic given the key).
func cachedSimRun(ctx context.Context, c *oversim.Config, dir string, progress bool) (*oversim.Result, error) {
	key := c.Key()
	var path string
	if dir != "" {
		path = filepath.Join(dir, "overlay-sim-runs", key+".json")
		if b, err := os.ReadFile(path); err == nil {
			var r oversim.Result
			if json.Unmarshal(b, &r) == nil {
				return &r, nil
			}
		}
	}
	if progress {
		fmt.Fprintf(os.Stderr, "\roverlay-sim: %s ...%20s", key, "")
	}
	s, err := oversim.New(c)
	if err != nil {
		return nil, err
	}
	r, err := s.Run(ctx)
	if progress {
		fmt.Fprintf(os.Stderr, "\r%*s\r", len(key)+40, "")
	}
	if err != nil || path == "" {
		return r, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return nil, err
	}
	return r, os.Rename(tmp, path)
}

// writeCSVAndPlot writes DIR/NAME.csv and DIR/NAME.svg.
func writeCSVAndPlot(dir, name string, header []string, rows [][]string, title, xlabel, ylabel string, series []experiment.Series) error {
	if err := experiment.WriteCSVFile(filepath.Join(dir, name+".csv"), header, rows); err != nil {
		return err
	}
	return experiment.LinePlot(filepath.Join(dir, name+".svg"), title, xlabel, ylabel, series)
}
