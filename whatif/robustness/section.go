package robustness

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// Study is the study's place on the report page: a section of its own,
// since it reproduces no published table (it asks whether the published
// rankings survive other availability).
var Study = reproduction.Paper{ID: "robustness",
	Title:   "Robustness study (issue 18, beyond the papers): do the rankings of the iterative and the tightly-coupled papers survive availability that is not a Markov chain?",
	Authors: "This project's study of the §7 grid of Casanova, Dufossé, Robert, Vivien, “Scheduling Parallel Iterative Applications on Volatile Resources” and the §VII.A grid of “Mapping Tightly-Coupled Applications on Volatile Resources” — not a reproduction of a published table"}

// doc is the study's document, for the page's links.
const doc = "docs/robustness.md"

// Result is what a run of the study made: the seed-001 part
// (Independent) and the seed-002 part (Coupled).
type Result struct {
	Quick       bool
	Seed        uint64
	Independent Report
	Coupled     Report
}

// notReproduction opens the section's text.
const notReproduction = "This is not a reproduction of a paper's table but the study issue 18 asked for: the grids of seed 001 §7 (independent tasks) and seed 002 §VII.A (tightly-coupled) re-run with availability that is not a Markov chain (semi-Markov with Weibull or log-normal sojourns of the chains' means, the synthetic UCB trace) while the heuristics are told the chains or estimate them, asking whether the published rankings survive. The published tables appear only as the ranking to compare with (Kendall's τ-b); their values come from far larger campaigns and are not compared."

// Section is the report's section of a run of the study: what was run,
// for each part the score and the rank of every heuristic under every
// variant (the paper's table beside them), Kendall's τ-b of each variant
// against the reference (markov) and the paper's table, and the paired
// change of the mean makespan; the model choices and the commands of the
// committed full study.
func (r *Result) Section() *reproduction.Section {
	what := "The reduced study of 'volsched reproduce --quick' (robustness.QuickIndependent, QuickCoupled): its numbers show that the study runs end to end, not the findings of docs/robustness.md, which come from the full study in results/robustness."
	if !r.Quick {
		what = "The study of docs/robustness.md (the grids of results/robustness) with this run's seed."
	}
	s := &reproduction.Section{Paper: Study,
		Reproduced: notReproduction + "\n\n" + what + "\n\n" + partText(&r.Independent) + "\n\n" + partText(&r.Coupled),
		Choices:    choices(),
		Runs:       append([]report.Run{{Command: "volsched reproduce --only robustness --seed 1 --out DIR", Seed: 1, Note: "the full study of seed 1 (the study of docs/robustness.md, results/robustness/*-seed1); --seed 2: the seed-2 directories"}}, committedRuns("")...),
	}
	for _, p := range []struct {
		id string
		r  *Report
	}{{"independent", &r.Independent}, {"coupled", &r.Coupled}} {
		s.Tables = append(s.Tables, ScoreTable(p.r, p.id+"-score"), RankTable(p.r, p.id+"-rank"),
			TauTable([]*Report{p.r}, p.id+"-tau"))
		if t, ok := PairedTable(p.r, p.id+"-paired"); ok {
			s.Tables = append(s.Tables, t)
		}
	}
	return s
}

// part names a part of the study on the page.
func part(r *Report) string {
	if r.Kind == KindCoupled {
		return "seed 002 (tightly-coupled)"
	}
	return "seed 001 (independent tasks)"
}

// partText describes one part's run in a sentence.
func partText(r *Report) string {
	inst := 0
	if len(r.Variants) > 0 {
		inst = r.Variants[0].Instances
	}
	var vs []string
	for _, v := range r.Variants {
		vs = append(vs, v.Name)
	}
	return fmt.Sprintf("The %s part, seed %d: %s; %s instances per variant; variants %s. Score: %s (smaller is better); the reference is %s.",
		part(r), r.Seed, gridText(r), figure.FormatTick(float64(inst), 0), strings.Join(vs, ", "), r.ScoreName, r.Reference)
}

// gridText describes the grid of a report (its Parameters, as run or as
// read back from summary.json).
func gridText(r *Report) string {
	b, err := json.Marshal(r.Parameters)
	if err != nil {
		return "grid unknown"
	}
	set := report.FormatIntSet
	per := func(scen, trials int) string {
		return fmt.Sprintf("%d scenario%s × %d trial%s per point", scen, report.Plural(scen), trials, report.Plural(trials))
	}
	if r.Kind == KindCoupled {
		var p CoupledParams
		if json.Unmarshal(b, &p) != nil {
			return "grid unknown"
		}
		g := p.Grid
		return fmt.Sprintf("p = %d, m in %s, n_com in %s, w_min in %s, %s, %d iterations, cap %s slots",
			g.P, set(g.Tasks), set(g.NCom), set(g.WMin), per(g.Scenarios, g.Trials), g.Iterations, figure.FormatTick(float64(g.Cap), 0))
	}
	var p IndependentParams
	if json.Unmarshal(b, &p) != nil {
		return "grid unknown"
	}
	g := p.Grid
	return fmt.Sprintf("p = %d, n in %s, n_com in %s, w_min in %s, %s, %d iterations",
		g.P, set(g.N), set(g.NCom), set(g.WMin), per(g.Scenarios, g.Trials), g.Iterations)
}

// scoreUnit is the unit of both parts' scores on the page (average dfb
// and %diff vs IE are both percentages).
const scoreUnit = "%"

// variantColumns are one column per variant.
func variantColumns(r *Report, digits int, u string) []report.Column {
	var cs []report.Column
	for _, v := range r.Variants {
		cs = append(cs, report.Column{Name: v.Name, Unit: u, Digits: digits})
	}
	return cs
}

// paperScores are the paper's scores in the order of r.Heuristics (NaN for
// a heuristic its table does not list).
func paperScores(r *Report) []float64 {
	out := make([]float64, len(r.Heuristics))
	for h, n := range r.Heuristics {
		out[h] = math.NaN()
		if p, ok := r.Paper[n]; ok {
			out[h] = p
		}
	}
	return out
}

// ranksOf is ranks of x as numbers for a table: NaN stays NaN (a defined
// value's rank counts only defined values, as ranks does).
func ranksOf(x []float64) []float64 {
	r := ranks(x)
	out := make([]float64, len(x))
	for i := range x {
		out[i] = math.NaN()
		if !math.IsNaN(x[i]) {
			out[i] = float64(r[i])
		}
	}
	return out
}

// paperColumn is the last column of the score and rank tables: the
// published values, shown as a plain column (named as published, not
// compared cell by cell: the study compares rankings, not values, and the
// paper's come from its full campaign).
func paperColumn(r *Report, digits int, u string) report.Column {
	return report.Column{Name: r.PaperName + " (published)", Unit: u, Digits: digits}
}

// ScoreTable is the score (average dfb, or %diff vs IE) of every heuristic
// under every variant, heuristics in the order of the reference variant,
// with the paper's table beside them.
func ScoreTable(r *Report, id string) report.Table {
	t := report.Table{ID: id, RowHeader: "heuristic",
		Caption: fmt.Sprintf("%s, seed %d: %s of each heuristic under each variant", part(r), r.Seed, r.ScoreName),
		Columns: variantColumns(r, 2, scoreUnit)}
	ps := paperScores(r)
	hasPaper := r.Paper != nil
	if hasPaper {
		t.Columns = append(t.Columns, paperColumn(r, 2, scoreUnit))
	}
	for _, h := range r.order() {
		row := report.Row{Label: r.Heuristics[h]}
		for _, v := range r.Variants {
			row.Cells = append(row.Cells, report.Cell{Ours: v.Score[h], Paper: math.NaN()})
		}
		if hasPaper {
			row.Cells = append(row.Cells, report.Cell{Ours: ps[h], Paper: math.NaN()})
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = fmt.Sprintf("Smaller is better. Rows in the order of %s. %s", r.Reference, paperNote(r))
	return t
}

// RankTable is the rank of every heuristic by its score under every
// variant (1 = best, ties share the better rank), with its rank in the
// paper's table.
func RankTable(r *Report, id string) report.Table {
	t := report.Table{ID: id, RowHeader: "heuristic",
		Caption: fmt.Sprintf("%s, seed %d: rank of each heuristic by %s under each variant", part(r), r.Seed, r.ScoreName),
		Columns: variantColumns(r, 0, "")}
	pr := ranksOf(paperScores(r))
	hasPaper := r.Paper != nil
	if hasPaper {
		t.Columns = append(t.Columns, paperColumn(r, 0, ""))
	}
	for _, h := range r.order() {
		row := report.Row{Label: r.Heuristics[h]}
		for _, v := range r.Variants {
			row.Cells = append(row.Cells, report.Cell{Ours: float64(v.Rank[h]), Paper: math.NaN()})
		}
		if hasPaper {
			row.Cells = append(row.Cells, report.Cell{Ours: pr[h], Paper: math.NaN()})
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = fmt.Sprintf("1 = best; ties share the better rank; an undefined score ranks last. %s", paperNote(r))
	return t
}

func paperNote(r *Report) string {
	if r.Paper == nil {
		return "The grid has no published table to compare with."
	}
	return fmt.Sprintf("The last column is the paper's %s as published (%d heuristics), the ranking the variants are compared with by Kendall's τ-b (next table); its values come from the paper's full campaign and are not compared cell by cell with this study's.", r.PaperName, len(r.Paper))
}

func tauValue(t *float64) float64 {
	if t == nil {
		return math.NaN()
	}
	return *t
}

// TauTable is, for every variant, Kendall's τ-b of its ranking against the
// reference variant's and against the paper's table, for each run in rs
// (the same variants, other seeds), and with two runs the τ-b of the
// variant between them (the noise floor); then the instances and the
// failed runs of the first.
func TauTable(rs []*Report, id string) report.Table {
	r := rs[0]
	seeds := func(name string) []report.Column {
		var cs []report.Column
		for _, x := range rs {
			n := name
			if len(rs) > 1 {
				n += fmt.Sprintf(", seed %d", x.Seed)
			}
			cs = append(cs, report.Column{Name: n, Digits: 3})
		}
		return cs
	}
	t := report.Table{ID: id, RowHeader: "variant",
		Caption: fmt.Sprintf("%s: Kendall's τ-b of each variant's ranking against %s and against the paper's %s", part(r), r.Reference, r.PaperName)}
	t.Columns = append(t.Columns, seeds("τ-b vs "+r.Reference)...)
	t.Columns = append(t.Columns, seeds("τ-b vs "+r.PaperName)...)
	cross := len(rs) == 2 && sameVariants(rs[0], rs[1])
	if cross {
		t.Columns = append(t.Columns, report.Column{Name: fmt.Sprintf("τ-b seed %d vs seed %d", rs[0].Seed, rs[1].Seed), Digits: 3})
	}
	t.Columns = append(t.Columns, report.Column{Name: "instances", Digits: 0}, report.Column{Name: "failed runs", Digits: 0})
	nan := math.NaN()
	for vi, v := range r.Variants {
		row := report.Row{Label: v.Name}
		for _, x := range rs {
			row.Cells = append(row.Cells, report.Cell{Ours: variantTau(x, v.Name, false), Paper: nan})
		}
		for _, x := range rs {
			row.Cells = append(row.Cells, report.Cell{Ours: variantTau(x, v.Name, true), Paper: nan})
		}
		if cross {
			row.Cells = append(row.Cells, report.Cell{Ours: experiment.KendallTau(rs[0].Variants[vi].Score, rs[1].Variants[vi].Score), Paper: nan})
		}
		f := 0
		for _, n := range v.Failures {
			f += n
		}
		row.Cells = append(row.Cells, report.Cell{Ours: float64(v.Instances), Paper: nan}, report.Cell{Ours: float64(f), Paper: nan})
		t.Rows = append(t.Rows, row)
	}
	t.Note = fmt.Sprintf("τ-b over the %d heuristics (against the paper: over those its table lists); 1 is the same order, 0 no relation; — undefined.", len(r.Heuristics))
	if cross {
		t.Note += " The same variant on two seeds' instances is the noise floor: a τ-b against " + r.Reference + " within that range cannot be told from noise."
	}
	return t
}

func sameVariants(a, b *Report) bool {
	if len(a.Variants) != len(b.Variants) || !slices.Equal(a.Heuristics, b.Heuristics) {
		return false
	}
	for i := range a.Variants {
		if a.Variants[i].Name != b.Variants[i].Name {
			return false
		}
	}
	return true
}

// variantTau is variant name's τ-b against the reference (or the paper) in
// r; NaN when r has no such variant or τ is undefined.
func variantTau(r *Report, name string, paper bool) float64 {
	for _, v := range r.Variants {
		if v.Name == name {
			if paper {
				return tauValue(v.TauPaper)
			}
			return tauValue(v.TauReference)
		}
	}
	return math.NaN()
}

// PairedTable is the paired change of the mean makespan of every heuristic
// between variants on the same availability (the same states, other
// beliefs); false when no variant has a paired base.
func PairedTable(r *Report, id string) (report.Table, bool) {
	t := report.Table{ID: id, RowHeader: "heuristic",
		Caption: fmt.Sprintf("%s, seed %d: change of the mean makespan between beliefs on the same states", part(r), r.Seed)}
	var vis []int
	for vi, v := range r.Variants {
		if v.PairedBase != "" {
			vis = append(vis, vi)
			t.Columns = append(t.Columns, report.Column{Name: v.Name + " vs " + v.PairedBase, Unit: "%", Digits: 2})
		}
	}
	if len(vis) == 0 {
		return t, false
	}
	for _, h := range r.order() {
		row := report.Row{Label: r.Heuristics[h]}
		for _, vi := range vis {
			row.Cells = append(row.Cells, report.Cell{Ours: r.Variants[vi].PairedChange[h], Paper: math.NaN()})
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = "100 × (Σ makespans of the variant / Σ makespans of its base − 1) over the instances where neither run failed: the availability is replayed identically, so the change is the beliefs' alone. Heuristics that read no chain (MCT, MCT*, RANDOM) are unchanged."
	return t, true
}

// choices are the model choices of the study that matter for its tables.
func choices() []report.Choice {
	return []report.Choice{
		{Text: "A variant is an availability (markov; markov-h: the same chains with 1,000 slots of history; weibull, lognormal: semi-Markov with each chain's mean sojourns and jump probabilities; trace-ucb: the synthetic UCB trace in 10-minute slots) and a belief (the chains told, or estimated by the master's View: all history, the last 100 transitions, a 10 times stronger prior)", Doc: doc + "#what-is-run"},
		{Text: "Weibull sojourns of shape 1/2.419 = 0.413 (the maximum-likelihood Weibull of the UCB trace's log-normal fit σ = 2.419, seed 003 Table 1); log-normal sojourns of σ = 2.419", Doc: doc + "#what-is-run"},
		{Text: "The estimator: the papers' mean chain as prior with 2 pseudo-transitions per row, re-estimated every 10 slots, never the future", Doc: "docs/whatif.md"},
		{Text: "Variants on the same availability replay the same states, so their difference is the beliefs alone (the paired change); the markov variant is the papers' campaign, unit by unit", Doc: doc + "#what-is-run"},
		{Text: "The scores are the papers': seed 001's average degradation from best (dfb) and seed 002's §VII.A %diff against IE", Doc: doc + "#what-is-run"},
	}
}

// committedRuns are the commands of the committed study (results/robustness),
// with their wall time read from DIR/time.txt under root when root is set.
func committedRuns(root string) []report.Run {
	var runs []report.Run
	for _, c := range CommittedRuns {
		run := report.Run{Command: c.Command, Seed: c.Seed, Note: "the committed full study (results/robustness/" + c.Dir + ", docs/robustness.md)"}
		if root != "" {
			if d, err := reproduction.WallTime(filepath.Join(root, "robustness", c.Dir, "time.txt")); err == nil {
				run.Duration = d
				run.Note += "; wall time on the shared 2-core machine, one worker"
			}
		}
		runs = append(runs, run)
	}
	return runs
}

// CommittedRun is one directory of results/robustness and its command.
type CommittedRun struct {
	Dir, Command string
	Seed         uint64
	Coupled      bool
}

// CommittedRuns are the study's committed directories (docs/robustness.md).
var CommittedRuns = []CommittedRun{
	{Dir: "independent-seed1", Seed: 1, Command: "volsched exp robustness --model independent --scenarios 1 --trials 2 --seed 1 --workers 1 --out results/robustness/independent-seed1"},
	{Dir: "independent-seed2", Seed: 2, Command: "volsched exp robustness --model independent --scenarios 1 --trials 2 --seed 2 --workers 1 --out results/robustness/independent-seed2"},
	{Dir: "coupled-m5-wmin1-5-seed1", Seed: 1, Coupled: true, Command: "volsched exp robustness --model coupled --m 5 --wmin 1,2,3,4,5 --scenarios 2 --trials 1 --seed 1 --workers 1 --out results/robustness/coupled-m5-wmin1-5-seed1"},
	{Dir: "coupled-m5-wmin1-5-seed2", Seed: 2, Coupled: true, Command: "volsched exp robustness --model coupled --m 5 --wmin 1,2,3,4,5 --scenarios 2 --trials 1 --seed 2 --workers 1 --out results/robustness/coupled-m5-wmin1-5-seed2"},
}

// ReadReport reads DIR/summary.json of a summarized study directory.
func ReadReport(dir string) (*Report, error) {
	file := filepath.Join(dir, SummaryFile)
	r, err := reproduction.ReadJSON[Report](file)
	if err != nil {
		return nil, err
	}
	if (r.Kind != KindIndependent && r.Kind != KindCoupled) || len(r.Variants) == 0 || len(r.Heuristics) == 0 {
		return nil, fmt.Errorf("%s: kind %q, %d variants, %d heuristics: not a summary of the robustness study", file, r.Kind, len(r.Variants), len(r.Heuristics))
	}
	for _, v := range r.Variants {
		if len(v.Score) != len(r.Heuristics) || len(v.Rank) != len(r.Heuristics) {
			return nil, fmt.Errorf("%s: variant %s: %d scores and %d ranks for %d heuristics", file, v.Name, len(v.Score), len(v.Rank), len(r.Heuristics))
		}
	}
	return r, nil
}

// ResultsSection builds the section of the committed study under root
// (the repository's results/): root/robustness/*/summary.json, both seeds
// of each part. Nil, nil when root holds none of it.
func ResultsSection(root string) (*reproduction.Section, error) {
	var ind, coup []*Report
	for _, c := range CommittedRuns {
		r, err := ReadReport(filepath.Join(root, "robustness", c.Dir))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		want := KindIndependent
		if c.Coupled {
			want = KindCoupled
		}
		if r.Kind != want || r.Seed != c.Seed {
			return nil, fmt.Errorf("results/robustness/%s: kind %s seed %d, want %s seed %d", c.Dir, r.Kind, r.Seed, want, c.Seed)
		}
		if c.Coupled {
			coup = append(coup, r)
		} else {
			ind = append(ind, r)
		}
	}
	if len(ind) == 0 && len(coup) == 0 {
		return nil, nil
	}
	s := &reproduction.Section{Paper: Study, Choices: choices(), Runs: committedRuns(root)}
	text := []string{notReproduction, "The committed study of docs/robustness.md (results/robustness: each directory's summary.json; report.md there has every table of both seeds, including the τ-b between every two variants and the largest losses). The findings and how to read them are in docs/robustness.md; this section shows the numbers they rest on."}
	for _, p := range []struct {
		id string
		rs []*Report
	}{{"independent", ind}, {"coupled", coup}} {
		if len(p.rs) == 0 {
			continue
		}
		first := p.rs[0]
		text = append(text, partText(first))
		s.Tables = append(s.Tables, ScoreTable(first, p.id+"-score"), RankTable(first, p.id+"-rank"), TauTable(p.rs, p.id+"-tau"))
		if t, ok := PairedTable(first, p.id+"-paired"); ok {
			s.Tables = append(s.Tables, t)
		}
		for _, r := range p.rs[1:] {
			s.Choices = append(s.Choices, report.Choice{Text: fmt.Sprintf("%s, seed %d: every table of that run", part(r), r.Seed), Doc: "results/robustness/" + dirOf(r) + "/" + ReportFile})
		}
	}
	s.Reproduced = strings.Join(text, "\n\n")
	return s, nil
}

// dirOf is the committed directory of a report read by ResultsSection.
func dirOf(r *Report) string {
	for _, c := range CommittedRuns {
		if c.Seed == r.Seed && c.Coupled == (r.Kind == KindCoupled) {
			return c.Dir
		}
	}
	return ""
}
