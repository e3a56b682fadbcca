package simulate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/iterative"
)

var update = flag.Bool("update", false, "rewrite the generated list of heuristics in docs/whatif.md")

// The generated part of docs/whatif.md lies between these lines.
const (
	docBegin = "<!-- The tables below are WriteHeuristics of the built-in heuristics: go test ./whatif/simulate -run TestHeuristicsDoc -update rewrites them. -->\n"
	docEnd   = "<!-- End of the generated tables. -->\n"
)

// TestHeuristicsDoc: docs/whatif.md explains every built-in heuristic of
// both models with the listing of `volsched simulate --list-heuristics`,
// generated from the registrations, so that the two cannot drift.
func TestHeuristicsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "whatif.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteHeuristics(&want, IterativeInfo(iterative.Paper()), CoupledInfo(coupled.Paper()), true); err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), docBegin)
	got, after, ok2 := strings.Cut(rest, docEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no generated list of heuristics (between %q and %q)", path, docBegin, docEnd)
	}
	got = strings.TrimPrefix(got, "\n")
	if got == want.String() {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+docBegin+"\n"+want.String()+docEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the list of heuristics differs from their registrations (go test ./whatif/simulate -run TestHeuristicsDoc -update rewrites it); want:\n%s", path, want.String())
}

// TestHeuristicsListing: the text listing has a row per heuristic of each
// model, with its description.
func TestHeuristicsListing(t *testing.T) {
	var b strings.Builder
	if err := WriteHeuristics(&b, IterativeInfo(iterative.Heuristics()), CoupledInfo(coupled.Heuristics()), false); err != nil {
		t.Fatal(err)
	}
	for _, h := range iterative.Heuristics() {
		if !strings.Contains(b.String(), h.Description()) {
			t.Errorf("listing without %s: %q", h, h.Description())
		}
	}
	for _, h := range coupled.Heuristics() {
		if !strings.Contains(b.String(), h.Description) {
			t.Errorf("listing without %s: %q", h.Name, h.Description)
		}
	}
	if n := strings.Count(b.String(), "\n"); n != 2+len(iterative.Heuristics())+1+2+len(coupled.Heuristics()) {
		t.Errorf("%d lines:\n%s", n, b.String())
	}
}
