package campaign

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
)

// Run is a run directory read back: its summary, and the name its lines
// take in a figure.
type Run struct {
	Name   string // from NAME=DIR; "" for DIR
	Dir    string
	Result *oversim.Result
}

// ReadRun reads the summary.json of a run directory given as DIR or
// NAME=DIR.
func ReadRun(arg string) (Run, error) {
	name, dir, ok := strings.Cut(arg, "=")
	if !ok {
		name, dir = "", arg
	}
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return Run{}, inputf("run %q: %v (want a directory written by 'volsched overlay sim')", arg, err)
	}
	r, err := ParseSummary(b, arg)
	if err != nil {
		return Run{}, err
	}
	return Run{Name: name, Dir: dir, Result: r}, nil
}

// ParseSummary reads the summary.json of run arg: a policy, nodes > 0 and
// hours > 0, or an *InputError.
func ParseSummary(b []byte, arg string) (*oversim.Result, error) {
	r := new(oversim.Result)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, inputf("run %q: summary.json: %v (want the JSON 'volsched overlay sim' writes)", arg, err)
	}
	if !r.Policy.Valid() || r.Nodes <= 0 || !(r.Hours > 0) {
		return nil, inputf("run %q: summary.json has policy %q, nodes %d, hours %g: not a 'volsched overlay sim' summary", arg, policyText(r.Policy), r.Nodes, r.Hours)
	}
	return r, nil
}

// policyText is a summary's policy as its JSON spells it ("" if none).
func policyText(p overlay.Policy) string {
	if !p.Valid() {
		return ""
	}
	return p.String()
}

// Unfinished says why r (given as arg) did not simulate all its hours, or
// nil. Hours is stored as seconds/3600, so the comparison allows rounding.
func Unfinished(arg string, r *oversim.Result) error {
	if want := r.Hours * 3600; r.SimulatedSeconds < want*(1-1e-9) {
		return inputf("run %q: stopped at %.4g of its %g simulated hours (an interrupted run; resume it first)", arg, r.SimulatedSeconds/3600, r.Hours)
	}
	return nil
}

// SetupDiff names the first setting, among those a figure keeps fixed, in
// which two runs differ ("" if none). vary lists the settings the figure
// varies: "nodes", "sfmax", "scheduler", "failure", and "policy" (which
// lets SF_max and the update limit, set per policy, differ too).
func SetupDiff(a, b *oversim.Result, vary ...string) string {
	fixed := func(k string) bool { return !slices.Contains(vary, k) }
	samePolicy := fixed("policy")
	switch {
	case samePolicy && a.Policy != b.Policy:
		return fmt.Sprintf("policy %s against %s", a.Policy, b.Policy)
	case fixed("nodes") && a.Nodes != b.Nodes:
		return fmt.Sprintf("%d nodes against %d", a.Nodes, b.Nodes)
	case fixed("sfmax") && samePolicy && a.SFMax != b.SFMax:
		return fmt.Sprintf("SF_max %d against %d", a.SFMax, b.SFMax)
	case fixed("scheduler") && a.Scheduler != b.Scheduler:
		return fmt.Sprintf("scheduler %q against %q", a.Scheduler, b.Scheduler)
	case a.Hours != b.Hours:
		return fmt.Sprintf("%g h against %g h", a.Hours, b.Hours)
	case a.Link != b.Link:
		return fmt.Sprintf("the %s link against the %s link", a.Link, b.Link)
	case a.Seed != b.Seed:
		return fmt.Sprintf("seed %d against %d", a.Seed, b.Seed)
	case samePolicy && a.Scheduler == "" && b.Scheduler == "" && a.UpdateBandwidth != b.UpdateBandwidth:
		return fmt.Sprintf("update limit %g B/s against %g B/s", a.UpdateBandwidth, b.UpdateBandwidth)
	case fixed("failure") && (a.ChurnMedianMinutes != b.ChurnMedianMinutes || a.CatastropheFraction != b.CatastropheFraction ||
		a.CatastropheHours != b.CatastropheHours):
		return fmt.Sprintf("failures (churn %g min, catastrophe %g at %g h) against (churn %g min, catastrophe %g at %g h)",
			a.ChurnMedianMinutes, a.CatastropheFraction, a.CatastropheHours, b.ChurnMedianMinutes, b.CatastropheFraction, b.CatastropheHours)
	case !reflect.DeepEqual(a.WorkloadParams, b.WorkloadParams):
		return "workload parameters (--params)"
	case a.Workload != b.Workload:
		return fmt.Sprintf("workload %q against %q", workloadName(a.Workload), workloadName(b.Workload))
	}
	return ""
}

// workloadName is how a run's summary names its workload: its Workload
// field, empty for the empirical files or a trace.
func workloadName(w string) string {
	if w == "" {
		return "empirical files or trace"
	}
	return w
}

// ExpandRunDirs replaces each argument that is a directory of runs (no
// summary.json of its own, run directories inside) by those runs, in name
// order, leaving out the unfinished ones with a note on w. Other arguments
// (NAME=DIR, run directories, anything else) are kept for the figure to
// read or refuse.
func ExpandRunDirs(args []string, w io.Writer) []string {
	var out []string
	for _, a := range args {
		if strings.Contains(a, "=") {
			out = append(out, a)
			continue
		}
		if _, err := os.Stat(filepath.Join(a, SummaryFile)); err == nil {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			out = append(out, a)
			continue
		}
		var runs []string
		for _, e := range entries {
			d := filepath.Join(a, e.Name())
			if !e.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(d, SummaryFile)); err != nil {
				continue
			}
			if x, err := ReadRun(d); err == nil {
				if err := Unfinished(d, x.Result); err != nil {
					fmt.Fprintf(w, "left out: %v\n", err)
					continue
				}
			}
			runs = append(runs, d)
		}
		if len(runs) == 0 {
			out = append(out, a) // not a directory of runs: the figure says why
			continue
		}
		out = append(out, runs...)
	}
	return out
}

// ReadMakespanTimeline reads the time_s and row_makespan_max_s columns of
// a timeline.csv. why says why there is nothing to read (no file, an empty
// one, no row_makespan_max_s column: written by volsched before 2026-11-23,
// no row); a malformed row is an *InputError naming the file and line.
func ReadMakespanTimeline(path string) (t, m []float64, why string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "no timeline.csv", nil
	}
	if err != nil {
		return nil, nil, "", inputf("run timeline: %v", err)
	}
	return ParseMakespanTimeline(b, path)
}

// ParseMakespanTimeline is ReadMakespanTimeline on the file's contents.
func ParseMakespanTimeline(b []byte, path string) (t, m []float64, why string, err error) {
	text := strings.TrimSpace(string(b))
	if text == "" {
		return nil, nil, "empty timeline.csv", nil
	}
	lines := strings.Split(text, "\n")
	head := strings.Split(lines[0], ",")
	ti, mi := slices.Index(head, "time_s"), slices.Index(head, "row_makespan_max_s")
	switch {
	case ti < 0 || mi < 0:
		return nil, nil, "timeline.csv without row_makespan_max_s: written by volsched before 2026-11-23", nil
	case len(lines) == 1:
		return nil, nil, "timeline.csv without rows", nil
	}
	for k, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(head) {
			return nil, nil, "", inputf("%s line %d: %d fields, the header has %d", path, k+2, len(f), len(head))
		}
		x, err1 := strconv.ParseFloat(f[ti], 64)
		y, err2 := strconv.ParseFloat(f[mi], 64)
		if err := cmp.Or(err1, err2); err != nil {
			return nil, nil, "", inputf("%s line %d: %v", path, k+2, err)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || y < 0 {
			return nil, nil, "", inputf("%s line %d: time_s %g, row_makespan_max_s %g (want finite values, the makespan >= 0)", path, k+2, x, y)
		}
		t, m = append(t, x), append(m, y)
	}
	return t, m, "", nil
}
