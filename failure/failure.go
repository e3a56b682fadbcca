// Package failure holds the node-failure models of seed 004 §7.5 as data a
// simulation driver applies: churn (every node's sessions end after a
// random time with a given median; a failed node is replaced at once by a
// new one, so the network keeps its size) and catastrophic failures (a
// fraction of the nodes failing at one instant).
//
// Failures are common random numbers: they depend only on the seed and the
// node, never on what the scheduler does, so runs of different policies
// with the same seed see the same failures.
package failure

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/stream"
)

// Churn is continuous node arrival and departure, characterized as in Rhea
// et al. (the paper's reference [61]) by the median session time. Session
// times are exponential with that median (mean = median/ln 2), the model
// of Rhea et al.'s churn emulation; the paper does not name the
// distribution. A zero Median means no churn.
type Churn struct {
	Median des.Time `json:"median_ns"`
}

// Enabled reports whether the model produces failures.
func (c Churn) Enabled() bool { return c.Median > 0 }

const labelChurn = 0x636875726e // "churn"

// Session returns the length of session k (0, 1, ...) of node: the k-th
// replacement of the node fails Session(seed, node, k) after it joined.
// It is a pure function of its arguments (no per-node generator to keep).
func (c Churn) Session(seed uint64, node int32, k uint32) des.Time {
	hi, _ := stream.Key(seed, labelChurn, uint64(node), uint64(k))
	u := (float64(hi>>11) + 0.5) * 0x1p-53 // (0, 1)
	x := -math.Log(u) / math.Ln2 * float64(c.Median)
	if x >= float64(des.Never) {
		return des.Never // a session beyond the representable range never ends
	}
	t := des.Time(x)
	if t < 1 {
		t = 1
	}
	return t
}

// MinChurnMedian is the shortest median session time accepted (1 s; the
// paper's shortest is 5 min). Shorter medians make every node fail
// millions of times per simulated second: the run makes no progress while
// its event queue grows without bound.
const MinChurnMedian = des.Second

// MaxChurnMedian is the longest median session time accepted (a year; a
// session lasts at most 54 medians, which must fit the simulated clock).
const MaxChurnMedian = 365 * des.Day

// ParseChurn reads a median session time: a Go duration ("5m", "1h") or a
// number of minutes ("60"). "", "0" or any zero duration ("0s") disables
// churn; otherwise the median must be at least MinChurnMedian.
func ParseChurn(s string) (Churn, error) {
	if s == "" {
		return Churn{}, nil
	}
	d, err := parseDuration(s, time.Minute)
	if err == nil && d == 0 {
		return Churn{}, nil
	}
	if err != nil || d < MinChurnMedian || d > MaxChurnMedian {
		return Churn{}, fmt.Errorf("churn median session time %q: want 0 (no churn) or a duration from %v to %v such as 5m or 1h, or minutes", s, MinChurnMedian.Duration(), MaxChurnMedian.Duration())
	}
	return Churn{Median: d}, nil
}

// Catastrophe is the simultaneous failure of Fraction of the nodes at time
// At; the failed nodes are replaced at once, like churn.
type Catastrophe struct {
	Fraction float64  `json:"fraction"`
	At       des.Time `json:"at_ns"`
}

// Enabled reports whether a catastrophe happens.
func (c Catastrophe) Enabled() bool { return c.Fraction > 0 }

// Validate checks the parameters.
func (c Catastrophe) Validate() error {
	if !(c.Fraction >= 0 && c.Fraction <= 1) {
		return fmt.Errorf("catastrophic failure fraction %g: want a value in [0, 1]", c.Fraction)
	}
	if c.At < 0 {
		return fmt.Errorf("catastrophic failure time %v: want >= 0", c.At)
	}
	return nil
}

const labelCatastrophe = 0x636174 // "cat"

// Victims returns the nodes (out of n) that fail, round(Fraction·n) of
// them chosen uniformly at random from the seed, in increasing order.
func (c Catastrophe) Victims(seed uint64, n int) []int32 {
	k := int(math.Round(c.Fraction * float64(n)))
	if k <= 0 || n <= 0 {
		return nil
	}
	if k > n {
		k = n
	}
	rng := stream.New(seed, labelCatastrophe)
	// Floyd's algorithm: k distinct values without an n-sized array.
	chosen := make(map[int32]struct{}, k)
	out := make([]int32, 0, k)
	for j := n - k; j < n; j++ {
		t := int32(rng.IntN(j + 1))
		if _, dup := chosen[t]; dup {
			t = int32(j)
		}
		chosen[t] = struct{}{}
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// ParseCatastrophe reads FRACTION@TIME: a fraction in [0, 1] or a
// percentage ("0.2", "20%"), then a Go duration or hours ("24h", "24").
func ParseCatastrophe(s string) (Catastrophe, error) {
	frac, at, ok := strings.Cut(s, "@")
	if !ok {
		return Catastrophe{}, fmt.Errorf("catastrophic failure %q: want FRACTION@TIME such as 0.2@24h or 20%%@24h", s)
	}
	var f float64
	var err error
	if p, isPct := strings.CutSuffix(frac, "%"); isPct {
		f, err = strconv.ParseFloat(p, 64)
		f /= 100
	} else {
		f, err = strconv.ParseFloat(frac, 64)
	}
	if err != nil || !(f > 0 && f <= 1) {
		return Catastrophe{}, fmt.Errorf("catastrophic failure fraction %q: want a value in (0, 1] or a percentage in (0%%, 100%%]", frac)
	}
	t, err := parseDuration(at, time.Hour)
	if err != nil || t < 0 {
		return Catastrophe{}, fmt.Errorf("catastrophic failure time %q: want a duration >= 0 such as 24h, or hours", at)
	}
	return Catastrophe{Fraction: f, At: t}, nil
}

// parseDuration reads a Go duration, or a bare number in unit.
func parseDuration(s string, unit time.Duration) (des.Time, error) {
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x*float64(unit)) > 9e18 {
			return 0, fmt.Errorf("out of range")
		}
		return des.Time(x * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return des.Time(d), nil
}
