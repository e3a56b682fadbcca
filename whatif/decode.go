package whatif

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/internal/jsonin"
)

// decodeStrict decodes one JSON object into v by the rules of the
// project's JSON inputs (internal/jsonin: a byte-order mark skipped;
// unknown fields, duplicate keys, trailing data, NaN and anything but an
// object refused, with the field named). where names the object in errors
// ("platform.json", "platform.json: workers[3]"); syntax errors carry
// their line and column in data.
func decodeStrict(data []byte, v any, where string) error {
	return jsonin.Decode(data, v, where)
}

// checkRange checks that a number read from a file is finite and in
// [lo, hi] (lo excluded when loOpen). JSON cannot carry NaN or ±Inf, and
// encoding/json refuses numbers that overflow float64, but the check keeps
// values built in Go honest too.
func checkRange(where, field string, v, lo, hi float64, loOpen bool, want string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v > hi || v < lo || (loOpen && v == lo) {
		return fmt.Errorf("%s: %s = %v, want %s", where, field, v, want)
	}
	return nil
}

func checkInt(where, field string, v, lo, hi int, want string) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %s = %d, want %s", where, field, v, want)
	}
	return nil
}
