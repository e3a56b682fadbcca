package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/headless"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// repoRoot is the repository's root from this package's directory.
const repoRoot = ".."

// filesUnder lists the files under dir, relative to it, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestResultsReportUpToDate regenerates the committed page of the full
// runs (results/report/, 'volsched report results/') from the committed
// results and compares it, file by file and byte for byte: the page cannot
// go stale. It regenerates into a copy of the repository's layout
// (go.mod, docs/ and the results linked), so that its links to the
// documents are made as in the repository.
func TestResultsReportUpToDate(t *testing.T) {
	tmp := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "go.mod"), mod, 0o644)
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if err := os.Symlink(abs("docs"), filepath.Join(tmp, "docs")); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(tmp, "results")
	os.MkdirAll(results, 0o755)
	entries, err := os.ReadDir(abs("results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == reproduction.ResultsPageDir {
			continue
		}
		if err := os.Symlink(abs(filepath.Join("results", e.Name())), filepath.Join(results, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := runCLI(t, "", "report", results)
	if code != 0 {
		t.Fatalf("volsched report: exit %d: %s", code, errOut)
	}
	got, want := filepath.Join(results, reproduction.ResultsPageDir), abs(filepath.Join("results", reproduction.ResultsPageDir))
	gf, wf := filesUnder(t, got), filesUnder(t, want)
	if !slices.Equal(gf, wf) {
		t.Fatalf("the regenerated page has the files %v, results/report has %v: run 'volsched report results/' and commit", gf, wf)
	}
	for _, f := range gf {
		a, _ := os.ReadFile(filepath.Join(got, f))
		b, _ := os.ReadFile(filepath.Join(want, f))
		if !bytes.Equal(a, b) {
			t.Errorf("results/report/%s is stale (regenerated: %d bytes, committed: %d): run 'volsched report results/' and commit", f, len(a), len(b))
		}
	}
	if err := report.Check(filepath.Join(want, reproduction.PageFile)); err != nil {
		t.Errorf("the committed page: %v", err)
	}
}

// loadPage loads a written page in headless Chromium and reports every
// problem a reader would meet (skipped where no browser is installed,
// unless VOLSCHED_REQUIRE_BROWSER is set, as in CI).
func loadPage(t *testing.T, file string) {
	t.Helper()
	browser, err := headless.Find()
	if errors.Is(err, headless.ErrNoBrowser) && os.Getenv(headless.RequireEnv) == "" {
		t.Skip("skipped: no headless browser installed; on Debian: apt-get install chromium (or set VOLSCHED_CHROMIUM)")
	}
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(html), "<img ")
	if want == 0 {
		t.Fatalf("%s has no image", file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := headless.Load(ctx, browser, file, headless.Options{Width: 1280})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems(want, 1280) {
		t.Error(p)
	}
	if dir := os.Getenv("VOLSCHED_SCREENSHOT_DIR"); dir != "" {
		p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-")+".png")
		if err := os.WriteFile(p, r.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (page %d × %d px)", p, r.Width, r.Height)
	}
}

// TestResultsReportInBrowser loads the committed page of the full runs.
func TestResultsReportInBrowser(t *testing.T) {
	loadPage(t, filepath.Join(repoRoot, "results", reproduction.ResultsPageDir, reproduction.PageFile))
}

// TestReproduceReport: 'reproduce --quick --report DIR' (a subset: the
// reproductions that take seconds, robustness's section among them)
// writes a page that passes report.Check (internal links, images, well
// formed) with every table and figure of those reproductions, the wall
// time of each, and loads in a browser.
func TestReproduceReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reduced campaigns (about 20 s)")
	}
	dir := filepath.Join(t.TempDir(), "page")
	_, errOut, code := runCLI(t, "", "reproduce", "--quick", "--only", "analyze,exp-independent,exp-coupled,overlay-accuracy,robustness", "--report", dir, "--png")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	file := filepath.Join(dir, reproduction.PageFile)
	if err := report.Check(file); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	html := string(b)
	for _, want := range []string{
		`id="iterative"`, `id="exp-independent-table2"`, `src="exp-independent/figure2.svg"`, `href="exp-independent/figure2.png"`,
		`id="coupled"`, `id="exp-coupled-table-m5"`, `id="exp-coupled-table-m10"`, `src="exp-coupled/figure2-m10.svg"`,
		`id="overlay"`, `id="overlay-accuracy-table2-ibp"`, `id="overlay-accuracy-table3-dp"`,
		`id="analyze-chains"`, `id="analyze-sets"`,
		"volsched reproduce --quick --seed 1 --only exp-coupled", "Kendall's τ-b",
		`id="robustness"`, `id="robustness-independent-score"`, `id="robustness-independent-tau"`, `id="robustness-coupled-rank"`,
		`id="robustness-coupled-paired"`, "This is not a reproduction of a paper", "Table I (published)",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, "Printed output") {
		t.Error("a reproduction of the page shows its printed output: each of these has a section")
	}
	if n := strings.Count(html, "wall time of this page"); n != 5 {
		t.Errorf("%d runs of this page, want 5", n)
	}
	if n := strings.Count(html, "not measured"); n != 7 {
		t.Errorf("%d runs without a wall time, want 7 (the full campaigns' commands of exp-independent and exp-coupled, robustness's full study and its 4 committed directories; every run of this page is measured)", n)
	}
	loadPage(t, file)
}

// TestREADMEPointsToReport: the README begins with its two set-up commands,
// and the first thing it points to after them is the committed report
// page, which exists.
func TestREADMEPointsToReport(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := "```sh\ngo run ./cmd/volsched reproduce --quick\ngo test ./...\n```\n"
	if !strings.HasPrefix(s, start) {
		t.Fatalf("README.md does not begin with the two set-up commands %q", start)
	}
	rest := s[len(start):]
	link := "](" + "results/" + reproduction.ResultsPageDir + "/" + reproduction.PageFile + ")"
	i := strings.Index(rest, "](")
	if i < 0 || !strings.HasPrefix(rest[i:], link) {
		t.Errorf("the first link after the set-up commands is not the report page %q", link)
	}
	if strings.Contains(rest[:max(i, 0)], "```") {
		t.Error("another command block comes before the pointer to the report page")
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "results", reproduction.ResultsPageDir, reproduction.PageFile)); err != nil {
		t.Errorf("the README points to a page that is not committed: %v", err)
	}
}
