package accuracy

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// Tolerances of the report's tables: how far our accuracy may be from the
// published one and still be called close, in percentage points. They are
// this project's statement of agreement, set once per quantity: 2 points
// for the accuracy of memory, disk, power and queue; 5 points for DP's
// l(δ), which the paper gives as approximate averages ("∼37%").
var (
	TolAccuracy = report.Tolerance{Abs: 2}
	TolL        = report.Tolerance{Abs: 5}
)

// ReproductionName is the name of the reproduction (reproduce --only: the
// command it reduces) and of its directory under reproduce --out.
const ReproductionName = "overlay-accuracy"

// FileName is the file reproduce --out writes the results into, in its
// directory ReproductionName.
const FileName = "accuracy.json"

// WriteFile writes r as JSON into dir/FileName (dir created if needed).
func (r *Reproduction) WriteFile(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return experiment.WriteJSONFile(filepath.Join(dir, FileName), r)
}

// tableColumns are a policy's tables' columns: its attributes.
func tableColumns(p overlay.Policy) []report.Column {
	var cs []report.Column
	for _, a := range Attributes(p) {
		c := report.Column{Name: a, Unit: "%", Digits: 1, Tol: TolAccuracy}
		if a == "l" {
			c.Name, c.Tol = "l(δ)", TolL
		}
		cs = append(cs, c)
	}
	return cs
}

// paperText is how the paper prints an l(δ) value: "∼37" (approximate).
func paperText(a string, v float64) string {
	if a != "l" {
		return ""
	}
	return "∼" + strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", 100*v), "0"), ".")
}

// policyName is the policy as the paper writes it.
func policyName(p overlay.Policy) string { return strings.ToUpper(p.String()) }

// table2 is Table 2 for policy p from cells (one Result per seed of each
// cell): rows SF_max, columns the policy's attributes; ours the mean over
// the seeds.
func table2(id, caption string, p overlay.Policy, cells []Result, seeds int) report.Table {
	t := report.Table{ID: id + "-" + p.String(), Caption: fmt.Sprintf(caption, policyName(p)), RowHeader: "SF_max", Columns: tableColumns(p)}
	for _, k := range PaperSFMax[p] {
		rs := cellsOf(cells, p, k, 1024)
		row := report.Row{Label: fmt.Sprint(k)}
		for _, a := range Attributes(p) {
			c := report.Cell{Ours: math.NaN(), Paper: 100 * PaperTable2[p][k][a], PaperText: paperText(a, PaperTable2[p][k][a])}
			if len(rs) > 0 {
				c.Ours, _ = meanSD(rs, a)
				c.Ours *= 100
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	if seeds > 1 {
		t.Note = fmt.Sprintf("Ours: the mean over %d seeds (each seed draws new node states).", seeds)
	} else {
		t.Note = "Ours: one seed; the cells with a small SF_max vary by several points between seeds."
	}
	if id == "table2-authors" {
		t.Note += " The authors' implementation choices: their approximate clustering and grid cells (--clustering stars --cells stars), for DP their l distance (--distance stars)."
	}
	return t
}

// table3 is Table 3 for policy p: rows the numbers of nodes, columns the
// policy's attributes.
func table3(r *Reproduction, p overlay.Policy) report.Table {
	k := PaperTable3SFMax[p]
	t := report.Table{ID: "table3-" + p.String(), Caption: fmt.Sprintf("Table 3, %s (SF_max %d)", policyName(p), k),
		RowHeader: "nodes", Columns: tableColumns(p)}
	for _, n := range r.Sizes {
		i := slices.Index(PaperTable3Sizes, n)
		rs := cellsOf(r.Table3, p, k, n)
		row := report.Row{Label: figure.FormatTick(float64(n), 0)}
		for _, a := range Attributes(p) {
			c := report.Cell{Ours: math.NaN(), Paper: math.NaN()}
			if len(rs) > 0 {
				c.Ours, _ = meanSD(rs, a)
				c.Ours *= 100
			}
			if i >= 0 {
				c.Paper, c.PaperText = 100*PaperTable3[p][a][i], paperText(a, PaperTable3[p][a][i])
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = fmt.Sprintf("One seed (%d).", r.Seed)
	if len(r.Sizes) < len(PaperTable3Sizes) {
		t.Note += fmt.Sprintf(" Up to %s nodes (the paper goes to 131,072).", figure.FormatTick(float64(r.Sizes[len(r.Sizes)-1]), 0))
	}
	return t
}

// tables are the section's tables: Table 2 per policy, with our choices
// then the authors'; Table 3 per policy.
func (r *Reproduction) tables() []report.Table {
	var ts []report.Table
	for _, p := range PaperPolicies {
		ts = append(ts, table2("table2", "Table 2, %s (1,024 nodes)", p, r.Table2, r.Seeds))
	}
	for _, p := range PaperPolicies {
		ts = append(ts, table2("table2-authors", "Table 2, %s, the authors' choices", p, r.Table2Authors, r.Seeds))
	}
	for _, p := range PaperPolicies {
		ts = append(ts, table3(r, p))
	}
	return ts
}

// Section is the report's section of the reproduction that computed r.
func (r *Reproduction) Section() *reproduction.Section {
	what := "The full reproduction: Table 2 over 10 seeds, Table 3 up to 131,072 nodes."
	if r.Quick {
		what = "The reduced reproduction (--quick): Table 2 with one seed, Table 3 up to 32,768 nodes. The full one takes seconds: 'volsched reproduce --only overlay-accuracy'; it is committed in results/" + ResultsDir + "."
	}
	return r.section(what, nil)
}

// section is the report's section of the accuracy experiment: Table 2
// with our choices and with the authors', Table 3, the choices, and runs
// besides the one that made the page.
func (r *Reproduction) section(what string, runs []report.Run) *reproduction.Section {
	seeds := fmt.Sprintf("seed %d", r.Seed)
	if r.Seeds > 1 {
		seeds = fmt.Sprintf("seeds %d..%d", r.Seed, r.Seed+uint64(r.Seeds)-1)
	}
	return &reproduction.Section{
		Paper:      reproduction.OverlayPaper,
		Reproduced: what + "\n\n" + fmt.Sprintf("§7.1, the accuracy of the aggregated availability summaries: random node states (as in the authors' test), aggregated up a balanced binary tree with at most SF_max sampled functions per summary; Table 2: the accuracy at 1,024 nodes by SF_max (%s), once with this project's choices and once with the authors' implementation choices; Table 3: by number of nodes. Accuracy: (aggregated − minimum)/(total − minimum) of the root's summary, per attribute; for DP's l(δ), its time average (docs/reproduction-004.md).", seeds),
		Tables:     r.tables(),
		Choices: []report.Choice{
			{Text: "accuracy measured as (aggregated − minimum)/(total − minimum) of the root's summary", Doc: "docs/reproduction-004.md"},
			{Text: "clustering: exact (Fig. 3), the summaries the overlay runs; the authors' approximate K-nearest clustering behind --clustering stars", Doc: "docs/reproduction-004.md"},
			{Text: "distance: mse (the authors'); grid cells clamp the maximum into the last cell (the authors': --cells stars)", Doc: "docs/overlay.md"},
		},
		Runs: runs,
	}
}

// ReadReproduction reads the results reproduce --out wrote (FileName).
func ReadReproduction(file string) (*Reproduction, error) {
	r, err := reproduction.ReadJSON[Reproduction](file)
	if err != nil {
		return nil, err
	}
	if r.Seeds < 1 || len(r.Table2) == 0 || len(r.Table3) == 0 || len(r.Sizes) == 0 {
		return nil, fmt.Errorf("%s: %d seeds, %d + %d cells of Table 2, %d of Table 3, %d sizes: not the results of this reproduction",
			file, r.Seeds, len(r.Table2), len(r.Table2Authors), len(r.Table3), len(r.Sizes))
	}
	return r, nil
}

// ResultsDir is where the repository keeps the full reproduction, under
// its results directory.
const ResultsDir = "004/accuracy"

// ResultsSection builds the section of the committed full reproduction
// under root (the repository's results/): root/004/accuracy/accuracy.json.
// Nil, nil when root holds none.
func ResultsSection(root string) (*reproduction.Section, error) {
	r, err := ReadReproduction(filepath.Join(root, filepath.FromSlash(ResultsDir), FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	run := report.Run{Command: fmt.Sprintf("volsched reproduce --only overlay-accuracy --seed %d --out DIR", r.Seed), Seed: r.Seed,
		Note: "the full reproduction, as committed in results/" + ResultsDir + " (DIR/overlay-accuracy/" + FileName + ")"}
	if d, err := reproduction.WallTime(filepath.Join(root, filepath.FromSlash(ResultsDir), "time.txt")); err == nil {
		run.Duration = d
	}
	return r.section("The full reproduction (Table 2 over 10 seeds, Table 3 up to 131,072 nodes), as committed in results/"+ResultsDir+".", []report.Run{run}), nil
}
