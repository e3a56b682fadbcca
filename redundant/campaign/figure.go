package campaign

import (
	"strings"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/reproduction"
)

// z95 turns a standard error into the half-width of a 95 % confidence
// interval (normal approximation; every point averages at least tens of
// instances in the reproductions).
const z95 = 1.96

// Drawn is figure f in the project's style (package figure): the axes of
// its kind (Figures 1 and 2: a probability against σ or µ; Figure 3: n/m
// against the hosts; Figure 4: a frequency against the hosts), error bars
// of 95 % confidence intervals, the paper as its source and f.Caption with
// the note that the paper gives the figure only as a picture (the text
// gives no values of its curves; its claims are compared in the tables).
func Drawn(f redundant.Figure) *figure.Figure {
	d := &figure.Figure{
		Title:   f.Title,
		Source:  reproduction.RedundantPaper.Source(),
		Caption: strings.TrimSpace(f.Caption + " Error bars: 95 % confidence intervals (±1.96 standard errors)."),
		Paper:   figure.PaperPicture,
	}
	prob := figure.Axis{Label: f.YLabel, Fixed: true, Min: 0, Max: 1}
	switch {
	case f.Name == "fig1":
		d.Title = strings.Replace(f.Title, ": ", ": success probability against σ, ", 1)
		d.X = figure.Axis{Label: "σ of the GDFN"}
		d.Y = prob
	case f.Name == "fig2":
		d.Title = strings.Replace(f.Title, ": ", ": success probability against µ, ", 1)
		d.X = figure.Axis{Label: "µ of the GDFN"}
		d.Y = prob
	case f.Name == "fig3":
		d.X = figure.Axis{Label: "hosts m"}
		d.Y = figure.Axis{Label: "tasks per host n/m", Zero: true}
	default: // fig4-<trace>
		d.X = figure.Axis{Label: "hosts m"}
		d.Y = prob
	}
	for _, s := range f.Series {
		e := make([]float64, len(s.SE))
		for i, se := range s.SE {
			e[i] = z95 * se
		}
		name, group := splitGroup(s.Name)
		d.Series = append(d.Series, figure.Series{Name: name, Group: group, X: f.X, Y: s.Y, Err: e})
	}
	return d
}

// splitGroup splits a curve's name as the laboratory writes it, the
// algorithm then the fixed parameter ("EA Eq.5 µ=0.151", "PPB R0=0.4";
// redundant.Lab), into the name and its group, so that a colour means one
// algorithm in every group; a name without a parameter has no group.
func splitGroup(name string) (string, string) {
	i := strings.LastIndexByte(name, ' ')
	if i <= 0 || !strings.Contains(name[i+1:], "=") {
		return name, ""
	}
	return name[:i], name[i+1:]
}
