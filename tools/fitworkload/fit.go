package main

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/volsched/volsched/workload"
)

// Fitting (docs/workload-model.md):
//
//   - the support [min, max] is the data's: its smallest value with a
//     positive probability and its first value of cumulative probability 1;
//   - the step is the greatest common divisor of the data's values minus
//     min when they are all integers (seconds, jobs, tasks, MB, the task
//     lengths' thousands of MI), 0 (continuous) otherwise;
//   - the atoms are the values that hold at least atomMass of the
//     probability (at most maxAtoms of them, the heaviest), each with its
//     empirical probability;
//   - the log-normal mixture is fitted to the rest of the distribution (the
//     data without the atoms, renormalized) by minimum distance: Nelder–Mead
//     minimizes the Cramér–von Mises distance Σ r_i (G(x_i) − R(x_i))²
//     between the model's CDF G and the empirical one R, over the data's
//     values x_i (of mass r_i; merged into at most fitPoints points),
//     weighted as Anderson–Darling's (1/(R(1 − R)), so that the tails count),
//     from a start at the data's quantiles and one from the fit with one
//     component less, each restarted until it stops improving;
//   - the number of components K is the smallest of 1..maxComponents whose
//     Kolmogorov–Smirnov distance to the data (of the table the generator
//     samples) is within ksSlack of the best K's, or below ksGood, and
//     whose mean is within meanSlack of the data's (if none of those is,
//     the one of them whose mean is closest).
const (
	atomMass      = 0.02
	maxAtoms      = 12
	fitPoints     = 2000
	maxComponents = 4
	ksSlack       = 1.25
	ksGood        = 0.005
	nmEvaluations = 20000
	nmRestarts    = 6
	adFloor       = 1e-3
	meanSlack     = 0.05
)

// fitResult is a fitted distribution with its distance to the data.
type fitResult struct {
	dist  workload.Dist
	ks    float64
	tried []float64 // KS of K = 1, 2, ...
}

// empirical is the data of a fit: values with their masses.
type empirical struct {
	values, mass []float64
	cdf          *workload.CDF
}

func newEmpirical(c *workload.CDF) empirical {
	e := empirical{cdf: c}
	prev := 0.0
	for i, v := range c.Values {
		p := c.Probs[i] - prev
		prev = c.Probs[i]
		if p > 0 {
			e.values = append(e.values, v)
			e.mass = append(e.mass, p)
		}
	}
	return e
}

// support returns the data's min, max and step.
func (e empirical) support() (min, max, step float64) {
	min = e.values[0]
	max = e.values[len(e.values)-1]
	for i, p := range e.cdf.Probs {
		if p >= 1-1e-12 {
			max = e.cdf.Values[i]
			break
		}
	}
	// The step: the gcd of the values minus min, on the coarsest decimal
	// scale (1, 0.1, 0.01, 0.001) on which they are all integers.
	for _, scale := range []float64{1, 10, 100, 1000} {
		g, ok := int64(0), true
		for _, v := range e.values {
			x := (v - min) * scale
			if math.Abs(x-math.Round(x)) > 1e-6*math.Max(1, x) || x > 1<<52 {
				ok = false
				break
			}
			g = gcd(g, int64(math.Round(x)))
		}
		if ok {
			return min, max, math.Max(float64(g), 1) / scale
		}
	}
	return min, max, 0
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// fitDist fits a Dist to the data c.
func fitDist(c *workload.CDF) (fitResult, error) {
	e := newEmpirical(c)
	if len(e.values) < 2 {
		return fitResult{}, fmt.Errorf("%s: %d values with a positive probability: want at least 2", c.Name, len(e.values))
	}
	min, max, step := e.support()
	base := workload.Dist{Min: min, Max: max, Step: step, Offset: math.Max(0, step-min)}
	// Atoms: the heaviest values.
	type vm struct{ v, m float64 }
	var heavy []vm
	for i, v := range e.values {
		if e.mass[i] >= atomMass && v <= max {
			heavy = append(heavy, vm{v, e.mass[i]})
		}
	}
	slices.SortStableFunc(heavy, func(a, b vm) int {
		if a.m != b.m {
			if a.m > b.m {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(heavy) > maxAtoms {
		heavy = heavy[:maxAtoms]
	}
	slices.SortFunc(heavy, func(a, b vm) int {
		if a.v < b.v {
			return -1
		}
		return 1
	})
	isAtom := map[float64]bool{}
	for _, h := range heavy {
		base.Atoms = append(base.Atoms, workload.Atom{Value: h.v, P: h.m})
		isAtom[h.v] = true
	}
	// The rest, renormalized and merged into at most fitPoints points.
	var xs, rs []float64
	for i, v := range e.values {
		if !isAtom[v] && v <= max {
			xs = append(xs, v)
			rs = append(rs, e.mass[i])
		}
	}
	if len(xs) == 0 {
		return fitResult{}, fmt.Errorf("%s: no mass left beside the atoms", c.Name)
	}
	pts := mergePoints(xs, rs)
	var best fitResult
	best.ks = math.Inf(1)
	var prev *workload.Dist
	type cand struct {
		d       workload.Dist
		ks, err float64 // KS distance, relative error of the mean
	}
	var cands []cand
	for k := 1; k <= maxComponents; k++ {
		d, _, err := fitMixture(base, pts, k, prev)
		if err != nil {
			return fitResult{}, fmt.Errorf("%s, %d components: %w", c.Name, k, err)
		}
		prev = &d
		t := d.Table("")
		ks := workload.KS(t, c)
		best.tried = append(best.tried, ks)
		cands = append(cands, cand{d, ks, math.Abs(t.Mean()/c.Mean() - 1)})
		best.ks = math.Min(best.ks, ks)
	}
	// The smallest K close enough to the best shape whose mean is right;
	// if none, the one of them whose mean is closest.
	pick := -1
	for k, x := range cands {
		if x.ks > ksSlack*best.ks && x.ks > ksGood {
			continue
		}
		if x.err <= meanSlack {
			pick = k
			break
		}
		if pick < 0 || x.err < cands[pick].err {
			pick = k
		}
	}
	best.dist, best.ks = cands[pick].d, cands[pick].ks
	return best, nil
}

// points are the data a mixture is fitted to: values x with masses r and
// cumulative probabilities R (the rest of the distribution, renormalized),
// and the weights w of the distance: r/(R̄(1 − R̄) + adFloor), R̄ the
// midpoint of the step (Anderson–Darling's weighting, which makes the
// tails count).
type points struct{ x, r, R, w []float64 }

func mergePoints(xs, rs []float64) points {
	total := 0.0
	for _, r := range rs {
		total += r
	}
	var p points
	cum, last := 0.0, 0.0
	for i, x := range xs {
		cum += rs[i] / total
		if i+1 < len(xs) && math.Floor(cum*fitPoints) == math.Floor(last*fitPoints) && len(xs) > fitPoints {
			continue // merged into the next kept point
		}
		mid := (cum + last) / 2
		p.x = append(p.x, x)
		p.r = append(p.r, cum-last)
		p.R = append(p.R, cum)
		p.w = append(p.w, (cum-last)/(mid*(1-mid)+adFloor))
		last = cum
	}
	p.R[len(p.R)-1] = 1
	return p
}

// fitMixture fits k log-normals to pts beside base's atoms, from two
// starts: means at the data's quantiles (in ln(x + offset)), equal
// weights and deviations a k-th of the data's; and, when prev (the fit
// with k − 1 components) is given, prev with a new component where its
// CDF is farthest from the data's. It keeps the better.
func fitMixture(base workload.Dist, pts points, k int, prev *workload.Dist) (workload.Dist, float64, error) {
	ls := make([]float64, len(pts.x))
	mean, sq := 0.0, 0.0
	for i, x := range pts.x {
		ls[i] = math.Log(math.Max(x+base.Offset, math.Max(base.Step, 1e-3)))
		mean += pts.r[i] * ls[i]
		sq += pts.r[i] * ls[i] * ls[i]
	}
	sd := math.Sqrt(math.Max(sq-mean*mean, 1e-6))
	var starts [][]float64
	theta := make([]float64, 3*k-1)
	for j := 0; j < k; j++ {
		q := (float64(j) + 0.5) / float64(k)
		i, _ := slices.BinarySearch(pts.R, q)
		theta[j] = ls[min(i, len(ls)-1)]
		theta[k+j] = math.Log(math.Max(sd/float64(k), 0.05))
	}
	starts = append(starts, theta)
	if prev != nil {
		g := residualCDFs(prev, pts.x)
		worst := 0
		for i := range g {
			if math.Abs(g[i]-pts.R[i]) > math.Abs(g[worst]-pts.R[worst]) {
				worst = i
			}
		}
		th := make([]float64, 3*k-1)
		for j, c := range prev.Mix {
			th[j] = c.Mu
			th[k+j] = math.Log(c.Sigma)
			if j > 0 {
				th[2*k+j-1] = math.Log(c.W / prev.Mix[0].W)
			}
		}
		th[k-1] = ls[worst]
		th[2*k-1] = math.Log(math.Max(sd/float64(k), 0.05))
		th[3*k-2] = math.Log(1 / float64(k) / prev.Mix[0].W)
		starts = append(starts, th)
	}
	obj := func(th []float64) float64 {
		d, ok := mixtureOf(base, th, k)
		if !ok {
			return 1e3
		}
		if err := d.Validate("fit"); err != nil {
			return 1e3
		}
		s := 0.0
		for i, g := range residualCDFs(&d, pts.x) {
			s += pts.w[i] * (g - pts.R[i]) * (g - pts.R[i])
		}
		if math.IsNaN(s) {
			return 1e3
		}
		return s
	}
	bestF, bestX := math.Inf(1), []float64(nil)
	for _, theta := range starts {
		f := obj(theta)
		for r := 0; r < nmRestarts; r++ {
			res, err := optimize.Minimize(optimize.Problem{Func: obj}, theta,
				&optimize.Settings{FuncEvaluations: nmEvaluations, Converger: &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-10, Iterations: 200}},
				&optimize.NelderMead{})
			if err != nil && res == nil {
				return workload.Dist{}, 0, err
			}
			improved := res.F < f*(1-1e-6)
			if res.F < f {
				theta, f = res.X, res.F
			}
			if !improved {
				break
			}
		}
		if f < bestF {
			bestF, bestX = f, theta
		}
	}
	d, ok := mixtureOf(base, bestX, k)
	if !ok {
		return workload.Dist{}, 0, fmt.Errorf("no valid mixture found")
	}
	if err := d.Validate("fit"); err != nil {
		return workload.Dist{}, 0, err
	}
	return d, bestF, nil
}

// mixtureOf returns base with the k components of theta: means, log
// deviations, then the logits of the weights of components 2..k
// (component 1's is 0). Components are sorted by mean.
func mixtureOf(base workload.Dist, th []float64, k int) (workload.Dist, bool) {
	d := base
	d.Atoms = slices.Clone(base.Atoms)
	d.Mix = make([]workload.LogNormal, k)
	ws, total := make([]float64, k), 0.0
	for j := 0; j < k; j++ {
		l := 0.0
		if j > 0 {
			l = th[2*k+j-1]
		}
		if math.Abs(l) > 30 {
			return d, false
		}
		ws[j] = math.Exp(l)
		total += ws[j]
	}
	for j := 0; j < k; j++ {
		s := math.Exp(th[k+j])
		if !(s > 1e-4 && s < 50) || math.Abs(th[j]) > 60 {
			return d, false
		}
		d.Mix[j] = workload.LogNormal{W: ws[j] / total, Mu: th[j], Sigma: s}
	}
	slices.SortFunc(d.Mix, func(a, b workload.LogNormal) int {
		if a.Mu < b.Mu {
			return -1
		}
		if a.Mu > b.Mu {
			return 1
		}
		return 0
	})
	return d, true
}

// residualCDFs is d's CDF without the atoms, renormalized (what pts
// describe), at each x of xs.
func residualCDFs(d *workload.Dist, xs []float64) []float64 {
	pa := 0.0
	for _, a := range d.Atoms {
		pa += a.P
	}
	out := d.CDFs(xs)
	for i, x := range xs {
		below := 0.0
		for _, a := range d.Atoms {
			if a.Value <= x {
				below += a.P
			}
		}
		out[i] = (out[i] - below) / (1 - pa)
	}
	return out
}
