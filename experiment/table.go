package experiment

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table is a table of strings printed with aligned columns: numbers are
// right-aligned, text left-aligned. Build it with NewTable and AddRow, then
// print it with WriteText (terminal), WriteMarkdown (docs) or WriteCSV.
// For "ours | paper" tables put the two groups side by side and separate
// them with a "|" column:
//
//	t := experiment.NewTable("heuristic", "avg dfb", "wins", "|", "paper dfb", "paper wins")
//	t.AddRow("EMCT*", experiment.FormatFloat(ours, 2), "12", "|", "1.23", "10")
type Table struct {
	header []string
	rows   [][]string
}

// NewTable returns a table with these column headers.
func NewTable(header ...string) *Table { return &Table{header: header} }

// AddRow appends a row; missing cells are empty, extra cells are kept (the
// table widens).
func (t *Table) AddRow(cells ...string) { t.rows = append(t.rows, cells) }

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// FormatFloat formats x with prec decimals, "NaN" and "+Inf"/"-Inf" as
// such, and never "-0.00".
func FormatFloat(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

func (t *Table) ncols() int {
	n := len(t.header)
	for _, r := range t.rows {
		n = max(n, len(r))
	}
	return n
}

func cell(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return ""
}

// numeric reports whether s reads as a number (possibly with a trailing %
// or a leading sign), to right-align it.
func numeric(s string) bool {
	s = strings.TrimSuffix(strings.TrimSpace(s), "%")
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || s == "NaN" || s == "+Inf" || s == "-Inf"
}

// widths returns the display width of each column.
func (t *Table) widths() []int {
	w := make([]int, t.ncols())
	for i := range w {
		w[i] = utf8.RuneCountInString(cell(t.header, i))
		for _, r := range t.rows {
			w[i] = max(w[i], utf8.RuneCountInString(cell(r, i)))
		}
	}
	return w
}

// rightAligned reports, per column, whether every non-empty cell of the
// column is numeric.
func (t *Table) rightAligned() []bool {
	ra := make([]bool, t.ncols())
	for i := range ra {
		ra[i] = true
		any := false
		for _, r := range t.rows {
			if c := cell(r, i); c != "" {
				any = true
				ra[i] = ra[i] && numeric(c)
			}
		}
		ra[i] = ra[i] && any
	}
	return ra
}

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// WriteText writes the table with aligned columns separated by two spaces
// and a line of dashes under the header.
func (t *Table) WriteText(w io.Writer) error {
	wd, ra := t.widths(), t.rightAligned()
	var b bytes.Buffer
	line := func(r []string) {
		var s strings.Builder
		for i := range wd {
			if i > 0 {
				s.WriteString("  ")
			}
			s.WriteString(pad(cell(r, i), wd[i], ra[i]))
		}
		b.WriteString(strings.TrimRight(s.String(), " "))
		b.WriteByte('\n')
	}
	if len(t.header) > 0 {
		line(t.header)
		dashes := make([]string, len(wd))
		for i := range wd {
			dashes[i] = strings.Repeat("-", wd[i])
		}
		line(dashes)
	}
	for _, r := range t.rows {
		line(r)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the table as a GitHub-flavoured Markdown table
// (numeric columns right-aligned). A "|" cell is written as "‖" so that
// separator columns survive.
func (t *Table) WriteMarkdown(w io.Writer) error {
	ra := t.rightAligned()
	esc := func(s string) string {
		if s == "|" {
			return "‖"
		}
		return strings.ReplaceAll(s, "|", `\|`)
	}
	wd := make([]int, t.ncols())
	for i := range wd {
		wd[i] = max(3, utf8.RuneCountInString(esc(cell(t.header, i))))
		for _, r := range t.rows {
			wd[i] = max(wd[i], utf8.RuneCountInString(esc(cell(r, i))))
		}
	}
	var b bytes.Buffer
	line := func(r []string) {
		b.WriteString("|")
		for i := range wd {
			fmt.Fprintf(&b, " %s |", pad(esc(cell(r, i)), wd[i], ra[i]))
		}
		b.WriteByte('\n')
	}
	line(t.header)
	b.WriteString("|")
	for i := range wd {
		d := strings.Repeat("-", wd[i])
		if ra[i] {
			d = d[1:] + ":"
		}
		fmt.Fprintf(&b, " %s |", d)
	}
	b.WriteByte('\n')
	for _, r := range t.rows {
		line(r)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteCSV writes the header and rows as CSV (RFC 4180), dropping "|"
// separator columns.
func (t *Table) WriteCSV(w io.Writer) error {
	n := t.ncols()
	var keep []int
	for i := range n {
		if cell(t.header, i) != "|" {
			keep = append(keep, i)
		}
	}
	pick := func(r []string) []string {
		out := make([]string, len(keep))
		for j, i := range keep {
			out[j] = cell(r, i)
		}
		return out
	}
	cw := csv.NewWriter(w)
	if len(t.header) > 0 {
		cw.Write(pick(t.header))
	}
	for _, r := range t.rows {
		cw.Write(pick(r))
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVFile writes a CSV file (header, then rows) atomically: a reader
// never sees half a file, and a crash leaves the previous version.
func WriteCSVFile(path string, header []string, rows [][]string) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if header != nil {
		cw.Write(header)
	}
	cw.WriteAll(rows)
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes())
}

// WriteJSONFile writes v as indented JSON to path atomically.
func WriteJSONFile(path string, v any) error {
	var b bytes.Buffer
	enc := newIndentEncoder(&b)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes())
}
