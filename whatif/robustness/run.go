package robustness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/volsched/volsched/experiment"
	itercampaign "github.com/volsched/volsched/iterative/campaign"
)

// Files a summary writes in the campaign directory.
const (
	SummaryFile  = "summary.json"
	ReportFile   = "report.md"
	ReportHeader = "<!-- written by volsched exp robustness; the tables of docs/robustness.md -->\n"
)

// IndependentReport summarizes the seed-001 part: results ordered by unit.
func (c *IndependentParams) IndependentReport(seed uint64, results []UnitResult) (Report, error) {
	if len(results) != c.Units() {
		return Report{}, fmt.Errorf("summary: %d unit results, want %d", len(results), c.Units())
	}
	ms := make([][][]int, len(c.Variants))
	for u, r := range results {
		if len(r.Makespans) != len(c.Variants) {
			return Report{}, fmt.Errorf("summary: unit %d has %d variants, want %d", u, len(r.Makespans), len(c.Variants))
		}
		for v, tr := range r.Makespans {
			if len(tr) != c.Grid.Trials {
				return Report{}, fmt.Errorf("summary: unit %d variant %d has %d trials, want %d", u, v, len(tr), c.Grid.Trials)
			}
			ms[v] = append(ms[v], tr...)
		}
	}
	names := c.Grid.HeuristicNames()
	sc := make([]scores, len(c.Variants))
	for v := range sc {
		var err error
		if sc[v], err = dfbScores(ms[v], len(names)); err != nil {
			return Report{}, fmt.Errorf("summary: variant %s: %w", c.Variants[v].Name, err)
		}
	}
	paper := map[string]float64{}
	for _, p := range itercampaign.PaperTable2 {
		paper[p.Name] = p.AvgDfb
	}
	return newReport(KindIndependent, seed, c, names, "average dfb (%)", c.Variants, sc, "Table 2", paper)
}

// SummarizeIndependentDir computes the report of a complete campaign
// directory of kind KindIndependent, writes DIR/summary.json and
// DIR/report.md and prints the report to w.
func SummarizeIndependentDir(ctx context.Context, dir string, w io.Writer) error {
	_, err := summarizeIndependentDir(dir, w)
	return err
}

func summarizeIndependentDir(dir string, w io.Writer) (Report, error) {
	return summarizeDir(dir, KindIndependent, w, (*IndependentParams).IndependentReport)
}

// SummarizeCoupledDir is SummarizeIndependentDir for KindCoupled.
func SummarizeCoupledDir(ctx context.Context, dir string, w io.Writer) error {
	_, err := summarizeCoupledDir(dir, w)
	return err
}

func summarizeCoupledDir(dir string, w io.Writer) (Report, error) {
	return summarizeDir(dir, KindCoupled, w, (*CoupledParams).CoupledReport)
}

// summarizeDir reads a complete campaign directory of kind, results R and
// parameters P (experiment.LoadCampaign), computes the report with report
// and writes it (writeReport).
func summarizeDir[R, P any, PP experiment.Params[P]](dir, kind string, w io.Writer, report func(PP, uint64, []R) (Report, error)) (Report, error) {
	m, p, results, err := experiment.LoadCampaign[P, R, PP](dir, kind)
	if err != nil {
		return Report{}, err
	}
	r, err := report(p, m.Seed, results)
	if err != nil {
		return Report{}, err
	}
	return r, writeReport(dir, r, w)
}

func writeReport(dir string, r Report, w io.Writer) error {
	if err := experiment.WriteJSONFile(filepath.Join(dir, SummaryFile), r); err != nil {
		return err
	}
	var md strings.Builder
	md.WriteString(ReportHeader)
	if err := r.WriteText(&md, true); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(md.String()), 0o644); err != nil {
		return err
	}
	if err := r.WriteText(w, false); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s and %s in %s\n", SummaryFile, ReportFile, dir)
	return nil
}

// ReproductionName is the name of the reduced study in `volsched
// reproduce` (and of its directory under reproduce --out).
const ReproductionName = "robustness"

// quickVariants are the variants of the reduced study.
var quickVariants = map[string]bool{"markov": true, "weibull": true, "weibull-est": true, "lognormal": true, "lognormal-est": true, "lognormal-win100": true, "trace-ucb-est": true}

// keepVariants keeps the variants named in keep and the availabilities
// they use.
func keepVariants(av []Availability, vs []Variant, keep map[string]bool) ([]Availability, []Variant) {
	var ov []Variant
	for _, v := range vs {
		if keep[v.Name] {
			ov = append(ov, v)
		}
	}
	var oa []Availability
	for _, a := range av {
		for _, v := range ov {
			if v.Availability == a.Name {
				oa = append(oa, a)
				break
			}
		}
	}
	return oa, ov
}

// QuickIndependent is the reduced seed-001 study of `reproduce --quick`:
// n ∈ {5, 20}, n_com ∈ {5, 10}, w_min ∈ {1, 3}, one scenario and two
// trials each, 5 iterations, and the variants markov, weibull,
// weibull-est, lognormal, lognormal-est, lognormal-win100, trace-ucb-est.
func QuickIndependent() IndependentParams {
	c := DefaultIndependent()
	c.Grid.N, c.Grid.NCom, c.Grid.WMin = []int{5, 20}, []int{5, 10}, []int{1, 3}
	c.Grid.Scenarios, c.Grid.Trials, c.Grid.Iterations = 1, 2, 5
	c.Availabilities, c.Variants = keepVariants(c.Availabilities, c.Variants, quickVariants)
	return c
}

// QuickCoupled is the reduced seed-002 study of `reproduce --quick`: m =
// 5, n_com ∈ {5, 10}, w_min = 1, two scenarios of two trials, 5
// iterations, the variants of QuickIndependent.
func QuickCoupled() CoupledParams {
	c := DefaultCoupled()
	c.Grid.Tasks, c.Grid.NCom, c.Grid.WMin = []int{5}, []int{5, 10}, []int{1}
	c.Grid.Scenarios, c.Grid.Trials, c.Grid.Iterations = 2, 2, 5
	c.Availabilities, c.Variants = keepVariants(c.Availabilities, c.Variants, quickVariants)
	return c
}

// Reproduce runs the reduced study (quick: QuickIndependent and
// QuickCoupled), or the study of docs/robustness.md (results/robustness):
// the seed-001 §7 grid with one scenario of two trials per (n, n_com,
// w_min), and the seed-002 grid at m = 5, w_min 1–5 with two scenarios of
// one trial per (n_com, w_min) (beyond w_min 5 the Markov variants cost
// minutes of CPU per unit), into outDir/robustness/{independent,coupled}
// (a temporary directory, removed, when outDir is empty), prints the
// reports and returns them (Result.Section is its part of the report page).
func Reproduce(ctx context.Context, w io.Writer, quick bool, seed uint64, outDir string) (*Result, error) {
	ci, cc := QuickIndependent(), QuickCoupled()
	if !quick {
		ci = DefaultIndependent()
		ci.Grid.Scenarios, ci.Grid.Trials = 1, 2
		cc = DefaultCoupled()
		cc.Grid.Tasks, cc.Grid.WMin = []int{5}, []int{1, 2, 3, 4, 5}
		cc.Grid.Scenarios, cc.Grid.Trials = 2, 1
	}
	dir := filepath.Join(outDir, ReproductionName)
	if outDir == "" {
		tmp, err := os.MkdirTemp("", "volsched-robustness-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	fmt.Fprintf(w, "reduced study (the full one: volsched exp robustness --out DIR; docs/robustness.md)\n\n")
	if err := runPart(ctx, filepath.Join(dir, "independent"), KindIndependent, seed, ci.Units(), ci, func(ctx context.Context, u int) (UnitResult, error) {
		return ci.RunUnit(ctx, seed, u)
	}); err != nil {
		return nil, err
	}
	res := &Result{Quick: quick, Seed: seed}
	var err error
	if res.Independent, err = summarizeIndependentDir(filepath.Join(dir, "independent"), w); err != nil {
		return nil, err
	}
	fmt.Fprintln(w)
	if err := runPart(ctx, filepath.Join(dir, "coupled"), KindCoupled, seed, cc.Units(), cc, func(ctx context.Context, u int) (CoupledUnitResult, error) {
		return cc.RunUnit(ctx, seed, u)
	}); err != nil {
		return nil, err
	}
	if res.Coupled, err = summarizeCoupledDir(filepath.Join(dir, "coupled"), w); err != nil {
		return nil, err
	}
	if outDir == "" {
		fmt.Fprintf(w, "(temporary directory, removed; reproduce --out DIR keeps the files)\n")
	}
	return res, nil
}

func runPart[R any](ctx context.Context, dir, kind string, seed uint64, units int, params any, work func(context.Context, int) (R, error)) error {
	c := experiment.Campaign[R]{Kind: kind, Units: units, Params: params, Work: work}
	m, err := c.Manifest(seed, experiment.Whole)
	if err != nil {
		return err
	}
	return c.Run(ctx, dir, m, 0, experiment.NewProgress(ReproductionName+" "+kind))
}
