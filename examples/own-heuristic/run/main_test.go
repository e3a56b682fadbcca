package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestRun: the example's program runs GUARD* through the slot simulator
// (its schedule passes slotsim.Check, which run verifies) and GUARD* and
// IE+IP through simulate's engine on the what-if example's platform.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, "../../whatif", 4); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`GUARD\* makespan \d+ slots \(schedule checked: \d+ events\)`),
		regexp.MustCompile(`(?m)^GUARD\* +\d+\.\d`),      // a row of the independent report
		regexp.MustCompile(`(?m)^IE\+IP +\d+\.\d`),       // a row of the coupled report
		regexp.MustCompile(`shared by the 5 heuristics`), // both runs
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("output lacks %v:\n%s", want, out.String())
		}
	}
}
