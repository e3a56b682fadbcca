package campaign

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/volsched/volsched/trace"
)

// TestRunLabResumes: a laboratory figure run with an output directory
// writes its CSV, figure and points; a run with half of the points left
// recomputes the rest and gives the same figure and text.
func TestRunLabResumes(t *testing.T) {
	dir := t.TempDir()
	o := LabOptions{Figure: 3, Out: dir, Reps: 3, Seed: 5, Workers: 2, Algos: []string{"ea", "epb", "ppb"}, MovesPerHost: 1, Ms: []int{6, 8}}
	var text1 bytes.Buffer
	out1, err := RunLab(context.Background(), &text1, o)
	if err != nil {
		t.Fatal(err)
	}
	if out1.Figure.Name != "fig3" || len(out1.Figure.X) != 2 || len(out1.Figure.Series) != 6 || len(out1.Claims) == 0 {
		t.Fatalf("figure %+v, %d claims", out1.Figure, len(out1.Claims))
	}
	for _, p := range []string{out1.CSV, out1.SVG, out1.PNG, filepath.Join(dir, "fig3-points.jsonl")} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if !strings.Contains(text1.String(), "the paper's claims next to this run:") || !strings.Contains(text1.String(), "wrote "+out1.CSV) {
		t.Errorf("text:\n%s", text1.String())
	}
	if err := out1.Drawn.Validate(); err != nil {
		t.Errorf("the drawn figure: %v", err)
	}
	if !strings.Contains(out1.Drawn.Caption, "Seed 5.") || !strings.Contains(out1.Drawn.Caption, "3 instances per point") || !strings.Contains(out1.Drawn.FullCaption(), "only as a picture") {
		t.Errorf("caption %q", out1.Drawn.FullCaption())
	}
	pts := filepath.Join(dir, "fig3-points.jsonl")
	data, err := os.ReadFile(pts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != 6 { // header, 4 points, "" after the last newline
		t.Fatalf("points file of %d lines:\n%s", len(lines)-1, data)
	}
	if err := os.WriteFile(pts, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var text2 bytes.Buffer
	out2, err := RunLab(context.Background(), &text2, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out1, out2) || text1.String() != text2.String() {
		t.Errorf("the resumed run differs:\n%s\n---\n%s", text1.String(), text2.String())
	}
	o.Reps = 4
	if _, err := RunLab(context.Background(), &text2, o); err == nil || !strings.Contains(err.Error(), "reps = 3") {
		t.Errorf("another --reps on the same directory: %v", err)
	}
	// Without a directory nothing is written.
	out3, err := RunLab(context.Background(), &bytes.Buffer{}, LabOptions{Figure: 1, Reps: 2, Seed: 5, Workers: 1, Algos: []string{"ea"}, Step: 0.5})
	if err != nil || out3.CSV != "" || out3.SVG != "" || out3.PNG != "" || len(out3.Figure.X) != 3 {
		t.Errorf("without --out: %+v, %v", out3, err)
	}
}

// TestRunTraceUserTrace: Figure 4 on a user's trace names the study after
// the file, uses grid sizes from 10 % to 60 % of its hosts, adds SAB, and
// refuses a trace of too few hosts naming the file.
func TestRunTraceUserTrace(t *testing.T) {
	p, err := trace.PresetByName("ucb")
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.Generate(p, 3)
	var text bytes.Buffer
	outs, err := RunTrace(context.Background(), &text, TraceOptions{
		Lab:   LabOptions{Reps: 2, Seed: 1, Workers: 2, Algos: []string{"ea"}, MovesPerHost: 1},
		Trace: tr, TraceSource: "/some/where/mine.tab", TaskSize: 600,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 {
		t.Fatalf("%d figures, want 1", len(outs))
	}
	f := outs[0].Figure
	if f.Name != "fig4-mine" || !reflect.DeepEqual(f.X, []float64{8, 16, 24, 32, 40, 48}) || len(f.Series) != 2 || f.Series[1].Name != "SAB" {
		t.Errorf("figure %s, x %v, %d series", f.Name, f.X, len(f.Series))
	}
	if err := outs[0].Drawn.Validate(); err != nil {
		t.Errorf("the drawn figure: %v", err)
	}
	if strings.Contains(text.String(), "Table 1 of the paper") {
		t.Error("a user's trace printed the synthetic traces' Table 1")
	}
	tr.Nodes = tr.Nodes[:2]
	if _, err := RunTrace(context.Background(), &text, TraceOptions{Lab: LabOptions{Reps: 1, Algos: []string{"ea"}}, Trace: tr, TraceSource: "few.tab", TaskSize: 1}); err == nil || !strings.Contains(err.Error(), "few.tab: 2 hosts") {
		t.Errorf("2 hosts: %v", err)
	}
}

// TestSABNamedInAlgos: --algos may name SAB as the paper does. Figure 4
// runs it once, where the list puts it; the laboratory figures refuse it
// before computing or writing anything (it needs the hosts' ages).
func TestSABNamedInAlgos(t *testing.T) {
	p, err := trace.PresetByName("ucb")
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.Generate(p, 3)
	outs, err := RunTrace(context.Background(), io.Discard, TraceOptions{
		Lab:   LabOptions{Reps: 2, Seed: 1, Workers: 2, Algos: []string{"sab", "ea"}, MovesPerHost: 1},
		Trace: tr, TraceSource: "mine.tab", TaskSize: 600,
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range outs[0].Figure.Series {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, []string{"SAB", "EA"}) {
		t.Errorf("figure 4 with --algos sab,ea: series %v, want [SAB EA]", names)
	}

	dir := filepath.Join(t.TempDir(), "out")
	_, err = RunLab(context.Background(), io.Discard, LabOptions{Figure: 1, Out: dir, Reps: 1, Workers: 1, Algos: []string{"ea", "sab"}, Step: 0.5})
	if err == nil || !strings.Contains(err.Error(), `"sab"`) {
		t.Errorf("figure 1 with sab: %v, want SAB refused", err)
	}
	if _, statErr := os.Stat(dir); statErr == nil {
		t.Errorf("the refused figure created %s", dir)
	}
	for _, o := range []TraceOptions{
		{Lab: LabOptions{Reps: 1, Algos: []string{"ea"}}, SABC: math.NaN()},
		{Lab: LabOptions{Reps: 1, Algos: []string{"ea"}}, Trace: tr, TaskSize: math.Inf(1)},
		{Lab: LabOptions{Reps: 0, Algos: []string{"ea"}}},
	} {
		if err := o.Validate(); err == nil {
			t.Errorf("TraceOptions %+v: no error", o.Lab)
		}
	}
}
