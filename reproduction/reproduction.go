// Package reproduction is the interface between the project's
// reproductions of the papers and the reproduction report: what a
// reproduction is (a name the commands use, a Run that prints its tables
// and returns its report Section), what a Section holds (tables beside the
// published ones, figures drawn with the figure package, the model choices
// that matter, the commands behind the results), and Write, which turns
// the sections of a run into one page (package report) with its images
// beside it.
//
// A reproduction lives beside what it reproduces (iterative/campaign,
// coupled/campaign, overlay/accuracy, ...): it builds its Section from its
// own results; `volsched reproduce` registers and runs them, measures their
// wall time and, with --report DIR, writes the page. A reproduction that
// can also read the project's committed full runs (the results/ directory)
// gives Results, used by `volsched report results/`.
package reproduction

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/volsched/volsched/figure"
	"github.com/volsched/volsched/report"
)

// Paper names one of the papers the project reproduces. The page has one
// section per paper, holding the sections of every reproduction of it.
type Paper struct {
	// ID is the anchor of the paper's section on the page: lower-case
	// letters, digits and '-' ("iterative").
	ID      string
	Title   string // the paper's title, as published
	Authors string // authors and where it appeared
}

// The papers (docs/papers.md gives their seed numbers, the project's index
// of them).
var (
	IterativePaper = Paper{ID: "iterative",
		Title:   "Scheduling Parallel Iterative Applications on Volatile Resources",
		Authors: "Henri Casanova, Fanny Dufossé, Yves Robert, Frédéric Vivien — research report RR-2010-31 (IPDPS 2011)"}
	CoupledPaper = Paper{ID: "coupled",
		Title:   "Mapping Tightly-Coupled Applications on Volatile Resources",
		Authors: "Henri Casanova, Fanny Dufossé, Yves Robert, Frédéric Vivien — 2012 (HAL ensl-00697621)"}
	RedundantPaper = Paper{ID: "redundant",
		Title:   "Probabilistic Allocation of Tasks on Desktop Grids",
		Authors: "Joshua Wingstrom, Henri Casanova"}
	// OverlayPaper: the text the project works from lost the title, found
	// from its abstract (docs/papers.md).
	OverlayPaper = Paper{ID: "overlay",
		Title:   "A Task Routing Approach to Large-Scale Scheduling",
		Authors: "Javier Celaya, Unai Arronategui — Future Generation Computer Systems 29(5), 2013: decentralized scheduling of bag-of-tasks applications on a tree overlay"}
)

// Source is the paper as a figure's Source line: its title and authors'
// surnames.
func (p Paper) Source() string {
	var names []string
	head, _, _ := strings.Cut(p.Authors, " — ")
	head, _, _ = strings.Cut(head, " (")
	for _, a := range strings.Split(head, ",") {
		f := strings.Fields(a)
		if len(f) > 0 {
			names = append(names, f[len(f)-1])
		}
	}
	if len(names) == 0 {
		return p.Title
	}
	return strings.Join(names, ", ") + " — " + p.Title
}

// Options are what every reproduction is run with.
type Options struct {
	// Quick asks for the reduced version (seconds to a few minutes on two
	// cores); otherwise the version documented as the reproduction.
	Quick bool
	// Seed makes the run reproducible: the same seed, the same numbers.
	Seed uint64
	// OutDir, when not empty, is where the reproduction writes its files
	// (CSV, SVG, JSON), and keeps its finished work when it Resumes.
	OutDir string
}

// Reproduction is one entry of `volsched reproduce`.
type Reproduction struct {
	// Name is the command the reproduction reduces, with '-' for spaces
	// ("exp-independent"): what --only takes, and the name of its files.
	Name string
	// Aliases are former names --only still accepts.
	Aliases []string
	Order   int    // position in the run (then by Name)
	Title   string // one line for the listing: the paper and its section
	// Resumes says that, with an OutDir, Run keeps its finished work
	// there as it goes and reuses it when run again.
	Resumes bool
	// Run writes a human-readable report to w and returns the
	// reproduction's section of the report page (nil when it has none
	// yet: the page then shows what it printed). It stops with ctx's
	// error when ctx is cancelled.
	Run func(ctx context.Context, w io.Writer, opt Options) (*Section, error)
	// Results, when set, builds the section from the project's committed
	// full runs under root (the repository's results/ directory) without
	// running anything; nil, nil when root holds none of its results.
	Results func(root string) (*Section, error)
	// NoResults, for a reproduction without Results, says on the page of
	// the committed runs why it has none (e.g. that its full run takes
	// minutes and is not kept); empty: the page says only that it gives
	// no section.
	NoResults string
}

// Section is what a reproduction contributes to the report page.
type Section struct {
	Paper Paper
	// Reproduced says what was reproduced and how: reduced or full, the
	// grid, the instances, where the full run is. Blank lines separate
	// paragraphs.
	Reproduced string
	// Tables are ours beside the published ones. Their IDs need only be
	// unique within the section: the page prefixes them with the
	// reproduction's name.
	Tables  []report.Table
	Figures []Figure
	// Choices are the model choices that matter for these results, each
	// with the document (relative to the repository's root) explaining it.
	Choices []report.Choice
	// Runs are commands behind the results other than the run that made
	// the page (which the page adds with its measured wall time): e.g. the
	// full campaign's command, or the commands of committed results.
	Runs []report.Run
}

// Figure is one figure of a section: drawn by the figure package (Figure)
// or an existing image file (File).
type Figure struct {
	// ID names the figure within the section and its files beside the
	// page: ID.svg, ID.png (with PageOptions.PNG), ID.csv (its values).
	ID string
	// Figure is drawn beside the page; its series are also written as a
	// CSV file.
	Figure *figure.Figure
	// File, instead of Figure, is an existing SVG or PNG image, copied
	// beside the page.
	File string
	// Alt says what the image shows for readers who cannot see it;
	// empty: the figure's title and caption.
	Alt string
	// Caption is what the page adds under the image (the image carries
	// its own title and caption).
	Caption string
}

// Sort returns the reproductions in run order: by Order, then Name.
func Sort(rs []Reproduction) []Reproduction {
	out := slices.Clone(rs)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Select returns, in run order, the reproductions named in only (by name
// or alias), or all of them when only is empty. An unknown name is an
// error naming it.
func Select(rs []Reproduction, only []string) ([]Reproduction, error) {
	sorted := Sort(rs)
	if len(only) == 0 {
		return sorted, nil
	}
	want := map[string]bool{}
	for _, n := range only {
		found := false
		for _, r := range sorted {
			if r.Name == n || slices.Contains(r.Aliases, n) {
				want[r.Name] = true
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: no such reproduction (names: %s)", n, strings.Join(Names(sorted), ", "))
		}
	}
	var out []Reproduction
	for _, r := range sorted {
		if want[r.Name] {
			out = append(out, r)
		}
	}
	return out, nil
}

// Names lists the reproductions' names.
func Names(rs []Reproduction) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}
