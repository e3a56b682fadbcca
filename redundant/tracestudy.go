package redundant

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/trace"
	"gonum.org/v1/gonum/stat/distuv"
)

// TraceStudy is the trace-driven evaluation of §4 (Figure 4): at a random
// time T of the trace, m hosts available at T are drawn; each host's age
// γ_i is how long it has been available; the algorithms allocate n ≈
// Ratio·m tasks using Eq. 3 with the availability distribution fitted to
// the trace (PPB, EPB, GLS), Eq. 7 (SAB) or nothing (EA); the outcome is
// replayed from the trace: a replica succeeds if its host stays available
// from T to T + task duration.
type TraceStudy struct {
	Name    string
	Trace   *trace.Trace
	Rate    float64 // operations delivered per second (1 when sizes are in seconds)
	TaskOps float64 // task size t, in operations
	Ratio   float64 // n/m (0.6 in the paper)
	Ms      []int   // grid sizes
	Config  LabConfig
	// Fit is the log-normal fit of the trace's availability intervals, in
	// operations (set by Prepare).
	Fit trace.Fit
	// C is SAB's constant, in operations: if zero when Prepare is called,
	// the longest availability interval of the trace. It is raised per
	// instance if some γ_i + t exceeds it, as Eq. 7 requires.
	C float64
	// Skipped counts allocation times redrawn because fewer than m hosts
	// were available.
	Skipped int
}

// Prepare fits the log-normal (in operations) and sets C.
func (s *TraceStudy) Prepare() error {
	if s.Rate <= 0 || s.TaskOps <= 0 || s.Ratio <= 0 || s.Ratio > 1 {
		return fmt.Errorf("trace study %s: rate %v, task size %v, ratio %v: want rate > 0, size > 0, 0 < ratio <= 1", s.Name, s.Rate, s.TaskOps, s.Ratio)
	}
	if s.C < 0 || math.IsNaN(s.C) || math.IsInf(s.C, 0) {
		return fmt.Errorf("trace study %s: SAB constant C = %v, want a finite number >= 0 (0: the longest availability interval)", s.Name, s.C)
	}
	auto := s.C == 0
	d := s.Trace.AvailabilityDurations()
	for i := range d {
		d[i] *= s.Rate
		if auto {
			s.C = math.Max(s.C, d[i])
		}
	}
	f, err := trace.FitLogNormal(d)
	if err != nil {
		return fmt.Errorf("trace study %s: fitting availability intervals: %w", s.Name, err)
	}
	s.Fit = f
	if s.Trace.End-s.Trace.Start <= s.TaskOps/s.Rate {
		return fmt.Errorf("trace study %s: the trace (%v s) is not longer than one task (%v s)", s.Name, s.Trace.End-s.Trace.Start, s.TaskOps/s.Rate)
	}
	return nil
}

// Work is the number of repetitions Run makes and their estimated work
// (what Config.Progress is given in all).
func (s *TraceStudy) Work() (int, float64) {
	n, w := 0, 0.0
	for _, m := range s.Ms {
		n += s.Config.Reps
		w += float64(s.Config.Reps) * float64(m)
	}
	return n, w
}

// Run computes the success frequency of each algorithm (cfg.Algos, plus
// SAB at the end unless they name it) for each grid size; Series are named
// after the algorithms.
func (s *TraceStudy) Run(ctx context.Context) (Figure, error) {
	cfg := s.Config
	if err := cfg.Validate(); err != nil {
		return Figure{}, err
	}
	algos := append([]string(nil), cfg.Algos...)
	if !slices.Contains(algos, SAB) {
		algos = append(algos, SAB)
	}
	f := Figure{Name: "fig4-" + s.Name, XLabel: "m (hosts)", YLabel: "success frequency",
		Title: fmt.Sprintf("Figure 4 (%s): success vs grid size, n/m ≈ %g", s.Name, s.Ratio),
		Params: fmt.Sprintf("trace %s: %d hosts, %.1f days; log-normal fit µ=%.3f σ=%.3f (ops); rate %.4g ops/s; t=%.3g ops (%.4g s); SAB C=%.4g ops; reps=%d; seed=%d",
			s.Name, len(s.Trace.Nodes), (s.Trace.End-s.Trace.Start)/86400, s.Fit.Params[0], s.Fit.Params[1], s.Rate, s.TaskOps, s.TaskOps/s.Rate, s.C, cfg.Reps, cfg.Seed)}
	f.Caption = fmt.Sprintf("Seed %d. Trace %s: %d hosts, %.1f days; φ is the log-normal fitted to its availability intervals "+
		"(µ = %.3f, σ = %.3f, in operations at %s operations/s); tasks of %s operations (%s h); n = round(%g m) tasks on m hosts available at a random time; "+
		"each point is the success frequency over %d allocation times, the outcome replayed from the trace; SAB's C = %s operations. %s",
		cfg.Seed, s.Name, len(s.Trace.Nodes), (s.Trace.End-s.Trace.Start)/86400, s.Fit.Params[0], s.Fit.Params[1], readable(s.Rate),
		readable(s.TaskOps), readable(s.TaskOps/s.Rate/3600), s.Ratio, cfg.Reps, readable(s.C), annealCaption(cfg.Anneal))
	for _, a := range algos {
		f.Series = append(f.Series, Series{Name: algoLabel(a), Y: make([]float64, len(s.Ms)), SE: make([]float64, len(s.Ms))})
	}
	phi := distuv.LogNormal{Mu: s.Fit.Params[0], Sigma: s.Fit.Params[1]}
	tsec := s.TaskOps / s.Rate
	hosts := len(s.Trace.Nodes)
	skipped := make([]int, len(s.Ms))
	for mi, m := range s.Ms {
		f.X = append(f.X, float64(m))
		n := max(1, int(math.Round(s.Ratio*float64(m))))
		wins := make([][]float64, len(algos))
		for a := range wins {
			wins[a] = make([]float64, cfg.Reps)
		}
		skip := make([]int, cfg.Reps)
		cfg.repWork = float64(m)
		err := forEachRep(ctx, cfg, cfg.Reps, func(rep int) error {
			r := stream.New(cfg.Seed, 4, uint64(mi), uint64(rep))
			var avail []int
			var since, until []float64
			var at float64
			for attempt := 0; ; attempt++ {
				if attempt == 1000 {
					return fmt.Errorf("trace %s: found no time with %d hosts available in 1000 draws", s.Name, m)
				}
				at = s.Trace.Start + r.Float64()*(s.Trace.End-s.Trace.Start-tsec)
				avail, since, until = avail[:0], since[:0], until[:0]
				for k := 0; k < hosts; k++ {
					if ok, a, b := s.Trace.AvailableAt(k, at); ok {
						avail = append(avail, k)
						since = append(since, a)
						until = append(until, b)
					}
				}
				if len(avail) >= m {
					break
				}
				skip[rep]++
			}
			// m hosts among the available ones (partial Fisher–Yates).
			for i := 0; i < m; i++ {
				j := i + r.IntN(len(avail)-i)
				avail[i], avail[j] = avail[j], avail[i]
				since[i], since[j] = since[j], since[i]
				until[i], until[j] = until[j], until[i]
			}
			ages := make([]float64, m)
			survives := make([]bool, m)
			cSAB := s.C
			for i := 0; i < m; i++ {
				ages[i] = (at - since[i]) * s.Rate
				survives[i] = until[i] >= at+tsec
				cSAB = math.Max(cSAB, ages[i]+s.TaskOps)
			}
			p, err := FailureProbs(phi, ages, s.TaskOps)
			if err != nil {
				return err
			}
			pSAB, err := SABProbs(ages, s.TaskOps, cSAB)
			if err != nil {
				return err
			}
			for a, algo := range algos {
				pa, run := p, Allocator(algo)
				if algo == SAB {
					pa = pSAB
				}
				res, err := Allocate(ctx, run, pa, n, Options{Seed: cfg.Seed, Anneal: cfg.Anneal}, 4, uint64(mi), uint64(rep))
				if err != nil {
					return err
				}
				ok := make([]bool, n)
				for i, j := range res.X {
					ok[j] = ok[j] || survives[i]
				}
				win := 1.0
				for _, v := range ok {
					if !v {
						win = 0
					}
				}
				wins[a][rep] = win
			}
			return nil
		})
		if err != nil {
			return f, err
		}
		for _, k := range skip {
			skipped[mi] += k
		}
		for a := range algos {
			f.Series[a].Y[mi], f.Series[a].SE[mi] = meanSE(wins[a])
		}
	}
	s.Skipped = 0
	for _, k := range skipped {
		s.Skipped += k
	}
	return f, nil
}

// readable writes x for a caption: whole numbers from 1,000 (3757,
// 39000), 3 significant digits below (0.712, 73.9), powers of ten from
// 10^6 (10^9, 1.49×10^10).
func readable(x float64) string {
	switch {
	case x == 0 || math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	case math.Abs(x) < 1000:
		return strconv.FormatFloat(x, 'g', 3, 64)
	case math.Abs(x) < 1e6:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	e := int(math.Floor(math.Log10(math.Abs(x))))
	m := x / math.Pow(10, float64(e))
	if math.Abs(m-1) < 5e-3 {
		return fmt.Sprintf("10^%d", e)
	}
	return fmt.Sprintf("%.3g×10^%d", m, e)
}
