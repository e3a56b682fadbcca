// Package regname is what the tables of registered things (the heuristics
// of package iterative and of package coupled) share about names: which
// names are allowed, and the label of a random stream derived from a name.
package regname

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// MaxLen is the longest name, in bytes.
const MaxLen = 32

// Check refuses a name that is empty, longer than MaxLen or has a
// character other than letters, digits and "*+-_." (names appear in
// comma-separated lists, CSV headers and file names); what says what is
// named ("heuristic").
func Check(what, name string) error {
	if n := len(name); n == 0 || n > MaxLen {
		return fmt.Errorf("%s %q: a name of %d bytes, want 1 to %d", what, name, n, MaxLen)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("*+-_.", c)) {
			return fmt.Errorf("%s %q: character %q in the name, want letters, digits or *+-_.", what, name, c)
		}
	}
	return nil
}

// CheckLine refuses a text that is empty or has more than one line (a
// description in a listing); field names it.
func CheckLine(what, name, field, text string) error {
	if strings.TrimSpace(text) == "" || strings.ContainsAny(text, "\r\n") {
		return fmt.Errorf("%s %q: %s %q, want one non-empty line", what, name, field, text)
	}
	return nil
}

// Label is the random-stream label of a registered thing that has no
// historical one: 2^32 plus the 32-bit FNV-1a hash of its name. It depends
// on the name only (not on the order of registration) and is never a small
// number (the historical labels are positions in a paper's list).
func Label(name string) uint64 {
	f := fnv.New32a()
	f.Write([]byte(name))
	return 1<<32 | uint64(f.Sum32())
}
