package campaign

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/trace"
)

// output reports f like a run does, without files.
func output(t *testing.T, f redundant.Figure) Output {
	t.Helper()
	o, err := Report(io.Discard, f, "")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// handResult is a result with hand-made numbers: Figure 2 with Table 2's
// values of docs/reproduction-003.md at µ = 0.6 (PPB over EA +62 %, far
// from the paper's +22 %), Figure 3 with PPB over EA +22.5 % (close to
// +24 %), Figure 4 on the synthetic UCB trace and on a user's trace.
func handResult(t *testing.T) *Result {
	t.Helper()
	fig2 := redundant.Figure{Name: "fig2", Title: "Figure 2: 9 tasks on 37 hosts", XLabel: "µ", YLabel: "success probability",
		Caption: "Seed 1. test.", X: []float64{0.4, 0.6}, Series: []redundant.Series{
			{Name: "EA σ=0.3", Y: []float64{0.763, 0.353}, SE: []float64{0.01, 0.01}},
			{Name: "EPB σ=0.3", Y: []float64{0.911, 0.570}, SE: []float64{0.01, 0.01}},
			{Name: "PPB σ=0.3", Y: []float64{0.912, 0.573}, SE: []float64{0.01, 0.01}},
		}}
	fig3 := redundant.Figure{Name: "fig3", Title: "Figure 3: n/m reachable", XLabel: "m (hosts)", YLabel: "n/m",
		Caption: "Seed 1. test.", X: []float64{10, 40}, Series: []redundant.Series{
			{Name: "EA R0=0.4", Y: []float64{0.4, 0.2}, SE: []float64{0, 0}},
			{Name: "EPB R0=0.4", Y: []float64{0.47, 0.235}, SE: []float64{0, 0}},
			{Name: "PPB R0=0.4", Y: []float64{0.49, 0.245}, SE: []float64{0, 0}},
		}}
	fig4 := func(name string) redundant.Figure {
		return redundant.Figure{Name: "fig4-" + name, Title: "Figure 4 (" + name + ")", XLabel: "m (hosts)", YLabel: "success frequency",
			Caption: "Seed 1. Trace " + name + ".", X: []float64{5, 10}, Series: []redundant.Series{
				{Name: "EA", Y: []float64{0.4, 0.15}, SE: []float64{0.02, 0.02}},
				{Name: "PPB", Y: []float64{0.6, 0.35}, SE: []float64{0.02, 0.02}},
			}}
	}
	ucb, mine := output(t, fig4("ucb")), output(t, fig4("mytrace"))
	ucb.Fit = &trace.Fit{Name: "lognormal", Params: []float64{16.517, 2.480}}
	ucb.Hosts = 80
	mine.Fit = &trace.Fit{Name: "lognormal", Params: []float64{10, 1}}
	mine.Hosts = 12
	return &Result{Seed: 1, Quick: true, Figures: []Output{output(t, fig2), output(t, fig3), ucb, mine}}
}

// TestSection: the claims table holds the paper's relative gains beside
// ours and classifies them; the qualitative claims are in its note;
// Table 1 compares the fit of the synthetic UCB trace with the paper's (a
// user's trace has no published fit); every figure is drawn, marked as a
// picture in the paper; the page is written and checked.
func TestSection(t *testing.T) {
	s := handResult(t).Section()
	if s.Paper != reproduction.RedundantPaper || !strings.Contains(s.Reproduced, "Seed 1; the reduced version") {
		t.Errorf("paper %+v, reproduced %q", s.Paper, s.Reproduced)
	}
	if len(s.Tables) != 2 || s.Tables[0].ID != "claims" || s.Tables[1].ID != "table1" {
		t.Fatalf("tables %+v, want the claims and Table 1", s.Tables)
	}
	claims := s.Tables[0]
	want := []struct {
		label       string
		paper, ours float64
		class       string
	}{
		{"Figure 2: µ=0.6: PPB over EPB", 9, 100 * (0.573/0.570 - 1), report.ClassFar},
		{"Figure 2: µ=0.6: PPB over EA", 22, 100 * (0.573/0.353 - 1), report.ClassFar},
		{"Figure 3: R0=0.4: application scale of PPB over EA (mean over m)", 24, 22.5, report.ClassClose},
		{"Figure 3: R0=0.4: application scale of EPB over EA (mean over m)", 17, 17.5, report.ClassClose},
	}
	if len(claims.Rows) != len(want) {
		t.Fatalf("claims rows %+v, want %d", claims.Rows, len(want))
	}
	for i, w := range want {
		r := claims.Rows[i]
		c := r.Cells[0]
		if r.Label != w.label || c.Paper != w.paper || math.Abs(c.Ours-w.ours) > 1e-9 {
			t.Errorf("row %d: %q paper %v ours %v, want %q %v %v", i, r.Label, c.Paper, c.Ours, w.label, w.paper, w.ours)
		}
		if got := report.Classify(c.Ours, c.Paper, claims.Columns[0].Tol); got != w.class {
			t.Errorf("row %q: %s, want %s", r.Label, got, w.class)
		}
	}
	if !strings.Contains(claims.Note, "0.3 ≤ µ ≤ 0.75: EPB over EA") || !strings.Contains(claims.Note, "the paper says > +5 %") {
		t.Errorf("the qualitative claim of Figure 2 is not in the note: %q", claims.Note)
	}
	fits := s.Tables[1]
	if len(fits.Rows) != 1 || fits.Rows[0].Label != "ucb" {
		t.Fatalf("Table 1 rows %+v, want ucb only (the user's trace has no published fit)", fits.Rows)
	}
	c := fits.Rows[0].Cells
	if c[0].Ours != 16.517 || c[0].Paper != 16.42 || c[1].Ours != 2.480 || c[1].Paper != 2.419 || c[2].Ours != 80 || c[2].Paper != 80 {
		t.Errorf("Table 1 ucb %+v", c)
	}
	if report.Classify(81, 80, fits.Columns[2].Tol) != report.ClassNear {
		t.Errorf("hosts: 81 for 80 is not near but %s (the generator keeps the paper's hosts)", report.Classify(81, 80, fits.Columns[2].Tol))
	}
	ids := []string{"fig2", "fig3", "fig4-ucb", "fig4-mytrace"}
	if len(s.Figures) != len(ids) {
		t.Fatalf("%d figures, want %d", len(s.Figures), len(ids))
	}
	for i, f := range s.Figures {
		if f.ID != ids[i] || f.Figure == nil || f.Figure.Paper != figure.PaperPicture {
			t.Errorf("figure %d: %q %+v", i, f.ID, f.Figure)
			continue
		}
		if err := f.Figure.Validate(); err != nil {
			t.Errorf("figure %s: %v", f.ID, err)
		}
	}
	if len(s.Runs) != 4 || !strings.Contains(s.Runs[1].Command, "--figure 1 --step 0.1 --reps 2000") {
		t.Errorf("runs %+v", s.Runs)
	}
	dir := t.TempDir()
	file, err := reproduction.Write(dir, []reproduction.Entry{{Name: "redundant", Section: s}}, reproduction.PageOptions{Title: "test"})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(file)
	for _, want := range []string{`id="redundant-claims"`, `id="redundant-table1"`, `src="redundant/fig4-ucb.svg"`, "docs/reproduction-003.md"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestSectionChoicesLinks: every model choice names a heading of its
// document (GitHub's anchors), so the page's links land.
func TestSectionChoicesLinks(t *testing.T) {
	s := handResult(t).Section()
	if len(s.Choices) == 0 {
		t.Fatal("no model choices")
	}
	for _, c := range s.Choices {
		doc, anchor, _ := strings.Cut(c.Doc, "#")
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc)))
		if err != nil {
			t.Errorf("choice %q: %v", c.Text, err)
			continue
		}
		if anchor == "" {
			continue
		}
		found := false
		for _, line := range strings.Split(string(b), "\n") {
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && slug(h) == anchor {
				found = true
			}
		}
		if !found {
			t.Errorf("choice %q: %s has no heading with anchor #%s", c.Text, doc, anchor)
		}
	}
}

var slugDrop = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as '-'.
func slug(h string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// TestSectionOfARun: a small real run (Figure 1, two algorithms) gives a
// section whose claims are those the run printed and whose page is
// written.
func TestSectionOfARun(t *testing.T) {
	var text bytes.Buffer
	o, err := RunLab(context.Background(), &text, LabOptions{Figure: 1, Reps: 2, Seed: 5, Workers: 1, Algos: []string{"ea", "ppb"}, MovesPerHost: 1, Step: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	s := (&Result{Seed: 5, Figures: []Output{o}}).Section()
	if !strings.Contains(s.Reproduced, "Seed 5; 2,000 instances") {
		t.Errorf("reproduced %q", s.Reproduced)
	}
	if len(s.Tables) != 1 || len(s.Figures) != 1 {
		t.Fatalf("%d tables, %d figures; want the claims and Figure 1", len(s.Tables), len(s.Figures))
	}
	rows := s.Tables[0].Rows
	if len(rows) != 2 { // the two "comparable at the smallest σ" claims; the other two are qualitative
		t.Fatalf("claims rows %+v", rows)
	}
	for _, r := range rows {
		if r.Cells[0].Paper != 0 || math.IsNaN(r.Cells[0].Ours) || !strings.Contains(text.String(), strings.TrimPrefix(r.Label, "Figure 1: ")) {
			t.Errorf("row %+v not as printed:\n%s", r, text.String())
		}
	}
	if _, err := reproduction.Write(t.TempDir(), []reproduction.Entry{{Name: "redundant", Section: s}}, reproduction.PageOptions{Title: "test"}); err != nil {
		t.Fatal(err)
	}
}
