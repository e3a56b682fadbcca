package figure

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// checkLinear asserts the properties LinearTicks promises for [lo, hi].
func checkLinear(t interface {
	Fatalf(string, ...any)
}, lo, hi float64) {
	ticks := LinearTicks(lo, hi)
	if n := len(ticks); n < MinTicks || n > MaxTicks {
		t.Fatalf("[%g, %g]: %d ticks %v, want %d to %d", lo, hi, n, ticks, MinTicks, MaxTicks)
	}
	step := ticks[1] - ticks[0]
	if ticks[0] > lo+1e-9*step || ticks[len(ticks)-1] < hi-1e-9*step {
		t.Fatalf("[%g, %g]: ticks %v do not cover the range", lo, hi, ticks)
	}
	if ticks[1] <= lo-1e-9*step || ticks[len(ticks)-2] >= hi+1e-9*step {
		t.Fatalf("[%g, %g]: ticks %v reach further out than one step", lo, hi, ticks)
	}
	for i := 2; i < len(ticks); i++ {
		if d := ticks[i] - ticks[i-1]; math.Abs(d-step) > 1e-6*step {
			t.Fatalf("[%g, %g]: ticks %v not evenly spaced", lo, hi, ticks)
		}
	}
	e := math.Floor(math.Log10(step) + 1e-9)
	m := step / math.Pow(10, e)
	round := false
	for _, r := range []float64{1, 2, 2.5, 5} {
		if math.Abs(m-r) < 1e-6 {
			round = true
		}
	}
	if !round {
		t.Fatalf("[%g, %g]: step %g (mantissa %g) is not 1, 2, 2.5 or 5 × 10^k", lo, hi, step, m)
	}
	for _, v := range ticks {
		if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Fatalf("[%g, %g]: tick %g is not a multiple of the step %g", lo, hi, v, step)
		}
	}
}

func TestLinearTicksCases(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   []float64
	}{
		{1, 10, []float64{0, 2, 4, 6, 8, 10}},
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 100, []float64{0, 20, 40, 60, 80, 100}},
		{3.9e6, 4.4e6, []float64{3.9e6, 4e6, 4.1e6, 4.2e6, 4.3e6, 4.4e6}},
		{-12, 180, []float64{-50, 0, 50, 100, 150, 200}},
	}
	for _, c := range cases {
		got := LinearTicks(c.lo, c.hi)
		if len(got) != len(c.want) {
			t.Errorf("LinearTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9*math.Abs(c.want[len(c.want)-1]) {
				t.Errorf("LinearTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
				break
			}
		}
		checkLinear(t, c.lo, c.hi)
	}
	for _, bad := range [][2]float64{{1, 1}, {2, 1}, {math.Inf(-1), 0}, {0, math.NaN()}} {
		if got := LinearTicks(bad[0], bad[1]); got != nil {
			t.Errorf("LinearTicks(%g, %g) = %v, want nil", bad[0], bad[1], got)
		}
	}
}

// TestLinearTicksProperty: any range, from 1e-6 wide to 1e9 wide, anywhere,
// gets 5 to 8 round, evenly spaced ticks covering it.
func TestLinearTicksProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		width := math.Pow(10, rapid.Float64Range(-6, 9).Draw(rt, "log10 width"))
		center := rapid.Float64Range(-10, 10).Draw(rt, "center in widths")
		lo := center*width - width/2
		checkLinear(rt, lo, lo+width)
	})
}

func TestLogTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   []float64
	}{
		{1000, 1e5, []float64{1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5}},
		{1, 1e6, []float64{1, 10, 100, 1000, 1e4, 1e5, 1e6}},
		{1e-3, 1e12, []float64{1e-3, 1, 1e3, 1e6, 1e9, 1e12}},
		{2, 9, []float64{2, 3, 5, 7, 10}},
	}
	for _, c := range cases {
		got := LogTicks(c.lo, c.hi)
		if len(got) != len(c.want) {
			t.Fatalf("LogTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9*c.want[i] {
				t.Fatalf("LogTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
			}
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		lo := math.Pow(10, rapid.Float64Range(-5, 8).Draw(rt, "log10 lo"))
		hi := lo * math.Pow(10, rapid.Float64Range(0.01, 14).Draw(rt, "decades"))
		ticks := LogTicks(lo, hi)
		if len(ticks) < MinTicks || len(ticks) > MaxTicks {
			rt.Fatalf("LogTicks(%g, %g) = %v: %d ticks", lo, hi, ticks, len(ticks))
		}
		if ticks[0] <= 0 {
			rt.Fatalf("LogTicks(%g, %g) = %v: a tick ≤ 0", lo, hi, ticks)
		}
		if ticks[0] > lo*(1+1e-8) || ticks[len(ticks)-1] < hi*(1-1e-8) {
			rt.Fatalf("LogTicks(%g, %g) = %v does not cover the range", lo, hi, ticks)
		}
		for i := 1; i < len(ticks); i++ {
			if ticks[i] <= ticks[i-1] {
				rt.Fatalf("LogTicks(%g, %g) = %v not increasing", lo, hi, ticks)
			}
		}
	})
}

func TestFormatTick(t *testing.T) {
	cases := []struct {
		v    float64
		d    int
		want string
	}{
		{4306204, 0, "4,306,204"},
		{0.25, 2, "0.25"},
		{-1500.5, 1, "-1,500.5"},
		{100, 0, "100"},
		{1000, 0, "1,000"},
		{0, 1, "0.0"},
	}
	for _, c := range cases {
		if got := FormatTick(c.v, c.d); got != c.want {
			t.Errorf("FormatTick(%g, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
	got := labelled([]float64{0, 0.5, 1})
	if got[0].Label != "0.0" || got[2].Label != "1.0" {
		t.Errorf("labelled(0, 0.5, 1) = %v, want one decimal on every label", got)
	}
}
