package campaign

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// Kind is the kind of the campaign's manifest (experiment.Manifest.Kind).
const Kind = "independent"

// Report is DIR/summary.json of a complete campaign: the Summary with the
// heuristics sorted by average dfb, the seed and parameters, and Kendall's
// τ-b against Table 2.
type Report struct {
	Heuristics []HeuristicSummary `json:"heuristics"` // sorted by average dfb
	Instances  int                `json:"instances"`
	Seed       uint64             `json:"seed"`
	Parameters CampaignParams     `json:"parameters"`
	// KendallTauDfb is Kendall's τ-b between our average dfb and Table 2's
	// over the campaign's heuristics that Table 2 has (the 17 of §6 by
	// default); KendallTauWins the same for the wins. Nil (null in JSON)
	// when undefined: when every heuristic has the same average dfb (or
	// the same wins), or fewer than 2 are in Table 2, there is no ranking
	// to compare.
	KendallTauDfb  *float64 `json:"kendall_tau_dfb"`
	KendallTauWins *float64 `json:"kendall_tau_wins"`
	// HeuristicOrder names the campaign's heuristics in the order of its
	// results (the 17 of §6 in its order by default); the breakdowns have
	// one value per name, in this order: average dfb per w_min (Figure 2),
	// per n, per n_com, and the mean makespan. Readers find a heuristic's
	// values by its name here, never by a position of their own.
	HeuristicOrder []string    `json:"heuristic_order"`
	WMin           []int       `json:"wmin"`
	DfbByWMin      [][]float64 `json:"dfb_by_wmin"`
	N              []int       `json:"n"`
	DfbByN         [][]float64 `json:"dfb_by_n"`
	NCom           []int       `json:"ncom"`
	DfbByNCom      [][]float64 `json:"dfb_by_ncom"`
	MeanMakespan   []float64   `json:"mean_makespan"`
}

// Figure2Heuristics are the curves of Figure 2: the four MCT heuristics and
// the other heuristics that account for contention.
var Figure2Heuristics = []iterative.Heuristic{iterative.MCT, iterative.MCTStar, iterative.EMCT, iterative.EMCTStar, iterative.LWStar, iterative.UDStar}

// Index is the position of heuristic name in HeuristicOrder (the column of
// its values in the breakdowns), −1 when the campaign did not run it.
func (r *Report) Index(name string) int { return slices.Index(r.HeuristicOrder, name) }

// kendall is experiment.KendallTau, nil when undefined.
func kendall(a, b []float64) *float64 {
	if len(a) < 2 {
		return nil
	}
	t := experiment.KendallTau(a, b)
	if math.IsNaN(t) {
		return nil
	}
	return &t
}

// NewReport builds the report of summary s of the campaign run with seed.
func (c *CampaignParams) NewReport(seed uint64, s Summary) Report {
	out := Report{
		Instances: s.Instances, Seed: seed, Parameters: *c,
		WMin: s.WMin, DfbByWMin: s.ByWMin, N: s.N, DfbByN: s.ByN, NCom: s.NCom, DfbByNCom: s.ByNCom,
		MeanMakespan: s.MeanMakespan,
	}
	var ourDfb, paperDfb, ourWins, paperWins []float64
	for _, h := range s.Heuristics {
		out.HeuristicOrder = append(out.HeuristicOrder, h.Name)
		if p, ok := PaperRow(h.Name); ok {
			ourDfb, paperDfb = append(ourDfb, h.AvgDfb), append(paperDfb, p.AvgDfb)
			ourWins, paperWins = append(ourWins, float64(h.Wins)), append(paperWins, float64(p.Wins))
		}
	}
	out.KendallTauDfb = kendall(ourDfb, paperDfb)
	out.KendallTauWins = kendall(ourWins, paperWins)
	order := make([]int, len(s.Heuristics))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.Heuristics[order[a]].AvgDfb < s.Heuristics[order[b]].AvgDfb })
	for _, i := range order {
		out.Heuristics = append(out.Heuristics, s.Heuristics[i])
	}
	return out
}

// SummarizeDir summarizes the complete campaign directory dir: it writes
// summary.json (the Report), makespans.csv (one row per instance),
// figure2.csv and figure2.svg (average dfb versus w_min), and prints the
// tables to w.
func SummarizeDir(ctx context.Context, dir string, w io.Writer) error {
	_, err := summarizeDir(dir, w)
	return err
}

// summarizeDir is SummarizeDir, returning the report.
func summarizeDir(dir string, w io.Writer) (*Report, error) {
	m, p, results, err := experiment.LoadCampaign[CampaignParams, UnitResult](dir, Kind)
	if err != nil {
		return nil, err
	}
	s, err := p.Summarize(results)
	if err != nil {
		return nil, err
	}
	out := p.NewReport(m.Seed, s)
	if err := experiment.WriteJSONFile(filepath.Join(dir, "summary.json"), out); err != nil {
		return nil, err
	}
	if err := p.writeTables(dir, &out, results, s); err != nil {
		return nil, err
	}
	out.Print(w, s)
	fmt.Fprintf(w, "\nwrote %s/summary.json, makespans.csv, figure2.csv, figure2.svg\n", dir)
	return &out, nil
}

// writeTables writes makespans.csv, figure2.csv and figure2.svg (of r,
// the report of s).
func (c *CampaignParams) writeTables(dir string, r *Report, results []UnitResult, s Summary) error {
	// Per-instance makespans.
	header := append([]string{"unit", "n", "ncom", "wmin", "scenario", "trial"}, r.HeuristicOrder...)
	var rows [][]string
	for u, res := range results {
		sc := c.ScenarioOf(u)
		for tr, ms := range res.Makespans {
			row := []string{strconv.Itoa(u), strconv.Itoa(sc.N), strconv.Itoa(sc.NCom), strconv.Itoa(sc.WMin), strconv.Itoa(sc.Index), strconv.Itoa(tr)}
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
	for i, wm := range s.WMin {
		row := []string{strconv.Itoa(wm)}
		for h := range r.HeuristicOrder {
			row = append(row, experiment.FormatFloat(s.ByWMin[i][h], 4))
		}
		rows = append(rows, row)
	}
	if err := experiment.WriteCSVFile(filepath.Join(dir, "figure2.csv"), append([]string{"wmin"}, header[6:]...), rows); err != nil {
		return err
	}
	return r.Figure2().WriteFile(filepath.Join(dir, "figure2.svg"))
}

// formatTau prints a τ with 3 decimals, or says it is undefined.
func formatTau(t *float64) string {
	if t == nil {
		return "undefined (every heuristic ties)"
	}
	return fmt.Sprintf("%.3f", *t)
}

// Print writes the report as tables: ours next to Table 2, Kendall's τ,
// and Figure 2's rows (from s, the summary it was built from).
func (r *Report) Print(w io.Writer, s Summary) {
	p := &r.Parameters
	fmt.Fprintf(w, "Table 2 of Scheduling Parallel Iterative Applications on Volatile Resources (§7) — seed %d; p = %d, n ∈ %v, n_com ∈ %v, w_min ∈ %v; %d scenarios × %d trials per instantiation, %d iterations; %d instances (paper: %d)\n",
		r.Seed, p.P, p.N, p.NCom, p.WMin, p.Scenarios, p.Trials, p.Iterations, s.Instances, PaperInstances)
	fmt.Fprintf(w, "model: channels %s, order %s, hold-reclaimed %v, extra replicas %d, initial %s, sticky %v (docs/model-001.md)\n\n",
		p.Channels, p.Order, p.HoldReclaimed, p.ExtraReplicas, p.Initial, p.Sticky)
	paperRank := map[string]int{}
	idx := make([]int, len(PaperTable2))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return PaperTable2[idx[a]].AvgDfb < PaperTable2[idx[b]].AvgDfb
	})
	for rk, i := range idx {
		paperRank[PaperTable2[i].Name] = rk + 1
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\talgorithm\tavg dfb\twins\twins %\t\tpaper rank\tpaper dfb\tpaper wins\tpaper wins %\t")
	inPaper := 0
	for rk, hsum := range r.Heuristics {
		pt, ok := PaperRow(hsum.Name)
		if !ok {
			fmt.Fprintf(tw, "%d\t%s\t%.2f\t%d\t%.1f\t\t%s\t%s\t%s\t%s\t\n", rk+1, hsum.Name, hsum.AvgDfb, hsum.Wins,
				100*float64(hsum.Wins)/float64(s.Instances), "—", "—", "—", "—")
			continue
		}
		inPaper++
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%d\t%.1f\t\t%d\t%.2f\t%d\t%.1f\t\n", rk+1, hsum.Name, hsum.AvgDfb, hsum.Wins,
			100*float64(hsum.Wins)/float64(s.Instances), paperRank[hsum.Name], pt.AvgDfb, pt.Wins, 100*float64(pt.Wins)/PaperInstances)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nKendall's τ-b over the %d heuristics: average dfb %s, wins %s\n", inPaper, formatTau(r.KendallTauDfb), formatTau(r.KendallTauWins))
	fmt.Fprintf(w, "\nFigure 2 — average dfb (%%) by w_min:\n")
	var cols []int // the Figure 2 heuristics the campaign ran, by column
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "w_min\t")
	for _, h := range Figure2Heuristics {
		if k := r.Index(h.String()); k >= 0 {
			cols = append(cols, k)
			fmt.Fprintf(tw, "%s\t", h)
		}
	}
	fmt.Fprintln(tw)
	for i, wm := range s.WMin {
		fmt.Fprintf(tw, "%d\t", wm)
		for _, k := range cols {
			fmt.Fprintf(tw, "%.2f\t", s.ByWMin[i][k])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// ReproductionName is the name of the reproduction (reproduce --only: the
// command it reduces) and of its directory under reproduce --out.
const ReproductionName = "exp-independent"

// Reproduce runs the reduced Table 2 of `volsched reproduce`: the §7 grid
// with 10 scenarios × 10 trials per instantiation, or, quick, 1 × 2 over
// w_min ∈ {1, 2, 3, 5, 8}; in outDir/exp-independent (a temporary
// directory, removed, when outDir is empty); then the summary of
// SummarizeDir. It returns the report's section.
func Reproduce(ctx context.Context, w io.Writer, quick bool, seed uint64, outDir string) (*reproduction.Section, error) {
	p := PaperParams()
	if quick {
		p.Scenarios, p.Trials = 1, 2
		p.WMin = []int{1, 2, 3, 5, 8}
	} else {
		p.Scenarios, p.Trials = 10, 10
	}
	dir := filepath.Join(outDir, ReproductionName)
	if outDir == "" {
		tmp, err := os.MkdirTemp("", "volsched-"+ReproductionName+"-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	params, err := experiment.CanonicalJSON(p)
	if err != nil {
		return nil, err
	}
	m := experiment.Manifest{Kind: Kind, Seed: seed, Units: p.Units(), Params: params, Shard: experiment.Whole}
	err = experiment.Run(ctx, dir, m, 0, func(ctx context.Context, unit int) (UnitResult, error) {
		return p.RunUnit(ctx, seed, unit)
	}, experiment.NewProgress(ReproductionName))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "reduced campaign (the full one: volsched exp independent --out DIR)\n")
	r, err := summarizeDir(dir, w)
	if err != nil {
		return nil, err
	}
	if outDir == "" {
		fmt.Fprintf(w, "(temporary directory, removed; reproduce --out DIR keeps the files)\n")
	}
	what := fmt.Sprintf("A reduced campaign (%d scenario%s × %d trials per (n, n_com, w_min) instead of the paper's 247 × 10), so its averages are noisier than the paper's. The full campaign is committed in results/%s; 'volsched report results/' shows it.", p.Scenarios, report.Plural(p.Scenarios), p.Trials, ResultsDir)
	return r.Section(what, []report.Run{{Command: FullCommand, Seed: seed, Note: "the paper's campaign in full: 296,400 instances, 5,579 CPU-s measured (docs/benchmarks.md)"}}), nil
}
