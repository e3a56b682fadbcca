package redundant

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/volsched/volsched/internal/stats"
	"github.com/volsched/volsched/stream"
)

// LabConfig configures the laboratory study of §3: failure probabilities
// drawn from a GDFN, perfectly known to the algorithms.
type LabConfig struct {
	Algos   []string      // algorithms compared (names of Allocate)
	Reps    int           // repetitions per point (the paper: 2,000)
	Seed    uint64        // campaign seed
	Workers int           // goroutines (results do not depend on it)
	Anneal  AnnealOptions // PPB, EPB
	// Progress, if not nil, is called with the number of repetitions just
	// finished and their estimated work (see LabWork; from several
	// goroutines).
	Progress func(reps int, work float64)
	// Points, if not nil, keeps finished points: LabFigure asks it before
	// computing a point and gives it every point it computes, so that an
	// interrupted figure resumes where it stopped.
	Points PointStore
	// repWork is the estimated work of one repetition of the point being
	// computed (0: 1), for Progress.
	repWork float64
}

// work is the estimated work of one repetition of the current point.
func (c LabConfig) work() float64 {
	if c.repWork > 0 {
		return c.repWork
	}
	return 1
}

// repWork estimates the cost of one repetition on m hosts relative to
// others of the same figure: constant for Figures 1 and 2 (m fixed),
// m·log2(m) for Figure 3 (a bisection over n of allocations costing about
// m each). It only shapes the ETA.
func repWork(figure, m int) float64 {
	if figure != 3 {
		return 1
	}
	return float64(m) * math.Log2(float64(m))
}

// Validate checks the configuration: algorithms named as ParseAlgorithm
// returns them (SAB included: the trace study runs it; LabFigure refuses
// it), 1 to MaxReps repetitions, 0 (one per CPU) to MaxWorkers workers,
// the annealing options in range. Errors name the field and its value.
func (c LabConfig) Validate() error {
	for _, a := range c.Algos {
		if p, err := ParseAlgorithm(a); err != nil || p != a {
			return fmt.Errorf("laboratory: algorithm %q, want one of %s (in lower case)", a, strings.Join(algorithmNames, ", "))
		}
	}
	if c.Reps < 1 || c.Reps > MaxReps {
		return fmt.Errorf("laboratory: reps = %d, want 1 to %d repetitions per point", c.Reps, MaxReps)
	}
	if c.Workers < 0 || c.Workers > MaxWorkers {
		return fmt.Errorf("laboratory: workers = %d, want 0 (one per CPU) to %d", c.Workers, MaxWorkers)
	}
	if c.Anneal.MovesPerHost < 0 || c.Anneal.MovesPerHost > MaxMovesPerHost {
		return fmt.Errorf("laboratory: moves per host = %d, want 0 (the default, 300) to %d", c.Anneal.MovesPerHost, MaxMovesPerHost)
	}
	return nil
}

// PointStore keeps the finished points of a laboratory figure, by key. A
// key names the point's grid indices and values (its random streams depend
// on both); the store is responsible for the rest of the configuration
// (seed, repetitions, algorithms) being the same.
type PointStore interface {
	Get(key string) (mean, se []float64, ok bool)
	Put(key string, mean, se []float64) error
}

// cachedPoint returns the stored point key if there is one with one value
// per algorithm, and otherwise computes it with f and stores it.
func cachedPoint(cfg LabConfig, key string, f func() ([]float64, []float64, error)) ([]float64, []float64, error) {
	if cfg.Points != nil {
		if mean, se, ok := cfg.Points.Get(key); ok && len(mean) == len(cfg.Algos) && len(se) == len(cfg.Algos) {
			if cfg.Progress != nil {
				cfg.Progress(cfg.Reps, float64(cfg.Reps)*cfg.work())
			}
			return mean, se, nil
		}
	}
	mean, se, err := f()
	if err != nil || cfg.Points == nil {
		return mean, se, err
	}
	return mean, se, cfg.Points.Put(key, mean, se)
}

// Series is one curve of a figure: Y[i] (with its standard error SE[i]) at
// the figure's X[i].
type Series struct {
	Name string
	Y    []float64
	SE   []float64
}

// Figure is a reproduced figure: the points and the parameters that made
// them.
type Figure struct {
	Name, Title    string
	XLabel, YLabel string
	Params         string
	// Caption describes the run in sentences for a drawn figure: the
	// seed, the parameters, the instances, how each point is computed.
	Caption string
	X       []float64
	Series  []Series
}

// forEachRep runs f(rep) for rep in [0, reps) on cfg.Workers goroutines.
func forEachRep(ctx context.Context, cfg LabConfig, reps int, f func(rep int) error) error {
	w := cfg.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	errs := make([]error, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for rep := range next {
				if errs[k] != nil {
					continue
				}
				errs[k] = f(rep)
				if cfg.Progress != nil {
					cfg.Progress(1, cfg.work())
				}
			}
		}(k)
	}
	var err error
	for rep := 0; rep < reps; rep++ {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- rep
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// meanSE is the mean of v and its standard error (0 for fewer than 2
// values).
func meanSE(v []float64) (float64, float64) {
	m := stats.Of(v)
	return m.Mean, m.SE()
}

// LabSuccess estimates the success probability each algorithm achieves on
// n tasks and m hosts with failure probabilities drawn from g: the mean,
// over cfg.Reps instances, of the R_sys of the algorithm's allocation (the
// expected success frequency of one execution per instance, without its
// Bernoulli noise). Instance rep uses stream (seed, labels…, rep).
func LabSuccess(ctx context.Context, g GDFN, m, n int, cfg LabConfig, labels ...uint64) (mean, se []float64, err error) {
	return labEstimate(ctx, g, m, cfg, labels, func(algo string, p []float64, l []uint64) (float64, error) {
		res, err := Allocate(ctx, algo, p, n, Options{Seed: cfg.Seed, Anneal: cfg.Anneal}, l...)
		return res.Rsys, err
	})
}

// LabScale estimates the application scale of §3.3: for each instance of m
// hosts drawn from g, the largest number of tasks n whose allocation by the
// algorithm still has R_sys >= r0 (found by bisection on n, which assumes
// R_sys decreases with n — true of the optimum, nearly so of the
// heuristics), divided by m; averaged over cfg.Reps instances (0 counts
// when even one task cannot reach r0).
func LabScale(ctx context.Context, g GDFN, m int, r0 float64, cfg LabConfig, labels ...uint64) (mean, se []float64, err error) {
	return labEstimate(ctx, g, m, cfg, labels, func(algo string, p []float64, l []uint64) (float64, error) {
		lo, hi := 0, m // R(lo) >= r0 (lo = 0 by convention), R(hi+1) < r0
		for lo < hi {
			mid := (lo + hi + 1) / 2
			res, err := Allocate(ctx, algo, p, mid, Options{Seed: cfg.Seed, Anneal: cfg.Anneal}, append(l, uint64(mid))...)
			if err != nil {
				return 0, err
			}
			if res.Rsys >= r0 {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return float64(lo) / float64(m), nil
	})
}

// labEstimate draws cfg.Reps instances of m failure probabilities from g
// (instance rep from stream (seed, labels…, rep, 0)), evaluates every
// algorithm on each with value(algo, p, labels…rep), and returns each
// algorithm's mean and standard error over the instances.
func labEstimate(ctx context.Context, g GDFN, m int, cfg LabConfig, labels []uint64,
	value func(algo string, p []float64, l []uint64) (float64, error)) (mean, se []float64, err error) {
	vals := make([][]float64, len(cfg.Algos))
	for a := range vals {
		vals[a] = make([]float64, cfg.Reps)
	}
	err = forEachRep(ctx, cfg, cfg.Reps, func(rep int) error {
		l := append(append([]uint64(nil), labels...), uint64(rep))
		p := g.SampleN(stream.New(cfg.Seed, append(l, 0)...), m)
		for a, algo := range cfg.Algos {
			v, err := value(algo, p, l)
			if err != nil {
				return err
			}
			vals[a][rep] = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	mean, se = make([]float64, len(cfg.Algos)), make([]float64, len(cfg.Algos))
	for a := range vals {
		mean[a], se[a] = meanSE(vals[a])
	}
	return mean, se, nil
}

// MaxReps bounds LabConfig.Reps (the paper: 2,000; each point keeps
// Reps values per algorithm).
const MaxReps = 1_000_000

// MaxWorkers bounds LabConfig.Workers.
const MaxWorkers = 1024

// MinStep is the finest step of Grid: 1,001 points over [0, 1].
const MinStep = 0.001

// LabGrid is the grid of a laboratory figure.
type LabGrid struct {
	Mus, Sigmas []float64 // Figures 1 and 2
	Ms          []int     // Figure 3
	R0s         []float64 // Figure 3
}

// PaperGrid returns the grid used for figure 1, 2 or 3: the paper's fixed
// parameters (9 tasks on 24 hosts, µ ∈ {0.151, 0.556}; 9 tasks on 37
// hosts, σ = 0.3; µ = 0.5, σ = 0.3, R0 ∈ {0.4, 0.8}) and, where the text
// does not give the swept values (the plots are lost), this project's
// choice: σ and µ from 0 to 1 by 0.05, m from 10 to 100 by 10. quick
// coarsens the grids.
func PaperGrid(figure int, quick bool) LabGrid {
	d := 0.05
	ms := []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	if quick {
		d = 0.2
		ms = []int{10, 40}
	}
	return Grid(figure, d, ms)
}

// Grid is PaperGrid with a chosen step for the σ (Figure 1) or µ (Figure
// 2) sweep over [0, 1] and chosen host counts for Figure 3. A step below
// MinStep (or not a number) is taken as MinStep.
func Grid(figure int, d float64, ms []int) LabGrid {
	if !(d >= MinStep) {
		d = MinStep
	}
	step := func(lo, hi, d float64) []float64 {
		var v []float64
		for k := 0; lo+float64(k)*d <= hi+1e-9; k++ {
			v = append(v, math.Round((lo+float64(k)*d)*1000)/1000)
		}
		return v
	}
	switch figure {
	case 1:
		return LabGrid{Mus: []float64{0.151, 0.556}, Sigmas: step(0, 1, d)}
	case 2:
		return LabGrid{Mus: step(0, 1, d), Sigmas: []float64{0.3}}
	default:
		return LabGrid{Ms: ms, R0s: []float64{0.4, 0.8}}
	}
}

// ValidateLabFigure checks what LabFigure checks before it computes
// anything: figure 1, 2 or 3, the host counts of grid, and cfg (Validate)
// without SAB, which needs the hosts' ages (Eq. 7) where the laboratory
// draws failure probabilities from a GDFN (the paper runs it in Figure 4
// only).
func ValidateLabFigure(figure int, grid LabGrid, cfg LabConfig) error {
	if figure < 1 || figure > 3 {
		return fmt.Errorf("laboratory: figure %d, want 1, 2 or 3 (Figure 4 is the trace study)", figure)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if slices.Contains(cfg.Algos, SAB) {
		return fmt.Errorf("laboratory: algorithm %q: SAB computes failure probabilities from the hosts' ages (Eq. 7, §4.1), which figures 1-3 do not have (they draw the probabilities from a GDFN); it runs in Figure 4, which adds it to the algorithms", SAB)
	}
	for _, m := range grid.Ms {
		if m < 2 || m > MaxHosts {
			return fmt.Errorf("laboratory: %d hosts, want 2 to %d", m, MaxHosts)
		}
	}
	return nil
}

// LabFigure computes laboratory figure 1, 2 or 3 on grid.
func LabFigure(ctx context.Context, figure int, grid LabGrid, cfg LabConfig) (Figure, error) {
	var f Figure
	if err := ValidateLabFigure(figure, grid, cfg); err != nil {
		return f, err
	}
	addSeries := func(prefix string, k int) []int {
		idx := make([]int, len(cfg.Algos))
		for a, algo := range cfg.Algos {
			idx[a] = len(f.Series)
			f.Series = append(f.Series, Series{Name: algoLabel(algo) + prefix, Y: make([]float64, k), SE: make([]float64, k)})
		}
		return idx
	}
	switch figure {
	case 1, 2:
		m, n := 24, 9
		f.Name, f.XLabel, f.YLabel = "fig1", "σ", "success probability"
		xs, fixed := grid.Sigmas, grid.Mus
		if figure == 2 {
			m = 37
			f.Name, f.XLabel = "fig2", "µ"
			xs, fixed = grid.Mus, grid.Sigmas
		}
		f.Title = fmt.Sprintf("Figure %d: %d tasks on %d hosts", figure, n, m)
		f.Params = fmt.Sprintf("n=%d tasks, m=%d hosts, reps=%d, seed=%d, anneal=%+v", n, m, cfg.Reps, cfg.Seed, cfg.Anneal.withDefaults())
		curves := "one curve per µ, σ swept"
		if figure == 2 {
			curves = "σ = 0.3, µ swept"
		}
		f.Caption = fmt.Sprintf("Seed %d. %d tasks on %d hosts whose failure probabilities are drawn from GDFN(µ, σ) (%s); "+
			"each point is the mean, over %d instances, of the success probability R_sys of each algorithm's allocation; "+
			"EA Eq.5 is Eq. 5's closed form for EA. %s",
			cfg.Seed, n, m, curves, cfg.Reps, annealCaption(cfg.Anneal))
		f.X = xs
		for fi, v := range fixed {
			suffix := fmt.Sprintf(" µ=%g", v)
			if figure == 2 {
				suffix = fmt.Sprintf(" σ=%g", v)
			}
			idx := addSeries(suffix, len(xs))
			eq5 := len(f.Series)
			f.Series = append(f.Series, Series{Name: "EA Eq.5" + suffix, Y: make([]float64, len(xs)), SE: make([]float64, len(xs))})
			for xi, x := range xs {
				g := GDFN{Mu: v, Sigma: x}
				if figure == 2 {
					g = GDFN{Mu: x, Sigma: v}
				}
				key := fmt.Sprintf("fig%d/%d/%d mu=%g sigma=%g", figure, fi, xi, g.Mu, g.Sigma)
				mean, se, err := cachedPoint(cfg, key, func() ([]float64, []float64, error) {
					return LabSuccess(ctx, g, m, n, cfg, uint64(figure), uint64(fi), uint64(xi))
				})
				if err != nil {
					return f, err
				}
				for a := range cfg.Algos {
					f.Series[idx[a]].Y[xi], f.Series[idx[a]].SE[xi] = mean[a], se[a]
				}
				f.Series[eq5].Y[xi] = EAExpected(m, n, g.Mean())
			}
		}
	default:
		g := GDFN{Mu: 0.5, Sigma: 0.3}
		f.Name, f.XLabel, f.YLabel = "fig3", "m (hosts)", "n/m"
		f.Title = "Figure 3: n/m reachable at success rate R0 (µ=0.5, σ=0.3)"
		f.Params = fmt.Sprintf("µ=0.5, σ=0.3, reps=%d, seed=%d, anneal=%+v", cfg.Reps, cfg.Seed, cfg.Anneal.withDefaults())
		f.Caption = fmt.Sprintf("Seed %d. m hosts whose failure probabilities are drawn from GDFN(µ = 0.5, σ = 0.3); "+
			"for each of %d instances per point, the largest number of tasks n whose allocation keeps R_sys ≥ R0 (bisection on n), "+
			"divided by m, averaged. %s", cfg.Seed, cfg.Reps, annealCaption(cfg.Anneal))
		for _, m := range grid.Ms {
			f.X = append(f.X, float64(m))
		}
		for ri, r0 := range grid.R0s {
			idx := addSeries(fmt.Sprintf(" R0=%g", r0), len(grid.Ms))
			for mi, m := range grid.Ms {
				key := fmt.Sprintf("fig3/%d/%d r0=%g m=%d", ri, mi, r0, m)
				pc := cfg
				pc.repWork = repWork(3, m)
				mean, se, err := cachedPoint(pc, key, func() ([]float64, []float64, error) {
					return LabScale(ctx, g, m, r0, pc, 3, uint64(ri), uint64(mi))
				})
				if err != nil {
					return f, err
				}
				for a := range cfg.Algos {
					f.Series[idx[a]].Y[mi], f.Series[idx[a]].SE[mi] = mean[a], se[a]
				}
			}
		}
	}
	return f, nil
}

// annealCaption describes the annealing budget of PPB and EPB.
func annealCaption(a AnnealOptions) string {
	a = a.withDefaults()
	return fmt.Sprintf("PPB and EPB: simulated annealing, %d proposals per host (at least %s).", a.MovesPerHost, grouped(a.MinMoves))
}

// grouped writes n with thousands separated by commas (2,000).
func grouped(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + grouped(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// LabWork is the number of repetitions LabFigure runs and their estimated
// work (the sum of what Progress is given), for progress.
func LabWork(figure int, grid LabGrid, reps int) (int, float64) {
	switch figure {
	case 1, 2:
		n := reps * len(grid.Mus) * len(grid.Sigmas)
		return n, float64(n)
	default:
		work := 0.0
		for _, m := range grid.Ms {
			work += float64(reps*len(grid.R0s)) * repWork(3, m)
		}
		return reps * len(grid.Ms) * len(grid.R0s), work
	}
}

func algoLabel(a string) string {
	switch a {
	case "ea", "ppb", "epb", "gls", "sab":
		return map[string]string{"ea": "EA", "ppb": "PPB", "epb": "EPB", "gls": "GLS", "sab": "SAB"}[a]
	}
	return a
}
