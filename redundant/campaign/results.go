package campaign

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/volsched/volsched/redundant"
	"github.com/volsched/volsched/reproduction"
	"github.com/volsched/volsched/trace"
)

// ResultsDir is where the repository keeps the full run of the
// reproduction, under its results directory.
const ResultsDir = "003"

// resultsFigures are the committed figures: the name of the CSV (and of
// the figure), the text file holding its title and parameters, the line
// its block begins with there, and the y quantity.
var resultsFigures = []struct{ name, text, head, ylabel string }{
	{"fig1", "fig1.txt", "Figure 1", "success probability"},
	{"fig2", "fig2.txt", "Figure 2", "success probability"},
	{"fig3", "fig3.txt", "Figure 3", "n/m"},
	{"fig4-ucb", "fig4.txt", "Figure 4 (ucb)", "success frequency"},
	{"fig4-entropia", "fig4.txt", "Figure 4 (entropia)", "success frequency"},
}

// committedSize describes the committed run's size, as docs/reproduction-003.md's commands made it.
const committedSize = "the committed run of results/003 (docs/reproduction-003.md, \"Results\"): 2,000 instances per point of Figure 1 (σ by 0.1) and Figure 2 (µ by 0.05), 200 per point of Figure 3 at m ∈ {10, 20, 40, 60, 80, 100}, 500 allocation times per point of Figure 4. " +
	"results/003/fig3-2000 and fig3-2000-m80-100 hold Figure 3 again with 2,000 instances per point (m ≤ 60, and m ∈ {80, 100}), discussed in docs/reproduction-003.md and not drawn here. " +
	"Nothing was run to make this section: its tables and figures are computed and redrawn from the committed CSV files (mean and standard error of each curve) and the fits printed in fig4.txt"

var (
	seedPattern = regexp.MustCompile(`\bseed=(\d+)`)
	// "  ucb      fit   µ=16.517 σ=2.480  KS D=…"
	fitPattern = regexp.MustCompile(`^\s*(\S+)\s+fit\s+µ=([-0-9.eE+]+)\s+σ=([-0-9.eE+]+)`)
	// "parameters: trace ucb: 80 hosts, …"
	hostsPattern = regexp.MustCompile(`^parameters: trace (\S+): (\d+) hosts`)
)

// ResultsSection builds the section of the committed full run under root
// (the repository's results/): root/003/figN.csv with the titles and
// parameters of figN.txt, redrawn in the project's style, the paper's
// claims computed from the committed curves, and Table 1 beside the fits
// of the synthetic traces printed in fig4.txt. Nil, nil when root holds no
// such run.
func ResultsSection(root string) (*reproduction.Section, error) {
	dir := filepath.Join(root, ResultsDir)
	r, err := ReadResults(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r.Section(), nil
}

// ReadResults reads the committed run in dir (results/003) as a Result:
// every figure of resultsFigures, which must all be there.
func ReadResults(dir string) (*Result, error) {
	res := &Result{Committed: committedSize}
	seed := ""
	fits := map[string][]float64{}
	hosts := map[string]int{}
	for _, rf := range resultsFigures {
		f, err := readFigureCSV(filepath.Join(dir, rf.name+".csv"), rf.name)
		if err != nil {
			return nil, err
		}
		textFile := filepath.Join(dir, rf.text)
		lines, err := readLines(textFile)
		if err != nil {
			return nil, err
		}
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, rf.head) {
				at = i
				break
			}
		}
		if at < 0 || at+1 >= len(lines) || !strings.HasPrefix(lines[at+1], "parameters: ") {
			return nil, fmt.Errorf("%s: no block %q followed by its parameters line", textFile, rf.head)
		}
		f.Title, f.Params, f.YLabel = lines[at], strings.TrimPrefix(lines[at+1], "parameters: "), rf.ylabel
		m := seedPattern.FindStringSubmatch(f.Params)
		if m == nil {
			return nil, fmt.Errorf("%s: parameters %q name no seed=N", textFile, f.Params)
		}
		if seed != "" && m[1] != seed {
			return nil, fmt.Errorf("%s: seed %s, the other figures' is %s", textFile, m[1], seed)
		}
		seed = m[1]
		f.Caption = fmt.Sprintf("Committed run (results/%s/%s.csv, seed %s): %s.", ResultsDir, rf.name, seed, f.Params)
		for _, l := range lines {
			if m := fitPattern.FindStringSubmatch(l); m != nil {
				mu, err1 := strconv.ParseFloat(m[2], 64)
				sigma, err2 := strconv.ParseFloat(m[3], 64)
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("%s: fit line %q: want µ=NUMBER σ=NUMBER", textFile, l)
				}
				fits[m[1]] = []float64{mu, sigma}
			}
			if m := hostsPattern.FindStringSubmatch(l); m != nil {
				hosts[m[1]], _ = strconv.Atoi(m[2])
			}
		}
		o := Output{Figure: f, Drawn: Drawn(f), Claims: redundant.PaperClaims(f)}
		if name, ok := strings.CutPrefix(rf.name, "fig4-"); ok {
			if p, ok := fits[name]; ok {
				o.Fit = &trace.Fit{Name: "lognormal", Params: p}
			}
			o.Hosts = hosts[name]
		}
		res.Figures = append(res.Figures, o)
	}
	s, err := strconv.ParseUint(seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: seed %q: %w", dir, seed, err)
	}
	res.Seed = s
	return res, nil
}

func readLines(file string) ([]string, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

// readFigureCSV reads what Report writes: a header "x", then "NAME",
// "NAME se" per curve; one row per x.
func readFigureCSV(file, name string) (redundant.Figure, error) {
	f := redundant.Figure{Name: name}
	fh, err := os.Open(file)
	if err != nil {
		return f, err
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		return f, fmt.Errorf("%s: %w", file, err)
	}
	if len(rows) < 2 || len(rows[0]) < 3 || len(rows[0])%2 != 1 || rows[0][0] != "x" {
		return f, fmt.Errorf("%s: want a header x,NAME,NAME se,... and at least one row", file)
	}
	head := rows[0]
	for k := 1; k < len(head); k += 2 {
		if head[k+1] != head[k]+" se" {
			return f, fmt.Errorf("%s: column %d is %q, want %q", file, k+2, head[k+1], head[k]+" se")
		}
		f.Series = append(f.Series, redundant.Series{Name: head[k]})
	}
	for i, row := range rows[1:] {
		if len(row) != len(head) {
			return f, fmt.Errorf("%s: row %d has %d fields, want %d", file, i+2, len(row), len(head))
		}
		v := make([]float64, len(row))
		for k, s := range row {
			if v[k], err = strconv.ParseFloat(s, 64); err != nil {
				return f, fmt.Errorf("%s: row %d column %q: %q is not a number", file, i+2, head[k], s)
			}
		}
		f.X = append(f.X, v[0])
		for k := range f.Series {
			f.Series[k].Y = append(f.Series[k].Y, v[1+2*k])
			f.Series[k].SE = append(f.Series[k].SE, v[2+2*k])
		}
	}
	return f, nil
}
