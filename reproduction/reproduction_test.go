package reproduction

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/report"
)

func TestSelect(t *testing.T) {
	rs := []Reproduction{
		{Name: "b", Order: 20, Aliases: []string{"old-b"}},
		{Name: "a", Order: 20},
		{Name: "c", Order: 10},
	}
	got, err := Select(rs, nil)
	if err != nil || strings.Join(Names(got), ",") != "c,a,b" {
		t.Fatalf("Select(all) = %v, %v; want c,a,b", Names(got), err)
	}
	got, err = Select(rs, []string{"old-b", "c"})
	if err != nil || strings.Join(Names(got), ",") != "c,b" {
		t.Fatalf("Select(old-b, c) = %v, %v; want c,b (run order, alias resolved)", Names(got), err)
	}
	got, err = Select(rs, []string{"b", "old-b"})
	if err != nil || len(got) != 1 {
		t.Fatalf("a name and its alias: %v, %v; want b once", Names(got), err)
	}
	if _, err := Select(rs, []string{"d"}); err == nil || !strings.Contains(err.Error(), `"d"`) || !strings.Contains(err.Error(), "c, a, b") {
		t.Fatalf("unknown name: %v; want an error naming it and the names", err)
	}
}

func TestSource(t *testing.T) {
	if got, want := IterativePaper.Source(), "Casanova, Dufossé, Robert, Vivien — Scheduling Parallel Iterative Applications on Volatile Resources"; got != want {
		t.Errorf("Source() = %q, want %q", got, want)
	}
	if got := OverlayPaper.Source(); !strings.HasPrefix(got, "Celaya, Arronategui — ") {
		t.Errorf("Source() = %q", got)
	}
}

func TestRepoRootOf(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+Module+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "results", "report")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := RepoRootOf(sub); got != "../.." {
		t.Errorf("RepoRootOf(results/report) = %q, want ../..", got)
	}
	if got := RepoRootOf(root); got != "." {
		t.Errorf("RepoRootOf(root) = %q, want .", got)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := RepoRootOf(other); got != "" {
		t.Errorf("RepoRootOf(another module) = %q, want empty", got)
	}
	// A page outside the repository, written from inside it: linked
	// through the way from the page to the repository.
	page := filepath.Join(other, "page")
	if err := os.MkdirAll(page, 0o755); err != nil {
		t.Fatal(err)
	}
	got := RepoRootFrom(page, sub)
	if got == "" || filepath.Clean(filepath.Join(page, filepath.FromSlash(got))) != filepath.Clean(root) {
		t.Errorf("RepoRootFrom(page outside, from results/report) = %q, want the way from %s to %s", got, page, root)
	}
	if got := RepoRootFrom(sub, other); got != "../.." {
		t.Errorf("RepoRootFrom(results/report, elsewhere) = %q, want ../.. (the page's own repository first)", got)
	}
	if got := RepoRootFrom(page, other); got != "" {
		t.Errorf("RepoRootFrom(outside, from outside) = %q, want empty", got)
	}
}

// testSection is a section with a table, a drawn figure and a choice.
func testSection(paper Paper, tableID string) *Section {
	fig := &figure.Figure{
		Title: "Figure 1: y against x", Source: paper.Source(),
		X: figure.Axis{Label: "x", Unit: "slots"}, Y: figure.Axis{Label: "y", Unit: "%"},
		Series:  []figure.Series{{Name: "A", X: []float64{1, 2, 3}, Y: []float64{1, 4, 9}}, {Name: "A", X: []float64{1, 3}, Y: []float64{2, 8}, Paper: true}},
		Caption: "Seed 1; test data.", Paper: figure.PaperValues,
	}
	return &Section{
		Paper:      paper,
		Reproduced: "A test.",
		Tables: []report.Table{{ID: tableID, Caption: "Table 1", RowHeader: "row",
			Columns: []report.Column{{Name: "v", Digits: 1, Rank: true}},
			Rows:    []report.Row{{Label: "a", Cells: []report.Cell{{Ours: 1, Paper: 1.02}}}, {Label: "b", Cells: []report.Cell{{Ours: 2, Paper: math.NaN()}}}}}},
		Figures: []Figure{{ID: "figure1", Figure: fig}},
		Choices: []report.Choice{{Text: "a choice", Doc: "docs/x.md#y"}},
		Runs:    []report.Run{{Command: "volsched exp x", Seed: 1}},
	}
}

// TestWrite writes a page of three entries: two of the same paper (merged
// into one section, anchors prefixed by the entries' names) and one
// without a section (its output shown); the page passes report.Check and
// its files are where the page says.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+Module+"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "x.md"), []byte("# x\n"), 0o644)
	dir := filepath.Join(root, "out", "report")
	entries := []Entry{
		{Name: "exp-one", Section: testSection(IterativePaper, "table1"), Run: report.Run{Command: "volsched reproduce --only exp-one", Seed: 1, Duration: 1500000000}},
		{Name: "printer", Title: "prints only", Output: "a <table> & more\n"},
		{Name: "exp-two", Section: testSection(IterativePaper, "table1")},
	}
	file, err := Write(dir, entries, PageOptions{Title: "test page", PNG: true, RepoRoot: RepoRootOf(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Check(file); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	html := string(b)
	for _, want := range []string{
		`id="iterative"`, `id="exp-one-table1"`, `id="exp-two-table1"`, `id="exp-one-figure1"`, `id="exp-two-figure1"`,
		`id="printer"`, `a &lt;table&gt; &amp; more`, `src="exp-one/figure1.svg"`, `href="exp-one/figure1.png"`,
		`href="exp-one/figure1.csv"`, `href="../../docs/x.md#y"`, "volsched reproduce --only exp-one", "1.5 s",
		"<p>exp-one: A test.</p>", "<p>exp-two: A test.</p>", // the merged section names each reproduction
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, "<h2>"+IterativePaper.Title+"</h2>"); n != 1 {
		t.Errorf("the paper's section appears %d times, want 1 (merged)", n)
	}
	if n := strings.Count(html, "<li>a choice"); n != 1 {
		t.Errorf("the shared choice appears %d times, want 1", n)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "exp-one", "figure1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "series,paper,x (slots),y (%),error\nA,false,1,1,\nA,false,2,4,\nA,false,3,9,\nA,true,1,2,\nA,true,3,8,\n"; string(csv) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", csv, want)
	}
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, e := range map[string]Entry{
		"name with a slash": {Name: "a/b", Section: testSection(IterativePaper, "t")},
		"no paper":          {Name: "a", Section: &Section{}},
		"figure and file":   {Name: "a", Section: &Section{Paper: IterativePaper, Figures: []Figure{{ID: "f", Figure: testSection(IterativePaper, "t").Figures[0].Figure, File: "x.svg"}}}},
		"neither":           {Name: "a", Section: &Section{Paper: IterativePaper, Figures: []Figure{{ID: "f"}}}},
		"missing file":      {Name: "a", Section: &Section{Paper: IterativePaper, Figures: []Figure{{ID: "f", File: filepath.Join(dir, "none.svg")}}}},
		"bad figure id":     {Name: "a", Section: &Section{Paper: IterativePaper, Figures: []Figure{{ID: "f.svg", File: "x.svg"}}}},
	} {
		if _, err := Write(filepath.Join(dir, "p"), []Entry{e}, PageOptions{Title: "t"}); err == nil {
			t.Errorf("%s: Write accepted it", name)
		}
	}
}

func TestWallTime(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]float64{
		"\tElapsed (wall clock) time (h:mm:ss or m:ss): 2:21:49\n": 8509,
		"Elapsed (wall clock) time (h:mm:ss or m:ss): 0:16.45":     16.45,
	} {
		f := filepath.Join(dir, "time.txt")
		os.WriteFile(f, []byte("User time (seconds): 1\n"+text), 0o644)
		d, err := WallTime(f)
		if err != nil || math.Abs(d.Seconds()-want) > 1e-9 {
			t.Errorf("%q: %v, %v; want %v s", text, d, err, want)
		}
	}
	for _, bad := range []string{"no time here\n", "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:x:3\n", "Elapsed (wall clock) time (h:mm:ss or m:ss): NaN:00\n"} {
		f := filepath.Join(dir, "time.txt")
		os.WriteFile(f, []byte(bad), 0o644)
		if d, err := WallTime(f); err == nil {
			t.Errorf("%q: %v accepted", bad, d)
		}
	}
}

// TestWriteResultsNotes: the page of committed runs says, for each
// reproduction without a section, why: its NoResults, or that it gives no
// section yet, or that its results were not found.
func TestWriteResultsNotes(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+Module+"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "x.md"), []byte("# x\n"), 0o644)
	results := filepath.Join(root, "results")
	os.MkdirAll(results, 0o755)
	rs := []Reproduction{
		{Name: "shown", Order: 1, Results: func(string) (*Section, error) { return testSection(IterativePaper, "table1"), nil }},
		{Name: "cheap", Order: 2, NoResults: "its full run takes a second; nothing to keep."},
		{Name: "later", Order: 3},
		{Name: "absent", Order: 4, Results: func(string) (*Section, error) { return nil, nil }},
	}
	file, missing, err := WriteResults(results, "", rs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(missing, ",") != "cheap,later,absent" {
		t.Errorf("missing %v, want cheap, later, absent", missing)
	}
	b, _ := os.ReadFile(file)
	html := string(b)
	for _, want := range []string{
		"cheap: its full run takes a second; nothing to keep.",
		"later: no section from committed results yet",
		"absent: no committed results found in the results directory.",
		`id="shown-table1"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
