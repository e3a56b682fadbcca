package workload

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// At returns P(X <= x) of the step distribution.
func (c *CDF) At(x float64) float64 {
	i := sort.Search(len(c.Values), func(i int) bool { return c.Values[i] > x })
	if i == 0 {
		return 0
	}
	return c.Probs[i-1]
}

// KS returns the Kolmogorov–Smirnov distance between two step
// distributions: the largest |P_a(X <= x) − P_b(X <= x)| over x (attained
// at a value of one of them).
func KS(a, b *CDF) float64 {
	d := 0.0
	for _, c := range []*CDF{a, b} {
		for _, v := range c.Values {
			d = math.Max(d, math.Abs(a.At(v)-b.At(v)))
		}
	}
	return d
}

// QualityProbs are the probabilities at which a fit's quantiles are
// compared.
var QualityProbs = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

// Compare returns the fit quality of model against data.
func Compare(name string, params int, model, data *CDF) FitQuality {
	q := FitQuality{Name: name, Params: params, KS: KS(model, data), MeanData: data.Mean(), MeanModel: model.Mean()}
	for _, p := range QualityProbs {
		q.Quantiles = append(q.Quantiles, Quantile{P: p, Data: data.Quantile(p), Model: model.Quantile(p)})
	}
	return q
}

// WeightedCDF returns the step distribution of values with the given
// weights (> 0; equal values merged).
func WeightedCDF(name string, values, weights []float64) (*CDF, error) {
	if len(values) != len(weights) || len(values) == 0 {
		return nil, fmt.Errorf("%s: %d values, %d weights: want as many, at least one", name, len(values), len(weights))
	}
	type vw struct{ v, w float64 }
	xs := make([]vw, len(values))
	total := 0.0
	for i, v := range values {
		if !finite(v) || !(weights[i] > 0) || !finite(weights[i]) {
			return nil, fmt.Errorf("%s: value %g with weight %g: want a finite value and a finite weight > 0", name, v, weights[i])
		}
		xs[i] = vw{v, weights[i]}
		total += weights[i]
	}
	slices.SortFunc(xs, func(a, b vw) int { return cmp.Compare(a.v, b.v) })
	c := &CDF{Name: name}
	s := 0.0
	for i, x := range xs {
		s += x.w
		if i+1 < len(xs) && xs[i+1].v == x.v {
			continue
		}
		c.Values = append(c.Values, x.v)
		c.Probs = append(c.Probs, s/total)
	}
	c.Probs[len(c.Probs)-1] = 1
	return c, nil
}

// Marginal returns the distribution of f over the classes of h, weighted
// by their frequencies, leaving out the classes for which f reports false.
func (h *AppHist) Marginal(name string, f func(AppClass) (float64, bool)) (*CDF, error) {
	var vs, ws []float64
	for _, c := range h.Classes {
		if v, ok := f(c); ok && c.Freq > 0 {
			vs = append(vs, v)
			ws = append(ws, c.Freq)
		}
	}
	return WeightedCDF(name, vs, ws)
}

// AppMarginals are the views of an application histogram by which a model
// of it is compared with the data: the number of tasks, the task length,
// the work of a job (length × tasks), the length within each group of
// the model and the given memory (MemKB >= 0) of each group that has one.
func (m *AppModel) AppMarginals() []AppMarginal {
	ms := []AppMarginal{
		{"tasks", m.Tasks.Params(), func(c AppClass) (float64, bool) { return float64(c.Tasks), true }},
		{"length", 0, func(c AppClass) (float64, bool) { return c.LengthMI, true }},
		{"work (length × tasks)", 0, func(c AppClass) (float64, bool) { return c.LengthMI * float64(c.Tasks), true }},
	}
	for i := range m.Groups {
		g := &m.Groups[i]
		lo, hi := g.MinTasks, math.MaxInt
		if i+1 < len(m.Groups) {
			hi = m.Groups[i+1].MinTasks - 1
		}
		in := func(c AppClass) bool { return c.Tasks >= lo && c.Tasks <= hi }
		r := fmt.Sprintf("tasks %d–%d", lo, hi)
		switch {
		case lo == hi:
			r = fmt.Sprintf("tasks %d", lo)
		case hi == math.MaxInt:
			r = fmt.Sprintf("tasks >= %d", lo)
		}
		ms = append(ms, AppMarginal{"length, " + r, g.Length.Params(), func(c AppClass) (float64, bool) { return c.LengthMI, in(c) }})
		if g.MemKB != nil {
			ms = append(ms, AppMarginal{"given memory (KB), " + r, g.MemKB.Params(), func(c AppClass) (float64, bool) { return c.MemKB, in(c) && c.MemKB >= 0 }})
		}
	}
	return ms
}

// AppMarginal is one view of an application histogram (see
// AppMarginals); Params counts the model's parameters behind it (0 when
// the view combines several parts).
type AppMarginal struct {
	Name   string
	Params int
	Of     func(AppClass) (float64, bool)
}

// Compare compares every distribution of m, as the generator samples it,
// with the empirical distributions d.
func (m *SiteModel) Compare(d *Distributions) ([]FitQuality, error) {
	md := m.Distributions()
	var out []FitQuality
	data := []*CDF{d.ThinkTime, d.BreakTime, d.BatchWidth, d.InterBatch, d.JobRepeat, d.JobSize,
		d.TaskDeadline, d.TaskLength, d.TaskMaxMem}
	model := []*CDF{md.ThinkTime, md.BreakTime, md.BatchWidth, md.InterBatch, md.JobRepeat, md.JobSize,
		md.TaskDeadline, md.TaskLength, md.TaskMaxMem}
	for i, x := range m.dists() {
		out = append(out, Compare(x.file, x.d.Params(), model[i], data[i]))
	}
	for _, a := range m.Apps.AppMarginals() {
		dc, err := d.Apps.Marginal(a.Name, a.Of)
		if err != nil {
			return nil, fmt.Errorf("app_distribution.hist %s: %w", a.Name, err)
		}
		mc, err := md.Apps.Marginal(a.Name, a.Of)
		if err != nil {
			return nil, fmt.Errorf("model app_distribution.hist %s: %w", a.Name, err)
		}
		out = append(out, Compare("app_distribution.hist: "+a.Name, a.Params, mc, dc))
	}
	return out, nil
}
