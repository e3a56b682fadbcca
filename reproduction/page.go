package reproduction

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/report"
)

// Entry is one reproduction's part of a page.
type Entry struct {
	Name  string // the reproduction's name: its files' directory, its anchors' prefix
	Title string // its one-line title (the heading when Section is nil)
	// Section is what it reports; nil when it gives none yet: the page
	// then shows Output.
	Section *Section
	// Output is what it printed.
	Output string
	// Run is the command that produced the section on this page, with its
	// wall time; an empty Command: none (e.g. a page of committed results).
	Run report.Run
}

// PageOptions are those of Write.
type PageOptions struct {
	Title, Intro string
	// Generated says how the page was made (command, version, date).
	Generated string
	// PNG also writes each drawn figure as PNG (linked from the page)
	// beside its SVG.
	PNG bool
	// Embed puts the images into the page (one file to send); they are
	// written beside it all the same.
	Embed bool
	// RepoRoot is the repository's root relative to dir, with '/'
	// separators, through which the choices' documents are linked; empty:
	// documents are named, not linked (see RepoRootOf).
	RepoRoot string
}

// PageFile is the name of the page Write writes in its directory.
const PageFile = "index.html"

// Write writes the page of entries into dir (created if needed):
// dir/index.html, and for each entry a directory dir/<Name>/ with its
// figures (SVG, PNG with o.PNG, and a CSV of each drawn figure's values).
// Sections of the same paper are one section of the page, in the order of
// their first entry. It returns the page's path. The page is checked with
// report.Check before Write returns.
func Write(dir string, entries []Entry, o PageOptions) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	page := report.Page{Title: o.Title, Intro: o.Intro, Generated: o.Generated}
	at := map[string]int{} // paper ID -> index in page.Sections
	// What each entry of a section reproduced, to name the entries where a
	// section holds several.
	type part struct{ name, text string }
	parts := map[int][]part{}
	for _, e := range entries {
		if e.Name == "" || strings.ContainsAny(e.Name, `/\.`) {
			return "", fmt.Errorf("reproduction: entry %q: Name must be a plain name (no '/', '\\' or '.')", e.Name)
		}
		s, err := sectionOf(dir, e, o)
		if err != nil {
			return "", err
		}
		key := s.ID
		if i, ok := at[key]; ok && e.Section != nil {
			merge(&page.Sections[i], s)
			parts[i] = append(parts[i], part{e.Name, s.Reproduced})
			continue
		}
		at[key] = len(page.Sections)
		if e.Section != nil {
			parts[len(page.Sections)] = []part{{e.Name, s.Reproduced}}
		}
		page.Sections = append(page.Sections, s)
	}
	for i, ps := range parts {
		if len(ps) < 2 {
			continue
		}
		// Several reproductions of one paper: each one's paragraphs begin
		// with its name (the prefix of its tables' and figures' anchors).
		var text []string
		for _, p := range ps {
			if t := strings.TrimSpace(p.text); t != "" {
				text = append(text, p.name+": "+t)
			}
		}
		page.Sections[i].Reproduced = strings.Join(text, "\n\n")
	}
	file := filepath.Join(dir, PageFile)
	if err := report.Write(file, page, report.Options{Embed: o.Embed, RepoRoot: o.RepoRoot}); err != nil {
		return "", err
	}
	if err := report.Check(file); err != nil {
		return "", fmt.Errorf("reproduction: the written page has problems: %w", err)
	}
	return file, nil
}

// sectionOf writes e's figures into dir/<e.Name>/ and returns its section
// of the page.
func sectionOf(dir string, e Entry, o PageOptions) (report.Section, error) {
	var runs []report.Run
	if e.Run.Command != "" {
		runs = append(runs, e.Run)
	}
	if e.Section == nil {
		title := e.Title
		if title == "" {
			title = e.Name
		}
		return report.Section{ID: e.Name, Paper: title,
			Reproduced: "This reproduction does not give a section of the report yet; what it printed follows.",
			Output:     e.Output, Runs: runs}, nil
	}
	s := e.Section
	if s.Paper.ID == "" || s.Paper.Title == "" {
		return report.Section{}, fmt.Errorf("reproduction %s: Section.Paper has no ID or Title", e.Name)
	}
	out := report.Section{ID: s.Paper.ID, Paper: s.Paper.Title, Authors: s.Paper.Authors, Reproduced: s.Reproduced,
		Choices: s.Choices, Runs: append(runs, s.Runs...)}
	for _, t := range s.Tables {
		t.ID = e.Name + "-" + t.ID
		out.Tables = append(out.Tables, t)
	}
	sub := filepath.Join(dir, e.Name)
	for _, f := range s.Figures {
		rf, err := writeFigure(sub, e.Name, f, o)
		if err != nil {
			return report.Section{}, fmt.Errorf("reproduction %s: figure %q: %w", e.Name, f.ID, err)
		}
		out.Figures = append(out.Figures, rf)
	}
	return out, nil
}

// writeFigure writes f's files into sub (the directory name of the entry)
// and returns the page's figure.
func writeFigure(sub, name string, f Figure, o PageOptions) (report.Figure, error) {
	if f.ID == "" || strings.ContainsAny(f.ID, `/\.`) {
		return report.Figure{}, fmt.Errorf("ID %q, want a plain name (no '/', '\\' or '.')", f.ID)
	}
	if (f.Figure == nil) == (f.File == "") {
		return report.Figure{}, fmt.Errorf("want exactly one of Figure and File")
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return report.Figure{}, err
	}
	rel := func(file string) string { return path.Join(name, file) }
	rf := report.Figure{ID: name + "-" + f.ID, Alt: f.Alt, Caption: f.Caption}
	if f.File != "" {
		ext := strings.ToLower(filepath.Ext(f.File))
		if ext != ".svg" && ext != ".png" {
			return rf, fmt.Errorf("File %q: want an .svg or .png image", f.File)
		}
		b, err := os.ReadFile(f.File)
		if err != nil {
			return rf, err
		}
		if err := os.WriteFile(filepath.Join(sub, f.ID+ext), b, 0o644); err != nil {
			return rf, err
		}
		rf.Src = rel(f.ID + ext)
		if rf.Alt == "" {
			rf.Alt = f.ID
		}
		return rf, nil
	}
	fig := f.Figure
	if err := fig.WriteFile(filepath.Join(sub, f.ID+".svg")); err != nil {
		return rf, err
	}
	rf.Src = rel(f.ID + ".svg")
	if o.PNG {
		if err := fig.WriteFile(filepath.Join(sub, f.ID+".png")); err != nil {
			return rf, err
		}
		rf.Links = append(rf.Links, report.Link{Text: "PNG", Href: rel(f.ID + ".png")})
	}
	b, err := seriesCSV(fig)
	if err != nil {
		return rf, err
	}
	if err := os.WriteFile(filepath.Join(sub, f.ID+".csv"), b, 0o644); err != nil {
		return rf, err
	}
	rf.Links = append(rf.Links, report.Link{Text: "values (CSV)", Href: rel(f.ID + ".csv")})
	if rf.Alt == "" {
		rf.Alt = fig.Title + ". " + fig.FullCaption()
	}
	return rf, nil
}

// seriesCSV writes a figure's values in long form: one row per point, with
// the series' name, whether it holds the paper's values, x, y and the
// error bar's half-width (empty when none).
func seriesCSV(fig *figure.Figure) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"series", "paper", fig.X.Text(), fig.Y.Text(), "error"})
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, sr := range fig.Series {
		for i := range sr.X {
			e := ""
			if sr.Err != nil {
				e = num(sr.Err[i])
			}
			w.Write([]string{sr.FullName(), strconv.FormatBool(sr.Paper), num(sr.X[i]), num(sr.Y[i]), e})
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// merge adds s's content to the page section into (same paper).
func merge(into *report.Section, s report.Section) {
	if s.Reproduced != "" {
		into.Reproduced = strings.TrimSpace(into.Reproduced + "\n\n" + s.Reproduced)
	}
	into.Tables = append(into.Tables, s.Tables...)
	into.Figures = append(into.Figures, s.Figures...)
	for _, c := range s.Choices {
		dup := false
		for _, d := range into.Choices {
			dup = dup || d == c
		}
		if !dup {
			into.Choices = append(into.Choices, c)
		}
	}
	into.Runs = append(into.Runs, s.Runs...)
}

// Module is the module path whose go.mod marks the repository's root.
const Module = "github.com/volsched/volsched"

// RepoRootOf returns the way from dir to the root of the volsched
// repository that holds it ("../.." for results/report), with '/'
// separators, or "" when dir is not inside one (then a page names the
// documents instead of linking them).
func RepoRootOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	root := findRoot(abs)
	if root == "" {
		return ""
	}
	rel, err := filepath.Rel(abs, root)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// RepoRootFrom is RepoRootOf(dir), or, when dir is outside the repository
// (a page written to /tmp/report from a clone), the way from dir to the
// root of the repository that holds from (the working directory), so that
// the page still links the documents of that clone; "" when neither is in
// one.
func RepoRootFrom(dir, from string) string {
	if r := RepoRootOf(dir); r != "" {
		return r
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	f, err := filepath.Abs(from)
	if err != nil {
		return ""
	}
	root := findRoot(f)
	if root == "" {
		return ""
	}
	rel, err := filepath.Rel(abs, root)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// findRoot returns the directory holding the go.mod of Module at or above
// the absolute directory abs, or "".
func findRoot(abs string) string {
	for d := abs; ; {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module "+Module {
				return d
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// WallTime reads the elapsed time from the output of GNU time -v
// ("Elapsed (wall clock) time (h:mm:ss or m:ss): 2:21:49"), as the
// committed results keep it in time.txt.
func WallTime(file string) (time.Duration, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		_, v, ok := strings.Cut(line, "Elapsed (wall clock) time (h:mm:ss or m:ss): ")
		if !ok {
			continue
		}
		parts := strings.Split(strings.TrimSpace(v), ":")
		if len(parts) < 2 || len(parts) > 3 {
			break
		}
		var d time.Duration
		for i, p := range parts {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil || !(x >= 0) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("%s: elapsed time %q: want h:mm:ss or m:ss", file, strings.TrimSpace(v))
			}
			if i < len(parts)-1 {
				d = (d + time.Duration(x)) * 60
			} else {
				d = d*time.Second + time.Duration(x*float64(time.Second))
			}
		}
		return d, nil
	}
	return 0, fmt.Errorf("%s: no elapsed wall-clock time (the output of /usr/bin/time -v)", file)
}
