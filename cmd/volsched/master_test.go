package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMasterRefusesBadFlags: each bad flag of volsched master is refused
// before anything starts (exit 2, a message naming the flag and what is
// wanted), with a valid application.
func TestMasterRefusesBadFlags(t *testing.T) {
	app := filepath.Join("..", "..", "examples", "jacobi")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--ncom", "0"}, "--ncom 0: want ≥ 1"},
		{[]string{"--slot", "-1s"}, "want positive durations"},
		{[]string{"--heartbeat", "0s"}, "want positive durations"},
		{[]string{"--down-after", "1ns"}, "--down-after 1ns: want more than --heartbeat"},
		{[]string{"--rate", "-3"}, "--rate -3: want ≥ 0"},
		{[]string{"--replicas", "65"}, "--replicas 65: want 0..64"},
		{[]string{"--heuristic", "FOO"}, `heuristic "FOO"`},
	}
	for _, c := range cases {
		args := append([]string{"master", "--app", app, "--state", filepath.Join(t.TempDir(), "s"), "--listen", "127.0.0.1:0"}, c.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
