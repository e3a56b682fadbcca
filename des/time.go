// Package des is the discrete-event engine of volsched's event-driven
// simulators: simulated time in integer nanoseconds, a typed event queue (a
// 4-ary heap of values, no interface boxing, no goroutine per simulated
// node), a loop that pops events in time order, and a network model (end-to-
// end links with bandwidth and Pareto-distributed delay, per-message
// processing cost, task execution at a node's power).
//
// Everything is deterministic: two events at the same instant are delivered
// in the order they were scheduled, every random draw comes from a stream
// the caller derives with stream.New, and the simulated clock never reads
// the wall clock.
package des

import (
	"fmt"
	"math"
	"time"
)

// Time is simulated time in nanoseconds since the start of a run. int64
// covers 292 years, far beyond any experiment of seed 004 (60 h).
type Time int64

// Units of simulated time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
	Hour             = 60 * Minute
	Day              = 24 * Hour
	// Never is a time after every event; it marks "not scheduled".
	Never Time = math.MaxInt64
)

// MaxSeconds is the longest duration, in seconds, that Time represents
// before Never (about 292 years). Readers of user data refuse durations
// above it: they would saturate.
const MaxSeconds = float64(Never) / 1e9

// Seconds converts a duration in seconds to Time, rounding to the nearest
// nanosecond and saturating at Never (and at -Never for very negative
// values). NaN converts to Never.
func Seconds(s float64) Time {
	ns := s * 1e9
	switch {
	case math.IsNaN(ns) || ns >= float64(math.MaxInt64):
		return Never
	case ns <= -float64(math.MaxInt64):
		return -Never
	}
	return Time(math.Round(ns))
}

// CeilSeconds converts a duration in seconds to Time, rounding up to the
// next nanosecond and saturating at Never (NaN and +Inf too; a very
// negative value gives -Never). A conversion with Time(…) instead wraps
// around for values beyond the range: a time far in the future would
// become one in the past.
func CeilSeconds(s float64) Time {
	ns := math.Ceil(s * 1e9)
	switch {
	case math.IsNaN(ns) || ns >= float64(math.MaxInt64):
		return Never
	case ns <= -float64(math.MaxInt64):
		return -Never
	}
	return Time(ns)
}

// Add returns t + d saturated at Never (and at -Never): a time that does
// not fit is never reached, not wrapped around into the past.
func Add(t, d Time) Time {
	s := t + d
	switch {
	case d > 0 && s < t:
		return Never
	case d < 0 && s > t:
		return -Never
	}
	return s
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// Duration converts t to a time.Duration (same unit).
func (t Time) Duration() time.Duration { return time.Duration(t) }

// String formats t like a time.Duration ("1h2m3.5s"); Never prints "never".
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	return time.Duration(t).String()
}

// ExecTime is the time a task of length mi (millions of instructions)
// takes on a node of power mips (millions of instructions per second). It
// returns an error for a non-positive power or a negative or non-finite
// length.
func ExecTime(mi, mips float64) (Time, error) {
	if !(mips > 0) || math.IsInf(mips, 0) {
		return 0, fmt.Errorf("node power %g MIPS: want a finite value > 0", mips)
	}
	if !(mi >= 0) || math.IsInf(mi, 0) {
		return 0, fmt.Errorf("task length %g MI: want a finite value >= 0", mi)
	}
	return Seconds(mi / mips), nil
}
