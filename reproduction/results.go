package reproduction

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResultsPageDir is where, under the results directory, the page of the
// committed full runs is kept.
const ResultsPageDir = "report"

// WriteResults writes the page of the project's committed full runs: for
// each reproduction (in run order) that gives Results and finds its runs
// under root (the repository's results/ directory), its section, read from
// the files there; nothing is run. The page goes to dir (root/report when
// empty), with its figures as SVG (small files, to commit). The page
// depends only on the results and the code: it names no date or version,
// so that it can be regenerated and compared. It returns the page's path
// and the names of the reproductions that gave no section.
func WriteResults(root, dir string, rs []Reproduction) (string, []string, error) {
	if fi, err := os.Stat(root); err != nil {
		return "", nil, fmt.Errorf("results directory: %w", err)
	} else if !fi.IsDir() {
		return "", nil, fmt.Errorf("results directory %s is not a directory", root)
	}
	if dir == "" {
		dir = filepath.Join(root, ResultsPageDir)
	}
	var entries []Entry
	var missing, notes []string
	for _, r := range Sort(rs) {
		if r.Results == nil {
			missing = append(missing, r.Name)
			if r.NoResults != "" {
				notes = append(notes, r.Name+": "+r.NoResults)
			} else {
				notes = append(notes, r.Name+": no section from committed results yet; its results are in results/ and its documents.")
			}
			continue
		}
		s, err := r.Results(root)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		if s == nil {
			missing = append(missing, r.Name)
			notes = append(notes, r.Name+": no committed results found in the results directory.")
			continue
		}
		entries = append(entries, Entry{Name: r.Name, Title: r.Title, Section: s})
	}
	if len(entries) == 0 {
		return "", missing, fmt.Errorf("%s: no committed results of any reproduction found (want e.g. %s/001/full/summary.json)", root, root)
	}
	intro := `The full runs of the papers' experiments that the project keeps in results/, each table beside the published one and each figure drawn from the committed numbers. Nothing was run to make this page: 'volsched report results/' reads the files there (the command of each run is given in its section, with its wall time where it was measured).

The reduced versions of every reproduction run in minutes: 'volsched reproduce --quick --report DIR' writes the same page from a fresh run. docs/papers.md lists the papers; docs/report.md describes this page.`
	if len(notes) > 0 {
		intro += "\n\nNot on this page: " + strings.Join(notes, " ")
	}
	file, err := Write(dir, entries, PageOptions{
		Title:     "volsched: the full runs beside the papers",
		Intro:     intro,
		Generated: "Made by 'volsched report results/' from the committed results (no date or version, so that the page changes only with them or with the code that draws it).",
		RepoRoot:  RepoRootOf(dir),
	})
	return file, missing, err
}

// ReadJSON reads the JSON file of committed results into a new T; a
// decoding error names the file, and a missing file gives an error that
// errors.Is os.ErrNotExist (a section then has no committed results).
func ReadJSON[T any](file string) (*T, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return v, nil
}
