package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/volsched/volsched/experiment"
)

// heuristicSummaryJSON is HeuristicSummary on disk: NaN metrics as null.
type heuristicSummaryJSON struct {
	Name      string   `json:"name"`
	Fails     int      `json:"fails"`
	PctDiff   *float64 `json:"pct_diff"`
	PctWins   float64  `json:"pct_wins"`
	PctWins30 float64  `json:"pct_wins30"`
	Stdv      *float64 `json:"stdv"`
	Scenarios int      `json:"scenarios"`
	Instances int      `json:"instances"`
}

// MarshalJSON writes NaN metrics (no scenario where both H and IE succeeded)
// as null.
func (h HeuristicSummary) MarshalJSON() ([]byte, error) {
	return json.Marshal(heuristicSummaryJSON{h.Name, h.Fails, finite(h.PctDiff), h.PctWins, h.PctWins30, finite(h.Stdv), h.Scenarios, h.Instances})
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// MSummary is the table of one value of m.
type MSummary struct {
	Tasks      int                `json:"m"`
	Heuristics []HeuristicSummary `json:"heuristics"` // sorted by %diff
	// KendallTau is τ-b between our %diff and the paper's over the
	// heuristics the paper's table lists (null when undefined).
	KendallTau *float64 `json:"kendall_tau"`
}

// WMinPoint is one point of Figure 2: %diff of each heuristic for one
// (m, w_min).
type WMinPoint struct {
	Tasks   int                 `json:"m"`
	WMin    int                 `json:"wmin"`
	PctDiff map[string]*float64 `json:"pct_diff"`
}

// Report is DIR/summary.json of a coupled campaign.
type Report struct {
	Seed   uint64         `json:"seed"`
	Params CampaignParams `json:"params"`
	// Heuristics pools every scenario of the campaign (all m).
	Heuristics []HeuristicSummary `json:"heuristics"`
	ByM        []MSummary         `json:"by_m"`
	Figure2    []WMinPoint        `json:"figure2"`
	// Partial, when set, says the report covers only some units of an
	// unfinished campaign.
	Partial *PartialInfo `json:"partial,omitempty"`
}

// PartialInfo describes the units a partial report covers.
type PartialInfo struct {
	Units   int   `json:"units"`   // of the campaign
	Present []int `json:"present"` // units summarized
}

// Summarize computes the report of the campaign's results with seed
// (units sorted by unit number: all of them, or those present for a
// partial report).
func (c *CampaignParams) Summarize(seed uint64, units []UnitResult) (Report, error) {
	r := Report{Seed: seed, Params: *c}
	if len(units) > 0 && !slices.Equal(units[0].Heuristics, c.HeuristicNames()) {
		return r, fmt.Errorf("summary: the results name the heuristics %v, the campaign %v", units[0].Heuristics, c.HeuristicNames())
	}
	var err error
	if r.Heuristics, err = Metrics(units, c.Cap); err != nil {
		return r, err
	}
	SortByDiff(r.Heuristics)
	for _, m := range c.Tasks {
		var sel []UnitResult
		for _, u := range units {
			if u.Tasks == m {
				sel = append(sel, u)
			}
		}
		hs, err := Metrics(sel, c.Cap)
		if err != nil {
			return r, err
		}
		SortByDiff(hs)
		ms := MSummary{Tasks: m, Heuristics: hs}
		if paper := PaperTable(m); paper != nil {
			ms.KendallTau = finite(tauAgainst(hs, paper))
		}
		r.ByM = append(r.ByM, ms)
		for _, w := range c.WMin {
			var sw []UnitResult
			for _, u := range sel {
				if u.WMin == w {
					sw = append(sw, u)
				}
			}
			hw, err := Metrics(sw, c.Cap)
			if err != nil {
				return r, err
			}
			pt := WMinPoint{Tasks: m, WMin: w, PctDiff: map[string]*float64{}}
			for _, h := range hw {
				pt.PctDiff[h.Name] = finite(h.PctDiff)
			}
			r.Figure2 = append(r.Figure2, pt)
		}
	}
	return r, nil
}

// tauAgainst is Kendall's τ-b between our %diff and the paper's over the
// paper's rows.
func tauAgainst(ours []HeuristicSummary, paper []PaperRow) float64 {
	by := map[string]float64{}
	for _, h := range ours {
		by[h.Name] = h.PctDiff
	}
	var a, b []float64
	for _, p := range paper {
		a = append(a, by[p.Name])
		b = append(b, p.PctDiff)
	}
	return experiment.KendallTau(a, b)
}

func fmtPtr(x *float64, prec int) string {
	if x == nil {
		return "–"
	}
	return experiment.FormatFloat(*x, prec)
}

// WriteText prints, for each m, our table next to the paper's, with the
// seed and parameters.
func (r Report) WriteText(w io.Writer) error {
	c := r.Params
	fmt.Fprintf(w, "Mapping Tightly-Coupled Applications on Volatile Resources, §VII.A: p = %d, m ∈ %v, n_com ∈ %v, w_min ∈ %v, %d scenarios × %d trials per (m, n_com, w_min), %d iterations, cap %d slots, E(S)(W) %s%s; campaign seed %d\n",
		c.P, c.Tasks, c.NCom, c.WMin, c.Scenarios, c.Trials, c.Iterations, c.Cap, c.Form, readingNote(&c), r.Seed)
	if r.Partial != nil {
		fmt.Fprintf(w, "PARTIAL: %d of the campaign's %d units (an unfinished campaign; the missing scenarios are not a random sample)\n", len(r.Partial.Present), r.Partial.Units)
	}
	fmt.Fprintf(w, "%%diff: scenario-averaged relative makespan difference to IE (trials where both succeed); %%wins / %%wins30: instances with makespan ≤ IE's / ≤ 1.3 × IE's; stdv of the relative difference over scenarios\n")
	for _, ms := range r.ByM {
		paper := map[string]PaperRow{}
		for _, p := range PaperTable(ms.Tasks) {
			paper[p.Name] = p
		}
		inst := 0
		if len(ms.Heuristics) > 0 {
			inst = ms.Heuristics[0].Instances
		}
		title := map[int]string{5: "Table I", 10: "Table II"}[ms.Tasks]
		if title == "" {
			title = "(no published table)"
		}
		fmt.Fprintf(w, "\nm = %d: %d instances; paper: %s (3,000 instances)\n", ms.Tasks, inst, title)
		t := experiment.NewTable("heuristic", "#fails", "%diff", "%wins", "%wins30", "stdv", "|", "paper #fails", "%diff", "%wins", "%wins30", "stdv")
		for _, h := range ms.Heuristics {
			row := []string{h.Name, strconv.Itoa(h.Fails), fmtPtr(finite(h.PctDiff), 2), experiment.FormatFloat(h.PctWins, 2),
				experiment.FormatFloat(h.PctWins30, 2), fmtPtr(finite(h.Stdv), 2), "|"}
			if p, ok := paper[h.Name]; ok {
				row = append(row, strconv.Itoa(p.Fails), experiment.FormatFloat(p.PctDiff, 2), experiment.FormatFloat(p.PctWins, 2),
					experiment.FormatFloat(p.PctWins30, 2), experiment.FormatFloat(p.Stdv, 2))
			} else {
				row = append(row, "", "", "", "", "")
			}
			t.AddRow(row...)
		}
		if err := t.WriteText(w); err != nil {
			return err
		}
		if ms.KendallTau != nil {
			fmt.Fprintf(w, "Kendall's τ-b of %%diff against the paper over its %d heuristics: %.3f\n", len(PaperTable(ms.Tasks)), *ms.KendallTau)
		}
	}
	return nil
}

// WriteFiles writes summary.json, figure2.csv and figure2-m<M>.svg (one
// plot per m) into dir.
func (r Report) WriteFiles(dir string) error { return r.WriteFilesAs(dir, "") }

// WriteFilesAs is WriteFiles with a prefix on every file name (e.g.
// "partial-" for the summary of an unfinished campaign).
func (r Report) WriteFilesAs(dir, prefix string) error {
	if err := experiment.WriteJSONFile(filepath.Join(dir, prefix+"summary.json"), r); err != nil {
		return err
	}
	names := r.Params.HeuristicNames()
	header := append([]string{"m", "wmin"}, names...)
	var rows [][]string
	for _, pt := range r.Figure2 {
		row := []string{strconv.Itoa(pt.Tasks), strconv.Itoa(pt.WMin)}
		for _, n := range names {
			row = append(row, fmtCSV(pt.PctDiff[n]))
		}
		rows = append(rows, row)
	}
	if err := experiment.WriteCSVFile(filepath.Join(dir, prefix+"figure2.csv"), header, rows); err != nil {
		return err
	}
	for _, m := range r.Params.Tasks {
		f := r.Figure2For(m)
		if f == nil {
			continue
		}
		if err := f.WriteFile(filepath.Join(dir, fmt.Sprintf("%sfigure2-m%d.svg", prefix, m))); err != nil {
			return err
		}
	}
	return nil
}

func fmtCSV(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', 10, 64)
}

// readingNote names the campaign's non-default readings.
func readingNote(c *CampaignParams) string {
	s := ""
	if c.Rebuild != "" && c.Rebuild != RebuildHoldings {
		s += ", proactive rebuild " + c.Rebuild
	}
	if c.Reclaimed != "" && c.Reclaimed != "asup" {
		s += ", running configuration with a RECLAIMED member valued " + c.Reclaimed
	}
	if c.Mu > 0 {
		s += fmt.Sprintf(", μ = %d", c.Mu)
	}
	if c.Random != "" && c.Random != RandomTasks {
		s += ", RANDOM " + c.Random
	}
	return s
}
