package campaign

import (
	"fmt"
	"math"
	"sort"

	"github.com/volsched/volsched/internal/stats"
)

// Reference is the heuristic the metrics of §VII.A compare against.
const Reference = "IE"

// HeuristicSummary holds the §VII.A metrics of one heuristic.
type HeuristicSummary struct {
	Name string `json:"name"`
	// Fails counts the instances (scenario × trial) where the makespan
	// reached the cap.
	Fails int `json:"fails"`
	// PctDiff is the average over scenarios of the relative difference
	// (mean_H − mean_IE)/min(mean_H, mean_IE) of the makespans averaged over
	// the scenario's trials where both H and IE succeeded, in percent.
	PctDiff float64 `json:"pct_diff"`
	// PctWins is the percentage of instances where H's makespan is at most
	// IE's (a failed run counts as the cap).
	PctWins float64 `json:"pct_wins"`
	// PctWins30 is the percentage of instances where H's makespan is at most
	// 1.3 times IE's.
	PctWins30 float64 `json:"pct_wins30"`
	// Stdv is the standard deviation over scenarios of the relative
	// difference (a fraction, as the paper prints it).
	Stdv float64 `json:"stdv"`
	// Scenarios is the number of scenarios that entered PctDiff and Stdv.
	Scenarios int `json:"scenarios"`
	// Instances is the number of instances counted.
	Instances int `json:"instances"`
}

// Metrics computes the §VII.A metrics of every heuristic over the units
// (results sorted by unit, so the sums are done in a fixed order); capV is
// the makespan cap (failure). Units whose heuristic lists differ from the
// first's are an error.
func Metrics(units []UnitResult, capV int) ([]HeuristicSummary, error) {
	if len(units) == 0 {
		return nil, nil
	}
	names := units[0].Heuristics
	ref := -1
	for i, n := range names {
		if n == Reference {
			ref = i
		}
	}
	if ref < 0 {
		return nil, fmt.Errorf("summary: reference heuristic %s not among %v", Reference, names)
	}
	out := make([]HeuristicSummary, len(names))
	rds := make([][]float64, len(names))
	wins := make([]int, len(names))
	wins30 := make([]int, len(names))
	for ui, u := range units {
		if len(u.Heuristics) != len(names) {
			return nil, fmt.Errorf("summary: unit %d has %d heuristics, want %d", ui, len(u.Heuristics), len(names))
		}
		for i := range names {
			if u.Heuristics[i] != names[i] {
				return nil, fmt.Errorf("summary: unit %d column %d is %s, want %s", ui, i, u.Heuristics[i], names[i])
			}
		}
		for i := range names {
			sumH, sumR, n := 0.0, 0.0, 0
			for _, row := range u.Makespan {
				h, r := row[i], row[ref]
				out[i].Instances++
				if h >= capV {
					out[i].Fails++
				}
				if h <= r {
					wins[i]++
				}
				if float64(h) <= 1.3*float64(r) {
					wins30[i]++
				}
				if h < capV && r < capV {
					sumH += float64(h)
					sumR += float64(r)
					n++
				}
			}
			if n > 0 {
				mh, mr := sumH/float64(n), sumR/float64(n)
				rds[i] = append(rds[i], (mh-mr)/math.Min(mh, mr))
			}
		}
	}
	for i, n := range names {
		s := &out[i]
		s.Name = n
		s.Scenarios = len(rds[i])
		s.PctDiff, s.Stdv = meanStd(rds[i])
		s.PctDiff *= 100
		if s.Instances > 0 {
			s.PctWins = 100 * float64(wins[i]) / float64(s.Instances)
			s.PctWins30 = 100 * float64(wins30[i]) / float64(s.Instances)
		}
	}
	return out, nil
}

// meanStd returns the mean and the population standard deviation (NaN for
// an empty list).
func meanStd(xs []float64) (mean, std float64) {
	m := stats.Of(xs)
	return m.Mean, m.PopulationSD()
}

// SortByDiff orders summaries by increasing %diff (the paper's tables),
// NaN last, ties by name.
func SortByDiff(s []HeuristicSummary) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i].PctDiff, s[j].PctDiff
		if math.IsNaN(a) != math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		if a != b {
			return a < b
		}
		return s[i].Name < s[j].Name
	})
}

// PaperRow is one row of Table I or II of seed 002.
type PaperRow struct {
	Name                              string
	Fails                             int
	PctDiff, PctWins, PctWins30, Stdv float64
}

// PaperTableI is Table I of seed 002 (m = 5, all 17 heuristics).
var PaperTableI = []PaperRow{
	{"Y-IE", 2, -11.82, 72.58, 92.09, 0.42},
	{"P-IE", 2, -10.50, 70.98, 91.19, 0.44},
	{"E-IAY", 4, -10.40, 64.75, 85.15, 0.77},
	{"E-IY", 4, -3.40, 59.91, 81.64, 0.80},
	{"IE", 1, 0.00, 100.00, 100.00, 0.00},
	{"IAY", 2, 13.59, 51.07, 76.42, 1.93},
	{"E-IP", 4, 19.35, 47.73, 69.69, 0.98},
	{"IY", 2, 24.22, 45.26, 70.85, 1.96},
	{"IP", 2, 52.03, 34.79, 58.54, 2.11},
	{"E-IE", 5, 53.93, 39.57, 64.51, 2.57},
	{"Y-IAY", 3, 99.75, 53.89, 70.77, 5.55},
	{"Y-IY", 3, 113.01, 49.22, 66.80, 5.73},
	{"P-IAY", 3, 125.27, 50.28, 67.33, 6.08},
	{"Y-IP", 2, 145.05, 38.56, 55.54, 5.90},
	{"P-IY", 3, 145.78, 42.54, 59.66, 6.22},
	{"P-IP", 2, 176.92, 36.92, 52.00, 6.61},
	{"RANDOM", 0, 2124.42, 0.00, 0.20, 22.54},
}

// PaperTableII is Table II of seed 002 (m = 10, the heuristics it lists).
var PaperTableII = []PaperRow{
	{"Y-IE", 141, -10.33, 71.35, 88.42, 0.54},
	{"P-IE", 141, -8.62, 69.64, 87.23, 0.55},
	{"E-IAY", 178, -6.10, 66.62, 81.93, 1.58},
	{"E-IY", 176, 8.04, 61.90, 77.87, 3.07},
	{"E-IP", 168, 29.68, 55.12, 71.86, 3.01},
	{"IAY", 152, 136.65, 46.98, 69.31, 14.76},
	{"IY", 152, 147.77, 42.06, 64.47, 14.76},
}

// PaperTable returns the paper's table for m (nil when it has none).
func PaperTable(m int) []PaperRow {
	switch m {
	case 5:
		return PaperTableI
	case 10:
		return PaperTableII
	}
	return nil
}
