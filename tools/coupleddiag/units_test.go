package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCommands runs each command on a small unit of the paper's campaign:
// time-unit lists the 17 heuristics, with the same makespans whether they
// are simulated together or one by one on the replayed availability;
// trace-unit accounts for every slot of each iteration; random-beyond-cap
// prints one line per unit; bad units are refused.
func TestCommands(t *testing.T) {
	ctx := context.Background()
	makespans := func(args ...string) map[string]string {
		var b bytes.Buffer
		if err := timeUnit(ctx, &b, args); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^(\S+)\s+makespan\s+(\d+)`).FindAllStringSubmatch(b.String(), -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	together := makespans("--unit", "5", "--cap", "20000")
	separate := makespans("--unit", "5", "--cap", "20000", "--separate")
	if len(together) != 17 {
		t.Fatalf("time-unit listed %d heuristics, want 17: %v", len(together), together)
	}
	for h, m := range together {
		if separate[h] != m {
			t.Errorf("%s: makespan %s together, %s alone", h, m, separate[h])
		}
	}

	var b bytes.Buffer
	if err := traceUnit(ctx, &b, []string{"--unit", "5", "--cap", "20000", "--heuristics", "IE"}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`iteration slots\s+(\d+)-\s*(\d+): none\s+(\d+) comm\s+(\d+) compute\s+(\d+) idle/suspended\s+(\d+)`)
	its := re.FindAllStringSubmatch(b.String(), -1)
	if len(its) == 0 {
		t.Fatalf("trace-unit printed no iteration:\n%s", b.String())
	}
	for _, m := range its {
		var v [6]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		if v[1]-v[0]+1 != v[2]+v[3]+v[4]+v[5] {
			t.Errorf("iteration %s: the slots do not add up", m[0])
		}
	}
	if !strings.Contains(b.String(), "IE: makespan "+together["IE"]+",") {
		t.Errorf("trace-unit's IE makespan differs from time-unit's %s", together["IE"])
	}

	b.Reset()
	if err := randomBeyondCap(ctx, &b, []string{"--cap", "20000", "--units", "5,6", "--trials", "2"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "RANDOM makespans ["); n != 2 {
		t.Errorf("random-beyond-cap printed %d units, want 2:\n%s", n, b.String())
	}
	for _, args := range [][]string{{"--unit", "600"}, {"--unit", "5", "--cap", "-1"}} {
		if err := timeUnit(ctx, &b, args); err == nil {
			t.Errorf("time-unit %v: no error", args)
		}
	}
}
