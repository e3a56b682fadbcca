package figure

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// Tick counts the chooser aims for: enough labelled ticks to read values off
// an axis (gonum's default asks for three), few enough to stay legible.
const (
	MinTicks = 5
	MaxTicks = 8
)

// LinearTicks chooses round ticks for a linear axis covering [lo, hi]: a
// step of 1, 2 or 5 × 10^k (2.5 × 10^k only when none of those gives a
// count in range), the largest such step that gives MinTicks to MaxTicks
// ticks from a multiple of the step at or below lo to one at or above hi.
// It returns the ticks' values; the axis should span the first to the last
// (Figure does that), so ticks mark both ends. lo must be < hi and both
// finite.
func LinearTicks(lo, hi float64) []float64 {
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	count := func(step float64) int {
		return int(math.Round(math.Ceil(hi/step-1e-9)-math.Floor(lo/step+1e-9))) + 1
	}
	// With R = hi-lo and 10^mag <= R < 10^(mag+1), a step of 10^(mag-1)
	// gives at least 11 ticks and one of 10^(mag+1) at most 3: the steps
	// worth trying lie in between.
	mag := math.Floor(math.Log10(hi - lo))
	var best, fallback float64
	for e := mag - 1; e <= mag+1; e++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * math.Pow(10, e)
			if n := count(step); n < MinTicks || n > MaxTicks {
				continue
			}
			if m == 2.5 {
				fallback = step
			} else {
				best = step // steps increase: the last is the largest
			}
		}
	}
	step := best
	if step == 0 {
		step = fallback
	}
	if step == 0 {
		// Not seen for finite lo < hi (successive candidates differ by at
		// most 2.5×), but never return an empty axis.
		return []float64{lo, hi}
	}
	first := math.Floor(lo/step+1e-9) * step
	n := count(step)
	ticks := make([]float64, n)
	for i := range ticks {
		v := first + float64(i)*step
		// Snap to the step's decimal grid so labels print exactly.
		ticks[i] = roundTo(v, decimals(step))
		if ticks[i] == 0 {
			ticks[i] = 0 // no negative zero
		}
	}
	return ticks
}

// LogTicks chooses ticks for a logarithmic axis covering [lo, hi] (lo > 0):
// the decades, or every second, third… decade when more than MaxTicks are
// in range; with fewer than MinTicks decades, 1, 2 and 5 times each decade
// (then 1, 3; 1, 2, 3, 5; 1, 1.5, 2, 3, 5, 7) — the first set giving
// MinTicks to MaxTicks ticks from one at or below lo to one at or above
// hi. A range narrower than that (less than about half a decade) gets
// LinearTicks without its ticks ≤ 0, which may then start above lo.
func LogTicks(lo, hi float64) []float64 {
	if !(lo > 0 && lo < hi) || math.IsInf(hi, 0) {
		return nil
	}
	e0 := math.Floor(math.Log10(lo) + 1e-9)
	e1 := math.Ceil(math.Log10(hi) - 1e-9)
	if decades := int(e1-e0) + 1; decades >= MinTicks {
		every := float64((decades - 1 + MaxTicks - 2) / (MaxTicks - 1))
		var ticks []float64
		for e := e0; ; e += every {
			ticks = append(ticks, math.Pow(10, e))
			if e >= e1 {
				return ticks
			}
		}
	}
	for _, mult := range [][]float64{{1, 2, 5}, {1, 3}, {1, 2, 3, 5}, {1, 1.5, 2, 3, 5, 7}} {
		var all []float64
		for e := e0; e <= e1; e++ {
			for _, m := range mult {
				all = append(all, roundTo(m*math.Pow(10, e), int(max(0, 1-e))))
			}
		}
		// From the last tick at or below lo to the first at or above hi.
		i, j := 0, len(all)-1
		for i+1 < len(all) && all[i+1] <= lo*(1+1e-9) {
			i++
		}
		for j-1 >= 0 && all[j-1] >= hi*(1-1e-9) {
			j--
		}
		if n := j - i + 1; n >= MinTicks && n <= MaxTicks {
			return all[i : j+1]
		}
	}
	ticks := LinearTicks(lo, hi)
	for len(ticks) > 0 && ticks[0] <= 0 {
		ticks = ticks[1:]
	}
	return ticks
}

// decimals returns how many decimals print a multiple of step exactly.
func decimals(step float64) int {
	d := 0
	for d < 12 && math.Abs(step*math.Pow(10, float64(d))-math.Round(step*math.Pow(10, float64(d)))) > 1e-9*math.Pow(10, float64(d)) {
		d++
	}
	return d
}

func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// FormatTick writes v with d decimals and its integer part grouped by
// thousands with commas (4,306,204; 0.25; -1,500.5).
func FormatTick(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// labelled turns tick values into gonum ticks with labels printed to the
// decimals the finest of them needs (so 0, 0.5, 1 print as 0.0, 0.5, 1.0).
func labelled(values []float64) []plot.Tick {
	d := 0
	for _, v := range values {
		d = max(d, decimals(v))
	}
	ticks := make([]plot.Tick, len(values))
	for i, v := range values {
		ticks[i] = plot.Tick{Value: v, Label: FormatTick(v, d)}
	}
	return ticks
}

// fixedTicks is a plot.Ticker returning the ticks chosen once for an axis
// and dropping any that fall outside the axis's range.
type fixedTicks []plot.Tick

func (t fixedTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, k := range t {
		if k.Value >= lo-1e-9*math.Abs(hi-lo) && k.Value <= hi+1e-9*math.Abs(hi-lo) {
			out = append(out, k)
		}
	}
	return out
}
