package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpRedundantResumesFigure(t *testing.T) {
	dir := t.TempDir()
	args := []string{"exp", "redundant", "--figure", "3", "--ms", "6,8", "--reps", "3", "--algos", "ea,gls", "--out", dir}
	out1, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "fig3-points.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 5 { // header + 2 R0 × 2 m
		t.Fatalf("points file has %d lines:\n%s", n, data)
	}
	// Drop the last two points as if the run had been interrupted, and run again.
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(filepath.Join(dir, "fig3-points.jsonl"), []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out2, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if out1 != out2 {
		t.Errorf("resumed run printed a different figure:\n%s\n---\n%s", out1, out2)
	}
	_, errOut, code = runCLI(t, "", "exp", "redundant", "--figure", "3", "--ms", "6,8", "--reps", "4", "--algos", "ea,gls", "--out", dir)
	if code == 0 || !strings.Contains(errOut, "reps = 3") {
		t.Errorf("changed --reps on the same --out: exit %d, %s", code, errOut)
	}
}
