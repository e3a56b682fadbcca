package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLabPointsResume(t *testing.T) {
	dir := t.TempDir()
	h := labPointsHeader{Figure: 3, Seed: 7, Reps: 20, Algos: []string{"ea", "ppb"}, MovesPerHost: 0}
	s, err := openLabPoints(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("a", []float64{0.1, 0.2}, []float64{0.01, 0.02}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("b", []float64{0.3, 0.4}, []float64{0.03, 0.04}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// An interruption tore a third line.
	path := filepath.Join(dir, "fig3-points.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"c","mean":[0.5`)
	f.Close()

	s, err = openLabPoints(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if m, _, ok := s.Get("b"); !ok || m[1] != 0.4 {
		t.Errorf("point b not kept: %v %v", m, ok)
	}
	if _, _, ok := s.Get("c"); ok {
		t.Error("torn point c was kept")
	}
	if err := s.Put("c", []float64{0.5, 0.6}, []float64{0, 0}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 4 {
		t.Errorf("file has %d lines, want header + 3 points:\n%s", n, data)
	}

	// Another configuration is refused, naming the field.
	h2 := h
	h2.Reps = 2000
	if _, err := openLabPoints(dir, h2); err == nil || !strings.Contains(err.Error(), "reps = 20") {
		t.Errorf("changed reps: %v", err)
	}
}

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
