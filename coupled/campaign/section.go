package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// UnmarshalJSON reads what MarshalJSON writes: null metrics are NaN.
func (h *HeuristicSummary) UnmarshalJSON(b []byte) error {
	var v heuristicSummaryJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	nan := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*h = HeuristicSummary{Name: v.Name, Fails: v.Fails, PctDiff: nan(v.PctDiff), PctWins: v.PctWins, PctWins30: v.PctWins30,
		Stdv: nan(v.Stdv), Scenarios: v.Scenarios, Instances: v.Instances}
	return nil
}

// Tolerances of the report's Tables I and II: how far our value may be
// from the published one and still be called close. They are this
// project's statement of agreement for campaigns of random scenarios, set
// once per quantity (the published numbers come from one draw of 3,000
// instances per m with the authors' simulator, ours from another).
var (
	// TolFails: failures among 3,000 instances: 2 or 20 %.
	TolFails = report.Tolerance{Abs: 2, Rel: 0.20}
	// TolPctDiff: %diff, in percentage points: 2 points or 10 %. A
	// difference to IE, negative or positive: no ratio rule.
	TolPctDiff = report.Tolerance{Abs: 2, Rel: 0.10, Signed: true}
	// TolPctWins: %wins and %wins30, in percentage points: 2 points or
	// 5 %.
	TolPctWins = report.Tolerance{Abs: 2, Rel: 0.05}
	// TolStdv: the standard deviation of the relative difference (a
	// fraction): 0.1 or 20 %.
	TolStdv = report.Tolerance{Abs: 0.1, Rel: 0.20}
)

// PaperInstancesPerM is the number of instances behind each of the
// paper's tables.
const PaperInstancesPerM = 3000

// Figure2Heuristics are the curves of Figure 2: the heuristics of Table II
// and the reference IE.
var Figure2Heuristics = []string{"Y-IE", "P-IE", "E-IAY", "E-IY", "E-IP", "IAY", "IY", "IE"}

// grid describes the campaign in one sentence.
func (r *Report) grid() string {
	c := &r.Params
	inst := c.Units() * c.Trials
	return fmt.Sprintf("p = %d, m in %s, n_com in %s, w_min in %s; %d scenario%s × %d trial%s per (m, n_com, w_min), %d iterations, cap %s slots, E(S)(W) %s%s; %s instances",
		c.P, report.FormatIntSet(c.Tasks), report.FormatIntSet(c.NCom), report.FormatIntSet(c.WMin), c.Scenarios, report.Plural(c.Scenarios), c.Trials, report.Plural(c.Trials), c.Iterations, figure.FormatTick(float64(c.Cap), 0), c.Form, readingNote(c),
		figure.FormatTick(float64(inst), 0))
}

// TableFor is the report's table for m: ours beside the paper's Table I
// (m = 5) or II (m = 10), rows in our order by %diff; Kendall's τ-b on
// %diff over the heuristics the paper lists. #fails is compared only when
// we have the paper's 3,000 instances for m.
func (r *Report) TableFor(ms MSummary) report.Table {
	paper := map[string]PaperRow{}
	for _, p := range PaperTable(ms.Tasks) {
		paper[p.Name] = p
	}
	inst := 0
	if len(ms.Heuristics) > 0 {
		inst = ms.Heuristics[0].Instances
	}
	name := map[int]string{5: "Table I", 10: "Table II"}[ms.Tasks]
	caption := fmt.Sprintf("%s: the %d heuristics for m = %d tasks, against IE", name, len(ms.Heuristics), ms.Tasks)
	if name == "" {
		caption = fmt.Sprintf("m = %d tasks (the paper has no table for it)", ms.Tasks)
	}
	t := report.Table{
		ID: fmt.Sprintf("table-m%d", ms.Tasks), Caption: caption, RowHeader: "heuristic",
		Columns: []report.Column{
			{Name: "#fails", Digits: 0, Tol: TolFails},
			{Name: "%diff", Unit: "%", Digits: 2, Tol: TolPctDiff, Rank: true},
			{Name: "%wins", Unit: "%", Digits: 2, Tol: TolPctWins},
			{Name: "%wins30", Unit: "%", Digits: 2, Tol: TolPctWins},
			{Name: "stdv", Digits: 2, Tol: TolStdv},
		},
	}
	nan := math.NaN()
	for _, h := range ms.Heuristics {
		cells := []report.Cell{{Ours: float64(h.Fails), Paper: nan}, {Ours: h.PctDiff, Paper: nan}, {Ours: h.PctWins, Paper: nan}, {Ours: h.PctWins30, Paper: nan}, {Ours: h.Stdv, Paper: nan}}
		if p, ok := paper[h.Name]; ok {
			if inst == PaperInstancesPerM {
				cells[0].Paper = float64(p.Fails)
			}
			cells[1].Paper, cells[2].Paper, cells[3].Paper, cells[4].Paper = p.PctDiff, p.PctWins, p.PctWins30, p.Stdv
		}
		t.Rows = append(t.Rows, report.Row{Label: h.Name, Cells: cells})
	}
	t.Note = fmt.Sprintf("Ours: %s instances for m = %d; the paper's: 3,000. %%diff: relative makespan difference to IE averaged over scenarios (trials where both succeed); %%wins, %%wins30: instances with a makespan at most IE's, at most 1.3 × IE's; stdv: of the relative difference over scenarios; #fails: instances reaching the cap.",
		figure.FormatTick(float64(inst), 0), ms.Tasks)
	if len(paper) > 0 && len(paper) < len(ms.Heuristics) {
		t.Note += fmt.Sprintf(" The paper lists %d heuristics for m = %d.", len(paper), ms.Tasks)
	}
	if inst != PaperInstancesPerM && len(paper) > 0 {
		t.Note += " #fails is not compared: the campaigns differ in size."
	}
	return t
}

// Figure2For is the figure of %diff against w_min for m: the paper's
// Figure 2 (a picture only) for m = 10; for other m the paper has none.
// Nil when no heuristic of Figure2Heuristics has a point for m.
func (r *Report) Figure2For(m int) *figure.Figure {
	f := &figure.Figure{
		Title:  fmt.Sprintf("Figure 2: %%diff against w_min, m = %d", m),
		Source: reproduction.CoupledPaper.Source(),
		X:      figure.Axis{Label: "w_min", Unit: "slots", Integer: true},
		Y:      figure.Axis{Label: "%diff against IE", Unit: "%"},
		Caption: fmt.Sprintf("Seed %d; %s. %%diff: relative makespan difference to IE, averaged over the scenarios of each w_min (trials where both succeed).",
			r.Seed, r.grid()),
		Paper: figure.PaperPicture,
	}
	if m != 10 {
		f.Title = fmt.Sprintf("%%diff against w_min, m = %d (as Figure 2, which shows m = 10)", m)
		f.Paper = figure.PaperNone
	}
	if r.Partial != nil {
		f.Caption = fmt.Sprintf("PARTIAL: %d of the campaign's %d units. ", len(r.Partial.Present), r.Partial.Units) + f.Caption
	}
	for _, n := range Figure2Heuristics {
		s := figure.Series{Name: n}
		for _, pt := range r.Figure2 {
			if pt.Tasks == m && pt.PctDiff[n] != nil {
				s.X = append(s.X, float64(pt.WMin))
				s.Y = append(s.Y, *pt.PctDiff[n])
			}
		}
		if len(s.X) > 0 {
			f.Series = append(f.Series, s)
		}
	}
	if len(f.Series) == 0 {
		return nil
	}
	return f
}

// Choices are the model choices of the campaign that matter for the
// tables, with the documents explaining them.
func (r *Report) Choices() []report.Choice {
	c := &r.Params
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	mu := "unbounded"
	if c.Mu > 0 {
		mu = fmt.Sprint(c.Mu)
	}
	return []report.Choice{
		{Text: fmt.Sprintf("E(S)(W), the expected time of a configuration: %s (--form; published: Theorem 5.1 as printed, conditional: conditioned on success)", c.Form), Doc: "docs/reproduction-002.md"},
		{Text: fmt.Sprintf("a proactive heuristic builds and measures the new configuration with: %s (--rebuild)", or(c.Rebuild, RebuildHoldings)), Doc: "docs/model-002.md"},
		{Text: fmt.Sprintf("a running configuration with a RECLAIMED member is valued: %s (--reclaimed)", or(c.Reclaimed, "asup")), Doc: "docs/model-002.md"},
		{Text: fmt.Sprintf("RANDOM draws: %s (--random); bound μ on a processor's tasks: %s (--mu)", or(c.Random, RandomTasks), mu), Doc: "docs/model-002.md"},
		{Text: fmt.Sprintf("a run reaching %s slots fails (--cap)", figure.FormatTick(float64(c.Cap), 0)), Doc: "docs/model-002.md"},
		{Text: "why our tables differ from the paper's: what was tested", Doc: "docs/reproduction-002.md"},
	}
}

// Section is the report's section of the campaign: what was run, one
// table per m beside the paper's, Figure 2 per m, the model choices, and
// runs (besides the one that made the page).
func (r *Report) Section(what string, runs []report.Run) *reproduction.Section {
	s := &reproduction.Section{
		Paper: reproduction.CoupledPaper,
		Reproduced: what + "\n\n" + fmt.Sprintf("The campaign of §VII.A (seed %d): %s. Each trial runs the %d heuristics on the same availability realization until the iterations complete or the cap is reached. Kendall's τ-b compares our order by %%diff with the paper's over the heuristics its table lists.",
			r.Seed, r.grid(), len(r.Params.HeuristicNames())),
		Choices: r.Choices(),
		Runs:    runs,
	}
	if r.Partial != nil {
		s.Reproduced += fmt.Sprintf("\n\nPARTIAL: %d of the campaign's %d units (an unfinished campaign).", len(r.Partial.Present), r.Partial.Units)
	}
	for _, ms := range r.ByM {
		s.Tables = append(s.Tables, r.TableFor(ms))
	}
	for _, m := range r.Params.Tasks {
		if f := r.Figure2For(m); f != nil {
			s.Figures = append(s.Figures, reproduction.Figure{ID: fmt.Sprintf("figure2-m%d", m), Figure: f})
		}
	}
	return s
}

// FullCommand is the command of the paper's campaign in full.
const FullCommand = "volsched exp coupled --out DIR"

// ReadReport reads DIR/summary.json.
func ReadReport(dir string) (*Report, error) {
	file := filepath.Join(dir, "summary.json")
	r, err := reproduction.ReadJSON[Report](file)
	if err != nil {
		return nil, err
	}
	if len(r.ByM) != len(r.Params.Tasks) || len(r.Heuristics) == 0 {
		return nil, fmt.Errorf("%s: %d tables for %d values of m, %d heuristics: not a summary of this campaign", file, len(r.ByM), len(r.Params.Tasks), len(r.Heuristics))
	}
	return r, nil
}

// ResultsDir is where the repository keeps the paper's campaign in full,
// under its results directory.
const ResultsDir = "002/full-published"

// ResultsSection builds the section of the committed full campaign under
// root (the repository's results/): root/002/full-published/summary.json.
// Nil, nil when root holds no such campaign.
func ResultsSection(root string) (*reproduction.Section, error) {
	dir := filepath.Join(root, filepath.FromSlash(ResultsDir))
	r, err := ReadReport(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c := &r.Params
	cmd := fmt.Sprintf("volsched exp coupled --scenarios %d --trials %d --seed %d --out results/%s", c.Scenarios, c.Trials, r.Seed, ResultsDir)
	run := report.Run{Command: cmd, Seed: r.Seed,
		Note: "the committed full campaign (results/" + ResultsDir + "); interrupted and resumed, so its wall time was not measured in one piece: its CPU time is in docs/benchmarks.md (\"coupled\")"}
	what := fmt.Sprintf("The paper's campaign in full, as committed in results/%s (summary.json; results/002/README.md gives the commit and the samples run besides it).", ResultsDir)
	return r.Section(what, []report.Run{run}), nil
}
