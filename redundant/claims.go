package redundant

import (
	"fmt"
	"math"
	"strings"
)

// Claim is one of the paper's quantitative statements next to this
// project's measurement.
type Claim struct {
	What  string
	Paper string
	Ours  string
	// PaperPct and OursPct are the claim as one relative gain in percent
	// (Paper "+22 %" is 22), when it is one; NaN otherwise (a trend, a
	// bound, a list).
	PaperPct, OursPct float64
}

// textClaim is a claim that is not one number.
func textClaim(what, paper, ours string) Claim {
	return Claim{What: what, Paper: paper, Ours: ours, PaperPct: math.NaN(), OursPct: math.NaN()}
}

// gainClaim is a claim of a relative gain: the paper's in percent, ours as
// the ratio a/b.
func gainClaim(what, paper string, paperPct, a, b float64) Claim {
	g := 100 * (a/b - 1)
	return Claim{What: what, Paper: paper, Ours: fmt.Sprintf("%+.1f %%", g), PaperPct: paperPct, OursPct: g}
}

func (f Figure) series(name string) *Series {
	for i := range f.Series {
		if f.Series[i].Name == name {
			return &f.Series[i]
		}
	}
	return nil
}

func (f Figure) at(x float64) int {
	for i, v := range f.X {
		if math.Abs(v-x) < 1e-9 {
			return i
		}
	}
	return -1
}

// PaperClaims returns the text's claims about figure f (§3.2, §3.3) with
// the values measured in f (where f holds the needed points).
func PaperClaims(f Figure) []Claim {
	var c []Claim
	pct := func(a, b float64) string { return fmt.Sprintf("%+.1f %%", 100*(a/b-1)) }
	switch f.Name {
	case "fig1":
		for _, mu := range []string{"0.151", "0.556"} {
			ea, ppb := f.series("EA µ="+mu), f.series("PPB µ="+mu)
			if ea == nil || ppb == nil || len(f.X) == 0 {
				continue
			}
			c = append(c, gainClaim("µ="+mu+", smallest σ: all algorithms comparable (PPB vs EA)", "≈ 0 %", 0, ppb.Y[0], ea.Y[0]))
		}
		ea1, ea2 := f.series("EA µ=0.151"), f.series("EA µ=0.556")
		p1, p2 := f.series("PPB µ=0.151"), f.series("PPB µ=0.556")
		if ea1 != nil && ea2 != nil && p1 != nil && p2 != nil {
			k := len(f.X) - 1
			c = append(c, textClaim(fmt.Sprintf("large σ (σ=%g): µ no longer matters (EA µ=0.151 vs µ=0.556; PPB same)", f.X[k]),
				"curves converge", fmt.Sprintf("EA %.3f vs %.3f; PPB %.3f vs %.3f", ea1.Y[k], ea2.Y[k], p1.Y[k], p2.Y[k])))
			c = append(c, textClaim("larger σ, larger gain of PPB over EA (µ=0.556, smallest → largest σ)", "gain grows",
				fmt.Sprintf("%s → %s", pct(p2.Y[0], ea2.Y[0]), pct(p2.Y[k], ea2.Y[k]))))
		}
	case "fig2":
		ea, epb, ppb := f.series("EA σ=0.3"), f.series("EPB σ=0.3"), f.series("PPB σ=0.3")
		if i := f.at(0.6); i >= 0 && ea != nil && epb != nil && ppb != nil {
			c = append(c, gainClaim("µ=0.6: PPB over EPB", "+9 %", 9, ppb.Y[i], epb.Y[i]))
			c = append(c, gainClaim("µ=0.6: PPB over EA", "+22 %", 22, ppb.Y[i], ea.Y[i]))
			var mid []string
			for k, x := range f.X {
				if x >= 0.3 && x <= 0.75 {
					mid = append(mid, fmt.Sprintf("µ=%g: %s", x, pct(epb.Y[k], ea.Y[k])))
				}
			}
			c = append(c, textClaim("0.3 ≤ µ ≤ 0.75: EPB over EA", "> +5 %", strings.Join(mid, "; ")))
		}
	case "fig3":
		for _, r0 := range []string{"0.4", "0.8"} {
			ea, epb, ppb := f.series("EA R0="+r0), f.series("EPB R0="+r0), f.series("PPB R0="+r0)
			if ea == nil || epb == nil || ppb == nil {
				continue
			}
			var gp, ge float64
			k := 0
			for i := range f.X {
				if ea.Y[i] > 0 {
					gp += ppb.Y[i]/ea.Y[i] - 1
					ge += epb.Y[i]/ea.Y[i] - 1
					k++
				}
			}
			if k > 0 {
				c = append(c, Claim{What: "R0=" + r0 + ": application scale of PPB over EA (mean over m)", Paper: "+24 %",
					Ours: fmt.Sprintf("%+.1f %%", 100*gp/float64(k)), PaperPct: 24, OursPct: 100 * gp / float64(k)})
				c = append(c, Claim{What: "R0=" + r0 + ": application scale of EPB over EA (mean over m)", Paper: "+17 %",
					Ours: fmt.Sprintf("%+.1f %%", 100*ge/float64(k)), PaperPct: 17, OursPct: 100 * ge / float64(k)})
			}
		}
	}
	return c
}
