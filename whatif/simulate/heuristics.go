package simulate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/iterative"
)

// HeuristicInfo is one heuristic as the listings show it (`volsched
// simulate --list-heuristics`, docs/whatif.md): its name, family, how it
// decides and what it does, all taken from its registration.
type HeuristicInfo struct {
	Name        string
	Family      string
	Decides     string
	Description string
}

// IterativeInfo describes heuristics of the independent-task model: the
// family; how it decides: "random" (a weight), "greedy" (a key),
// "greedy, contention" (Eq. 2), or "decision" (a decision of its own).
func IterativeInfo(hs []iterative.Heuristic) []HeuristicInfo {
	out := make([]HeuristicInfo, len(hs))
	for i, h := range hs {
		d := h.Kind().String()
		if h.Contention() {
			d += ", contention"
		}
		out[i] = HeuristicInfo{Name: h.String(), Family: h.Family(), Decides: d, Description: h.Description()}
	}
	return out
}

// CoupledInfo describes heuristics of the tightly-coupled model: the
// family is the building block (RANDOM, IP, IE, IY, IAY, or "own" for a
// builder of its own); it decides "passive" or "proactive, by C" (the
// criterion it switches by).
func CoupledInfo(hs []coupled.Heuristic) []HeuristicInfo {
	blocks := map[coupled.Criterion]string{coupled.Random: "RANDOM", coupled.Prob: "IP", coupled.Time: "IE", coupled.Yield: "IY", coupled.ApparentYield: "IAY"}
	out := make([]HeuristicInfo, len(hs))
	for i, h := range hs {
		fam := blocks[h.Build]
		if h.Builder != nil {
			fam = "own"
		}
		d := "passive"
		if h.Proactive() {
			d = "proactive, by " + h.Switch.String()
		}
		out[i] = HeuristicInfo{Name: h.Name, Family: fam, Decides: d, Description: h.Description}
	}
	return out
}

// WriteHeuristics writes the listing of both models' heuristics: a title
// and a table per model, aligned text or, with markdown, Markdown tables
// (the section of docs/whatif.md is this output for the built-in ones).
func WriteHeuristics(w io.Writer, indep, coup []HeuristicInfo, markdown bool) error {
	models := []struct {
		title string
		rows  []HeuristicInfo
	}{
		{"Independent tasks (application \"kind\": \"independent\"; seed 001 §6)", indep},
		{"Tightly-coupled tasks (application \"kind\": \"coupled\"; seed 002 §VI)", coup},
	}
	for i, m := range models {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if markdown {
			fmt.Fprintf(w, "%s:\n\n| name | family | decides | what it does |\n|---|---|---|---|\n", m.title)
			for _, r := range m.rows {
				fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", r.Name, r.Family, r.Decides, strings.ReplaceAll(r.Description, "|", `\|`))
			}
			continue
		}
		fmt.Fprintf(w, "%s:\n", m.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "name\tfamily\tdecides\twhat it does")
		for _, r := range m.rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.Family, r.Decides, r.Description)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
