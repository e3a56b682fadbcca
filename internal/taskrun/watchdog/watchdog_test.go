package watchdog

import (
	"slices"
	"testing"
)

// TestJoinSplit: any fields (spaces, quotes, newlines, empty, not UTF-8)
// survive a protocol line; a line that is not quoted fields is refused.
func TestJoinSplit(t *testing.T) {
	for _, f := range [][]string{
		{"start", "1", "", "a b", `"q"`, "line\nbreak", "\xff\x00", "é"},
		{"kill", "12"},
	} {
		line := Join(f...)
		got, ok := Split(line)
		if !ok || !slices.Equal(got, f) {
			t.Errorf("Split(Join(%q)) = %q, %v", f, got, ok)
		}
		for _, c := range line {
			if c == '\n' {
				t.Errorf("Join(%q) holds a newline", f)
			}
		}
	}
	for _, bad := range []string{`start 1`, `"open`, `"a"b`} {
		if f, ok := Split(bad); ok {
			t.Errorf("Split(%q) = %q, accepted", bad, f)
		}
	}
}
