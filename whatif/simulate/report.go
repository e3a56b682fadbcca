package simulate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

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

// Figure is the empirical distribution of each heuristic's makespans
// (ECDF drawn at the deciles, from the shortest run to the longest), best
// heuristic first.
func (r *Result) Figure() *figure.Figure {
	f := &figure.Figure{
		Title: "What-if run: distribution of the makespan per heuristic",
		X:     figure.Axis{Label: "makespan", Unit: "slots"},
		Y:     figure.Axis{Label: "fraction of trials with a makespan ≤ x", Fixed: true, Min: 0, Max: 1},
		Caption: fmt.Sprintf("%s (%d workers) with %s (%s, %d tasks × %d iterations); %d trials, seed %d; every heuristic on the same availability realizations. Points at the deciles of each heuristic's makespans (0 %% = shortest run, 100 %% = longest).",
			filepath.Base(r.Platform), r.Workers, filepath.Base(r.Application), r.Kind, r.Tasks, r.Iterations, r.Trials, r.Seed),
		Paper: figure.PaperNone,
	}
	if r.SlotSeconds > 0 {
		f.X.Unit = fmt.Sprintf("slots of %g s", r.SlotSeconds)
	}
	for _, h := range r.Heuristics {
		x := make([]float64, len(h.Makespans))
		for i, v := range h.Makespans {
			x[i] = float64(v)
		}
		slices.Sort(x)
		s := figure.Series{Name: h.Name}
		for d := 0; d <= 10; d++ {
			s.X = append(s.X, Quantile(x, float64(d)/10))
			s.Y = append(s.Y, float64(d)/10)
		}
		f.Series = append(f.Series, s)
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
