package campaign

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	"github.com/volsched/volsched/report"
	"github.com/volsched/volsched/reproduction"
)

// Table4Row is one row of Table 4: the maximum link use of a policy at an
// SF_max and link, as fractions of the link's capacity, over the whole run,
// 10 s and 1 s windows; ours (NaN when the run failed) and the paper's.
type Table4Row struct {
	Policy    overlay.Policy
	SFMax     int
	Link      string
	Ours      [3]float64
	Paper     [3]float64
	PaperText [3]string // as printed in the paper: ".001%"
}

// newTable4Row is the row of a run (nil: failed) of Table 4.
func newTable4Row(pol overlay.Policy, sf int, link string, r *oversim.Result) Table4Row {
	row := Table4Row{Policy: pol, SFMax: sf, Link: link, Ours: [3]float64{math.NaN(), math.NaN(), math.NaN()},
		PaperText: PaperTable4[pol.String()][sf][link]}
	for i, t := range row.PaperText {
		row.Paper[i] = parsePercent(t)
	}
	if r != nil && len(r.PeakLinkUse) == 3 {
		u := r.PeakLinkUse // 1 s, 10 s, whole run
		row.Ours = [3]float64{u[2].Fraction, u[1].Fraction, u[0].Fraction}
	}
	return row
}

// parsePercent reads a percentage of the paper's Table 4 (".001%", "12%")
// as a fraction; NaN if it is not one.
func parsePercent(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !strings.HasSuffix(s, "%") {
		return math.NaN()
	}
	return v / 100
}

// percentText is a percentage of the paper's Table 4 as the page prints
// numbers in a column of percentages: its digits as published, with the
// leading zero and without the "%" (".07%" is "0.07", "12%" is "12").
func percentText(s string) string {
	t := strings.TrimSuffix(s, "%")
	if strings.HasPrefix(t, ".") {
		t = "0" + t
	}
	return t
}

// table4 is Table 4 for the page: percentages, ours beside the paper's.
func table4(rows []Table4Row, nodes int, hours float64) report.Table {
	t := report.Table{ID: "table4", RowHeader: "policy, SF_max, link",
		Caption: "Table 4: maximum percentage of link bandwidth used, over the nodes (update limit 100 kbit/s)",
		// Two significant digits, as the paper prints most of its cells:
		// the peaks span four orders of magnitude (about 1e-5 % to 3 %).
		Columns: []report.Column{{Name: "whole run", Unit: "%", Significant: 2}, {Name: "10 s", Unit: "%", Significant: 2}, {Name: "1 s", Unit: "%", Significant: 2}},
		Note: fmt.Sprintf("Ours: %s nodes, %g simulated hours, seed and workload as in the figures' captions. The paper does not state "+
			"the network size or length of its Table 4 (its other runs: 10^5 to 10^6 nodes, 60 h); a peak is a maximum over nodes and "+
			"windows and grows with the network's busiest node, so the cells compare orders of magnitude. The paper's update limit, "+
			"\"100Kbps\", is read as 100 kbit/s (12,500 bytes/s).", count(nodes), hours)}
	for _, r := range rows {
		row := report.Row{Label: fmt.Sprintf("%s %d, %s", strings.ToUpper(r.Policy.String()), r.SFMax, r.Link)}
		for i := range 3 {
			row.Cells = append(row.Cells, report.Cell{Ours: 100 * r.Ours[i], Paper: 100 * r.Paper[i], PaperText: percentText(r.PaperText[i])})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// fig16 is DP's tasks finished (the paper's Fig. 16) for the page: ours
// and the paper's, absolute (not comparable across sizes) and relative to
// the centralized reference.
func fig16(runs []*oversim.Result, nodes int, hours float64) (report.Table, bool) {
	var central *oversim.Result
	for _, r := range runs {
		if r.Scheduler == "centralized" {
			central = r
		}
	}
	t := report.Table{ID: "fig16", RowHeader: "DP run",
		Caption: "Figure 16: tasks finished by DP against SF_max and the references",
		Columns: []report.Column{{Name: "tasks finished", Digits: 0}, {Name: "relative to centralized", Digits: 3}},
		Note: fmt.Sprintf("Ours: %s nodes, %g simulated hours; the paper's: 10^5 nodes, 60 h (the bar labels of its Fig. 16; SF_max 8 "+
			"is not labelled). The counts are not comparable across sizes and are shown, not compared; the ratio to the centralized "+
			"reference is.", count(nodes), hours)}
	if central == nil || central.TasksFinished == 0 {
		return t, false
	}
	for _, r := range runs {
		label, paper := fig16Row(r)
		text := ""
		if !math.IsNaN(paper) {
			text = count(int(paper)) + " (10^5 nodes)"
		}
		// The reference's own ratio is 1 by definition on both sides: shown,
		// not counted as a comparison.
		rel := report.Cell{Ours: float64(r.TasksFinished) / float64(central.TasksFinished), Paper: paper / paperFig16Centralized}
		if r == central {
			rel.Paper, rel.PaperText = math.NaN(), "1 (the reference)"
		}
		t.Rows = append(t.Rows, report.Row{Label: label, Cells: []report.Cell{
			{Ours: float64(r.TasksFinished), Paper: math.NaN(), PaperText: text}, rel,
		}})
	}
	return t, true
}

// section is the reproduction's part of the report page.
func (c *CampaignParams) section(t4 []Table4Row, dp []*oversim.Result, figs []Drawn) *reproduction.Section {
	g := &c.grid
	s := &reproduction.Section{
		Paper: reproduction.OverlayPaper,
		Reproduced: fmt.Sprintf("The event-driven simulation of §7.3-7.5, reduced: %d simulations of the overlay (routers, execution and "+
			"submission nodes running the policies IBP, MMP and DP) and of the centralized and random references, seed %d. Table 4 on "+
			"%s nodes for %g simulated hours, both links, every SF_max of the paper; Figs. 9 and 11 at %s nodes for %g h, fast link; "+
			"Fig. 10 at %s nodes, a %d-task request every 2 minutes for 20 minutes, both links, both schedulers; Figs. 12-18 and the "+
			"catastrophic failure on %s nodes for %g h, fast link. The paper ran IBP on 10^6 nodes and MMP and DP on 10^5 for 60 "+
			"simulated hours.\n\nThe simulations are the units of an experiment campaign (kept in DIR/overlay-sim-runs with "+
			"reproduce --out DIR: an interrupted reproduction resumes). Full-size runs, up to the paper's sizes and length, are in "+
			"results/004/ and docs/reproduction-004.md, made with volsched overlay sim and the figure commands.",
			c.Units(), g.seed, count(g.nodes), g.hours, joinInts(g.sizes), g.churnHours, joinInts(g.probeSizes), g.probeTasks,
			count(g.nodes), g.churnHours),
		Tables:  []report.Table{table4(t4, g.nodes, g.hours)},
		Choices: simChoices(),
		Runs: []report.Run{{Command: "volsched overlay sfmax-figure --out PREFIX results/004/paper-dp/", Seed: 1,
			Note: "the full-size DP runs of Figs. 16-17 (10^5 nodes, 60 h), drawn beside the paper's Fig. 16 values"}},
	}
	if t, ok := fig16(dp, g.nodes, g.churnHours); ok {
		s.Tables = append(s.Tables, t)
	}
	for _, d := range figs {
		s.Figures = append(s.Figures, reproduction.Figure{ID: d.ID, Figure: d.Figure})
	}
	return s
}

// joinInts writes sizes as "100, 200 and 400".
func joinInts(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, count(x))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
