package campaign

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/trace"
)

// TraceOptions are the options of the trace-driven Figure 4.
type TraceOptions struct {
	// Lab holds the options shared with the laboratory figures (Reps:
	// allocation times per point; Out, Seed, Workers, Quick, Algos,
	// MovesPerHost); Figure, Step and Ms are not used.
	Lab LabOptions
	// Trace, when not nil, is a user's trace to use instead of the
	// synthetic UCB and Entropia traces, with tasks of TaskSize seconds of
	// availability. TraceSource is where it was read from (a file name or
	// "<stdin>"): messages name it, and the study (its files) is named
	// after its base name without extension.
	Trace       *trace.Trace
	TraceSource string
	TaskSize    float64
	// SABC is SAB's constant C of Eq. 7, in operations (0: the longest
	// availability interval of the trace).
	SABC float64
}

// Validate checks o as RunTrace needs it, before anything is computed:
// the configuration (redundant.LabConfig.Validate; SAB may be named, it is
// added anyway), SABC finite and ≥ 0, and TaskSize finite and > 0 when
// it is given and required with a user's trace. Errors name the field and
// its value.
func (o TraceOptions) Validate() error {
	if err := o.Lab.config().Validate(); err != nil {
		return err
	}
	if !(o.SABC >= 0) || math.IsInf(o.SABC, 0) {
		return fmt.Errorf("figure 4: SAB constant C = %v, want a finite number >= 0 (0: the longest availability interval of the trace)", o.SABC)
	}
	if (o.Trace != nil || o.TaskSize != 0) && (!(o.TaskSize > 0) || math.IsInf(o.TaskSize, 0)) {
		return fmt.Errorf("figure 4: task size %v, want a finite task size > 0 (seconds of availability) with a trace", o.TaskSize)
	}
	return nil
}

// RunTrace runs Figure 4 on the synthetic UCB and Entropia traces (the
// paper's Table 1 next to their fits), or on a user's trace, and reports
// each study like a laboratory figure (Report). Progress goes to standard
// error.
func RunTrace(ctx context.Context, w io.Writer, o TraceOptions) ([]Output, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cfg := o.Lab.config()
	var studies []*redundant.TraceStudy
	if o.Trace != nil {
		h := len(o.Trace.Nodes)
		var ms []int
		for _, fr := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
			if m := int(math.Round(fr * float64(h))); m >= 2 && (len(ms) == 0 || m > ms[len(ms)-1]) {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%s: %d hosts, want at least 4 for Figure 4", o.TraceSource, h)
		}
		name := strings.TrimSuffix(filepath.Base(o.TraceSource), filepath.Ext(o.TraceSource))
		studies = append(studies, &redundant.TraceStudy{Name: name, Trace: o.Trace, Rate: 1, TaskOps: o.TaskSize, Ratio: 0.6, Ms: ms})
	} else {
		for _, p := range trace.Presets() {
			ms := []int{5, 10, 15, 20, 25, 30, 35, 40}
			if p.Name == "entropia" {
				ms = []int{20, 40, 60, 80, 100, 120, 140, 160}
			}
			if o.Lab.Quick {
				ms = []int{ms[0], ms[len(ms)/2], ms[len(ms)-1]}
			}
			studies = append(studies, &redundant.TraceStudy{Name: p.Name, Trace: trace.Generate(p, o.Lab.Seed),
				Rate: p.OpsPerSecond, TaskOps: p.TaskOps, Ratio: 0.6, Ms: ms})
		}
		fmt.Fprintln(w, "Table 1 of the paper (fits of the real traces) next to the log-normal fit of the synthetic traces generated from it:")
		fmt.Fprintln(w, "  UCB      paper µ=16.42 σ=2.419 (80 hosts, 46 days)    Entropia paper µ=18.76 σ=2.188 (232 hosts, 1 month)")
	}
	for _, s := range studies {
		s.Config = cfg
		s.C = o.SABC
		if err := s.Prepare(); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "  %-8s fit   µ=%.3f σ=%.3f  KS D=%.4f (p=%.3g, %d intervals incl. those cut by the trace ends)\n",
			s.Name, s.Fit.Params[0], s.Fit.Params[1], s.Fit.KS, s.Fit.KSP, s.Fit.N)
	}
	var outs []Output
	for _, s := range studies {
		fmt.Fprintln(w)
		prog := experiment.NewProgress("seed 003 figure 4 (" + s.Name + ")")
		s.Config.Progress = func(n int, w float64) { prog.AddWork(n, w) }
		reps, work := s.Work()
		prog.StartWork(reps, 0, work, 0)
		f, err := s.Run(ctx)
		prog.Finish()
		if err != nil {
			return outs, err
		}
		if s.Skipped > 0 {
			fmt.Fprintf(w, "(%d allocation times redrawn: fewer than m hosts available)\n", s.Skipped)
		}
		out, err := Report(w, f, o.Lab.Out)
		if err != nil {
			return outs, err
		}
		fit := s.Fit
		out.Fit = &fit
		out.Hosts = len(s.Trace.Nodes)
		outs = append(outs, out)
	}
	fmt.Fprintln(w, "\nthe paper (§4.2): ranking PPB > EPB > EA as in the laboratory; PPB's lead grows with the grid;")
	fmt.Fprintln(w, "SAB good on small grids, close to EA on large ones; all decrease with the grid size.")
	return outs, nil
}
