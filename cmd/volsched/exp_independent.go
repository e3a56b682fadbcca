package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
)

const independentKind = "independent"

// independentSummary is DIR/summary.json of `volsched exp independent`.
type independentSummary struct {
	Heuristics []iterative.HeuristicSummary `json:"heuristics"` // sorted by average dfb
	Instances  int                          `json:"instances"`
	Seed       uint64                       `json:"seed"`
	Parameters iterative.CampaignParams     `json:"parameters"`
	// KendallTauDfb is Kendall's τ-b between our average dfb and Table 2's
	// over the 17 heuristics; KendallTauWins the same for the wins.
	KendallTauDfb  float64 `json:"kendall_tau_dfb"`
	KendallTauWins float64 `json:"kendall_tau_wins"`
	// Breakdowns in the order of Heuristics(): average dfb per w_min (Figure
	// 2), per n, per n_com, and the mean makespan.
	HeuristicOrder []string    `json:"heuristic_order"`
	Wmin           []int       `json:"wmin"`
	DfbByWmin      [][]float64 `json:"dfb_by_wmin"`
	N              []int       `json:"n"`
	DfbByN         [][]float64 `json:"dfb_by_n"`
	Ncom           []int       `json:"ncom"`
	DfbByNcom      [][]float64 `json:"dfb_by_ncom"`
	MeanMakespan   []float64   `json:"mean_makespan"`
}

// figure2Heuristics are the curves of Figure 2: the four MCT heuristics and
// the other heuristics that account for contention.
var figure2Heuristics = []iterative.Heuristic{iterative.MCT, iterative.MCTStar, iterative.EMCT, iterative.EMCTStar, iterative.LWStar, iterative.UDStar}

func init() {
	var f campaignFlags
	p := iterative.PaperParams()
	cmd := &cobra.Command{
		Use:   "independent --out DIR",
		Short: "Seed 001 §7: the 17 heuristics on the Table 1 grid (Table 2, Figure 2)",
		Long: `independent runs the campaign of seed 001 §7: p processors with random
3-state Markov availability, for every (n, n_com, w_min) of Table 1 a number of
random scenarios (w_q uniform in w_min..10·w_min, T_data = w_min,
T_prog = 5·w_min) and of trials (availability realizations, shared by the 17
heuristics), 10 iterations each; the makespan of every heuristic on every
instance. A unit is one scenario with all its trials.

When every unit is done it writes DIR/summary.json (average dfb and wins per
heuristic as §7 defines them), DIR/makespans.csv (one row per instance),
DIR/figure2.csv and DIR/figure2.svg (average dfb versus w_min), and prints
the table next to the paper's Table 2.

The model choices the paper leaves open are flags (docs/model-001.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := p.Validate(); err != nil {
				return usageError{err}
			}
			params := p
			return runCampaign(cmd.Context(), f, campaign[iterative.UnitResult]{
				Kind: independentKind, Units: params.Units(), Params: params,
				Work: func(ctx context.Context, unit int) (iterative.UnitResult, error) {
					return params.RunUnit(ctx, f.Seed, unit)
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	fl.IntVar(&p.Scenarios, "scenarios", p.Scenarios, "random scenarios per (n, n_com, w_min)")
	fl.IntVar(&p.Trials, "trials", p.Trials, "trials (availability realizations) per scenario")
	fl.IntVar(&p.Iterations, "iterations", p.Iterations, "iterations per run")
	fl.IntVar(&p.P, "p", p.P, "processors")
	fl.IntSliceVar(&p.N, "n", p.N, "tasks per iteration (list)")
	fl.IntSliceVar(&p.Ncom, "ncom", p.Ncom, "simultaneous transfers of the master (list)")
	fl.IntSliceVar(&p.Wmin, "wmin", p.Wmin, "w_min values (list)")
	fl.StringVar(&p.Channels, "channels", p.Channels, "which waiting transfer gets a free channel: fifo or index")
	fl.StringVar(&p.Order, "order", p.Order, "order of events in a slot: observe-decide or decide-observe")
	fl.BoolVar(&p.HoldReclaimed, "hold-reclaimed", p.HoldReclaimed, "a suspended transfer keeps its channel while its receiver is RECLAIMED")
	fl.IntVar(&p.ExtraReplicas, "replicas", p.ExtraReplicas, "maximum additional replicas of a task")
	fl.StringVar(&p.Initial, "initial", p.Initial, "initial processor states: stationary or up")
	fl.BoolVar(&p.Sticky, "sticky", p.Sticky, "queued tasks stay on their processor instead of being reassigned at every slot (not the paper's reading)")
	expCmd.AddCommand(cmd)
	registerSummarizer(independentKind, summarizeIndependent)
	registerReproduction(reproduction{
		Name:    "table2-001",
		Resumes: true,
		Order:   30,
		Title:   "seed 001 §7: Table 2 (average dfb and wins of the 17 heuristics) and Figure 2",
		Run:     reproduceIndependent,
	})
}

// summarizeIndependent computes and writes the summary of a complete
// campaign directory and prints the tables to w.
func summarizeIndependent(ctx context.Context, dir string, w io.Writer) error {
	m, results, err := experiment.LoadComplete[iterative.UnitResult](dir)
	if err != nil {
		return err
	}
	var p iterative.CampaignParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return fmt.Errorf("manifest parameters: %w", err)
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("manifest parameters: %w", err)
	}
	if p.Units() != m.Units {
		return fmt.Errorf("manifest: %d units, parameters give %d", m.Units, p.Units())
	}
	s, err := p.Summarize(results)
	if err != nil {
		return err
	}
	hs := iterative.Heuristics()
	out := independentSummary{
		Instances: s.Instances, Seed: m.Seed, Parameters: p,
		Wmin: s.Wmin, DfbByWmin: s.ByWmin, N: s.N, DfbByN: s.ByN, Ncom: s.Ncom, DfbByNcom: s.ByNcom,
		MeanMakespan: s.MeanMakespan,
	}
	ourDfb, paperDfb, ourWins, paperWins := make([]float64, len(hs)), make([]float64, len(hs)), make([]float64, len(hs)), make([]float64, len(hs))
	for i, h := range hs {
		out.HeuristicOrder = append(out.HeuristicOrder, h.String())
		ourDfb[i], paperDfb[i] = s.Heuristics[i].AvgDfb, iterative.PaperTable2[i].AvgDfb
		ourWins[i], paperWins[i] = float64(s.Heuristics[i].Wins), float64(iterative.PaperTable2[i].Wins)
	}
	out.KendallTauDfb = experiment.KendallTau(ourDfb, paperDfb)
	out.KendallTauWins = experiment.KendallTau(ourWins, paperWins)
	order := make([]int, len(hs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ourDfb[order[a]] < ourDfb[order[b]] })
	for _, i := range order {
		out.Heuristics = append(out.Heuristics, s.Heuristics[i])
	}
	if err := experiment.WriteJSONFile(filepath.Join(dir, "summary.json"), out); err != nil {
		return err
	}
	// Per-instance makespans.
	header := []string{"unit", "n", "ncom", "wmin", "scenario", "trial"}
	for _, h := range hs {
		header = append(header, h.String())
	}
	var rows [][]string
	for u, r := range results {
		sc := p.ScenarioOf(u)
		for tr, ms := range r.Makespans {
			row := []string{strconv.Itoa(u), strconv.Itoa(sc.N), strconv.Itoa(sc.Ncom), strconv.Itoa(sc.Wmin), strconv.Itoa(sc.Index), strconv.Itoa(tr)}
			for _, x := range ms {
				row = append(row, strconv.Itoa(x))
			}
			rows = append(rows, row)
		}
	}
	if err := experiment.WriteCSVFile(filepath.Join(dir, "makespans.csv"), header, rows); err != nil {
		return err
	}
	// Figure 2.
	rows = rows[:0]
	for i, wm := range s.Wmin {
		row := []string{strconv.Itoa(wm)}
		for h := range hs {
			row = append(row, experiment.FormatFloat(s.ByWmin[i][h], 4))
		}
		rows = append(rows, row)
	}
	if err := experiment.WriteCSVFile(filepath.Join(dir, "figure2.csv"), append([]string{"wmin"}, header[6:]...), rows); err != nil {
		return err
	}
	var series []experiment.Series
	for _, h := range figure2Heuristics {
		sr := experiment.Series{Name: h.String()}
		for i, wm := range s.Wmin {
			sr.X = append(sr.X, float64(wm))
			sr.Y = append(sr.Y, s.ByWmin[i][h])
		}
		series = append(series, sr)
	}
	title := fmt.Sprintf("Seed 001 Figure 2: average dfb vs w_min (seed %d, %d instances)", m.Seed, s.Instances)
	if err := experiment.LinePlot(filepath.Join(dir, "figure2.svg"), title, "w_min", "average dfb (%)", series); err != nil {
		return err
	}
	printIndependent(w, m.Seed, p, s, out)
	fmt.Fprintf(w, "\nwrote %s/summary.json, makespans.csv, figure2.csv, figure2.svg\n", dir)
	return nil
}

func printIndependent(w io.Writer, seed uint64, p iterative.CampaignParams, s iterative.Summary, out independentSummary) {
	fmt.Fprintf(w, "Seed 001 Table 2 — seed %d; p = %d, n ∈ %v, n_com ∈ %v, w_min ∈ %v; %d scenarios × %d trials per instantiation, %d iterations; %d instances (paper: %d)\n",
		seed, p.P, p.N, p.Ncom, p.Wmin, p.Scenarios, p.Trials, p.Iterations, s.Instances, iterative.PaperInstances)
	fmt.Fprintf(w, "model: channels %s, order %s, hold-reclaimed %v, extra replicas %d, initial %s, sticky %v (docs/model-001.md)\n\n",
		p.Channels, p.Order, p.HoldReclaimed, p.ExtraReplicas, p.Initial, p.Sticky)
	paperRank := map[string]int{}
	idx := make([]int, len(iterative.PaperTable2))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return iterative.PaperTable2[idx[a]].AvgDfb < iterative.PaperTable2[idx[b]].AvgDfb
	})
	for r, i := range idx {
		paperRank[iterative.PaperTable2[i].Name] = r + 1
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\talgorithm\tavg dfb\twins\twins %\t\tpaper rank\tpaper dfb\tpaper wins\tpaper wins %\t")
	for r, hsum := range out.Heuristics {
		h, _ := iterative.ParseHeuristic(hsum.Name)
		pt := iterative.PaperTable2[h]
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%d\t%.1f\t\t%d\t%.2f\t%d\t%.1f\t\n", r+1, hsum.Name, hsum.AvgDfb, hsum.Wins,
			100*float64(hsum.Wins)/float64(s.Instances), paperRank[hsum.Name], pt.AvgDfb, pt.Wins, 100*float64(pt.Wins)/iterative.PaperInstances)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nKendall's τ-b over the 17 heuristics: average dfb %.3f, wins %.3f\n", out.KendallTauDfb, out.KendallTauWins)
	fmt.Fprintf(w, "\nFigure 2 — average dfb (%%) by w_min:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "w_min\t")
	for _, h := range figure2Heuristics {
		fmt.Fprintf(tw, "%s\t", h)
	}
	fmt.Fprintln(tw)
	for i, wm := range s.Wmin {
		fmt.Fprintf(tw, "%d\t", wm)
		for _, h := range figure2Heuristics {
			fmt.Fprintf(tw, "%.2f\t", s.ByWmin[i][h])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// reproduceIndependent is the reduced Table 2 of `volsched reproduce`.
func reproduceIndependent(ctx context.Context, w io.Writer, opt reproduceOptions) error {
	p := iterative.PaperParams()
	if opt.Quick {
		p.Scenarios, p.Trials = 1, 2
		p.Wmin = []int{1, 2, 3, 5, 8}
	} else {
		p.Scenarios, p.Trials = 10, 10
	}
	dir := filepath.Join(opt.OutDir, "table2-001")
	if opt.OutDir == "" {
		tmp, err := os.MkdirTemp("", "volsched-table2-001-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	params, err := experiment.CanonicalJSON(p)
	if err != nil {
		return err
	}
	m := experiment.Manifest{Kind: independentKind, Seed: opt.Seed, Units: p.Units(), Params: params, Shard: experiment.Whole}
	err = experiment.Run(ctx, dir, m, 0, func(ctx context.Context, unit int) (iterative.UnitResult, error) {
		return p.RunUnit(ctx, opt.Seed, unit)
	}, experiment.NewProgress("table2-001"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "reduced campaign (the full one: volsched exp independent --out DIR)\n")
	if err := summarizeIndependent(ctx, dir, w); err != nil {
		return err
	}
	if opt.OutDir == "" {
		fmt.Fprintf(w, "(temporary directory, removed; reproduce --out DIR keeps the files)\n")
	}
	return nil
}
