// Package report builds the reproduction report: one self-contained HTML
// page (inline CSS, no script, images embedded as data: URIs or linked
// beside the page; nothing fetched from the network) with a section per
// paper — what was reproduced, each table beside the published one with
// the differences highlighted and Kendall's τ-b where a ranking is
// compared, each figure with its caption, the model choices that matter
// (linked to the docs), the commands, seeds and run times.
//
// The package takes structured content and writes the page; it computes
// nothing about the papers. Check verifies a written page: its internal
// links, its images and that it is well formed. docs/report.md describes
// the page and its rules.
package report

import (
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/volsched/volsched/experiment"
)

// Page is the whole report.
type Page struct {
	Title string // e.g. "volsched: reproduction of five papers"
	// Intro is the opening text; blank lines separate paragraphs.
	Intro string
	// Generated says how the page was made (version, date, command); the
	// package adds no clock reading of its own, so equal input gives an
	// equal page.
	Generated string
	Sections  []Section
}

// Section is one paper.
type Section struct {
	ID      string // anchor, lower case letters, digits and '-', e.g. "seed-001"
	Paper   string // the paper's title
	Authors string // e.g. "Casanova, Dufossé, Robert, Vivien (IPDPS 2011)"
	// Reproduced says what was reproduced and how (reduced or full);
	// blank lines separate paragraphs.
	Reproduced string
	Tables     []Table
	Figures    []Figure
	Choices    []Choice
	Runs       []Run
	// Output is text shown as printed (preformatted), e.g. the terminal
	// output of a reproduction that gives no tables yet.
	Output string
}

// Table is one of our tables beside the published one: per column our
// value, the paper's and their difference.
type Table struct {
	ID      string // anchor, unique on the page
	Caption string // e.g. "Table 2: average dfb and wins of the 17 heuristics"
	// RowHeader heads the column of row labels, e.g. "heuristic".
	RowHeader string
	Columns   []Column
	Rows      []Row
	// Note follows the table, e.g. on instances or reductions.
	Note string
}

// Column is one quantity of a table.
type Column struct {
	Name   string // e.g. "avg dfb"
	Unit   string // e.g. "%"; empty for counts and ratios
	Digits int    // decimals shown
	// Significant, when > 0, prints every number of the column with that
	// many significant digits instead of Digits decimals: for a column
	// whose values span orders of magnitude (0.0000456 beside 1.76, both
	// to two digits: 0.000046 and 1.8).
	Significant int
	// Tol is how far our value may be from the paper's and still be
	// called close (see Tolerance).
	Tol Tolerance
	// Rank compares the order of the rows by this column with the
	// paper's, by Kendall's τ-b over the rows with both values.
	Rank bool
}

// Tolerance says how a column's values are judged against the paper's
// (docs/report.md, "Colours"). The band is max(Abs, Rel·|paper|,
// Count·√|paper|): within it our value is close to the paper's, within
// Near bands near, beyond far. On a quantity that cannot be negative (the
// default: counts, shares, percentages, ratios) a large ratio overrides the
// band: ours more than MaxCloseRatio times the paper's, or less than its
// inverse, is at best near, and beyond MaxNearRatio (outside the noise
// floor max(Abs, Count·√|paper|)) far.
type Tolerance struct {
	// Abs is the absolute part of the band, in the column's unit: the
	// difference below which two values are the same for this quantity
	// (its noise floor).
	Abs float64
	// Rel is the relative part: a fraction of the paper's value.
	Rel float64
	// Count, for a column of counts (wins, failures), adds Count standard
	// deviations of a Poisson count, Count·√|paper|: small published
	// counts are judged by their counting noise, large ones by Rel.
	Count float64
	// Signed marks a quantity with no natural zero or that may be
	// negative (a difference such as %diff or a gain, a z-score, a
	// logarithm): its ratio to the paper's means nothing, so the ratio
	// rule does not apply and the relative difference is not shown.
	Signed bool
}

// Near is how many bands away a value is still near the paper's.
const Near = 3

// The ratio rule (Tolerance) for quantities that cannot be negative.
const (
	// MaxCloseRatio: ours and the paper's further apart than this factor
	// (one more than 50 % above the other) are not close.
	MaxCloseRatio = 1.5
	// MaxNearRatio: further apart than this factor, and by more than the
	// noise floor, they are far.
	MaxNearRatio = 3
)

// DefaultTolerance is used for a column whose Tol is zero: 5 % of the
// published value.
var DefaultTolerance = Tolerance{Rel: 0.05}

func (t Tolerance) orDefault() Tolerance {
	if t == (Tolerance{}) || t == (Tolerance{Signed: true}) {
		t.Rel = DefaultTolerance.Rel
	}
	return t
}

// floor is the band's absolute part: the noise below which a difference
// means nothing, whatever the ratio.
func (t Tolerance) floor(paper float64) float64 {
	return max(t.Abs, t.Count*math.Sqrt(math.Abs(paper)))
}

func (t Tolerance) band(paper float64) float64 {
	t = t.orDefault()
	return max(t.floor(paper), t.Rel*math.Abs(paper))
}

// String states the tolerance as on the page: "±max(0.5, 5 % of the
// paper's)", "±max(3√paper, 10 % of the paper's)".
func (t Tolerance) String() string {
	t = t.orDefault()
	var parts []string
	if t.Abs > 0 {
		parts = append(parts, trimFloat(t.Abs))
	}
	if t.Count > 0 {
		parts = append(parts, trimFloat(t.Count)+"√paper")
	}
	if t.Rel > 0 {
		rel := experiment.FormatFloat(100*t.Rel, 1)
		rel = strings.TrimSuffix(strings.TrimSuffix(rel, "0"), ".")
		parts = append(parts, rel+" % of the paper's")
	}
	if len(parts) == 0 {
		parts = append(parts, trimFloat(max(t.Abs, t.Count, t.Rel)))
	}
	s := "±" + parts[0]
	if len(parts) > 1 {
		s = "±max(" + strings.Join(parts, ", ") + ")"
	}
	if t.Signed {
		s += " (signed: no ratio rule)"
	}
	return s
}

func trimFloat(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", x), "0"), ".")
}

// Row is one line of a table.
type Row struct {
	Label string
	Cells []Cell // one per column
}

// Cell is our value and the paper's. NaN means none (e.g. a heuristic the
// paper's table does not list).
type Cell struct {
	Ours, Paper float64
	// PaperText, when set, is shown instead of the formatted Paper: the
	// published text where it says more than the number ("∼0.37",
	// ".001%"). Paper still gives the difference.
	PaperText string
}

// Difference classes of a cell.
const (
	ClassNone  = ""      // no published value, or no value of ours
	ClassClose = "close" // within the column's tolerance
	ClassNear  = "near"  // within Near times the tolerance
	ClassFar   = "far"   // beyond
)

// Classify returns the class of our value against the paper's under tol,
// at full precision (Column.Classify judges what the page shows).
func Classify(ours, paper float64, tol Tolerance) string {
	return judge(ours, paper, Column{Tol: tol, Digits: -1}).class
}

// Classify returns the class of a cell of the column: as Classify, except
// that the ratio rule leaves alone a difference too small to show as the
// column prints its numbers (the page prints the same number twice).
func (c Column) Classify(cell Cell) string {
	return judge(cell.Ours, cell.Paper, c).class
}

// Format prints x as the column does: Digits decimals or Significant
// digits, thousands grouped, "−" for minus, "—" for NaN.
func (c Column) Format(x float64) string {
	if c.Significant > 0 && x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
		return number(x, max(0, c.Significant-1-int(math.Floor(math.Log10(math.Abs(x))))))
	}
	return number(x, c.Digits)
}

// verdict is a cell's class and why.
type verdict struct {
	class string
	// ratio is max/min of ours and the paper's when the ratio rule made
	// the class worse than the band's; 0 otherwise.
	ratio float64
}

// judge applies the band of c.Tol, then the ratio rule, to ours and the
// paper's; c.Digits < 0 means full precision.
func judge(ours, paper float64, c Column) verdict {
	tol := c.Tol
	if math.IsNaN(ours) || math.IsNaN(paper) || math.IsInf(ours, 0) || math.IsInf(paper, 0) {
		return verdict{class: ClassNone}
	}
	d, b := math.Abs(ours-paper), tol.band(paper)
	v := verdict{class: ClassFar}
	switch {
	case d <= b:
		v.class = ClassClose
	case d <= Near*b:
		v.class = ClassNear
	}
	if tol.Signed || ours < 0 || paper < 0 || !c.shows(ours, paper) {
		return v
	}
	r := math.Inf(1)
	if lo := min(ours, paper); lo > 0 {
		r = max(ours, paper) / lo
	}
	switch {
	case r > MaxNearRatio && d > tol.floor(paper) && v.class != ClassFar:
		return verdict{class: ClassFar, ratio: r}
	case r > MaxCloseRatio && v.class == ClassClose:
		return verdict{class: ClassNear, ratio: r}
	}
	return v
}

// shows reports whether ours and the paper's differ as the column prints
// them (Digits < 0: at full precision): different numbers, or a difference
// that does not print as 0.
func (c Column) shows(ours, paper float64) bool {
	if c.Digits < 0 && c.Significant == 0 {
		return ours != paper
	}
	return c.Format(ours) != c.Format(paper) || strings.Trim(c.Format(ours-paper), "−0.,") != ""
}

// Figure is one image of the page with its caption.
type Figure struct {
	ID string // anchor, unique on the page
	// Src is the image (SVG or PNG), relative to the page's directory,
	// with '/' separators. It must exist when the page is written.
	Src     string
	Alt     string // what the image shows, for readers who cannot see it
	Caption string
	// Links are other files of the figure (the PNG beside an SVG, the
	// CSV of its values), relative to the page's directory.
	Links []Link
}

// Link is a relative link with its text.
type Link struct {
	Text, Href string
}

// Choice is a modelling choice that matters for the results.
type Choice struct {
	Text string // the choice, e.g. "replicas on RECLAIMED workers are kept"
	// Doc is the document that explains it, relative to the repository's
	// root with an optional anchor: "docs/model-001.md#channels".
	Doc string
}

// Run is one command behind a section's results.
type Run struct {
	Command  string        // as typed, e.g. "volsched reproduce --quick"
	Seed     uint64        // the run's seed
	Duration time.Duration // wall time, 0 when not measured
	Note     string        // e.g. "reduced: 2 scenarios × 2 trials"
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Validate checks the page's structure: ids well formed and unique, every
// row with one cell per column, relative paths for images, links and
// documents. Errors name the section, table or figure, the field and the
// value.
func (p *Page) Validate() error {
	if strings.TrimSpace(p.Title) == "" {
		return errors.New("report: Title is empty")
	}
	ids := map[string]string{}
	claim := func(id, what string) error {
		if !idPattern.MatchString(id) {
			return fmt.Errorf("report: %s: ID %q, want lower-case letters, digits and '-'", what, id)
		}
		if prev, dup := ids[id]; dup {
			return fmt.Errorf("report: %s: ID %q already used by %s", what, id, prev)
		}
		ids[id] = what
		return nil
	}
	if err := claim("contents", "the contents"); err != nil {
		return err
	}
	claim("reading", "the reading guide")
	for i, s := range p.Sections {
		sw := fmt.Sprintf("section %d (%q)", i, s.Paper)
		if err := claim(s.ID, sw); err != nil {
			return err
		}
		if strings.TrimSpace(s.Paper) == "" {
			return fmt.Errorf("report: %s: Paper is empty, want the paper's title", sw)
		}
		for j, t := range s.Tables {
			tw := fmt.Sprintf("%s table %d (%q)", sw, j, t.Caption)
			if err := claim(t.ID, tw); err != nil {
				return err
			}
			if len(t.Columns) == 0 {
				return fmt.Errorf("report: %s: no columns", tw)
			}
			for k, c := range t.Columns {
				if strings.TrimSpace(c.Name) == "" {
					return fmt.Errorf("report: %s: column %d has no name", tw, k)
				}
				if c.Digits < 0 || c.Digits > 10 {
					return fmt.Errorf("report: %s: column %q: Digits = %d, want 0 to 10", tw, c.Name, c.Digits)
				}
				if c.Significant < 0 || c.Significant > 10 {
					return fmt.Errorf("report: %s: column %q: Significant = %d, want 0 (Digits decimals) to 10", tw, c.Name, c.Significant)
				}
				if !(c.Tol.Abs >= 0 && c.Tol.Rel >= 0 && c.Tol.Count >= 0) || math.IsInf(c.Tol.Abs+c.Tol.Rel+c.Tol.Count, 0) {
					return fmt.Errorf("report: %s: column %q: tolerance {Abs: %g, Rel: %g, Count: %g}, want finite Abs, Rel, Count ≥ 0", tw, c.Name, c.Tol.Abs, c.Tol.Rel, c.Tol.Count)
				}
			}
			for k, r := range t.Rows {
				if len(r.Cells) != len(t.Columns) {
					return fmt.Errorf("report: %s: row %d (%q) has %d cells, want %d (one per column)", tw, k, r.Label, len(r.Cells), len(t.Columns))
				}
			}
		}
		for j, f := range s.Figures {
			fw := fmt.Sprintf("%s figure %d (%q)", sw, j, f.Src)
			if err := claim(f.ID, fw); err != nil {
				return err
			}
			if err := relative(f.Src); err != nil {
				return fmt.Errorf("report: %s: Src: %w", fw, err)
			}
			if strings.TrimSpace(f.Alt) == "" {
				return fmt.Errorf("report: %s: Alt is empty, want what the image shows", fw)
			}
			for _, l := range f.Links {
				if err := relative(l.Href); err != nil {
					return fmt.Errorf("report: %s: link %q: %w", fw, l.Text, err)
				}
			}
		}
		for j, c := range s.Choices {
			doc, _, _ := strings.Cut(c.Doc, "#")
			if doc == "" {
				continue
			}
			if err := relative(doc); err != nil || strings.HasPrefix(path.Clean(doc), "..") {
				return fmt.Errorf("report: %s choice %d: Doc %q, want a path inside the repository, relative to its root", sw, j, c.Doc)
			}
		}
		for j, r := range s.Runs {
			if strings.TrimSpace(r.Command) == "" {
				return fmt.Errorf("report: %s run %d: Command is empty", sw, j)
			}
			if r.Duration < 0 {
				return fmt.Errorf("report: %s run %d: Duration %v, want ≥ 0", sw, j, r.Duration)
			}
		}
	}
	return nil
}

// relative checks that p is a relative path with '/' separators and no
// scheme: something the page can reach without the network.
func relative(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.Contains(p, ":"):
		return fmt.Errorf("%q has a scheme or drive, want a relative path", p)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("%q is absolute, want a path relative to the page", p)
	case strings.Contains(p, `\`):
		return fmt.Errorf("%q has '\\', want '/' separators", p)
	}
	return nil
}

// Tau is Kendall's τ-b between our column and the paper's, over the rows
// with both values; N is how many rows that is. Tau is NaN when undefined
// (fewer than two rows, or a constant column).
type Tau struct {
	Column string
	N      int
	Tau    float64
}

// Taus computes Kendall's τ-b for the table's Rank columns.
func (t *Table) Taus() []Tau {
	var out []Tau
	for k, c := range t.Columns {
		if !c.Rank {
			continue
		}
		var ours, paper []float64
		for _, r := range t.Rows {
			if k < len(r.Cells) {
				cell := r.Cells[k]
				if !math.IsNaN(cell.Ours) && !math.IsNaN(cell.Paper) {
					ours = append(ours, cell.Ours)
					paper = append(paper, cell.Paper)
				}
			}
		}
		out = append(out, Tau{Column: c.Name, N: len(ours), Tau: experiment.KendallTau(ours, paper)})
	}
	return out
}

// Counts of a table's (or section's) cells by class.
type Counts struct {
	Close, Near, Far int
}

// Counts counts the table's compared cells by class.
func (t *Table) Counts() Counts {
	var c Counts
	for _, r := range t.Rows {
		for k, cell := range r.Cells {
			if k >= len(t.Columns) {
				break
			}
			switch t.Columns[k].Classify(cell) {
			case ClassClose:
				c.Close++
			case ClassNear:
				c.Near++
			case ClassFar:
				c.Far++
			}
		}
	}
	return c
}

// FormatDuration prints a run time to a useful precision: "850 ms",
// "12.4 s", "3 min 05 s", "2 h 14 min"; "not measured" for 0.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "not measured"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	m := int(d.Round(time.Minute).Minutes())
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// FormatIntSet writes a list of integers as a set, "{5, 10, 20, 40}", or as
// a range, "1..10", when it is one of more than two values.
func FormatIntSet(xs []int) string {
	if len(xs) > 2 {
		run := true
		for i := 1; i < len(xs); i++ {
			run = run && xs[i] == xs[i-1]+1
		}
		if run {
			return fmt.Sprintf("%d..%d", xs[0], xs[len(xs)-1])
		}
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Plural is the "s" of a count of n things: "" when n is 1.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
