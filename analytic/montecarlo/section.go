package montecarlo

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// docAnalytic explains what holds and what does not, for the page's links.
const docAnalytic = "docs/analytic.md"

// TolZ is the band of the report's z column: a formula that holds stays
// within ZLimit standard errors of the simulation (z = 0 would be a perfect
// match).
var TolZ = report.Tolerance{Abs: ZLimit, Signed: true}

// Section is the reproduction's section of the report page: per chain and
// per set of chains, the formula beside the Monte Carlo estimate with its
// standard error, and their distance in standard errors compared with 0
// (close: below ZLimit), each row saying what to expect. The rows of sets
// check Theorem 5.1 of the tightly-coupled paper; the section is filed
// under the iterative paper, whose single-processor results it checks
// first, and says so.
func (r *Reproduction) Section() *reproduction.Section {
	s := &reproduction.Section{Paper: reproduction.IterativePaper}
	s.Reproduced = fmt.Sprintf("The analytic results of the availability model, checked against a Monte Carlo simulation of the Markov chain: "+
		"Lemma 1 (P+), Theorem 2 (E(W)) and P_UD(k) (§6.3, exact, approximated, and as printed) of this paper for single processors, "+
		"and Theorem 5.1 (P+(S), E(S)(W)) of %q for sets of processors. Seed %d; %d chains from the papers' generator "+
		"(P_xx ~ U[0.90, 0.99], P_xy = (1 − P_xx)/2), %s Monte Carlo runs per row, W = %d, k = %d.\n\n"+
		"The papers give formulas, not tables: each row compares the formula (the paper's result) with the simulation (ours) by z, their "+
		"distance in standard errors of the simulation. A formula that holds stays below z = %d (the page's \"paper\" value for z is 0); "+
		"the two forms printed in the papers that are not what their definitions ask for are expected to be far, and the approximation may be.",
		reproduction.CoupledPaper.Title, r.Seed, r.Chains, formatCount(r.Runs), r.W, r.K, ZLimit)
	s.Tables = []report.Table{
		rowsTable("chains", "Single processors: Lemma 1, Theorem 2 and P_UD(k) against the simulation", "chain", r.Single),
		rowsTable("sets", "Sets of processors (the tightly-coupled paper, Theorem 5.1) against the simulation", "set", r.Sets),
	}
	s.Tables[0].Note = "P_UD(k) as printed: the paper's matrix form with its vectors swapped (docs/analytic.md)."
	s.Tables[1].Note = "S=#1..#n is the set of the first n chains. E(S)(W) as printed divides by P+^(W−1) instead of conditioning each gap on success; the conditional form is what Definition 2 asks for (docs/analytic.md)."
	s.Choices = []report.Choice{
		{Text: "what holds and what does not, with the derivations of the corrected forms", Doc: docAnalytic + "#what-does-not-hold-and-by-how-much"},
		{Text: "choices where the papers are silent (non-integer slot counts, sets that cannot go DOWN, the truncation horizon)", Doc: docAnalytic + "#choices-where-the-papers-are-silent"},
		{Text: "how the formulas are verified besides this check (hand-derived values, an exact computation)", Doc: docAnalytic + "#how-it-is-verified"},
	}
	return s
}

// rowsTable is one table of rows: formula, simulation, standard error and
// z against 0.
func rowsTable(id, caption, header string, rows []Row) report.Table {
	t := report.Table{ID: id, Caption: caption, RowHeader: header, Columns: []report.Column{
		{Name: "formula", Digits: 5},
		{Name: "simulation", Digits: 5},
		{Name: "std err", Digits: 5},
		{Name: "z", Unit: "std errors", Digits: 1, Tol: TolZ},
	}}
	for _, x := range rows {
		nan := report.Cell{Paper: math.NaN()}
		f, sim, se := nan, nan, nan
		f.Ours, sim.Ours, se.Ours = x.Formula, x.Simulation, x.SE
		t.Rows = append(t.Rows, report.Row{Label: fmt.Sprintf("%s %s (expected: %s)", x.Subject, x.Quantity, expectText(x.Expect)),
			Cells: []report.Cell{f, sim, se, {Ours: x.Z(), Paper: 0, PaperText: "0"}}})
	}
	return t
}

// expectText says what a row should show, for its label.
func expectText(e Expect) string {
	switch e {
	case Holds:
		return "holds"
	case Approximation:
		return "an approximation, may be off"
	case AsPrinted:
		return "off, as printed"
	}
	return e.String()
}

// formatCount writes n with thousands separated by commas.
func formatCount(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
