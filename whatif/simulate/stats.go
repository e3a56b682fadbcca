package simulate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/volsched/volsched/internal/stats"
)

// Level is the confidence level of every interval.
const Level = 0.95

// Stats are one heuristic's makespans over the trials, in slots.
type Stats struct {
	Name string `json:"name"`
	// Mean and its 95 % confidence interval (Student's t with trials − 1
	// degrees of freedom: mean ± t·s/√n).
	Mean float64    `json:"mean"`
	CI   [2]float64 `json:"ci95"`
	SD   float64    `json:"sd"`
	// Median and P90 are the 0.5 and 0.9 quantiles (linear interpolation
	// between order statistics: x[(n−1)p], R's type 7).
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
	// DiffToBest is the mean over trials of (this heuristic's makespan −
	// the best heuristic's) on the same trial, with its paired 95 %
	// interval (t with trials − 1 degrees of freedom over the per-trial
	// differences). Significant is true when the interval lies above 0.
	DiffToBest  float64    `json:"diff_to_best"`
	DiffCI      [2]float64 `json:"diff_ci95"`
	Significant bool       `json:"significant"`
	// Failures counts the trials where the run hit the simulator's slot
	// limit (its makespan is then the limit); 0 for independent tasks.
	Failures int `json:"failures"`
	// Predicted is the model's estimate (only with Options.Predict).
	Predicted *float64 `json:"predicted,omitempty"`
	// Makespans are the makespans, trial by trial.
	Makespans []int `json:"makespans"`
}

// Summary is the comparison of the heuristics over the same trials.
type Summary struct {
	// Heuristics sorted by mean makespan (ties: in the order given).
	Heuristics []Stats `json:"heuristics"`
	Trials     int     `json:"trials"`
	// Best is the heuristic of lowest mean makespan; Tied are the others
	// whose paired difference to it is not significant at 95 %.
	Best string   `json:"best"`
	Tied []string `json:"tied_with_best"`
	// Recommendation says which heuristic to use and, when it is not
	// significantly better than some others, which.
	Recommendation string `json:"recommendation"`
}

// tQuantile is the 97.5 % quantile of Student's t with df degrees of
// freedom.
func tQuantile(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.5 + Level/2)
}

// meanCI is the mean of x, its 95 % t interval and the sample standard
// deviation (n ≥ 2).
func meanCI(x []float64) (mean float64, ci [2]float64, sd float64) {
	m := stats.Of(x)
	mean, sd = m.Mean, m.SampleSD()
	h := tQuantile(len(x)-1) * sd / math.Sqrt(float64(len(x)))
	return mean, [2]float64{mean - h, mean + h}, sd
}

// Quantile is the p-quantile of sorted (linear interpolation between order
// statistics, R's type 7).
func Quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// Summarize compares heuristics run on the same trials: makespans[t][h] is
// heuristic names[h]'s makespan on trial t (failed[t][h], when failed is
// not nil, marks runs that hit the slot limit). It needs at least 2
// trials (an interval needs a variance).
func Summarize(names []string, makespans [][]int, failed [][]bool, slotSeconds float64) (Summary, error) {
	n := len(makespans)
	if n < 2 {
		return Summary{}, fmt.Errorf("summary of %d trials: want at least 2 (a confidence interval needs a variance)", n)
	}
	k := len(names)
	if k == 0 {
		return Summary{}, fmt.Errorf("summary: no heuristic")
	}
	st := make([]Stats, k)
	x := make([]float64, n)
	for h := range names {
		st[h].Name = names[h]
		st[h].Makespans = make([]int, n)
		for t := range makespans {
			if len(makespans[t]) != k {
				return Summary{}, fmt.Errorf("summary: trial %d has %d makespans for %d heuristics", t, len(makespans[t]), k)
			}
			st[h].Makespans[t] = makespans[t][h]
			x[t] = float64(makespans[t][h])
			if failed != nil && failed[t][h] {
				st[h].Failures++
			}
		}
		st[h].Mean, st[h].CI, st[h].SD = meanCI(x)
		slices.Sort(x)
		st[h].Median, st[h].P90 = Quantile(x, 0.5), Quantile(x, 0.9)
		st[h].Min, st[h].Max = int(x[0]), int(x[n-1])
	}
	best := 0
	for h := range st {
		if st[h].Mean < st[best].Mean {
			best = h
		}
	}
	s := Summary{Trials: n, Best: names[best], Tied: []string{}}
	for h := range st {
		if h == best {
			continue
		}
		for t := range makespans {
			x[t] = float64(makespans[t][h] - makespans[t][best])
		}
		m, ci, sd := meanCI(x)
		if sd == 0 { // every trial gives the same difference: exact
			ci = [2]float64{m, m}
		}
		st[h].DiffToBest, st[h].DiffCI = m, ci
		st[h].Significant = ci[0] > 0
	}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case a == best:
			return -1
		case b == best:
			return 1
		}
		if c := cmpFloat(st[a].Mean, st[b].Mean); c != 0 {
			return c
		}
		return a - b
	})
	for _, h := range order {
		s.Heuristics = append(s.Heuristics, st[h])
		if h != best && !st[h].Significant {
			s.Tied = append(s.Tied, names[h])
		}
	}
	s.Recommendation = recommend(s, st[best], slotSeconds)
	return s, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// recommend words the recommendation.
func recommend(s Summary, best Stats, slotSeconds float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Use %s: the lowest mean makespan, %.1f slots", best.Name, best.Mean)
	if slotSeconds > 0 {
		fmt.Fprintf(&b, " (%s)", Duration(best.Mean*slotSeconds))
	}
	fmt.Fprintf(&b, ", 95 %% CI [%.1f, %.1f].", best.CI[0], best.CI[1])
	others := len(s.Heuristics) - 1
	switch {
	case others == 0:
	case len(s.Tied) == 0:
		fmt.Fprintf(&b, " It is significantly better than every other heuristic over %d trials (the paired 95 %% intervals of the differences lie above 0).", s.Trials)
	case len(s.Tied) == others:
		fmt.Fprintf(&b, " But no difference to it is significant over %d trials (every paired 95 %% interval includes 0): %s are as good as far as these trials tell; more trials (--trials) may separate them.", s.Trials, strings.Join(s.Tied, ", "))
	default:
		what, verb, pron := "The difference to", "is", "it is"
		if len(s.Tied) > 1 {
			what, verb, pron = "The differences to", "are", "they are"
		}
		rest := others - len(s.Tied)
		worse := fmt.Sprintf("The other %d heuristics are significantly worse.", rest)
		if rest == 1 {
			worse = "The other heuristic is significantly worse."
		}
		fmt.Fprintf(&b, " %s %s %s not significant over %d trials (paired 95 %% intervals include 0): %s as good as far as these trials tell, and more trials (--trials) may separate them. %s",
			what, strings.Join(s.Tied, ", "), verb, s.Trials, pron, worse)
	}
	if best.Failures > 0 {
		fmt.Fprintf(&b, " Warning: %d of its %d runs hit the slot limit (counted at the limit).", best.Failures, s.Trials)
	}
	return b.String()
}

// Duration writes seconds as a readable duration: "45 s", "12.5 min",
// "3.20 h", "2.1 days".
func Duration(sec float64) string {
	switch {
	case sec < 60:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 3600:
		return fmt.Sprintf("%.1f min", sec/60)
	case sec < 2*86400:
		return fmt.Sprintf("%.2f h", sec/3600)
	}
	return fmt.Sprintf("%.1f days", sec/86400)
}
