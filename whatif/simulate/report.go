package simulate

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
)

// WriteText prints the run: what was run, one row per heuristic (best
// first) and the recommendation.
func (r *Result) WriteText(w io.Writer) error {
	slot := "slots"
	if r.SlotSeconds > 0 {
		slot = fmt.Sprintf("slots of %g s", r.SlotSeconds)
	}
	fmt.Fprintf(w, "What-if: %s (%d workers) with %s (%s, %d tasks × %d iterations)\n", r.Platform, r.Workers, r.Application, r.Kind, r.Tasks, r.Iterations)
	fmt.Fprintf(w, "%d trials (availability realizations shared by the %d heuristics), seed %d; makespans in %s\n\n", r.Trials, len(r.Heuristics), r.Seed, slot)
	head := []string{"heuristic", "mean", "95% CI", "median", "p90", "Δ best", "Δ 95% CI", "signif."}
	if r.SlotSeconds > 0 {
		head = append(head, "mean time")
	}
	if r.Predict != "" {
		head = append(head, "predicted")
	}
	if r.failures() > 0 {
		head = append(head, "failed")
	}
	t := experiment.NewTable(head...)
	for i, h := range r.Heuristics {
		row := []string{h.Name, f1(h.Mean), ci(h.CI), f1(h.Median), f1(h.P90)}
		if i == 0 {
			row = append(row, "best", "", "")
		} else {
			sig := "no"
			if h.Significant {
				sig = "yes"
			}
			row = append(row, "+"+f1(h.DiffToBest), ci(h.DiffCI), sig)
		}
		if r.SlotSeconds > 0 {
			row = append(row, Duration(h.Mean*r.SlotSeconds))
		}
		if r.Predict != "" {
			if h.Predicted != nil {
				row = append(row, f1(*h.Predicted))
			} else {
				row = append(row, "∞")
			}
		}
		if r.failures() > 0 {
			row = append(row, fmt.Sprint(h.Failures))
		}
		t.AddRow(row...)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", r.Recommendation)
	if r.Predict != "" {
		fmt.Fprintf(w, "\npredicted: %s.\n", r.Predict)
	}
	if n := r.failures(); n > 0 {
		fmt.Fprintf(w, "\n%d runs hit the slot limit and count as failures (makespan = the limit).\n", n)
	}
	return nil
}

func (r *Result) failures() int {
	n := 0
	for _, h := range r.Heuristics {
		n += h.Failures
	}
	return n
}

func f1(x float64) string    { return experiment.FormatFloat(x, 1) }
func ci(c [2]float64) string { return "[" + f1(c[0]) + ", " + f1(c[1]) + "]" }

// OffAxisFactor: the figure leaves out (and its caption lists) the
// heuristics whose mean makespan is more than this many times the best's,
// so that one far behind (RANDOM on a tightly-coupled application) does
// not squeeze the others into a corner of the axis.
const OffAxisFactor = 2

// Figure is the comparison the run makes, drawn: each heuristic's mean
// makespan with its 95 % confidence interval, one row per heuristic, best
// first; the best (the recommendation), those not significantly worse than
// it and the others as three series. Heuristics more than OffAxisFactor
// times the best's mean are listed in the caption instead.
func (r *Result) Figure() *figure.Figure {
	unit := "slots"
	if r.SlotSeconds > 0 {
		unit = fmt.Sprintf("slots of %g s", r.SlotSeconds)
	}
	f := &figure.Figure{
		Title: "What-if run: mean makespan of each heuristic, with its 95 % confidence interval",
		X:     figure.Axis{Label: "mean makespan", Unit: unit},
		Y:     figure.Axis{Label: "heuristic"},
		Paper: figure.NoPaper,
	}
	tied := map[string]bool{}
	for _, t := range r.Tied {
		tied[t] = true
	}
	best := figure.Series{Name: "best (the recommendation): " + r.Best}
	same := figure.Series{Name: "not significantly worse than the best"}
	worse := figure.Series{Name: "significantly worse than the best"}
	var off []string
	bestMean := math.Inf(1)
	for _, h := range r.Heuristics {
		if h.Name == r.Best {
			bestMean = h.Mean
		}
	}
	for _, h := range r.Heuristics {
		if h.Name != r.Best && bestMean > 0 && h.Mean > OffAxisFactor*bestMean {
			off = append(off, fmt.Sprintf("%s %s %s", h.Name, f1(h.Mean), ci(h.CI)))
			continue
		}
		y := float64(len(f.Y.Categories))
		f.Y.Categories = append(f.Y.Categories, h.Name)
		s := &worse
		switch {
		case h.Name == r.Best:
			s = &best
		case tied[h.Name]:
			s = &same
		}
		s.X, s.Y = append(s.X, h.Mean), append(s.Y, y)
		s.XErr = append(s.XErr, max(h.Mean-h.CI[0], h.CI[1]-h.Mean, 0))
	}
	for _, s := range []figure.Series{best, same, worse} {
		if len(s.X) > 0 {
			f.Series = append(f.Series, s)
		}
	}
	f.Caption = fmt.Sprintf("%s (%d workers) with %s (%s, %d tasks × %d iterations); %d trials, seed %d; every heuristic on the same availability realizations. "+
		"Each point is a heuristic's mean makespan over the trials, its bar the 95 %% confidence interval of the mean (Student's t); "+
		"\"not significantly worse\": the paired 95 %% interval of its difference to the best includes 0.",
		filepath.Base(r.Platform), r.Workers, filepath.Base(r.Application), r.Kind, r.Tasks, r.Iterations, r.Trials, r.Seed)
	if len(off) > 0 {
		f.Caption += fmt.Sprintf(" Not drawn, their mean more than %d times the best's: %s.", OffAxisFactor, strings.Join(off, "; "))
	}
	return f
}

// Files written by WriteFiles.
const (
	JSONFile   = "simulate.json"
	FigureFile = "makespans.svg"
)

// WriteFiles writes the result as JSON and the figure as SVG into dir
// (created if needed) and returns the paths.
func (r *Result) WriteFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	js, svg := filepath.Join(dir, JSONFile), filepath.Join(dir, FigureFile)
	if err := experiment.WriteJSONFile(js, r); err != nil {
		return nil, err
	}
	if err := r.Figure().WriteFile(svg); err != nil {
		return nil, err
	}
	return []string{js, svg}, nil
}
