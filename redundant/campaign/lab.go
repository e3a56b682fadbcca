package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/trace"
)

// LabOptions are the options of a laboratory figure (1, 2 or 3).
type LabOptions struct {
	Figure       int
	Out          string // directory for figN.csv, figN.svg and figN-points.jsonl; "" writes nothing
	Reps         int    // instances per point
	Seed         uint64
	Workers      int
	Quick        bool     // the coarser grid
	Algos        []string // algorithms compared
	MovesPerHost int      // annealing proposals per host (0: the default)
	Step         float64  // figures 1, 2: sweep step (0: the default grid)
	Ms           []int    // figure 3: host counts (nil: the default grid)
}

// config is the laboratory configuration of o (without Points and
// Progress).
func (o LabOptions) config() redundant.LabConfig {
	return redundant.LabConfig{Algos: o.Algos, Reps: o.Reps, Seed: o.Seed, Workers: o.Workers,
		Anneal: redundant.AnnealOptions{MovesPerHost: o.MovesPerHost}}
}

// Validate checks o as RunLab needs it, before anything is computed or
// written: Step 0 (the default grid) or in [redundant.MinStep, 1], and
// redundant.ValidateLabFigure (figure 1, 2 or 3, the host counts, the
// configuration: algorithms without SAB, repetitions, workers, moves per
// host). Errors name the field and its value.
func (o LabOptions) Validate() error {
	if o.Step != 0 && !(o.Step >= redundant.MinStep && o.Step <= 1) {
		return fmt.Errorf("laboratory: step = %v, want a step in [%g, 1] (at most %d points per curve), or 0 for the default", o.Step, redundant.MinStep, int(1/redundant.MinStep)+1)
	}
	return redundant.ValidateLabFigure(o.Figure, o.grid(), o.config())
}

// grid is the figure's grid: the paper's (PaperGrid) unless a step or host
// counts are given.
func (o LabOptions) grid() redundant.LabGrid {
	grid := redundant.PaperGrid(o.Figure, o.Quick)
	if o.Step > 0 || len(o.Ms) > 0 {
		def := redundant.PaperGrid(o.Figure, o.Quick)
		step := o.Step
		if step <= 0 {
			step = 0.05
			if o.Quick {
				step = 0.2
			}
		}
		ms := o.Ms
		if len(ms) == 0 {
			ms = def.Ms
		}
		grid = redundant.Grid(o.Figure, step, ms)
	}
	return grid
}

// Output is one reproduced figure: its numbers, the figure drawn from
// them, the paper's claims next to ours, and the files written (none
// without an output directory).
type Output struct {
	Figure redundant.Figure
	Drawn  *figure.Figure // Drawn(Figure)
	Claims []redundant.Claim
	CSV    string // path of the CSV file, or ""
	SVG    string // path of the figure as SVG, or ""
	PNG    string // path of the figure as PNG, or ""
	// Fit is, for Figure 4, the log-normal fitted to the trace's
	// availability intervals (in operations); nil otherwise.
	Fit *trace.Fit
	// Hosts is, for Figure 4, the number of hosts of the trace; 0
	// otherwise.
	Hosts int
}

// RunLab computes a laboratory figure, writes DIR/figN.csv and
// DIR/figN.svg when o.Out is set (and keeps each finished point in
// DIR/figN-points.jsonl, resuming from the points there), and prints the
// table and the paper's claims to w. Progress goes to standard error.
func RunLab(ctx context.Context, w io.Writer, o LabOptions) (Output, error) {
	if err := o.Validate(); err != nil {
		return Output{}, err
	}
	grid := o.grid()
	cfg := o.config()
	if o.Out != "" {
		pts, err := OpenPoints(o.Out, PointsHeader{Figure: o.Figure, Seed: o.Seed, Reps: o.Reps,
			Algos: o.Algos, MovesPerHost: o.MovesPerHost})
		if err != nil {
			return Output{}, err
		}
		defer pts.Close()
		cfg.Points = pts
	}
	prog := experiment.NewProgress(fmt.Sprintf("seed 003 figure %d", o.Figure))
	reps, work := redundant.LabWork(o.Figure, grid, o.Reps)
	prog.StartWork(reps, 0, work, 0)
	cfg.Progress = func(n int, w float64) { prog.AddWork(n, w) }
	f, err := redundant.LabFigure(ctx, o.Figure, grid, cfg)
	prog.Finish()
	if err != nil {
		return Output{}, err
	}
	return Report(w, f, o.Out)
}

// Report prints a figure's table and the paper's claims to w and, when
// out is not empty, writes out/NAME.csv (mean and standard error of each
// curve) and the figure (Drawn) as out/NAME.svg and out/NAME.png.
func Report(w io.Writer, f redundant.Figure, out string) (Output, error) {
	res := Output{Figure: f, Drawn: Drawn(f), Claims: redundant.PaperClaims(f)}
	fmt.Fprintf(w, "%s\nparameters: %s\n", f.Title, f.Params)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{f.XLabel}
	for _, s := range f.Series {
		head = append(head, s.Name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i, x := range f.X {
		row := []string{strconv.FormatFloat(x, 'g', 4, 64)}
		for _, s := range f.Series {
			row = append(row, fmt.Sprintf("%.4f", s.Y[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	if len(res.Claims) > 0 {
		fmt.Fprintln(w, "\nthe paper's claims next to this run:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "claim\tpaper\tthis run")
		for _, c := range res.Claims {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.What, c.Paper, c.Ours)
		}
		tw.Flush()
	}
	if out == "" {
		return res, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return res, fmt.Errorf("--out %s: %w", out, err)
	}
	header := []string{"x"}
	for _, s := range f.Series {
		header = append(header, s.Name, s.Name+" se")
	}
	var rows [][]string
	for i, x := range f.X {
		row := []string{strconv.FormatFloat(x, 'g', -1, 64)}
		for _, s := range f.Series {
			row = append(row, strconv.FormatFloat(s.Y[i], 'g', 8, 64), strconv.FormatFloat(s.SE[i], 'g', 4, 64))
		}
		rows = append(rows, row)
	}
	csvPath := filepath.Join(out, f.Name+".csv")
	if err := experiment.WriteCSVFile(csvPath, header, rows); err != nil {
		return res, err
	}
	res.CSV = csvPath
	paths, err := res.Drawn.WriteFiles(filepath.Join(out, f.Name))
	if err != nil {
		return res, err
	}
	res.SVG, res.PNG = paths[0], paths[1]
	fmt.Fprintf(w, "wrote %s, %s and %s\n", csvPath, res.SVG, res.PNG)
	return res, nil
}
