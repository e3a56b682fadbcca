package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		ours, paper float64
		tol         Tolerance
		want        string
	}{
		{5.35, 5.35, Tolerance{}, ClassClose},
		{105, 100, Tolerance{}, ClassClose},  // 5 % of 100
		{105.1, 100, Tolerance{}, ClassNear}, // just beyond
		{115, 100, Tolerance{}, ClassNear},   // 3 bands
		{115.1, 100, Tolerance{}, ClassFar},  // beyond 3 bands
		{0.4, 0, Tolerance{Abs: 0.5, Signed: true}, ClassClose},
		{0.4, 0, Tolerance{Rel: 0.5}, ClassFar}, // 0 published: a relative band is 0
		{-11, -10, Tolerance{Rel: 0.1}, ClassClose},
		{-11, -10, Tolerance{Rel: 0.1, Signed: true}, ClassClose},
		{0, 7, Tolerance{Count: 3}, ClassNear}, // within 3√7 = 7.9, but one is 0: ratio rule
		{1000, 1100, Tolerance{Count: 3, Rel: 0.1}, ClassClose},
		{120, 100, Tolerance{Count: 1}, ClassNear}, // band √100 = 10
		{120, 100, Tolerance{Count: 2}, ClassClose},
		{math.NaN(), 1, Tolerance{}, ClassNone},
		{1, math.NaN(), Tolerance{}, ClassNone},
		{math.Inf(1), 1, Tolerance{}, ClassNone},
	}
	for _, c := range cases {
		if got := Classify(c.ours, c.paper, c.tol); got != c.want {
			t.Errorf("Classify(%g, %g, %+v) = %q, want %q", c.ours, c.paper, c.tol, got, c.want)
		}
	}
}

// TestColourRules: the cases of issue 28, each a difference a reader would
// call large that the band alone called close (green), and the rules of
// docs/report.md that keep them from it. Cells are judged as the page
// shows them (Column.Classify, with the column's decimals).
func TestColourRules(t *testing.T) {
	winCount := Column{Name: "wins", Digits: 0, Tol: Tolerance{Abs: 2964, Rel: 0.10}} // the former Table 2 band
	share := Column{Name: "wins", Unit: "% of instances", Digits: 1, Tol: Tolerance{Abs: 1, Rel: 0.10}}
	fails := Column{Name: "#fails", Digits: 0, Tol: Tolerance{Abs: 2, Rel: 0.20}}
	pctDiff := Column{Name: "%diff", Digits: 2, Tol: Tolerance{Abs: 2, Rel: 0.10, Signed: true}}
	wins30 := Column{Name: "%wins30", Digits: 2, Tol: Tolerance{Abs: 2, Rel: 0.05}}
	lDelta := Column{Name: "l(δ)", Digits: 1, Tol: Tolerance{Abs: 5}}
	for _, c := range []struct {
		name        string
		col         Column
		ours, paper float64
		want        string
	}{
		// Seed 001 Table 2: RANDOM's 2,374 wins against the paper's 45
		// (+5,175.6 %) were green under the absolute ±2,964; beyond the
		// noise floor they are far whatever the band.
		{"Table 2 RANDOM wins, former band", winCount, 2374, 45, ClassNear},
		{"Table 2 RANDOM wins", Column{Digits: 0, Tol: Tolerance{Count: 3, Rel: 0.10}}, 2374, 45, ClassFar},
		{"Table 2 UD wins", Column{Digits: 0, Tol: Tolerance{Count: 3, Rel: 0.10}}, 30874, 31120, ClassClose},
		// The quick page: 0 wins in a small campaign against 36 of
		// 296,400 (0.012 %): "0.0 | 0.0 | 0.0", the same number twice, is
		// close and shows no relative difference.
		{"quick page, the same printed", share, 0, 0.0121, ClassClose},
		// One win in 120 instances (0.8 %) against 0.015 %: +5,388.9 %.
		{"quick page, one win", share, 0.83, 0.0152, ClassNear},
		// Seed 002 Table I: 4 failures against 2 (+100 %) was close; 0
		// against 5 (−100 %) near.
		{"Table I #fails +100 %", fails, 4, 2, ClassNear},
		{"Table I #fails 0 for 5", fails, 0, 5, ClassFar},
		{"Table I #fails 0 for 2, within the floor", fails, 0, 2, ClassNear},
		{"Table I #fails 3 for 2", fails, 3, 2, ClassClose},
		{"Table I %wins30 0.07 for 0.20", wins30, 0.07, 0.20, ClassNear},
		// A signed quantity: the ratio of two %diff near 0 means nothing.
		{"Table I %diff", pctDiff, -11.62, -10.40, ClassClose},
		{"Table I %diff across 0", pctDiff, 0.5, -1.0, ClassClose},
		// Seed 004 Table 2 DP l(δ): 10.7 against ∼0.6 (+1,679 %) was near.
		{"l(δ) 18 times", lDelta, 10.7, 0.6, ClassFar},
		{"l(δ) 1.4 times", lDelta, 51.8, 37, ClassNear},
		{"equal", share, 35.7, 35.7, ClassClose},
	} {
		cell := Cell{Ours: c.ours, Paper: c.paper}
		if got := c.col.Classify(cell); got != c.want {
			t.Errorf("%s: %g against %g under %v: %s, want %s", c.name, c.ours, c.paper, c.col.Tol, got, c.want)
		}
	}
}

// TestRelativeShown: the relative difference is printed only where it
// means something.
func TestRelativeShown(t *testing.T) {
	tab := Table{Columns: []Column{
		{Name: "share", Digits: 1, Tol: Tolerance{Abs: 1, Rel: 0.1}},
		{Name: "diff", Digits: 2, Tol: Tolerance{Abs: 2, Signed: true}},
	}, Rows: []Row{
		{Label: "same printed", Cells: []Cell{{Ours: 0, Paper: 0.0121}, {Ours: -1, Paper: -2}}},
		{Label: "differ", Cells: []Cell{{Ours: 0.83, Paper: 0.0152}, {Ours: 1, Paper: 2}}},
	}}
	v := tableView(tab)
	for _, c := range []struct {
		row, col        int
		rel, class, why string
	}{
		{0, 0, "", ClassClose, ""},
		{0, 1, "", ClassClose, ""},
		{1, 0, "+5,360.5 %", ClassNear, "one is 54.6 times the other"},
		{1, 1, "", ClassClose, ""},
	} {
		cell := v.Rows[c.row].Cells[c.col]
		if cell.Rel != c.rel || cell.Class != c.class || !strings.Contains(cell.Title, c.why) {
			t.Errorf("row %d column %d: relative %q, class %q, title %q; want %q, %q, a title with %q", c.row, c.col, cell.Rel, cell.Class, cell.Title, c.rel, c.class, c.why)
		}
	}
}

func TestToleranceString(t *testing.T) {
	cases := map[Tolerance]string{
		{}:                     "±5 % of the paper's",
		{Rel: 0.125}:           "±12.5 % of the paper's",
		{Abs: 0.5}:             "±0.5",
		{Abs: 20, Rel: 0.1}:    "±max(20, 10 % of the paper's)",
		{Abs: 0.01, Rel: 0.2}:  "±max(0.01, 20 % of the paper's)",
		{Count: 3, Rel: 0.1}:   "±max(3√paper, 10 % of the paper's)",
		{Abs: 2, Signed: true}: "±2 (signed: no ratio rule)",
	}
	for tol, want := range cases {
		if got := tol.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", tol, got, want)
		}
	}
}

func TestTaus(t *testing.T) {
	nan := math.NaN()
	tab := Table{
		Columns: []Column{{Name: "a", Rank: true}, {Name: "b", Rank: true}, {Name: "c"}, {Name: "d", Rank: true}},
	}
	rows := [][4][2]float64{
		{{1, 10}, {1, 3}, {0, 0}, {1, nan}},
		{{2, 20}, {2, 2}, {0, 0}, {2, 5}},
		{{3, 30}, {3, 1}, {0, 0}, {nan, 5}},
		{{4, nan}, {4, 0}, {0, 0}, {3, 5}},
	}
	for _, r := range rows {
		var row Row
		for _, c := range r {
			row.Cells = append(row.Cells, Cell{Ours: c[0], Paper: c[1]})
		}
		tab.Rows = append(tab.Rows, row)
	}
	got := tab.Taus()
	if len(got) != 3 {
		t.Fatalf("Taus() = %v, want one per Rank column (3)", got)
	}
	if got[0].Column != "a" || got[0].N != 3 || math.Abs(got[0].Tau-1) > 1e-12 {
		t.Errorf("column a: %+v, want τ = 1 over the 3 rows with both values", got[0])
	}
	if got[1].N != 4 || math.Abs(got[1].Tau+1) > 1e-12 {
		t.Errorf("column b: %+v, want τ = −1 over 4 rows", got[1])
	}
	if got[2].N != 2 || !math.IsNaN(got[2].Tau) {
		t.Errorf("column d: %+v, want τ undefined (the paper's values tie)", got[2])
	}
}

func TestFormatDuration(t *testing.T) {
	cases := map[time.Duration]string{
		0:                                "not measured",
		850 * time.Millisecond:           "850 ms",
		12400 * time.Millisecond:         "12.4 s",
		3*time.Minute + 5*time.Second:    "3 min 05 s",
		2*time.Hour + 14*time.Minute:     "2 h 14 min",
		26*time.Hour + 59*time.Minute:    "26 h 59 min",
		59*time.Minute + 59*time.Second:  "59 min 59 s",
		-time.Second:                     "not measured",
		time.Hour + 29*time.Second + 1e8: "1 h 00 min",
	}
	for d, want := range cases {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	cases := []struct {
		x    float64
		d    int
		want string
	}{
		{4306204, 0, "4,306,204"},
		{-0.001, 2, "0.00"},
		{-1.5, 1, "−1.5"},
		{math.NaN(), 2, "—"},
	}
	for _, c := range cases {
		if got := number(c.x, c.d); got != c.want {
			t.Errorf("number(%g, %d) = %q, want %q", c.x, c.d, got, c.want)
		}
	}
	if got := signed(0.25, 2); got != "+0.25" {
		t.Errorf("signed(0.25) = %q", got)
	}
	if got := signed(0, 2); got != "0.00" {
		t.Errorf("signed(0) = %q", got)
	}
}

// TestSamplePage writes the sample page with linked and with embedded
// images and checks it: no broken link, no missing image, well formed;
// the tables carry the classes and τ; the choices link the documents
// relative to the page.
func TestSamplePage(t *testing.T) {
	for _, embed := range []bool{false, true} {
		root := t.TempDir()
		file := writeSample(t, root, Options{Embed: embed, RepoRoot: ".."})
		if err := Check(file); err != nil {
			t.Fatalf("embed %v: Check: %v", embed, err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, want := range []string{
			`<a href="../docs/model-001.md#transfers-and-the-bounded-multi-port-master">docs/model-001.md#transfers-and-the-bounded-multi-port-master</a>`,
			`<a href="../docs/overlay-sim.md">docs/overlay-sim.md</a>`,
			`Kendall's τ-b between our order and the paper's by avg dfb: <strong>`,
			`class="first close"`, `class="first far"`, `class="first near"`,
			`<td class="paper">.001%</td>`, // the published text
			`&lt;b&gt;not bold&lt;/b&gt; &amp; &#34;quoted&#34;`,
			"1 min 23 s", "2 h 14 min", "not measured",
			`<td class="label">EMCT*</td>`,
			`<tr><th class="label">nodes</th><th class="group first">median (s)</th>`, // no published column: one header row
		} {
			if !strings.Contains(s, want) {
				t.Errorf("embed %v: page lacks %q", embed, want)
			}
		}
		if strings.Contains(s, "<code>docs/") {
			t.Errorf("embed %v: a document named but not linked although RepoRoot is set", embed)
		}
		if strings.Contains(s, "#ZgotmplZ") {
			t.Errorf("embed %v: the template refused a URL", embed)
		}
		imgs := strings.Count(s, "<img ")
		if imgs != 2 {
			t.Errorf("embed %v: %d images, want 2", embed, imgs)
		}
		if embed != strings.Contains(s, `src="data:image/svg&#43;xml;base64,`) || embed != strings.Contains(s, `src="data:image/png;base64,`) {
			t.Errorf("embed %v: images embedded = %v", embed, !embed)
		}
		if !embed && !strings.Contains(s, `<img src="figures/figure2-001.svg"`) {
			t.Error("linked images: no relative src")
		}
		// The made-up Table 2 gives a τ: the numbers are perturbed, not
		// reordered entirely.
		if !strings.Contains(s, "over 17 rows") {
			t.Error("Table 2's τ-b is not over the 17 heuristics")
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	root := t.TempDir()
	file := writeSample(t, root, Options{Embed: true, RepoRoot: ".."})
	a, _ := os.ReadFile(file)
	page := samplePage(t, filepath.Dir(file)) // the figures again: same bytes
	b, err := Render(page, filepath.Dir(file), Options{Embed: true, RepoRoot: ".."})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same page rendered twice differs")
	}
}

// TestDocsWithoutRepo: written outside the repository (no RepoRoot), the
// choices name their documents without linking them.
func TestDocsWithoutRepo(t *testing.T) {
	root := t.TempDir()
	file := writeSample(t, root, Options{})
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "<code>docs/model-001.md#transfers-and-the-bounded-multi-port-master</code>") || strings.Contains(string(b), `href="docs/`) {
		t.Error("without RepoRoot, documents should be named, not linked")
	}
	if err := Check(file); err != nil {
		t.Error(err)
	}
}

func TestRenderRefuses(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`), 0o644)
	good := func() Page {
		return Page{Title: "t", Sections: []Section{{
			ID: "s", Paper: "P",
			Tables:  []Table{{ID: "t1", Columns: []Column{{Name: "c"}}, Rows: []Row{{Label: "r", Cells: []Cell{{Ours: 1, Paper: 1}}}}}},
			Figures: []Figure{{ID: "f1", Src: "a.svg", Alt: "a"}},
			Choices: []Choice{{Text: "x", Doc: "docs/x.md"}},
			Runs:    []Run{{Command: "volsched"}},
		}}}
	}
	if _, err := Render(good(), dir, Options{}); err != nil {
		t.Fatalf("a good page: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Page)
		opt  Options
		want string
	}{
		{"no title", func(p *Page) { p.Title = "" }, Options{}, "Title is empty"},
		{"bad id", func(p *Page) { p.Sections[0].ID = "Seed 1" }, Options{}, `ID "Seed 1", want lower-case`},
		{"reserved id", func(p *Page) { p.Sections[0].ID = "contents" }, Options{}, `already used by the contents`},
		{"duplicate id", func(p *Page) { p.Sections[0].Figures[0].ID = "t1" }, Options{}, `ID "t1" already used by section 0`},
		{"cells", func(p *Page) { p.Sections[0].Tables[0].Rows[0].Cells = nil }, Options{}, `row 0 ("r") has 0 cells, want 1`},
		{"no paper", func(p *Page) { p.Sections[0].Paper = "" }, Options{}, "want the paper's title"},
		{"absolute src", func(p *Page) { p.Sections[0].Figures[0].Src = "/tmp/a.svg" }, Options{}, "is absolute"},
		{"url src", func(p *Page) { p.Sections[0].Figures[0].Src = "https://example.org/a.svg" }, Options{}, "has a scheme"},
		{"missing image", func(p *Page) { p.Sections[0].Figures[0].Src = "b.svg" }, Options{}, `image "b.svg"`},
		{"not an image", func(p *Page) { p.Sections[0].Figures[0].Src = "a.txt" }, Options{}, `extension ".txt"`},
		{"no alt", func(p *Page) { p.Sections[0].Figures[0].Alt = "" }, Options{}, "Alt is empty"},
		{"missing link", func(p *Page) { p.Sections[0].Figures[0].Links = []Link{{"CSV", "a.csv"}} }, Options{}, `link "CSV"`},
		{"doc outside", func(p *Page) { p.Sections[0].Choices[0].Doc = "../x.md" }, Options{}, "want a path inside the repository"},
		{"missing doc", func(p *Page) {}, Options{RepoRoot: ".."}, "document docs/x.md"},
		{"absolute root", func(p *Page) {}, Options{RepoRoot: "/work"}, "Options.RepoRoot"},
		{"digits", func(p *Page) { p.Sections[0].Tables[0].Columns[0].Digits = -1 }, Options{}, "Digits = -1"},
		{"tolerance", func(p *Page) { p.Sections[0].Tables[0].Columns[0].Tol.Rel = -1 }, Options{}, "Rel: -1, Count: 0}, want finite Abs, Rel, Count ≥ 0"},
		{"empty command", func(p *Page) { p.Sections[0].Runs[0].Command = "" }, Options{}, "Command is empty"},
	}
	for _, c := range cases {
		p := good()
		c.edit(&p)
		_, err := Render(p, dir, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Render = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestCheckFindsProblems: Check reports each kind of broken page.
func TestCheckFindsProblems(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>`), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.png"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "text.png"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# doc"), 0o644)
	page := func(body string) string {
		f := filepath.Join(dir, "p.html")
		os.WriteFile(f, []byte(`<!DOCTYPE html><html><head><title>t</title></head><body id="top">`+body+`</body></html>`), 0o644)
		return f
	}
	good := `<a href="#top">top</a> <a href="doc.md">doc</a> <a href="doc.md#x">doc</a> <a href="https://example.org/">ext</a> <img src="ok.svg" alt="ok" /> <img alt="d" src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=" />`
	if err := Check(page(good)); err != nil {
		t.Fatalf("a good page: %v", err)
	}
	cases := []struct {
		body, want string
	}{
		{`<a href="#nowhere">x</a>`, `<a href="#nowhere">: no element with this id`},
		{`<a href="missing.md">x</a>`, `<a href="missing.md">: broken link`},
		{`<a href="/etc/passwd">x</a>`, "absolute"},
		{`<a href="file:///etc/passwd">x</a>`, `scheme "file"`},
		{`<img src="missing.svg" alt="m" />`, "missing image"},
		{`<img src="empty.png" alt="e" />`, "empty image"},
		{`<img src="text.png" alt="t" />`, "not a PNG, JPEG or SVG image"},
		{`<img src="ok.svg" />`, "no alt text"},
		{`<img src="https://example.org/a.png" alt="n" />`, "would need the network"},
		{`<img src="data:image/png;base64,!!!" alt="b" />`, "data: URI"},
		{`<img src="data:image/png;base64,PHN2Zz4=" alt="b" />`, `an SVG image declared as "image/png"`},
		{`<p id="top">dup</p>`, `id "top" used more than once`},
		{`<script src="https://cdn.example.org/x.js"></script>`, "fetched from outside the page"},
		{`<link rel="stylesheet" href="//cdn.example.org/x.css" />`, "fetched from outside the page"},
		{`<p>unclosed`, "not well formed"},
	}
	for _, c := range cases {
		err := Check(page(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want a problem containing %q", c.body, err, c.want)
		}
	}
}

// TestCheckAfterDeletion: a written page whose image was removed since is
// reported (the checker reads the page, not the content it came from).
func TestCheckAfterDeletion(t *testing.T) {
	root := t.TempDir()
	file := writeSample(t, root, Options{RepoRoot: ".."})
	if err := os.Remove(filepath.Join(root, "report", "figures", "fig12.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "docs", "overlay-sim.md")); err != nil {
		t.Fatal(err)
	}
	err := Check(file)
	if err == nil || !strings.Contains(err.Error(), `<img src="figures/fig12.png">: missing image`) ||
		!strings.Contains(err.Error(), `<a href="../docs/overlay-sim.md">: broken link`) {
		t.Errorf("Check = %v, want the missing image and the broken document link", err)
	}
}

// TestContentsWithoutComparedCells: the contents say so of a section whose
// tables have no published value (e.g. a study of this project's), and
// give the counts of one that has.
func TestContentsWithoutComparedCells(t *testing.T) {
	nan := math.NaN()
	p := Page{Title: "t", Sections: []Section{
		{ID: "study", Paper: "A study", Tables: []Table{{ID: "t1", Columns: []Column{{Name: "c"}}, Rows: []Row{{Label: "r", Cells: []Cell{{Ours: 1, Paper: nan}}}}}}},
		{ID: "paper", Paper: "A paper", Tables: []Table{{ID: "t2", Columns: []Column{{Name: "c"}}, Rows: []Row{{Label: "r", Cells: []Cell{{Ours: 1, Paper: 1}}}}}}},
	}}
	b, err := Render(p, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<a href="#study">A study</a> <span class="summary">— no cell compared with a published value</span>`,
		`<a href="#paper">A paper</a> <span class="summary">— compared cells: 1 close, 0 near, 0 far</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the contents lack %q", want)
		}
	}
}

func TestFormatIntSet(t *testing.T) {
	for _, c := range []struct {
		xs   []int
		want string
	}{
		{nil, "{}"},
		{[]int{5}, "{5}"},
		{[]int{1, 2}, "{1, 2}"},
		{[]int{1, 2, 3}, "1..3"},
		{[]int{5, 10, 20, 40}, "{5, 10, 20, 40}"},
		{[]int{1, 2, 4}, "{1, 2, 4}"},
	} {
		if got := FormatIntSet(c.xs); got != c.want {
			t.Errorf("FormatIntSet(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
	if Plural(1) != "" || Plural(0) != "s" || Plural(2) != "s" {
		t.Errorf("Plural: 1 %q, 0 %q, 2 %q", Plural(1), Plural(0), Plural(2))
	}
}

// TestSignificantColumn: a column of values spanning orders of magnitude
// prints every number, ours, the paper's and the difference, to the same
// significant digits (seed 004's Table 4 printed "0.0082762" beside
// ".07%").
func TestSignificantColumn(t *testing.T) {
	c := Column{Name: "whole run", Unit: "%", Significant: 2}
	for x, want := range map[float64]string{0.0082762: "0.0083", 0.0000456: "0.000046", 1.7584: "1.8", 12: "12", 123.4: "123", 0: "0", -0.0617238: "−0.062"} {
		if got := c.Format(x); got != want {
			t.Errorf("Format(%v) = %q, want %q", x, got, want)
		}
	}
	v := tableView(Table{Columns: []Column{c}, Rows: []Row{{Label: "IBP 9, slow", Cells: []Cell{{Ours: 0.0082762, Paper: 0.07, PaperText: "0.07"}}}}})
	if cell := v.Rows[0].Cells[0]; cell.Ours != "0.0083" || cell.Paper != "0.07" || cell.Delta != "−0.062" || cell.Rel != "−88.2 %" || cell.Class != ClassFar {
		t.Errorf("cell %+v", cell)
	}
}
