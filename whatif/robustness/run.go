package robustness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/iterative"
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
	in := make([]instances, len(c.Variants))
	for u, r := range results {
		if len(r.Makespans) != len(c.Variants) {
			return Report{}, fmt.Errorf("summary: unit %d has %d variants, want %d", u, len(r.Makespans), len(c.Variants))
		}
		for v, tr := range r.Makespans {
			if len(tr) != c.Grid.Trials {
				return Report{}, fmt.Errorf("summary: unit %d variant %d has %d trials, want %d", u, v, len(tr), c.Grid.Trials)
			}
			in[v].ms = append(in[v].ms, tr...)
		}
	}
	var names []string
	for _, h := range iterative.Heuristics() {
		names = append(names, h.String())
	}
	paper := make([]float64, len(names))
	for i, p := range itercampaign.PaperTable2 {
		paper[i] = p.AvgDfb
	}
	return newReport(KindIndependent, seed, c, names, c.Variants, in, "Table 2", paper)
}

// SummarizeIndependentDir computes the report of a complete campaign
// directory of kind KindIndependent, writes DIR/summary.json and
// DIR/report.md and prints the report to w.
func SummarizeIndependentDir(ctx context.Context, dir string, w io.Writer) error {
	m, results, err := experiment.LoadComplete[UnitResult](dir)
	if err != nil {
		return err
	}
	var p IndependentParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return fmt.Errorf("manifest parameters: %w", err)
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("manifest parameters: %w", err)
	}
	if p.Units() != m.Units {
		return fmt.Errorf("manifest: %d units, parameters give %d", m.Units, p.Units())
	}
	r, err := p.IndependentReport(m.Seed, results)
	if err != nil {
		return err
	}
	return writeReport(dir, r, w)
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

// QuickIndependent is the reduced study of `reproduce --quick`: n ∈ {5,
// 20}, n_com ∈ {5, 10}, w_min ∈ {1, 3}, one scenario and two trials each,
// 5 iterations, and the variants markov, weibull, weibull-est, lognormal,
// lognormal-est, lognormal-win100, trace-ucb-est.
func QuickIndependent() IndependentParams {
	c := DefaultIndependent()
	c.Grid.N, c.Grid.NCom, c.Grid.WMin = []int{5, 20}, []int{5, 10}, []int{1, 3}
	c.Grid.Scenarios, c.Grid.Trials, c.Grid.Iterations = 1, 2, 5
	keep := map[string]bool{"markov": true, "weibull": true, "weibull-est": true, "lognormal": true, "lognormal-est": true, "lognormal-win100": true, "trace-ucb-est": true}
	var vs []Variant
	for _, v := range c.Variants {
		if keep[v.Name] {
			vs = append(vs, v)
		}
	}
	c.Variants = vs
	var av []Availability
	for _, a := range c.Availabilities {
		for _, v := range vs {
			if v.Availability == a.Name {
				av = append(av, a)
				break
			}
		}
	}
	c.Availabilities = av
	return c
}

// Reproduce runs the reduced study (quick) or the study on a tenth of the
// §7 grid's scenarios (24 scenarios × 2 trials per (n, n_com, w_min))
// into outDir/robustness (a temporary directory, removed, when outDir is
// empty) and prints its report.
func Reproduce(ctx context.Context, w io.Writer, quick bool, seed uint64, outDir string) error {
	c := QuickIndependent()
	if !quick {
		c = DefaultIndependent()
		c.Grid.Scenarios, c.Grid.Trials = 24, 2
	}
	dir := filepath.Join(outDir, ReproductionName)
	if outDir == "" {
		tmp, err := os.MkdirTemp("", "volsched-robustness-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	params, err := experiment.CanonicalJSON(c)
	if err != nil {
		return err
	}
	m := experiment.Manifest{Kind: KindIndependent, Seed: seed, Units: c.Units(), Params: params, Shard: experiment.Whole}
	err = experiment.Run(ctx, dir, m, 0, func(ctx context.Context, unit int) (UnitResult, error) {
		return c.RunUnit(ctx, seed, unit)
	}, experiment.NewProgress(ReproductionName))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "reduced study (the full one: volsched exp robustness --out DIR; docs/robustness.md)\n")
	if err := SummarizeIndependentDir(ctx, dir, w); err != nil {
		return err
	}
	if outDir == "" {
		fmt.Fprintf(w, "(temporary directory, removed; reproduce --out DIR keeps the files)\n")
	}
	return nil
}
