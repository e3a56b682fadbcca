package workload

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// This file holds the parametric families of the embedded site-level model
// (docs/workload-model.md): each distribution of the site-level model is a
// few point masses (atoms) plus a mixture of log-normals, truncated to the
// distribution's support and, for quantities measured on a grid (seconds,
// jobs, tasks, megabytes), rounded up to that grid. The parameters are
// fitted to the empirical files by tools/fitworkload; a model is
// turned into the tables the generator samples (CDF, AppHist) by Table and
// AppModel.Hist.

// LogNormal is one component of a mixture: with weight W, ln(x + Offset)
// is normal with mean Mu and standard deviation Sigma (Offset is the
// Dist's).
type LogNormal struct {
	W     float64 `json:"w"`
	Mu    float64 `json:"mu"`
	Sigma float64 `json:"sigma"`
}

// Atom is a point mass: value Value with probability P.
type Atom struct {
	Value float64 `json:"value"`
	P     float64 `json:"p"`
}

// Dist is a fitted distribution of a quantity x in [Min, Max]: with the
// probability of each atom, the atom's value; otherwise a draw y from the
// mixture Mix, truncated to (Min − Step, Max] and, when Step > 0, rounded
// up to the grid Min, Min + Step, …, Max, leaving out the atoms' values
// (so an atom's probability is the whole mass of its value). Step 0 is a
// continuous quantity (support (Min, Max] beside the atoms).
type Dist struct {
	Min    float64     `json:"min"`
	Max    float64     `json:"max"`
	Step   float64     `json:"step"`
	Offset float64     `json:"offset"`
	Atoms  []Atom      `json:"atoms,omitempty"`
	Mix    []LogNormal `json:"lognormals"`
}

// maxGridPoints bounds a table that lists every value of a Step grid;
// longer grids are tabulated at logGridPoints points (rounded up to the
// grid), which coarsens a draw by at most the ratio of two neighbouring
// points (about 0.3 % over the widest support of the data).
const (
	maxGridPoints = 1 << 16
	logGridPoints = 4096
)

// Params returns the number of fitted parameters: an atom's value and
// probability, a component's weight (all but one), mean and deviation,
// and the support's bounds.
func (d *Dist) Params() int {
	n := 2*len(d.Atoms) + 3*len(d.Mix) - 1 + 2
	return n
}

// Validate checks that d is a distribution the generator can sample.
func (d *Dist) Validate(name string) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("workload model %s: %s", name, fmt.Sprintf(format, a...))
	}
	switch {
	case !finite(d.Min) || !finite(d.Max) || d.Min < 0 || d.Max <= d.Min:
		return fail("min %g, max %g: want 0 <= min < max, finite", d.Min, d.Max)
	case !finite(d.Step) || d.Step < 0:
		return fail("step %g: want >= 0", d.Step)
	case d.Step > 0 && !onGrid(d.Max, d.Min, d.Step):
		return fail("max %g: want min %g + a multiple of step %g", d.Max, d.Min, d.Step)
	case !finite(d.Offset) || d.Min-d.Step+d.Offset < 0:
		return fail("offset %g: want min − step + offset >= 0", d.Offset)
	case len(d.Mix) == 0:
		return fail("no log-normal component")
	}
	pa := 0.0
	for i, a := range d.Atoms {
		switch {
		case !(a.P > 0 && a.P < 1):
			return fail("atom %d probability %g: want in (0, 1)", i, a.P)
		case !(a.Value >= d.Min && a.Value <= d.Max) || (d.Step > 0 && !onGrid(a.Value, d.Min, d.Step)):
			return fail("atom %d value %g: want a value of the support [%g, %g] (step %g)", i, a.Value, d.Min, d.Max, d.Step)
		case i > 0 && a.Value <= d.Atoms[i-1].Value:
			return fail("atom %d value %g: want increasing values", i, a.Value)
		}
		pa += a.P
	}
	if !(pa < 1) {
		return fail("atoms' total probability %g: want < 1", pa)
	}
	w := 0.0
	for i, c := range d.Mix {
		if !(c.W > 0) || !finite(c.Mu) || !(c.Sigma > 0) || !finite(c.Sigma) {
			return fail("log-normal %d (w %g, mu %g, sigma %g): want w > 0, finite mu, sigma > 0", i, c.W, c.Mu, c.Sigma)
		}
		w += c.W
	}
	if math.Abs(w-1) > 1e-9 {
		return fail("log-normal weights sum to %g: want 1", w)
	}
	if !(d.mix(d.Max)-d.mix(d.lower()) > 1e-12) {
		return fail("the log-normals put no mass on the support")
	}
	if d.Step > 0 && !(d.evaluator().gAtoms < 1-1e-9) {
		return fail("the log-normals put all their mass on the atoms' values")
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func onGrid(x, min, step float64) bool {
	k := (x - min) / step
	return math.Abs(k-math.Round(k)) < 1e-9
}

// lower is the excluded lower bound of the mixture's truncation.
func (d *Dist) lower() float64 { return d.Min - d.Step }

// mix is the mixture's CDF at x.
func (d *Dist) mix(x float64) float64 {
	z := x + d.Offset
	if z <= 0 {
		return 0
	}
	l, s := math.Log(z), 0.0
	for _, c := range d.Mix {
		s += c.W * 0.5 * math.Erfc(-(l-c.Mu)/(c.Sigma*math.Sqrt2))
	}
	return s
}

// evaluator is a Dist with what its CDF needs precomputed.
type evaluator struct {
	d      *Dist
	lo, hi float64 // the mixture's CDF at the truncation's bounds
	pa     float64 // the atoms' total probability
	gAtoms float64 // the truncated mixture's mass on the atoms' values (Step > 0)
	gCum   []float64
}

func (d *Dist) evaluator() *evaluator {
	e := &evaluator{d: d, lo: d.mix(d.lower()), hi: d.mix(d.Max), gCum: make([]float64, len(d.Atoms))}
	for i, a := range d.Atoms {
		e.pa += a.P
		if d.Step > 0 {
			e.gAtoms += e.cont(a.Value) - e.cont(a.Value-d.Step)
		}
		e.gCum[i] = e.gAtoms
	}
	return e
}

// cont is the truncated mixture's CDF at x.
func (e *evaluator) cont(x float64) float64 {
	switch {
	case x <= e.d.lower():
		return 0
	case x >= e.d.Max:
		return 1
	}
	return (e.d.mix(x) - e.lo) / (e.hi - e.lo)
}

// grid returns the largest grid value <= x (x itself when Step is 0).
func (d *Dist) grid(x float64) float64 {
	if d.Step == 0 || x < d.Min {
		return x
	}
	return d.gridValue(math.Floor((x-d.Min)/d.Step + 1e-9))
}

// gridValue returns Min + k·Step, computed so that a decimal step gives
// the decimal value (0.1 steps give 1.1, not 1.1000000000000003).
func (d *Dist) gridValue(k float64) float64 {
	if d.Step >= 1 {
		return d.Min + k*d.Step
	}
	inv := math.Pow(10, math.Ceil(-math.Log10(d.Step)))
	return (math.Round(d.Min*inv) + k*math.Round(d.Step*inv)) / inv
}

// cdf is P(X <= x).
func (e *evaluator) cdf(x float64) float64 {
	d := e.d
	if x < d.Min {
		return 0
	}
	if x >= d.Max {
		return 1
	}
	x = d.grid(x)
	below, gBelow := 0.0, 0.0
	for i, a := range d.Atoms {
		if a.Value <= x {
			below += a.P
			gBelow = e.gCum[i]
		}
	}
	g := e.cont(x)
	if d.Step > 0 {
		g = (g - gBelow) / (1 - e.gAtoms)
	}
	return below + (1-e.pa)*g
}

// CDF returns P(X <= x).
func (d *Dist) CDF(x float64) float64 { return d.evaluator().cdf(x) }

// CDFs returns P(X <= x) for each x of xs.
func (d *Dist) CDFs(xs []float64) []float64 {
	e := d.evaluator()
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = e.cdf(x)
	}
	return out
}

// Table returns the distribution as the step CDF the generator samples:
// every value of the grid when it has at most maxGridPoints values,
// otherwise logGridPoints values spaced evenly in ln(x + Offset) (rounded
// up to the grid), with the atoms and both ends.
func (d *Dist) Table(name string) *CDF {
	var vals []float64
	if d.Step > 0 && (d.Max-d.Min)/d.Step < maxGridPoints {
		n := int(math.Round((d.Max-d.Min)/d.Step)) + 1
		vals = make([]float64, n)
		for k := range vals {
			vals[k] = d.gridValue(float64(k))
		}
	} else {
		a := d.Min + d.Offset
		if a <= 0 {
			a = d.Step
		}
		if a <= 0 {
			// The continuous part's smallest values: far in the lower tail.
			a = math.Inf(1)
			for _, c := range d.Mix {
				a = math.Min(a, math.Exp(c.Mu-8*c.Sigma))
			}
			a = math.Max(a, (d.Max+d.Offset)*1e-12)
		}
		la, lb := math.Log(a), math.Log(d.Max+d.Offset)
		vals = append(vals, d.Min, d.Max)
		for k := 0; k < logGridPoints; k++ {
			x := math.Exp(la+(lb-la)*float64(k)/(logGridPoints-1)) - d.Offset
			if d.Step > 0 {
				x = d.gridValue(math.Ceil((x-d.Min)/d.Step - 1e-9))
			}
			if x > d.Min && x < d.Max {
				vals = append(vals, x)
			}
		}
		for _, at := range d.Atoms {
			vals = append(vals, at.Value)
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
	}
	e := d.evaluator()
	c := &CDF{Name: name, Values: vals, Probs: make([]float64, len(vals))}
	prev := 0.0
	for i, v := range vals {
		p := math.Max(prev, math.Min(1, e.cdf(v)))
		c.Probs[i] = p
		prev = p
	}
	c.Probs[len(c.Probs)-1] = 1
	return c
}

// AppGroup is the model of the application classes whose number of tasks
// is in [MinTasks, the next group's MinTasks): their task length, and
// their memory per task: with probability MemFromCDF "draw from
// taskmaxmem" (MemKB −1 in the histogram), otherwise MemKB (a given
// amount, kilobytes, independent of the length).
type AppGroup struct {
	MinTasks   int     `json:"min_tasks"`
	Length     Dist    `json:"length_mi"`
	MemFromCDF float64 `json:"mem_from_taskmaxmem"`
	MemKB      *Dist   `json:"mem_kb,omitempty"`
}

// AppModel is the model of app_distribution.hist: the number of tasks of
// a class, then, given the group of that number, its task length and
// memory. The histogram's relative-deadline column is not modelled: the
// generator does not use it (the paper's deadline rule replaces it).
type AppModel struct {
	Tasks  Dist       `json:"tasks"`
	Groups []AppGroup `json:"groups"`
}

// Strata of the application table: each group's length is represented by
// appLengthStrata values of equal probability (the quantiles at the
// strata's midpoints) and a given memory by appMemStrata values.
const (
	appLengthStrata = 128
	appMemStrata    = 32
)

// Params returns the number of fitted parameters.
func (m *AppModel) Params() int {
	n := m.Tasks.Params()
	for _, g := range m.Groups {
		n += 1 + g.Length.Params() // the group's lower bound and its length
		if g.MemKB != nil {
			n += 1 + g.MemKB.Params()
		} else {
			n++
		}
	}
	return n
}

// Validate checks the model.
func (m *AppModel) Validate() error {
	if err := m.Tasks.Validate("apps tasks"); err != nil {
		return err
	}
	if m.Tasks.Step != 1 || m.Tasks.Min < 1 || m.Tasks.Max > 1<<30 {
		return fmt.Errorf("workload model apps tasks: step %g, min %g, max %g: want integers from >= 1 to <= 2^30", m.Tasks.Step, m.Tasks.Min, m.Tasks.Max)
	}
	if len(m.Groups) == 0 || m.Groups[0].MinTasks != int(m.Tasks.Min) {
		return fmt.Errorf("workload model apps: the first group must start at the tasks' min %g", m.Tasks.Min)
	}
	for i, g := range m.Groups {
		name := fmt.Sprintf("apps group %d", i)
		if i > 0 && g.MinTasks <= m.Groups[i-1].MinTasks {
			return fmt.Errorf("workload model %s: min_tasks %d: want increasing", name, g.MinTasks)
		}
		if err := g.Length.Validate(name + " length"); err != nil {
			return err
		}
		if !(g.Length.Min > 0) {
			return fmt.Errorf("workload model %s length: min %g: want > 0", name, g.Length.Min)
		}
		if !(g.MemFromCDF >= 0 && g.MemFromCDF <= 1) {
			return fmt.Errorf("workload model %s: mem_from_taskmaxmem %g: want in [0, 1]", name, g.MemFromCDF)
		}
		if g.MemFromCDF < 1 {
			if g.MemKB == nil {
				return fmt.Errorf("workload model %s: mem_from_taskmaxmem %g < 1 needs mem_kb", name, g.MemFromCDF)
			}
			if err := g.MemKB.Validate(name + " mem_kb"); err != nil {
				return err
			}
		}
	}
	return nil
}

// group returns the index of the group of n tasks.
func (m *AppModel) group(n int) int {
	return sort.Search(len(m.Groups), func(i int) bool { return m.Groups[i].MinTasks > n }) - 1
}

// Hist returns the model as the application histogram the generator
// samples: for every number of tasks n with a positive probability p(n)
// and each of the appLengthStrata lengths of n's group, a class of
// frequency p(n)/appLengthStrata, split between "memory from taskmaxmem"
// and the appMemStrata given memories in the group's proportions.
func (m *AppModel) Hist(name string) *AppHist {
	tasks := m.Tasks.Table(name + " tasks")
	type strata struct{ length, mem []float64 }
	st := make([]strata, len(m.Groups))
	for i := range m.Groups {
		g := &m.Groups[i]
		st[i].length = midQuantiles(g.Length.Table(""), appLengthStrata)
		if g.MemFromCDF < 1 {
			st[i].mem = midQuantiles(g.MemKB.Table(""), appMemStrata)
		}
	}
	h := &AppHist{Name: name}
	add := func(c AppClass) {
		if c.Freq > 0 {
			h.Classes = append(h.Classes, c)
		}
	}
	prev := 0.0
	for k, v := range tasks.Values {
		p := tasks.Probs[k] - prev
		prev = tasks.Probs[k]
		if !(p > 0) {
			continue
		}
		n := int(v)
		gi := m.group(n)
		g, s := &m.Groups[gi], st[gi]
		for _, l := range s.length {
			f := p / float64(len(s.length))
			add(AppClass{LengthMI: l, Tasks: n, MemKB: -1, Freq: f * g.MemFromCDF})
			for _, mem := range s.mem {
				add(AppClass{LengthMI: l, Tasks: n, MemKB: mem, Freq: f * (1 - g.MemFromCDF) / float64(len(s.mem))})
			}
		}
	}
	total := 0.0
	h.cum = make([]float64, len(h.Classes))
	for i, c := range h.Classes {
		total += c.Freq
		h.cum[i] = total
	}
	return h
}

// midQuantiles returns c's quantiles at the midpoints of n strata of equal
// probability.
func midQuantiles(c *CDF, n int) []float64 {
	q := make([]float64, n)
	for k := range q {
		q[k] = c.Quantile((float64(k) + 0.5) / float64(n))
	}
	return q
}
