// Package jsondiff describes how two JSON documents differ, field by
// field, for error messages (a parameter mismatch names the fields that
// differ instead of printing both documents).
package jsondiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Describe says how two JSON documents differ, field by field
// ("scenarios: 2 in A, 3 in B; n[1]: 10 in A, absent in B"), at most five
// differences; documents that do not decode are shown abbreviated.
func Describe(a, b []byte, aName, bName string) string {
	decode := func(b []byte) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v) == nil
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	if !okA || !okB {
		return fmt.Sprintf("%s in %s, %s in %s", abbrev(a), aName, abbrev(b), bName)
	}
	const show = 5
	var diffs []string
	more := 0
	show1 := func(v any, present bool) string {
		if !present {
			return "absent"
		}
		s, _ := json.Marshal(v)
		return abbrev(s)
	}
	var walk func(path string, x, y any, inX, inY bool)
	walk = func(path string, x, y any, inX, inY bool) {
		if mx, ok := x.(map[string]any); ok && inX && inY {
			if my, ok := y.(map[string]any); ok {
				keys := make([]string, 0, len(mx)+len(my))
				for k := range mx {
					keys = append(keys, k)
				}
				for k := range my {
					if _, dup := mx[k]; !dup {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				for _, k := range keys {
					p := k
					if path != "" {
						p = path + "." + k
					}
					vx, hx := mx[k]
					vy, hy := my[k]
					walk(p, vx, vy, hx, hy)
				}
				return
			}
		}
		if ax, ok := x.([]any); ok && inX && inY {
			if ay, ok := y.([]any); ok && len(ax) == len(ay) {
				for i := range ax {
					walk(fmt.Sprintf("%s[%d]", path, i), ax[i], ay[i], true, true)
				}
				return
			}
		}
		if inX == inY && reflect.DeepEqual(x, y) {
			return
		}
		if len(diffs) == show {
			more++
			return
		}
		name := path
		if name == "" {
			name = "the value"
		}
		diffs = append(diffs, fmt.Sprintf("%s: %s in %s, %s in %s", name, show1(x, inX), aName, show1(y, inY), bName))
	}
	walk("", va, vb, true, true)
	s := strings.Join(diffs, "; ")
	if more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

func abbrev(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
