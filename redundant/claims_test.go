package redundant

import (
	"math"
	"strings"
	"testing"
)

func TestPaperClaimsFigure2(t *testing.T) {
	f := Figure{Name: "fig2", X: []float64{0.3, 0.6}, Series: []Series{
		{Name: "EA σ=0.3", Y: []float64{0.8, 0.5}},
		{Name: "EPB σ=0.3", Y: []float64{0.9, 0.55}},
		{Name: "PPB σ=0.3", Y: []float64{0.95, 0.61}},
	}}
	c := PaperClaims(f)
	if len(c) != 3 {
		t.Fatalf("%d claims, want 3: %+v", len(c), c)
	}
	if c[0].Ours != "+10.9 %" || c[1].Ours != "+22.0 %" {
		t.Fatalf("claims %+v, want PPB/EPB +10.9 %% and PPB/EA +22.0 %%", c)
	}
	if !strings.Contains(c[2].Ours, "µ=0.3: +12.5 %") {
		t.Fatalf("EPB over EA claim %q", c[2].Ours)
	}
	if c[1].PaperPct != 22 || math.Abs(c[1].OursPct-22) > 1e-9 || !math.IsNaN(c[2].PaperPct) || !math.IsNaN(c[2].OursPct) {
		t.Fatalf("numbers of the claims: %+v", c)
	}
}

func TestPaperClaimsFigure3(t *testing.T) {
	f := Figure{Name: "fig3", X: []float64{10, 20}, Series: []Series{
		{Name: "EA R0=0.4", Y: []float64{0.2, 0.1}},
		{Name: "EPB R0=0.4", Y: []float64{0.22, 0.12}},
		{Name: "PPB R0=0.4", Y: []float64{0.25, 0.12}},
	}}
	c := PaperClaims(f)
	if len(c) != 2 || c[0].Ours != "+22.5 %" || c[1].Ours != "+15.0 %" || c[0].PaperPct != 24 || math.Abs(c[1].OursPct-15) > 1e-9 {
		t.Fatalf("claims %+v, want PPB +22.5 %% and EPB +15.0 %%", c)
	}
}

func TestCaptionNumbers(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{3757.4, "3757"}, {39000, "39000"}, {0.0125, "0.0125"}, {0.71234, "0.712"}, {1e9, "10^9"}, {1.4934e10, "1.49×10^10"}, {73.9, "73.9"}} {
		if got := readable(c.x); got != c.want {
			t.Errorf("readable(%g) = %q, want %q", c.x, got, c.want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 2000: "2,000", 1234567: "1,234,567", -2000: "-2,000"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
