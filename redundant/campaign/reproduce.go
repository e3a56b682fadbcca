package campaign

import (
	"context"
	"fmt"
	"io"
	"runtime"
)

// reproduceAlgos are the algorithms of the reproduction (Figure 4 adds
// SAB).
func reproduceAlgos() []string { return []string{"ea", "epb", "ppb", "gls"} }

// Result is what the reproduction made: the figures in order (Figures 1,
// 2, 3, then Figure 4 per trace) and how it was run.
type Result struct {
	Seed    uint64
	Quick   bool
	Figures []Output
	// Committed, when set, says what the committed run read back from
	// results/ holds (ReadResults); it replaces the description of the
	// run's size in the section.
	Committed string
}

// Reproduce runs the reproduction of seed 003: laboratory Figures 1–3
// (2,000 instances per point; quick: 200 on coarse grids, 50 for Figure 3)
// and the trace-driven Figure 4 on the synthetic traces, printing each to
// w. With out, the figures' files and points go there (Figures 1–3 resume
// from their points).
func Reproduce(ctx context.Context, w io.Writer, seed uint64, quick bool, out string) (*Result, error) {
	outs, err := reproduce(ctx, w, seed, quick, out)
	if err != nil {
		return nil, err
	}
	return &Result{Seed: seed, Quick: quick, Figures: outs}, nil
}

func reproduce(ctx context.Context, w io.Writer, seed uint64, quick bool, out string) ([]Output, error) {
	reps := 2000
	if quick {
		reps = 200
	}
	var outs []Output
	for fig := 1; fig <= 3; fig++ {
		o := LabOptions{Figure: fig, Reps: reps, Seed: seed, Workers: runtime.NumCPU(), Quick: quick,
			Algos: reproduceAlgos(), Out: out}
		if fig == 3 && quick {
			o.Reps = 50
		}
		fmt.Fprintln(w)
		res, err := RunLab(ctx, w, o)
		if err != nil {
			return outs, err
		}
		outs = append(outs, res)
	}
	fmt.Fprintln(w)
	tr := TraceOptions{Lab: LabOptions{Figure: 4, Reps: reps, Seed: seed, Workers: runtime.NumCPU(), Quick: quick,
		Algos: reproduceAlgos(), Out: out}}
	res, err := RunTrace(ctx, w, tr)
	return append(outs, res...), err
}
