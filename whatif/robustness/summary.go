package robustness

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/volsched/volsched/experiment"
)

// VariantReport is one variant's results over the grid.
type VariantReport struct {
	Name         string  `json:"name"`
	Availability string  `json:"availability"`
	Beliefs      Beliefs `json:"beliefs"`
	Instances    int     `json:"instances"`
	// Per heuristic, in the order of Report.Heuristics: the average
	// degradation from best (100·(makespan − best)/best on each instance,
	// best over the heuristics of this variant on that instance), the
	// instances where it is best or tied, the mean makespan (slots) and
	// the runs that failed (hit the slot limit; counted at the limit).
	AvgDfb       []float64 `json:"avg_dfb"`
	Wins         []int     `json:"wins"`
	MeanMakespan []float64 `json:"mean_makespan"`
	Failures     []int     `json:"failures"`
	// Rank[h] is heuristic h's rank by average dfb (1 = best; ties share
	// the lower rank).
	Rank []int `json:"rank"`
	// TauReference is Kendall's τ-b between this variant's average dfb and
	// the reference variant's (the first); TauPaper between this
	// variant's and the paper's table (nil when undefined).
	TauReference *float64 `json:"tau_reference"`
	TauPaper     *float64 `json:"tau_paper"`
	// DfbChange[h] is the average dfb minus the reference variant's.
	DfbChange []float64 `json:"dfb_change"`
	// PairedBase is the first variant on the same availability (the
	// heuristics told the chains, when there is such a variant); when it is
	// another variant, PairedChange[h] is 100·(Σ makespans / the base's Σ
	// makespans − 1) over the same instances: the same states, other
	// beliefs.
	PairedBase   string    `json:"paired_base,omitempty"`
	PairedChange []float64 `json:"paired_change,omitempty"`
}

// Report is the study's summary for one model.
type Report struct {
	Kind       string          `json:"kind"`
	Seed       uint64          `json:"seed"`
	Parameters any             `json:"parameters"`
	Heuristics []string        `json:"heuristics"`
	Reference  string          `json:"reference"`
	PaperName  string          `json:"paper_name"`
	Paper      []float64       `json:"paper_avg_dfb"`
	Variants   []VariantReport `json:"variants"`
}

// instances are one variant's makespans, instance by instance (each over
// the heuristics), with the failed runs when the model has a slot limit.
type instances struct {
	ms     [][]int
	failed [][]bool
}

// newReport summarizes the variants (in[v] over the same instances of the
// grid for every v); paper is the published average dfb per heuristic.
func newReport(kind string, seed uint64, params any, names []string, vs []Variant, in []instances, paperName string, paper []float64) (Report, error) {
	r := Report{Kind: kind, Seed: seed, Parameters: params, Heuristics: names, Reference: vs[0].Name, PaperName: paperName, Paper: paper}
	nh := len(names)
	for vi, v := range vs {
		x := in[vi]
		vr := VariantReport{Name: v.Name, Availability: v.Availability, Beliefs: v.Beliefs, Instances: len(x.ms),
			AvgDfb: make([]float64, nh), Wins: make([]int, nh), MeanMakespan: make([]float64, nh), Failures: make([]int, nh)}
		if len(x.ms) == 0 {
			return r, fmt.Errorf("variant %s: no instance", v.Name)
		}
		for i, ms := range x.ms {
			if len(ms) != nh {
				return r, fmt.Errorf("variant %s instance %d: %d makespans for %d heuristics", v.Name, i, len(ms), nh)
			}
			best := slices.Min(ms)
			if best < 1 {
				return r, fmt.Errorf("variant %s instance %d: makespan %d, want ≥ 1", v.Name, i, best)
			}
			for h, m := range ms {
				vr.AvgDfb[h] += 100 * float64(m-best) / float64(best)
				vr.MeanMakespan[h] += float64(m)
				if m == best {
					vr.Wins[h]++
				}
				if x.failed != nil && x.failed[i][h] {
					vr.Failures[h]++
				}
			}
		}
		for h := range vr.AvgDfb {
			vr.AvgDfb[h] /= float64(len(x.ms))
			vr.MeanMakespan[h] /= float64(len(x.ms))
		}
		vr.Rank = ranks(vr.AvgDfb)
		r.Variants = append(r.Variants, vr)
	}
	ref := r.Variants[0]
	for vi := range r.Variants {
		vr := &r.Variants[vi]
		vr.TauReference = tau(vr.AvgDfb, ref.AvgDfb)
		if paper != nil {
			vr.TauPaper = tau(vr.AvgDfb, paper)
		}
		vr.DfbChange = make([]float64, nh)
		for h := range vr.DfbChange {
			vr.DfbChange[h] = vr.AvgDfb[h] - ref.AvgDfb[h]
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
		vr.PairedChange = make([]float64, nh)
		for h := 0; h < nh; h++ {
			s, sb := 0.0, 0.0
			for i := range in[vi].ms {
				s += float64(in[vi].ms[i][h])
				sb += float64(in[base].ms[i][h])
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

// ranks gives each value its rank (1 = smallest; ties share the lower).
func ranks(x []float64) []int {
	r := make([]int, len(x))
	for i := range x {
		r[i] = 1
		for j := range x {
			if x[j] < x[i] {
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
	ref := r.Variants[0].AvgDfb
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
		case ref[a] < ref[b]:
			return -1
		case ref[a] > ref[b]:
			return 1
		}
		return a - b
	})
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
			row = append(row, fmt.Sprintf("%s (%d)", experiment.FormatFloat(v.AvgDfb[h], 2), v.Rank[h]))
			crow = append(crow, signed(v.DfbChange[h]))
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

// Losers returns, for variant v, the k heuristics whose average dfb grew
// most against the reference, with the growth.
func (r *Report) Losers(v, k int) []string {
	o := make([]int, len(r.Heuristics))
	for i := range o {
		o[i] = i
	}
	ch := r.Variants[v].DfbChange
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
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
	fmt.Fprintf(w, "Robustness study (%s), seed %d: average dfb (rank) per variant; heuristics sorted by %s\n\n", r.Kind, r.Seed, r.Reference)
	if err := write(dfb); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nKendall's τ-b of the average-dfb rankings\n\n")
	if err := write(taus); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nChange of average dfb against %s (percentage points)\n\n", r.Reference)
	if err := write(change); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPaired change of the mean makespan, same states, other beliefs\n\n")
	if err := write(paired); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nLargest losses of average dfb against %s:\n", r.Reference)
	for vi, v := range r.Variants[1:] {
		fmt.Fprintf(w, "  %-26s %s\n", v.Name+":", strings.Join(r.Losers(vi+1, 3), ", "))
	}
	return nil
}
