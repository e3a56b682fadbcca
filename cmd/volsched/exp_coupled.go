package main

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

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/experiment"
)

// coupledKind is the manifest kind of the seed-002 campaign.
const coupledKind = "coupled"

func init() {
	var f campaignFlags
	var partial bool
	c := coupled.PaperCampaign()
	cmd := &cobra.Command{
		Use:   "coupled --out DIR",
		Short: "Seed 002 campaign: tightly-coupled iterative applications, 17 heuristics (Tables I and II, Figure 2)",
		Long: `coupled runs the campaign of seed 002 §VII.A: p processors with chains from
the papers' generator, w_q uniform in w_min…10·w_min, T_data = w_min,
T_prog = 5·w_min; for every (m, n_com, w_min), --scenarios scenarios of
--trials trials; each trial runs the 17 heuristics on the same availability
realization until --iterations iterations complete or the makespan reaches
--cap slots (a failure). One unit is one scenario.

DIR/summary.json holds the metrics of §VII.A per heuristic (#fails, %diff
against IE, %wins, %wins30, stdv) pooled and per m, and the points of
Figure 2; DIR/figure2.csv and DIR/figure2-m<M>.svg plot %diff against w_min.
The tables are printed next to the paper's Tables I (m = 5) and II (m = 10).

--form conditional uses the expectation conditioned on success for E(S)(W)
instead of Theorem 5.1 as published (docs/reproduction-002.md).

The paper's campaign is the default (6,000 instances × 17 heuristics).
A quick look: volsched exp coupled --scenarios 1 --trials 2 --out /tmp/y`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if partial {
				if f.Out == "" {
					return usagef("--partial-summary needs --out DIR, the campaign directory")
				}
				return summarizeCoupledPartial(append([]string{f.Out}, args...), cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if len(args) > 0 {
				return usagef("exp coupled: unexpected arguments %q (directories are only read with --partial-summary)", args)
			}
			if err := c.Validate(); err != nil {
				return usagef("exp coupled: %v", err)
			}
			if c.Rebuild == coupled.RebuildHoldings {
				c.Rebuild = "" // the default: the same manifest as without the flag
			}
			if c.Reclaimed == "asup" {
				c.Reclaimed = ""
			}
			if c.Random == coupled.RandomTasks {
				c.Random = ""
			}
			params := c
			seed := f.Seed
			return runCampaign(cmd.Context(), f, campaign[coupled.UnitResult]{
				Kind:   coupledKind,
				Units:  params.Units(),
				Params: params,
				Work: func(ctx context.Context, u int) (coupled.UnitResult, error) {
					return coupled.RunUnit(ctx, seed, params, u)
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	fl := cmd.Flags()
	fl.IntVar(&c.P, "p", c.P, fmt.Sprintf("number of processors (1..%d)", coupled.MaxProcessors))
	fl.IntSliceVar(&c.M, "m", c.M, "tasks per iteration (list)")
	fl.IntSliceVar(&c.NCom, "ncom", c.NCom, "master's simultaneous communications (list)")
	fl.IntSliceVar(&c.WMin, "wmin", c.WMin, "w_min values (list)")
	fl.IntVar(&c.Scenarios, "scenarios", c.Scenarios, "scenarios per (m, ncom, wmin)")
	fl.IntVar(&c.Trials, "trials", c.Trials, "trials per scenario")
	fl.IntVar(&c.Iterations, "iterations", c.Iterations, "iterations to complete")
	fl.IntVar(&c.Cap, "cap", c.Cap, "makespan limit in slots; reaching it is a failure")
	fl.StringVar(&c.Form, "form", c.Form, "E(S)(W): published (Theorem 5.1) or conditional")
	fl.StringVar(&c.Rebuild, "rebuild", "", "how a proactive heuristic builds and measures a new configuration: holdings (default: with the data held), fresh (as at the iteration start, no task data) or scratch (fresh, and a switch re-sends every member's task data); docs/model-002.md")
	fl.IntVar(&c.Mu, "mu", 0, "bound μ on the tasks of every processor (0: unbounded, the default; §III.C)")
	fl.StringVar(&c.Reclaimed, "reclaimed", "", "how a proactive heuristic values a running configuration with a RECLAIMED member: asup (default: §V's all-UP estimates), wait (chance and time of the member's return), replace (no estimate: replaced); docs/model-002.md")
	fl.StringVar(&c.Random, "random", "", "RANDOM's draw: tasks (default: each task to a uniformly drawn UP processor) or distinct (to different processors while possible)")
	fl.BoolVar(&partial, "partial-summary", false, "summarize the finished units of the (unfinished) campaign in --out, and of the campaign directories given as arguments, into --out's partial-summary.json, partial-figure2.*; print the tables; runs nothing")
	expCmd.AddCommand(cmd)
	registerSummarizer(coupledKind, summarizeCoupled)
	registerReproduction(reproduction{
		Name:  "tables-002",
		Order: 40,
		Title: "seed 002 §VII: Tables I and II (17 heuristics for tightly-coupled applications) and Figure 2",
		Run:   reproduceCoupled,
	})
}

// quickCoupled is the reduced campaign of `volsched reproduce --quick`:
// every m and n_com of the paper, the two easiest w_min, 2 scenarios × 3
// trials (72 instances instead of 6,000).
func quickCoupled() coupled.CampaignParams {
	c := coupled.PaperCampaign()
	c.WMin = []int{1, 2}
	c.Scenarios, c.Trials = 2, 3
	return c
}

// reproduceCoupled runs the campaign in process (quick: quickCoupled), one
// goroutine per CPU, and prints Tables I and II next to the paper's.
// Results are stored by unit, so they do not depend on the scheduling.
func reproduceCoupled(ctx context.Context, w io.Writer, opt reproduceOptions) error {
	c := coupled.PaperCampaign()
	if opt.Quick {
		c = quickCoupled()
	}
	units := make([]coupled.UnitResult, c.Units())
	errs := make([]error, c.Units())
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				units[u], errs[u] = coupled.RunUnit(ctx, opt.Seed, c, u)
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
			return err
		}
	}
	r, err := coupled.BuildReport(opt.Seed, c, units)
	if err != nil {
		return err
	}
	if opt.OutDir != "" {
		dir := filepath.Join(opt.OutDir, "coupled")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := r.WriteFiles(dir); err != nil {
			return err
		}
	}
	if opt.Quick {
		fmt.Fprintf(w, "reduced campaign (w_min ∈ %v, %d scenarios × %d trials): the paper's tables come from 6,000 instances; run 'volsched exp coupled' for the full one\n", c.WMin, c.Scenarios, c.Trials)
	}
	return r.WriteText(w)
}

// summarizeCoupledPartial summarizes the units present in unfinished
// campaign directories (files prefixed "partial-" in the first). Several
// directories may be given when they ran parts of one grid (same seed,
// scenarios, trials, iterations, cap and form; e.g. --ncom 5 in one and
// --ncom 20 in another): a scenario found in several must have the same
// results, and the report covers the union of the grids.
func summarizeCoupledPartial(dirs []string, w, stderr io.Writer) error {
	type key struct{ m, ncom, wmin, s int }
	seen := map[key]coupled.UnitResult{}
	var c coupled.CampaignParams
	var seed uint64
	total := 0
	for i, dir := range dirs {
		m, results, present, err := experiment.Load[coupled.UnitResult](dir)
		if err != nil {
			return err
		}
		var ci coupled.CampaignParams
		if err := json.Unmarshal(m.Params, &ci); err != nil {
			return fmt.Errorf("%s: manifest params: %w", dir, err)
		}
		if err := ci.Validate(); err != nil {
			return fmt.Errorf("%s: manifest params: %w", dir, err)
		}
		if i == 0 {
			c, seed = ci, m.Seed
		} else {
			if m.Seed != seed || ci.P != c.P || ci.Scenarios != c.Scenarios || ci.Trials != c.Trials ||
				ci.Iterations != c.Iterations || ci.Cap != c.Cap || ci.Form != c.Form || ci.Rebuild != c.Rebuild ||
				ci.Mu != c.Mu || ci.Reclaimed != c.Reclaimed || ci.Random != c.Random {
				return fmt.Errorf("%s: seed %d, params %+v differ from %s's (seed %d, %+v) beyond the m/ncom/wmin lists", dir, m.Seed, ci, dirs[0], seed, c)
			}
			c.M, c.NCom, c.WMin = union(c.M, ci.M), union(c.NCom, ci.NCom), union(c.WMin, ci.WMin)
		}
		total += m.Units
		for u, ok := range present {
			if !ok {
				continue
			}
			r := results[u]
			k := key{r.M, r.NCom, r.WMin, r.Scenario}
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
	info := &coupled.PartialInfo{Units: c.Units()}
	var units []coupled.UnitResult
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
	r, err := coupled.BuildReport(seed, c, units)
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

// summarizeCoupled writes summary.json, figure2.csv and the SVG plots of a
// complete coupled campaign and prints its tables next to the paper's.
func summarizeCoupled(ctx context.Context, dir string, w io.Writer) error {
	m, units, err := experiment.LoadComplete[coupled.UnitResult](dir)
	if err != nil {
		return err
	}
	var c coupled.CampaignParams
	if err := json.Unmarshal(m.Params, &c); err != nil {
		return fmt.Errorf("%s: manifest params: %w", dir, err)
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: manifest params: %w", dir, err)
	}
	if c.Units() != m.Units {
		return fmt.Errorf("%s: manifest has %d units, its parameters give %d", dir, m.Units, c.Units())
	}
	r, err := coupled.BuildReport(m.Seed, c, units)
	if err != nil {
		return err
	}
	if err := r.WriteFiles(dir); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s/summary.json, figure2.csv, figure2-m*.svg\n", dir)
	return r.WriteText(w)
}
