package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// Normalize writes the default readings as "" (rebuild holdings,
// reclaimed asup, random tasks) and the 17 heuristics of §VI in order as
// none, so that a campaign run with a default spelled out has the same
// parameters, hence the same manifest, as one run without it; it spells
// the heuristics' names as registered.
func (c *CampaignParams) Normalize() {
	if c.Rebuild == RebuildHoldings {
		c.Rebuild = ""
	}
	if c.Reclaimed == "asup" {
		c.Reclaimed = ""
	}
	if c.Random == RandomTasks {
		c.Random = ""
	}
	// Heuristics as registered (ParseHeuristic ignores case; results are
	// keyed by the registered spelling); the 17 of §VI in order are the
	// default.
	for i, n := range c.Heuristics {
		if h, err := coupled.ParseHeuristic(n); err == nil {
			c.Heuristics[i] = h.Name
		}
	}
	if slices.Equal(c.Heuristics, coupled.Names(coupled.Paper())) {
		c.Heuristics = nil
	}
}

// ReproductionName is the name of the reproduction (reproduce --only: the
// command it reduces) and of its directory under reproduce --out.
const ReproductionName = "exp-coupled"

// QuickCampaign is the reduced campaign of `volsched reproduce --quick`:
// every m and n_com of the paper, the two easiest w_min, 2 scenarios × 3
// trials (72 instances instead of 6,000).
func QuickCampaign() CampaignParams {
	c := PaperCampaign()
	c.WMin = []int{1, 2}
	c.Scenarios, c.Trials = 2, 3
	return c
}

// RunAll runs every unit of the campaign in process, workers goroutines
// at a time (0: one per CPU), and returns the results by unit (so they do
// not depend on the scheduling). The first error (an interruption
// included) is returned once the running units have stopped.
func (c *CampaignParams) RunAll(ctx context.Context, seed uint64, workers int) ([]UnitResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	units := make([]UnitResult, c.Units())
	errs := make([]error, c.Units())
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				units[u], errs[u] = c.RunUnit(ctx, seed, u)
			}
		}()
	}
	for u := range units {
		next <- u
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return units, nil
}

// Reproduce runs the paper's campaign (quick: QuickCampaign) in process,
// one goroutine per CPU, writes its files into outDir/exp-coupled (when
// outDir is not empty), prints Tables I and II next to the paper's and
// returns the report's section.
func Reproduce(ctx context.Context, w io.Writer, seed uint64, quick bool, outDir string) (*reproduction.Section, error) {
	c := PaperCampaign()
	if quick {
		c = QuickCampaign()
	}
	units, err := c.RunAll(ctx, seed, 0)
	if err != nil {
		return nil, err
	}
	r, err := c.Summarize(seed, units)
	if err != nil {
		return nil, err
	}
	if outDir != "" {
		dir := filepath.Join(outDir, ReproductionName)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := r.WriteFiles(dir); err != nil {
			return nil, err
		}
	}
	what := "The paper's campaign in full (6,000 instances), run in process."
	if quick {
		fmt.Fprintf(w, "reduced campaign (w_min ∈ %v, %d scenarios × %d trials): the paper's tables come from 6,000 instances; run 'volsched exp coupled' for the full one\n", c.WMin, c.Scenarios, c.Trials)
		what = fmt.Sprintf("A reduced campaign: w_min in %s and %d scenarios × %d trials per (m, n_com, w_min), instead of the paper's w_min 1..10 and 10 × 10; its numbers are far noisier than the paper's. The full campaign is committed in results/%s; 'volsched report results/' shows it.",
			report.FormatIntSet(c.WMin), c.Scenarios, c.Trials, ResultsDir)
	}
	if err := r.WriteText(w); err != nil {
		return nil, err
	}
	return r.Section(what, []report.Run{{Command: FullCommand, Seed: seed, Note: "the paper's campaign in full: 6,000 instances, about 7,000 CPU-s (docs/benchmarks.md)"}}), nil
}

// SummarizeDir writes summary.json, figure2.csv and the SVG plots of the
// complete campaign in dir, says so on stderr, and prints its tables next
// to the paper's to w.
func SummarizeDir(dir string, w, stderr io.Writer) error {
	m, c, units, err := experiment.LoadCampaign[CampaignParams, UnitResult](dir, Kind)
	if err != nil {
		return err
	}
	r, err := c.Summarize(m.Seed, units)
	if err != nil {
		return err
	}
	if err := r.WriteFiles(dir); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s/summary.json, figure2.csv, figure2-m*.svg\n", dir)
	return r.WriteText(w)
}

// SummarizePartial summarizes the units present in unfinished campaign
// directories (files prefixed "partial-" in the first) and prints the
// tables to w. Several directories may be given when they ran parts of one
// grid (same seed, scenarios, trials, iterations, cap, form and readings;
// e.g. --ncom 5 in one and --ncom 20 in another): a scenario found in
// several must have the same results, and the report covers the union of
// the grids.
func SummarizePartial(dirs []string, w, stderr io.Writer) error {
	type key struct{ m, ncom, wmin, s int }
	seen := map[key]UnitResult{}
	var c CampaignParams
	var seed uint64
	for i, dir := range dirs {
		m, ci, results, present, err := experiment.LoadCampaignPartial[CampaignParams, UnitResult](dir, Kind)
		if err != nil {
			return err
		}
		if i == 0 {
			c, seed = *ci, m.Seed
		} else {
			if m.Seed != seed || ci.P != c.P || ci.Scenarios != c.Scenarios || ci.Trials != c.Trials ||
				ci.Iterations != c.Iterations || ci.Cap != c.Cap || ci.Form != c.Form || ci.Rebuild != c.Rebuild ||
				ci.Mu != c.Mu || ci.Reclaimed != c.Reclaimed || ci.Random != c.Random {
				return fmt.Errorf("%s: seed %d, params %+v differ from %s's (seed %d, %+v) beyond the m/ncom/wmin lists", dir, m.Seed, *ci, dirs[0], seed, c)
			}
			c.Tasks, c.NCom, c.WMin = union(c.Tasks, ci.Tasks), union(c.NCom, ci.NCom), union(c.WMin, ci.WMin)
		}
		for u, ok := range present {
			if !ok {
				continue
			}
			r := results[u]
			k := key{r.Tasks, r.NCom, r.WMin, r.Scenario}
			if old, dup := seen[k]; dup {
				a, _ := json.Marshal(old)
				b, _ := json.Marshal(r)
				if string(a) != string(b) {
					return fmt.Errorf("%s: scenario m=%d ncom=%d wmin=%d #%d differs from another directory's", dir, k.m, k.ncom, k.wmin, k.s)
				}
				continue
			}
			seen[k] = r
		}
	}
	info := &PartialInfo{Units: c.Units()}
	var units []UnitResult
	for u := range c.Units() { // in the order of the joint campaign
		m, ncom, wmin, s := c.UnitParams(u)
		if r, ok := seen[key{m, ncom, wmin, s}]; ok {
			units = append(units, r)
			info.Present = append(info.Present, u)
		}
	}
	if len(units) == 0 {
		return fmt.Errorf("%v: no finished unit to summarize", dirs)
	}
	r, err := c.Summarize(seed, units)
	if err != nil {
		return err
	}
	r.Partial = info
	if err := r.WriteFilesAs(dirs[0], "partial-"); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "summarized %d of %d units; wrote %s/partial-summary.json, partial-figure2.csv, partial-figure2-m*.svg\n", len(units), c.Units(), dirs[0])
	return r.WriteText(w)
}

// union appends to a the values of b it lacks.
func union(a, b []int) []int {
	out := append([]int(nil), a...)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
