// Package jsonnum is the project's convention for numbers in JSON output
// (docs/design.md, "Numbers in JSON"): JSON has no NaN or infinity, so a
// number that is not finite is written as null, and the field's
// documentation says what null means there (+Inf for an expectation that
// diverges, -Inf for the logarithm of 0, undefined for a statistic without
// data). Negative zero is written as 0. Reading null back gives NaN.
package jsonnum

import (
	"bytes"
	"encoding/json"
	"math"
)

// Float is a float64 that marshals by the convention.
type Float float64

// MarshalJSON writes null for NaN and ±Inf, 0 for -0, and otherwise what
// encoding/json writes for a float64.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	if v == 0 {
		v = 0 // -0 → 0
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Floats converts a slice.
func Floats(v []float64) []Float {
	if v == nil {
		return nil
	}
	out := make([]Float, len(v))
	for i, x := range v {
		out[i] = Float(x)
	}
	return out
}
