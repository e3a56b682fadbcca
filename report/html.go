package report

import (
	"bytes"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/internal/atomicfile"
)

//go:embed page.html.tmpl page.css
var assets embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(assets, "page.html.tmpl"))

// Options control how a page refers to the files around it.
type Options struct {
	// Embed puts the images into the page as data: URIs, so that the page
	// is one file; otherwise it links them, relative to its directory.
	Embed bool
	// RepoRoot is the repository's root relative to the page's directory
	// ("../.." for results/report/index.html), with '/' separators. The
	// choices' documents are linked through it and must exist. Empty: the
	// documents are named but not linked (for a page written outside the
	// repository).
	RepoRoot string
}

// Write renders the page and writes it to file (atomically). Images, links
// and documents are resolved from file's directory.
func Write(file string, p Page, opt Options) error {
	b, err := Render(p, filepath.Dir(file), opt)
	if err != nil {
		return err
	}
	return atomicfile.Write(file, b, 0o644)
}

// Render returns the page's HTML, for a page in directory dir (where its
// relative images, links and documents are looked up).
func Render(p Page, dir string, opt Options) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if opt.RepoRoot != "" {
		if err := relative(opt.RepoRoot); err != nil {
			return nil, fmt.Errorf("report: Options.RepoRoot: %w", err)
		}
	}
	css, err := assets.ReadFile("page.css")
	if err != nil {
		return nil, err
	}
	v := viewPage{Title: p.Title, Generated: p.Generated, Intro: paragraphs(p.Intro), CSS: template.CSS(css), Near: Near,
		MaxCloseRatio: number(MaxCloseRatio, 1), MaxNearRatio: number(MaxNearRatio, 0)}
	for _, s := range p.Sections {
		vs, err := viewOf(s, dir, opt)
		if err != nil {
			return nil, err
		}
		v.Sections = append(v.Sections, vs)
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return b.Bytes(), nil
}

type viewPage struct {
	Title, Generated string
	Intro            []string
	CSS              template.CSS
	Near             int
	MaxCloseRatio    string
	MaxNearRatio     string
	Sections         []viewSection
}

type viewSection struct {
	ID, Paper, Authors string
	Reproduced         []string
	Tables             []viewTable
	Figures            []viewFigure
	Choices            []viewChoice
	Runs               []viewRun
	Output             string
	Total              string
	Counts             Counts
	Taus               []viewTau
}

type viewTable struct {
	ID, Caption, RowHeader, Note string
	Columns                      []viewColumn
	Rows                         []viewRow
	Taus                         []viewTau
	Counts                       Counts
	Compared                     bool
	Tolerances                   string // of the compared columns
}

type viewColumn struct {
	Name     string
	Compared bool // the paper gives values in this column
}

type viewRow struct {
	Label string
	Cells []viewCell
}

type viewCell struct {
	Compared                 bool
	Ours, Paper, Delta, Rel  string
	Class, Title, PaperClass string
}

type viewTau struct {
	Column, Tau, Table string
	Where              string // in the contents: which table, when the section ranks in several
	N                  int
}

type viewFigure struct {
	ID           string
	Src          template.URL
	Alt, Caption string
	Links        []viewLink
}

type viewLink struct {
	Text string
	Href template.URL
}

type viewChoice struct {
	Text, Doc string
	Href      template.URL // empty: named, not linked
}

type viewRun struct {
	Command, Seed, Time, Note string
}

func viewOf(s Section, dir string, opt Options) (viewSection, error) {
	v := viewSection{ID: s.ID, Paper: s.Paper, Authors: s.Authors, Reproduced: paragraphs(s.Reproduced), Output: s.Output}
	for _, t := range s.Tables {
		vt := tableView(t)
		v.Tables = append(v.Tables, vt)
		v.Counts.Close += vt.Counts.Close
		v.Counts.Near += vt.Counts.Near
		v.Counts.Far += vt.Counts.Far
		v.Taus = append(v.Taus, vt.Taus...)
	}
	tables := map[string]bool{}
	for _, t := range v.Taus {
		tables[t.Table] = true
	}
	if len(tables) > 1 {
		for i := range v.Taus {
			where, _, _ := strings.Cut(v.Taus[i].Table, ":")
			v.Taus[i].Where = where
		}
	}
	for _, f := range s.Figures {
		src, err := imageSrc(dir, f.Src, opt.Embed)
		if err != nil {
			return v, fmt.Errorf("report: section %q figure %q: %w", s.ID, f.ID, err)
		}
		vf := viewFigure{ID: f.ID, Src: src, Alt: f.Alt, Caption: f.Caption}
		for _, l := range f.Links {
			if err := exists(dir, l.Href); err != nil {
				return v, fmt.Errorf("report: section %q figure %q link %q: %w", s.ID, f.ID, l.Text, err)
			}
			vf.Links = append(vf.Links, viewLink{Text: l.Text, Href: template.URL(escapePath(l.Href))})
		}
		v.Figures = append(v.Figures, vf)
	}
	for _, c := range s.Choices {
		vc := viewChoice{Text: c.Text, Doc: c.Doc}
		doc, frag, hasFrag := strings.Cut(c.Doc, "#")
		if doc != "" && opt.RepoRoot != "" {
			rel := path.Join(opt.RepoRoot, doc)
			if err := exists(dir, rel); err != nil {
				return v, fmt.Errorf("report: section %q choice %q: document %s: %w", s.ID, c.Text, c.Doc, err)
			}
			href := escapePath(rel)
			if hasFrag {
				href += "#" + frag
			}
			vc.Href = template.URL(href)
		}
		v.Choices = append(v.Choices, vc)
	}
	var total time.Duration
	measured := len(s.Runs) > 0
	for _, r := range s.Runs {
		v.Runs = append(v.Runs, viewRun{Command: r.Command, Seed: strconv.FormatUint(r.Seed, 10), Time: FormatDuration(r.Duration), Note: r.Note})
		total += r.Duration
		measured = measured && r.Duration > 0
	}
	if measured {
		v.Total = FormatDuration(total)
	}
	return v, nil
}

func tableView(t Table) viewTable {
	v := viewTable{ID: t.ID, Caption: t.Caption, RowHeader: t.RowHeader, Note: t.Note, Counts: t.Counts()}
	if v.RowHeader == "" {
		v.RowHeader = " "
	}
	for k, c := range t.Columns {
		compared := false
		for _, r := range t.Rows {
			if !math.IsNaN(r.Cells[k].Paper) || r.Cells[k].PaperText != "" {
				compared = true
			}
		}
		name := c.Name
		if c.Unit != "" {
			name += " (" + c.Unit + ")"
		}
		v.Columns = append(v.Columns, viewColumn{Name: name, Compared: compared})
		v.Compared = v.Compared || compared
		if compared {
			if v.Tolerances != "" {
				v.Tolerances += "; "
			}
			v.Tolerances += name + " " + c.Tol.String()
		}
	}
	for _, r := range t.Rows {
		vr := viewRow{Label: r.Label}
		for k, cell := range r.Cells {
			c := t.Columns[k]
			vc := viewCell{Compared: v.Columns[k].Compared, Ours: c.Format(cell.Ours), Paper: c.Format(cell.Paper)}
			if cell.PaperText != "" {
				vc.Paper = cell.PaperText
			}
			if vc.Compared {
				j := judge(cell.Ours, cell.Paper, c)
				vc.Class = j.class
				if vc.Class != ClassNone {
					d := cell.Ours - cell.Paper
					vc.Delta = signedText(c.Format(d))
					// The relative difference only where a ratio means
					// something and the difference shows: "0.0 | 0.0 |
					// 0.0 (−100.0 %)" would contradict what is printed.
					if cell.Paper != 0 && !c.Tol.Signed && c.shows(cell.Ours, cell.Paper) {
						vc.Rel = signed(100*d/math.Abs(cell.Paper), 1) + " %"
					}
					vc.Title = fmt.Sprintf("%s: |ours − paper| = %s, tolerance %s", vc.Class, trimFloat(math.Abs(d)), c.Tol)
					if j.ratio > 0 {
						vc.Title += "; " + ratioText(j.ratio)
					}
				}
			}
			vr.Cells = append(vr.Cells, vc)
		}
		v.Rows = append(v.Rows, vr)
	}
	for _, tau := range t.Taus() {
		s := "undefined"
		if !math.IsNaN(tau.Tau) {
			s = strconv.FormatFloat(tau.Tau, 'f', 3, 64)
		}
		v.Taus = append(v.Taus, viewTau{Column: tau.Column, Tau: s, N: tau.N, Table: t.Caption})
	}
	return v
}

// number formats x with digits decimals and thousands grouped; "—" for NaN.
func number(x float64, digits int) string {
	if math.IsNaN(x) {
		return "—"
	}
	if math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := figure.FormatTick(x, digits)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.,") == "" {
		s = s[1:] // no "-0.00"
	}
	return strings.Replace(s, "-", "−", 1)
}

// ratioText says why the ratio rule judged a cell.
func ratioText(r float64) string {
	if math.IsInf(r, 0) {
		return "one of the two is 0"
	}
	return "one is " + number(r, 1) + " times the other"
}

func signed(x float64, digits int) string {
	return signedText(number(x, digits))
}

// signedText puts "+" before a printed number that is neither negative
// nor 0.
func signedText(s string) string {
	if !strings.HasPrefix(s, "−") && strings.Trim(s, "0.,") != "" {
		s = "+" + s
	}
	return s
}

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// imageSrc returns the src of an image: its relative path, or a data: URI
// of its content when embedding. The file must exist and be an image.
func imageSrc(dir, src string, embed bool) (template.URL, error) {
	mime, ok := imageTypes[strings.ToLower(path.Ext(src))]
	if !ok {
		return "", fmt.Errorf("image %q: extension %q, want .svg, .png or .jpg", src, path.Ext(src))
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src)))
	if err != nil {
		return "", fmt.Errorf("image %q: %w", src, err)
	}
	if len(b) == 0 {
		return "", fmt.Errorf("image %q is empty", src)
	}
	if !embed {
		return template.URL(escapePath(src)), nil
	}
	return template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)), nil
}

var imageTypes = map[string]string{".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}

// exists checks that the relative path rel names a file from dir.
func exists(dir, rel string) error {
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, want a file", rel)
	}
	return nil
}

// escapePath percent-escapes what a relative URL path cannot hold as is
// (spaces, '%', '?', '#').
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", " ", "%20", "?", "%3F", "#", "%23")
	return r.Replace(p)
}
