package campaign

import (
	"strings"
	"testing"

	"github.com/volsched/volsched/figure"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
)

// TestAgainstSFMax: the overlay runs as one line by increasing SF_max, each
// reference as a flat line over [lo, hi] (moved from the CLI's
// TestOverlaySFMaxFigure).
func TestAgainstSFMax(t *testing.T) {
	rs := []*oversim.Result{
		{Policy: overlay.PolicyIBP, SFMax: 64, TasksFinished: 110},
		{Policy: overlay.PolicyIBP, SFMax: 225, Scheduler: "centralized", TasksFinished: 80},
		{Policy: overlay.PolicyIBP, SFMax: 9, TasksFinished: 100},
	}
	s := againstSFMax(rs, nil, 9, 64, func(r *oversim.Result) float64 { return float64(r.TasksFinished) })
	if len(s) != 2 || s[0].Name != "overlay" || s[0].X[0] != 9 || s[0].Y[1] != 110 || s[1].Name != "centralized" || s[1].X[1] != 64 || s[1].Y[0] != 80 {
		t.Fatalf("series %+v", s)
	}
}

// TestSFMaxFiguresPaperValues: DP runs at the paper's 10^5 nodes and 60 h
// get the paper's Fig. 16 values beside theirs (the overlay at SF_max 64
// and 216, the references flat); at another size the figure says why they
// are not drawn; IBP's figures are Figs. 12-13 and say the paper gives a
// picture; every figure validates.
func TestSFMaxFiguresPaperValues(t *testing.T) {
	runs := func(nodes int) []*oversim.Result {
		var rs []*oversim.Result
		for _, sf := range []int{8, 64, 216} {
			rs = append(rs, &oversim.Result{Policy: overlay.PolicyDP, Nodes: nodes, Hours: 60, SFMax: sf, Link: "fast", TasksFinished: 4e6, ComputationFinishedMI: 3e13})
		}
		for _, sch := range []string{"centralized", "random"} {
			rs = append(rs, &oversim.Result{Policy: overlay.PolicyDP, Nodes: nodes, Hours: 60, SFMax: 216, Scheduler: sch, Link: "fast", TasksFinished: 3e6, ComputationFinishedMI: 2e13})
		}
		return rs
	}
	names, dirs := make([]string, 5), make([]string, 5)
	figs, err := sfmaxFigures("", runs(100000), names, dirs, 8, 216)
	if err != nil {
		t.Fatal(err)
	}
	tasks := figs[0].Figure
	if tasks.Paper != figure.PaperValues || !strings.HasPrefix(tasks.Title, "Figure 16:") {
		t.Fatalf("DP at 10^5 nodes: %q, paper %v", tasks.Title, tasks.Paper)
	}
	var paper []figure.Series
	for _, s := range tasks.Series {
		if s.Paper {
			paper = append(paper, s)
		}
	}
	if len(paper) != 3 || paper[0].Name != "overlay" || paper[0].X[0] != 64 || paper[0].Y[0] != 4306204 || paper[0].Y[1] != 4321049 ||
		paper[1].Name != "centralized" || paper[1].Y[0] != 4245745 || paper[2].Name != "random" || paper[2].Y[1] != 1078555 {
		t.Fatalf("paper series %+v", paper)
	}
	for _, d := range figs {
		if err := d.Figure.Validate(); err != nil {
			t.Errorf("%s: %v", d.ID, err)
		}
	}
	figs, err = sfmaxFigures("", runs(10000), names, dirs, 8, 216)
	if err != nil {
		t.Fatal(err)
	}
	if f := figs[0].Figure; f.Paper != figure.PaperNone || !strings.Contains(f.Caption, "not drawn") || !strings.Contains(f.Caption, "4,306,204") {
		t.Fatalf("DP at 10^4 nodes: paper %v, caption %q", f.Paper, f.Caption)
	}
	ibp := runs(1000)
	for _, r := range ibp {
		r.Policy = overlay.PolicyIBP
	}
	figs, err = sfmaxFigures("", ibp, names, dirs, 8, 216)
	if err != nil {
		t.Fatal(err)
	}
	if f := figs[1].Figure; !strings.HasPrefix(f.Title, "Figure 13:") || f.Paper != figure.PaperPicture || !strings.Contains(f.Caption, "20 %") {
		t.Fatalf("IBP computation: %q, %v, %q", f.Title, f.Paper, f.Caption)
	}
}

// TestRunsCaption: the caption names what the runs share.
func TestRunsCaption(t *testing.T) {
	rs := []*oversim.Result{
		{Policy: overlay.PolicyIBP, Seed: 3, Link: "slow", Hours: 1.0 / 3, Nodes: 800, SFMax: 225, UpdateBandwidth: 1000, Workload: "embedded model m"},
		{Policy: overlay.PolicyIBP, Seed: 3, Link: "slow", Hours: 1.0 / 3, Nodes: 200, SFMax: 9, UpdateBandwidth: 1000, Workload: "embedded model m"},
		{Policy: overlay.PolicyDP, Seed: 3, Link: "slow", Hours: 1.0 / 3, Nodes: 200, Scheduler: "centralized", SFMax: 216, Workload: "embedded model m"},
	}
	want := "Runs of volsched overlay sim: seed 3; slow link; 20 simulated minutes; 200 and 800 nodes; overlay SF_max IBP 9/225; " +
		"update limit IBP 1000 B/s; workload: the embedded model m (docs/workload-model.md)."
	if got := runsCaption(rs); got != want {
		t.Fatalf("caption\n%s\nwant\n%s", got, want)
	}
}
