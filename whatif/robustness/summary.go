package robustness

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/internal/jsonnum"
)

// VariantReport is one variant's results over the grid.
type VariantReport struct {
	Name         string  `json:"name"`
	Availability string  `json:"availability"`
	Beliefs      Beliefs `json:"beliefs"`
	Instances    int     `json:"instances"`
	// Per heuristic, in the order of Report.Heuristics: the score the
	// ranking is by (Report.ScoreName; smaller is better; null when
	// undefined), the instances where the heuristic is best or tied
	// (seed 001 only), its mean makespan over the runs that did not fail
	// (slots), and the runs that failed (hit the slot limit).
	Score        Floats `json:"score"`
	Wins         []int  `json:"wins,omitempty"`
	MeanMakespan Floats `json:"mean_makespan"`
	Failures     []int  `json:"failures"`
	// Rank[h] is heuristic h's rank by score (1 = best; ties share the
	// lower rank; an undefined score ranks last).
	Rank []int `json:"rank"`
	// TauReference is Kendall's τ-b between this variant's scores and the
	// reference variant's (the first); TauPaper between this variant's and
	// the paper's table, over the heuristics the table lists (nil when
	// undefined).
	TauReference *float64 `json:"tau_reference"`
	TauPaper     *float64 `json:"tau_paper"`
	// ScoreChange[h] is the score minus the reference variant's.
	ScoreChange Floats `json:"score_change"`
	// PairedBase is the first variant on the same availability (the
	// heuristics told the chains, when there is such a variant); when it is
	// another variant, PairedChange[h] is 100·(Σ makespans / the base's Σ
	// makespans − 1) over the instances where neither run failed: the same
	// states, other beliefs.
	PairedBase   string `json:"paired_base,omitempty"`
	PairedChange Floats `json:"paired_change,omitempty"`
}

// Floats is a list of numbers whose undefined entries (NaN, ±Inf) are null
// in JSON (internal/jsonnum's convention).
type Floats []float64

// MarshalJSON writes each number as a jsonnum.Float.
func (f Floats) MarshalJSON() ([]byte, error) {
	out := make([]jsonnum.Float, len(f))
	for i, x := range f {
		out[i] = jsonnum.Float(x)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads null as NaN.
func (f *Floats) UnmarshalJSON(b []byte) error {
	var in []jsonnum.Float
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*f = make(Floats, len(in))
	for i, x := range in {
		(*f)[i] = float64(x)
	}
	return nil
}

// Report is the study's summary for one model.
type Report struct {
	Kind       string   `json:"kind"`
	Seed       uint64   `json:"seed"`
	Parameters any      `json:"parameters"`
	Heuristics []string `json:"heuristics"`
	// ScoreName says what Score is ("average dfb (%)", "%diff vs IE").
	ScoreName string `json:"score_name"`
	Reference string `json:"reference"`
	// PaperName names the paper's table and Paper holds its scores (by
	// heuristic, only those it lists).
	PaperName string             `json:"paper_name"`
	Paper     map[string]float64 `json:"paper"`
	Variants  []VariantReport    `json:"variants"`
	// Tau[i][j] is Kendall's τ-b between variants i and j's scores (nil
	// when undefined).
	Tau [][]*float64 `json:"tau"`
}

// scores are one variant's results, computed by the model's part.
type scores struct {
	instances   int
	score, mean []float64
	wins        []int // nil when the model has none
	failures    []int
	ms          [][]int  // by instance, then heuristic
	failed      [][]bool // nil when nothing can fail
}

// dfbScores computes seed 001 §7's scores of one variant: for every
// instance the degradation from best of each heuristic, 100·(makespan −
// best)/best (best over the heuristics on that instance), averaged, and
// the wins.
func dfbScores(ms [][]int, nh int) (scores, error) {
	sc := scores{instances: len(ms), score: make([]float64, nh), mean: make([]float64, nh), wins: make([]int, nh), failures: make([]int, nh), ms: ms}
	if len(ms) == 0 {
		return sc, fmt.Errorf("no instance")
	}
	for i, row := range ms {
		if len(row) != nh {
			return sc, fmt.Errorf("instance %d: %d makespans for %d heuristics", i, len(row), nh)
		}
		best := slices.Min(row)
		if best < 1 {
			return sc, fmt.Errorf("instance %d: makespan %d, want ≥ 1", i, best)
		}
		for h, m := range row {
			sc.score[h] += 100 * float64(m-best) / float64(best)
			sc.mean[h] += float64(m)
			if m == best {
				sc.wins[h]++
			}
		}
	}
	for h := range sc.score {
		sc.score[h] /= float64(len(ms))
		sc.mean[h] /= float64(len(ms))
	}
	return sc, nil
}

// newReport compares the variants (sc[v] over the same instances of the
// grid for every v).
func newReport(kind string, seed uint64, params any, names []string, scoreName string, vs []Variant, sc []scores, paperName string, paper map[string]float64) (Report, error) {
	r := Report{Kind: kind, Seed: seed, Parameters: params, Heuristics: names, ScoreName: scoreName, Reference: vs[0].Name, PaperName: paperName, Paper: paper}
	nh := len(names)
	for vi, v := range vs {
		x := sc[vi]
		r.Variants = append(r.Variants, VariantReport{Name: v.Name, Availability: v.Availability, Beliefs: v.Beliefs, Instances: x.instances,
			Score: x.score, Wins: x.wins, MeanMakespan: x.mean, Failures: x.failures, Rank: ranks(x.score)})
	}
	ref := r.Variants[0]
	r.Tau = make([][]*float64, len(vs))
	for i := range r.Tau {
		r.Tau[i] = make([]*float64, len(vs))
		for j := range r.Tau[i] {
			r.Tau[i][j] = tau(r.Variants[i].Score, r.Variants[j].Score)
		}
	}
	for vi := range r.Variants {
		vr := &r.Variants[vi]
		vr.TauReference = tau(vr.Score, ref.Score)
		if paper != nil {
			var a, b []float64
			for h, n := range names {
				if p, ok := paper[n]; ok {
					a, b = append(a, vr.Score[h]), append(b, p)
				}
			}
			vr.TauPaper = tau(a, b)
		}
		vr.ScoreChange = make(Floats, nh)
		for h := range vr.ScoreChange {
			vr.ScoreChange[h] = vr.Score[h] - ref.Score[h]
		}
		base := -1
		for b := range vs {
			if vs[b].Availability == vs[vi].Availability && (base < 0 || (vs[b].Beliefs.Known && !vs[base].Beliefs.Known)) {
				base = b
			}
		}
		if base == vi {
			continue
		}
		vr.PairedBase = vs[base].Name
		vr.PairedChange = make(Floats, nh)
		for h := 0; h < nh; h++ {
			s, sb := 0.0, 0.0
			for i := range sc[vi].ms {
				if (sc[vi].failed != nil && sc[vi].failed[i][h]) || (sc[base].failed != nil && sc[base].failed[i][h]) {
					continue
				}
				s += float64(sc[vi].ms[i][h])
				sb += float64(sc[base].ms[i][h])
			}
			vr.PairedChange[h] = 100 * (s/sb - 1)
		}
	}
	return r, nil
}

func tau(a, b []float64) *float64 {
	t := experiment.KendallTau(a, b)
	if math.IsNaN(t) {
		return nil
	}
	return &t
}

// ranks gives each value its rank (1 = smallest; ties share the lower;
// NaN after every number).
func ranks(x []float64) []int {
	r := make([]int, len(x))
	for i := range x {
		r[i] = 1
		for j := range x {
			if x[j] < x[i] || (math.IsNaN(x[i]) && !math.IsNaN(x[j])) {
				r[i]++
			}
		}
	}
	return r
}

func fmtTau(t *float64) string {
	if t == nil {
		return "–"
	}
	return experiment.FormatFloat(*t, 3)
}

// order is the heuristics sorted by the reference variant's average dfb.
func (r *Report) order() []int {
	o := make([]int, len(r.Heuristics))
	for i := range o {
		o[i] = i
	}
	rk := r.Variants[0].Rank
	slices.SortStableFunc(o, func(a, b int) int { return rk[a] - rk[b] })
	return o
}

// Tables returns the report's tables: the average dfb (rank) of every
// heuristic under every variant; Kendall's τ; the change of average dfb
// against the reference; the paired makespan change against the variant
// with known chains on the same availability.
func (r *Report) Tables() (dfb, taus, change, paired *experiment.Table) {
	head := []string{"heuristic"}
	for _, v := range r.Variants {
		head = append(head, v.Name)
	}
	dfb = experiment.NewTable(head...)
	change = experiment.NewTable(head...)
	var ph []string
	var pv []int
	for vi, v := range r.Variants {
		if v.PairedBase != "" {
			ph = append(ph, v.Name+" vs "+v.PairedBase)
			pv = append(pv, vi)
		}
	}
	paired = experiment.NewTable(append([]string{"heuristic"}, ph...)...)
	for _, h := range r.order() {
		row, crow, prow := []string{r.Heuristics[h]}, []string{r.Heuristics[h]}, []string{r.Heuristics[h]}
		for _, v := range r.Variants {
			row = append(row, fmt.Sprintf("%s (%d)", experiment.FormatFloat(v.Score[h], 2), v.Rank[h]))
			crow = append(crow, signed(v.ScoreChange[h]))
		}
		for _, vi := range pv {
			prow = append(prow, signed(r.Variants[vi].PairedChange[h])+"%")
		}
		dfb.AddRow(row...)
		change.AddRow(crow...)
		paired.AddRow(prow...)
	}
	taus = experiment.NewTable("variant", "availability", "beliefs", "instances", "τ vs "+r.Reference, "τ vs "+r.PaperName, "failed runs")
	for _, v := range r.Variants {
		f := 0
		for _, x := range v.Failures {
			f += x
		}
		taus.AddRow(v.Name, v.Availability, v.Beliefs.String(), fmt.Sprint(v.Instances), fmtTau(v.TauReference), fmtTau(v.TauPaper), fmt.Sprint(f))
	}
	return dfb, taus, change, paired
}

func signed(x float64) string {
	s := experiment.FormatFloat(x, 2)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// String describes the beliefs: "known P", "estimated (all)", "window 100,
// prior 20".
func (b Beliefs) String() string {
	if b.Known {
		return "known P"
	}
	s := "estimated, all history"
	if b.Window > 0 {
		s = fmt.Sprintf("estimated, last %d transitions", b.Window)
	}
	if b.PriorWeight > 0 {
		s += fmt.Sprintf(", prior weight %g", b.PriorWeight)
	}
	if b.Refresh > 1 {
		s += fmt.Sprintf(", every %d slots", b.Refresh)
	}
	return s
}

// Losers returns, for variant v, the k heuristics whose score grew most
// against the reference, with the growth.
func (r *Report) Losers(v, k int) []string {
	o := make([]int, len(r.Heuristics))
	for i := range o {
		o[i] = i
	}
	ch := r.Variants[v].ScoreChange
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
		case math.IsNaN(ch[a]) != math.IsNaN(ch[b]):
			if math.IsNaN(ch[a]) {
				return 1
			}
			return -1
		case ch[a] > ch[b]:
			return -1
		case ch[a] < ch[b]:
			return 1
		}
		return a - b
	})
	var out []string
	for _, h := range o[:min(k, len(o))] {
		out = append(out, fmt.Sprintf("%s %s", r.Heuristics[h], signed(ch[h])))
	}
	return out
}

// WriteText prints the report; markdown selects Markdown tables (for
// docs/robustness.md).
func (r *Report) WriteText(w io.Writer, markdown bool) error {
	write := func(t *experiment.Table) error {
		if markdown {
			return t.WriteMarkdown(w)
		}
		return t.WriteText(w)
	}
	dfb, taus, change, paired := r.Tables()
	fmt.Fprintf(w, "Robustness study (%s), seed %d: %s (rank) per variant; heuristics sorted by %s\n\n", r.Kind, r.Seed, r.ScoreName, r.Reference)
	if err := write(dfb); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nKendall's τ-b of the rankings by %s\n\n", r.ScoreName)
	if err := write(taus); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nKendall's τ-b between every two variants\n\n")
	head := []string{"variant"}
	for _, v := range r.Variants {
		head = append(head, v.Name)
	}
	tm := experiment.NewTable(head...)
	for i, v := range r.Variants {
		row := []string{v.Name}
		for j := range r.Variants {
			row = append(row, fmtTau(r.Tau[i][j]))
		}
		tm.AddRow(row...)
	}
	if err := write(tm); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nChange of %s against %s (percentage points)\n\n", r.ScoreName, r.Reference)
	if err := write(change); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPaired change of the mean makespan, same states, other beliefs\n\n")
	if err := write(paired); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nLargest losses of %s against %s:\n", r.ScoreName, r.Reference)
	for vi, v := range r.Variants[1:] {
		fmt.Fprintf(w, "  %-26s %s\n", v.Name+":", strings.Join(r.Losers(vi+1, 3), ", "))
	}
	return nil
}
