package overlay

import (
	"math"
	"slices"
)

// LPoint is one sample (δ, l(δ)) of an l function.
type LPoint struct{ T, L float64 }

// LFunc is the DP policy's l(δ) (§6.3.1): the MFLOP a set of nodes can
// still execute before an absolute deadline δ. It is piecewise linear and
// nondecreasing: 0 before the first sample, linear between samples, and
// L_last + Slope·(δ − T_last) after the last one. Samples sit at the
// breakpoints. The zero value is "nothing, ever".
type LFunc struct {
	P     []LPoint
	Slope float64
}

// At returns l(δ) (never negative).
func (f *LFunc) At(d float64) float64 {
	p := f.P
	if len(p) == 0 || d < p[0].T {
		return 0
	}
	i := 1
	for i < len(p) && p[i].T <= d {
		i++
	}
	var v float64
	if i == len(p) {
		v = p[i-1].L + f.Slope*(d-p[i-1].T)
	} else {
		a, b := p[i-1], p[i]
		if b.T > a.T {
			v = a.L + (b.L-a.L)*(d-a.T)/(b.T-a.T)
		} else {
			v = a.L
		}
	}
	return max(v, 0)
}

// AtSorted sets out[j] = f.At(ts[j]) for ascending ts, in one pass:
// zeros before the first sample, each segment's points with its
// differences computed once, then the final slope.
func (f *LFunc) AtSorted(ts, out []float64) {
	p := f.P
	j := 0
	for ; j < len(ts) && (len(p) == 0 || ts[j] < p[0].T); j++ {
		out[j] = 0
	}
	for i := 1; i < len(p) && j < len(ts); i++ {
		// p[i-1].T <= t < p[i].T
		a, b := p[i-1], p[i]
		if b.T <= a.T {
			continue // no t falls in an empty segment
		}
		dl, dt := b.L-a.L, b.T-a.T
		for ; j < len(ts) && ts[j] < b.T; j++ {
			out[j] = max(a.L+dl*(ts[j]-a.T)/dt, 0)
		}
	}
	if len(p) > 0 {
		last := p[len(p)-1]
		for ; j < len(ts); j++ {
			out[j] = max(last.L+f.Slope*(ts[j]-last.T), 0)
		}
	}
}

// MinLFunc returns the pointwise minimum of f and g, exact: samples at both
// functions' breakpoints and where they cross. It is symmetric to the bit
// (MinLFunc(f, g) == MinLFunc(g, f)), so a summary does not depend on the
// order in which two clusters are summed.
func MinLFunc(f, g *LFunc) LFunc {
	if len(f.P) == 0 || len(g.P) == 0 {
		return LFunc{}
	}
	t0 := max(f.P[0].T, g.P[0].T)
	ts := make([]float64, 0, len(f.P)+len(g.P)+4)
	ts = append(ts, t0)
	i, j := 0, 0
	for i < len(f.P) || j < len(g.P) {
		var t float64
		if j >= len(g.P) || (i < len(f.P) && f.P[i].T <= g.P[j].T) {
			t = f.P[i].T
			i++
		} else {
			t = g.P[j].T
			j++
		}
		if t > ts[len(ts)-1] {
			ts = append(ts, t)
		}
	}
	out, pf, pg := envelopePoints(f, g, ts, false)
	prevT := ts[len(ts)-1]
	// Tails: both linear after the last breakpoint.
	sf, sg := f.Slope, g.Slope
	slope := min(sf, sg)
	if pf < pg && sf > sg || pg < pf && sg > sf {
		dt := (pg - pf) / (sf - sg)
		out = append(out, LPoint{prevT + dt, min(pf+sf*dt, pg+sg*dt)}) // both equal there (up to rounding)
	} else if pf < pg {
		slope = sf
	} else if pg < pf {
		slope = sg
	}
	h := LFunc{P: out, Slope: slope}
	h.Compact()
	return h
}

// envelopePoints returns the samples of the pointwise minimum (upper:
// maximum) of f and g at the ascending times ts and where the two cross
// between them, and f and g at the last time.
func envelopePoints(f, g *LFunc, ts []float64, upper bool) (out []LPoint, pf, pg float64) {
	pick := func(a, b float64) float64 {
		if upper {
			return max(a, b)
		}
		return min(a, b)
	}
	wf, wg := lwalk{f: f}, lwalk{f: g}
	out = make([]LPoint, 0, 2*len(ts)+1)
	prevT := ts[0]
	pf, pg = wf.at(prevT), wg.at(prevT)
	out = append(out, LPoint{prevT, pick(pf, pg)})
	for _, t := range ts[1:] {
		cf, cg := wf.at(t), wg.at(t)
		if (pf-pg)*(cf-cg) < 0 { // crossing strictly inside
			x := (pf - pg) / ((pf - pg) - (cf - cg))
			// both lines meet there; picking between the two rounded values
			// keeps the result symmetric in f and g (for the minimum, never
			// above either)
			out = append(out, LPoint{prevT + x*(t-prevT), pick(pf+x*(cf-pf), pg+x*(cg-pg))})
		}
		out = append(out, LPoint{t, pick(cf, cg)})
		prevT, pf, pg = t, cf, cg
	}
	return out, pf, pg
}

// lwalk evaluates an LFunc at nondecreasing times in one pass (At's
// values).
type lwalk struct {
	f *LFunc
	i int // samples with T <= the last t
}

func (w *lwalk) at(t float64) float64 {
	p := w.f.P
	for w.i < len(p) && p[w.i].T <= t {
		w.i++
	}
	var v float64
	switch {
	case w.i == 0:
		return 0
	case w.i == len(p):
		v = p[w.i-1].L + w.f.Slope*(t-p[w.i-1].T)
	default:
		a, b := p[w.i-1], p[w.i]
		if b.T > a.T {
			v = a.L + (b.L-a.L)*(t-a.T)/(b.T-a.T)
		} else {
			v = a.L
		}
	}
	return max(v, 0)
}

// Compact removes samples that are collinear with their neighbours (they
// carry no breakpoint) and duplicates.
func (f *LFunc) Compact() {
	p := f.P
	if len(p) < 2 {
		return
	}
	k := 1
	for i := 1; i < len(p); i++ {
		if p[i].T <= p[k-1].T && p[i].L == p[k-1].L {
			continue
		}
		// p[k-1] is removable if collinear between p[k-2] and p[i]
		if k >= 2 {
			a, b, c := p[k-2], p[k-1], p[i]
			if c.T > a.T && math.Abs((b.L-a.L)*(c.T-a.T)-(c.L-a.L)*(b.T-a.T)) <= 1e-12*math.Max(1, math.Abs(c.L)*(c.T-a.T)) {
				p[k-1] = c
				continue
			}
		}
		p[k] = p[i]
		k++
	}
	// last sample collinear with the tail
	if k >= 2 {
		a, b := p[k-2], p[k-1]
		if b.T > a.T && math.Abs((b.L-a.L)/(b.T-a.T)-f.Slope) <= 1e-12*math.Max(1, f.Slope) {
			k--
		}
	}
	f.P = p[:k]
}

// Reduce lowers f to at most k samples (k >= 2) without ever raising it,
// removing each time the sample whose removal loses the least area (tail
// losses counted over horizon seconds). Two operations keep f below the
// original: dropping a concave sample (the chord lies below), and merging
// samples j, j+1 into (T_{j+1}, L_j) (valid because f is nondecreasing).
func (f *LFunc) Reduce(k int, horizon float64) {
	if k < 2 {
		k = 2
	}
	for len(f.P) > k {
		p := f.P
		best, bestLoss, bestOp := -1, math.Inf(1), 0
		for j := 0; j+1 < len(p); j++ {
			// merge j, j+1 into (T_{j+1}, L_j)
			var loss float64
			a, b := p[j], p[j+1]
			// area lost on [a.T, b.T]: original trapezoid minus flat L_j
			loss = (b.L - a.L) * (b.T - a.T) / 2
			if j == 0 {
				// the function now starts at b.T: all of [a.T, b.T] is lost
				loss = (a.L + b.L) * (b.T - a.T) / 2
			} else {
				// previous segment now ends at b.T with value a.L: the
				// triangle between the stretched chord and the original.
				pr := p[j-1]
				loss += (a.L - pr.L) * (b.T - a.T) / 2
			}
			if j+2 < len(p) {
				nx := p[j+2]
				loss += (b.L - a.L) * (nx.T - b.T) / 2
			} else {
				loss += (b.L - a.L) * horizon
			}
			if loss < bestLoss {
				best, bestLoss, bestOp = j, loss, 0
			}
			// drop a concave interior sample j+1
			if j+2 < len(p) {
				c := p[j+2]
				// chord from a to c at b.T
				chord := a.L + (c.L-a.L)*(b.T-a.T)/(c.T-a.T)
				if c.T > a.T && chord <= b.L {
					loss := (b.L - chord) * (c.T - a.T) / 2
					if loss < bestLoss {
						best, bestLoss, bestOp = j+1, loss, 1
					}
				}
			}
		}
		if bestOp == 0 {
			p[best+1].L = p[best].L
			f.P = append(p[:best], p[best+1:]...)
		} else {
			f.P = append(p[:best], p[best+1:]...)
		}
	}
}

// Equal says whether f and g have the same samples and final slope.
func (f *LFunc) Equal(g *LFunc) bool {
	if f.Slope != g.Slope || len(f.P) != len(g.P) {
		return false
	}
	for i := range f.P {
		if f.P[i] != g.P[i] {
			return false
		}
	}
	return true
}

// MaxLFunc is the pointwise maximum of f and g, exact (samples at both
// functions' breakpoints and where they cross).
func MaxLFunc(f, g *LFunc) LFunc {
	if len(f.P) == 0 {
		return LFunc{P: slices.Clone(g.P), Slope: g.Slope}
	}
	if len(g.P) == 0 {
		return LFunc{P: slices.Clone(f.P), Slope: f.Slope}
	}
	// the distinct sample times of both, from the earliest
	t0 := min(f.P[0].T, g.P[0].T)
	ts := []float64{t0}
	for _, h := range []*LFunc{f, g} {
		for _, q := range h.P {
			if q.T > t0 {
				ts = append(ts, q.T)
			}
		}
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	out, pf, pg := envelopePoints(f, g, ts, true)
	prevT := ts[len(ts)-1]
	sf, sg := f.Slope, g.Slope
	slope := max(sf, sg)
	if pf > pg && sf < sg || pg > pf && sg < sf {
		dt := (pf - pg) / (sg - sf)
		out = append(out, LPoint{prevT + dt, max(pf+sf*dt, pg+sg*dt)})
	} else if pf > pg {
		slope = sf
	} else if pg > pf {
		slope = sg
	}
	h := LFunc{P: out, Slope: slope}
	h.Compact()
	return h
}
