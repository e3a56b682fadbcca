package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/workload"
)

// ReproductionName is the name of the reduced reproduction (reproduce
// --only).
const ReproductionName = "overlay-sim"

// ReproduceOptions are the options of Reproduce.
type ReproduceOptions struct {
	// Quick asks for the reduced version (200 nodes, 1-3 h; without it
	// 2000 nodes, 6-12 h).
	Quick bool
	Seed  uint64
	// OutDir, when not empty, receives the tables and figures as CSV and
	// SVG files, and the runs' results (an interrupted reproduction
	// resumes from them).
	OutDir string
	// Workers is the number of simulations run at once (0: one per CPU).
	Workers int
	// Progress, if not nil, shows the campaign's progress.
	Progress *experiment.Progress
}

// Table 4 of seed 004: maximum percentage of link bandwidth used (whole
// simulation, 10 s, 1 s), for the largest SF_max of each policy.
// PaperTable4 is the paper's Table 4 by policy, SF_max and link: the
// maximum percentage of link bandwidth used over the whole simulation, 10 s
// and 1 s windows.
var PaperTable4 = map[string]map[int]map[string][3]string{
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

// Table4UpdateBandwidth is the update limit of Table 4's runs: §7.3 says
// the maxima were "recorded ... with an update bandwidth limit of 100Kbps,
// thus giving a reference for the very worst case". We read Kbps as
// kilobits per second (100 000 / 8 = 12 500 bytes/s): the paper writes
// bytes per second as "Bps" ("100, 1000 and 10000 bytes per second (Bps)",
// "1 KBps") and bits with a lower-case b ("10 Mbps", "1 Gbps").
const Table4UpdateBandwidth = 100e3 / 8

func pct(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }

// RunsDir is the campaign's directory under ReproduceOptions.OutDir.
const RunsDir = "overlay-sim-runs"

// Reproduce runs the reduced reproduction of §7.3-7.5 (Table 4, Figs. 9,
// 10, 11, 12-17, 18 and the catastrophic failure) and prints its tables
// next to the paper's on w. The simulations are the units of a campaign
// (CampaignParams) run by experiment.Run in OutDir/overlay-sim-runs (a
// temporary directory, removed, without OutDir): an interrupted
// reproduction resumes from the runs it finished.
func Reproduce(ctx context.Context, w io.Writer, opt ReproduceOptions) (*reproduction.Section, error) {
	dists, err := workload.DefaultDistributions()
	if err != nil {
		return nil, err
	}
	c, err := NewCampaign(opt.Quick, opt.Seed, dists)
	if err != nil {
		return nil, err
	}
	var dir string
	if opt.OutDir != "" {
		if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
			return nil, err
		}
		dir = filepath.Join(opt.OutDir, RunsDir)
	} else {
		tmp, err := os.MkdirTemp("", "volsched-overlay-sim-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	params, err := experiment.CanonicalJSON(c)
	if err != nil {
		return nil, err
	}
	m := experiment.Manifest{Kind: Kind, Seed: opt.Seed, Units: c.Units(), Params: params, Shard: experiment.Whole}
	err = experiment.Run(ctx, dir, m, opt.Workers, func(ctx context.Context, u int) (UnitResult, error) {
		return c.RunUnit(ctx, opt.Seed, u)
	}, opt.Progress)
	if err != nil {
		return nil, err
	}
	_, results, err := experiment.LoadComplete[UnitResult](dir)
	if err != nil {
		return nil, err
	}
	return c.Summarize(w, opt.OutDir, results)
}

// Summarize prints the tables of the campaign's results (ordered by unit)
// next to the paper's and, when outDir is not empty, writes them as CSV
// files and the figures as SVG and PNG files there
// (overlay-sim-table4.csv, overlay-sim-fig9.csv, overlay-sim-fig9.svg,
// ...). It returns the reproduction's section of the report page: Table 4
// and DP's tasks finished (Fig. 16) beside the paper's, and every figure.
func (c *CampaignParams) Summarize(w io.Writer, outDir string, results []UnitResult) (*reproduction.Section, error) {
	if len(results) != len(c.configs) {
		return nil, fmt.Errorf("overlay-sim campaign: %d results for %d runs", len(results), len(c.configs))
	}
	byKey := make(map[string]UnitResult, len(results))
	for i, r := range results {
		if r.Result == nil && r.Error == "" {
			return nil, fmt.Errorf("overlay-sim campaign: unit %d (%s): neither a result nor an error", i, c.Runs[i])
		}
		byKey[c.Runs[i]] = r
	}
	g, dists := &c.grid, c.grid.dists
	nodes, hours, churnHours, sizes := g.nodes, g.hours, g.churnHours, g.sizes
	var failures []string
	note := func(what string, err error) string {
		failures = append(failures, fmt.Sprintf("%s: %v", what, err))
		return "FAILED"
	}
	// runOne looks a run up; every run of the tables is a unit.
	runOne := func(cfg *oversim.Config) (*oversim.Result, error) {
		r, ok := byKey[cfg.Key()]
		switch {
		case !ok:
			return nil, fmt.Errorf("internal error: run %s is not in the campaign", cfg.Key())
		case r.Error != "":
			return nil, errors.New(r.Error)
		}
		return r.Result, nil
	}
	fmt.Fprintf(w, "Seed 004 §7.3-7.5, reduced: event-driven simulation of the overlay (seed %d).\n", g.seed)
	fmt.Fprintf(w, "Site-level workload (one user per node, from time 0 = Monday 00:00), SF_max = 225/256/216,\n")
	fmt.Fprintf(w, "update limit 1 KB/s (IBP, DP) and 10 KB/s (MMP), processing %v + %d ns/byte per message.\n", des.DefaultProcessing.PerMessage, des.DefaultProcessing.PerByte)
	fmt.Fprintf(w, "The paper: IBP on 10^6 nodes, MMP and DP on 10^5, 60 simulated hours.\n")
	if dists.Model != "" {
		fmt.Fprintf(w, "Workload: the embedded model %s fitted to the authors' empirical distributions (docs/workload-model.md),\n", dists.Model)
		fmt.Fprintf(w, "not the distributions themselves: set %s to their folder to use them.\n", workload.DataDirEnv)
	}
	fmt.Fprintln(w)

	// Table 4.
	fmt.Fprintf(w, "Table 4: maximum link use over nodes (%d nodes, %g h; update limit 100 kbit/s = %g bytes/s, as the paper's Table 4)\n", nodes, hours, Table4UpdateBandwidth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tSF_max\tlink\tsim\t10s\t1s\tpaper sim\tpaper 10s\tpaper 1s\t")
	var rows [][]string
	var table4 []Table4Row
	var figs []Drawn
	for _, pol := range accuracy.PaperPolicies {
		p := pol.String()
		for _, sf := range accuracy.PaperSFMax[pol] {
			for _, l := range links {
				r, err := runOne(g.table4(pol, sf, l))
				pp := PaperTable4[p][sf][l.Name]
				table4 = append(table4, newTable4Row(pol, sf, l.Name, r))
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
	if outDir != "" {
		if err := experiment.WriteCSVFile(filepath.Join(outDir, "overlay-sim-table4.csv"),
			[]string{"policy", "sfmax", "link", "sim", "10s", "1s"}, rows); err != nil {
			return nil, err
		}
	}

	// Fig. 9: throughput against size.
	fmt.Fprintf(w, "\nFig. 9: throughput (tasks finished per hour) against network size (fast link, %g h)\n", churnHours)
	var sruns []sizeRun
	for _, pol := range accuracy.PaperPolicies {
		p := pol.String()
		for _, n := range sizes {
			r, err := runOne(g.size(pol, n))
			x := sizeRun{policy: pol, nodes: n, r: r}
			if err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s %d nodes", p, n), err)
			}
			sruns = append(sruns, x)
		}
	}
	prefix := ""
	if outDir != "" {
		prefix = filepath.Join(outDir, "overlay-sim-")
	}
	drawn, err := sizeFigures(w, prefix, " (reduced)", sruns)
	if err != nil {
		return nil, err
	}
	figs = append(figs, drawn...)

	// Fig. 10: allocation time of a probe request against size.
	probeTasks, probeSizes := g.probeTasks, g.probeSizes
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
	var rs10 []*oversim.Result
	for _, sch := range fig10Schedulers {
		for _, pol := range accuracy.PaperPolicies {
			p := pol.String()
			for _, l := range links {
				label := p
				if sch == "centralized" {
					label = p + " (central)"
				}
				fmt.Fprintf(tw, "%s\t%s\t", label, l.Name)
				s10 := experiment.Series{Name: label}
				var unalloc uint64
				for _, n := range probeSizes {
					r, err := runOne(g.probe(sch, pol, l, n))
					if err != nil {
						fmt.Fprintf(tw, "%s\t", note(fmt.Sprintf("%s %s %d nodes (probes)", p, l.Name, n), err))
						continue
					}
					unalloc += r.ProbeTasksUnallocated
					rs10 = append(rs10, r)
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
	for _, l := range links {
		if len(fig10[l.Name]) == 0 {
			continue
		}
		var rs []*oversim.Result
		for _, r := range rs10 {
			if r.Link == l.Name {
				rs = append(rs, r)
			}
		}
		f := &figure.Figure{
			Title:  fmt.Sprintf("Figure 10: allocation time of a %d-task request, %s link (reduced)", probeTasks, l.Name),
			Source: Source,
			X:      figure.Axis{Label: "network size", Unit: "nodes", Log: true},
			Y:      figure.Axis{Label: "mean allocation time", Unit: "s", Zero: true},
			Series: seriesOf(fig10[l.Name]),
			Caption: runsCaption(rs) + fmt.Sprintf(" A request of %d tasks of 10,000 MI every 2 simulated minutes for 20 minutes, from nodes drawn "+
				"from the seed; allocation time: from submission until every task is accepted or returned. Distributed: the overlay; "+
				"central: the centralized reference with a modelled decision cost of 100 ns per node examined.", probeTasks),
			Paper: figure.PaperPicture,
		}
		if l.Name == des.SlowLink.Name {
			f.Paper = figure.PaperValues
			f.Series = append(f.Series, figure.Series{Name: "bound: 1000 tasks, 10^5 nodes", X: []float64{1e5}, Y: []float64{3.5}, Paper: true})
			f.Caption += " The paper's point is the bound its text gives: the distributed version allocates a 1000-task request on 10^5 " +
				"nodes with the slow link in less than 3.5 s (any policy); the rest of its Fig. 10 is a picture (distributed time logarithmic in " +
				"the size, centralized almost linear)."
		} else {
			f.Caption += " The paper's text on its Fig. 10 for the fast link: the distributed time grows logarithmically " +
				"with the size and can be lower than the centralized one, which grows almost linearly."
		}
		figs = append(figs, Drawn{"fig10-" + l.Name, f})
	}
	if outDir != "" && len(rows) > 0 {
		if err := experiment.WriteCSVFile(filepath.Join(outDir, "overlay-sim-fig10.csv"), []string{"policy", "scheduler", "link", "nodes", "alloc_time_mean_s", "unallocated_tasks"}, rows); err != nil {
			return nil, err
		}
		for _, d := range figs {
			if strings.HasPrefix(d.ID, "fig10-") {
				if err := writeDrawn(d, filepath.Join(outDir, "overlay-sim-"+d.ID)); err != nil {
					return nil, err
				}
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
	sfmaxRuns := map[overlay.Policy][]*oversim.Result{}
	for _, pol := range accuracy.PaperPolicies {
		p := pol.String()
		var got []*oversim.Result
		for _, v := range sfmaxVariants(pol) {
			sf := strconv.Itoa(v.sf)
			if v.sch != "overlay" {
				sf = "-"
			}
			r, err := runOne(g.sfmax(pol, v.sch, v.sf))
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
		sfmaxRuns[pol] = got
		sfr := sfs[pol]
		fig12[p] = againstSFMax(got, nil, float64(sfr[0]), float64(sfr[len(sfr)-1]),
			func(r *oversim.Result) float64 { return r.ComputationFinishedMI })
	}
	tw.Flush()
	fmt.Fprintln(w, "paper (figures): IBP 10^6 nodes: distributed finishes more tasks than centralized, computation ~20 % behind centralized, random far behind;")
	fmt.Fprintln(w, "MMP 10^5: SF_max 81 and 256 close to centralized, 16 bad; DP 10^5: SF_max 216 about 5 % behind centralized.")
	for _, pol := range accuracy.PaperPolicies {
		p := pol.String()
		if len(fig12[p]) == 0 {
			continue
		}
		f := &figure.Figure{
			Title:   fmt.Sprintf("finished computation against SF_max, %s (reduced)", strings.ToUpper(p)),
			Source:  Source,
			X:       figure.Axis{Label: "SF_max"},
			Y:       figure.Axis{Label: "finished computation", Unit: "MI", Zero: true},
			Series:  seriesOf(fig12[p]),
			Caption: runsCaption(sfmaxRuns[pol]) + " The overlay at the paper's SF_max values as one line; the centralized and random references flat.",
			Paper:   figure.PaperNone,
		}
		paperFigsOf(pol).compReduced.apply(f, sfmaxRuns[pol])
		figs = append(figs, Drawn{"fig12-17-" + p, f})
	}
	if outDir != "" && len(rows) > 0 {
		if err := experiment.WriteCSVFile(filepath.Join(outDir, "overlay-sim-fig12-17.csv"), []string{"policy", "scheduler", "sfmax", "tasks_finished", "tasks_finished_in_time", "computation_mi", "makespan_mean_s", "makespan_max_s"}, rows); err != nil {
			return nil, err
		}
		for _, d := range figs {
			if strings.HasPrefix(d.ID, "fig12-17-") {
				if err := writeDrawn(d, filepath.Join(outDir, "overlay-sim-"+d.ID)); err != nil {
					return nil, err
				}
			}
		}
	}

	// Fig. 18 and the catastrophic failure.
	fmt.Fprintf(w, "\nFig. 18: finished computation with churn, normalized to the run without failures (%d nodes, %g h, fast link);\n", nodes, churnHours)
	fmt.Fprintf(w, "catastrophic failure of a fraction of the nodes at %g h, same normalization\n", churnHours/2)
	var fruns []failRun
	for _, pol := range accuracy.PaperPolicies {
		p := pol.String()
		r0, err := runOne(g.plain(pol))
		if err == nil && r0.ComputationFinishedMI == 0 {
			err = fmt.Errorf("no computation finished without failures")
		}
		if err != nil {
			fruns = append(fruns, failRun{policy: pol, failed: note(p+" without failures", err)})
			continue
		}
		fruns = append(fruns, failRun{policy: pol, r: r0})
		for _, m := range churnMedians {
			x := failRun{policy: pol, kind: "churn", param: m.Seconds() / 60}
			if x.r, err = runOne(g.churn(pol, m)); err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s churn %v", p, m.Duration()), err)
			}
			fruns = append(fruns, x)
		}
		for _, f := range catastropheFractions {
			x := failRun{policy: pol, kind: "catastrophe", param: f}
			if x.r, err = runOne(g.catastrophe(pol, f)); err != nil {
				x.r, x.failed = nil, note(fmt.Sprintf("%s catastrophe %g", p, f), err)
			}
			fruns = append(fruns, x)
		}
	}
	drawn, err = failureFigures(w, prefix, " (reduced)", fmt.Sprintf("%g h", churnHours/2), fruns)
	if err != nil {
		return nil, err
	}
	figs = append(figs, drawn...)
	if len(failures) > 0 {
		fmt.Fprintf(w, "\n%d runs failed:\n", len(failures))
		for _, f := range failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	var fig16Runs []*oversim.Result
	for _, pol := range accuracy.PaperPolicies {
		if paperFigsOf(pol).fig16 {
			fig16Runs = sfmaxRuns[pol]
		}
	}
	return c.section(table4, fig16Runs, figs), nil
}
