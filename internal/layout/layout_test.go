// Package layout holds the test that keeps the architecture of
// docs/architecture.md true: the scheduling cores and the foundations they
// build on (availability, analytic) import no driver, no simulator, no
// trace files or fits, no experiment or plotting code, no numerics library
// and do no IO; the drivers never copy a decision (they import the core
// instead); the simulators and the live system never import each other.
package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/volsched/volsched/"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T, patterns ...string) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string]pkg{}
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// The cores: model and decisions only.
var cores = []string{"iterative", "coupled", "overlay"}

// The foundations the cores import: whatever they import, every core
// carries, so they obey the cores' rules.
var foundations = []string{"availability", "analytic"}

// forbiddenDeps may not appear among the dependencies of a core or a
// foundation, direct or not: simulators, campaigns, experiments, plots,
// reports, the live system; trace files and fits (package trace converts
// its types to availability's, not the other way round); gonum (the model
// needs none of it: the normal CDF and the gamma draw of availability are a
// few lines of math, and gonum's distributions pull its linear algebra and
// optimization in); the network, processes, databases and TLS, even
// through another package.
var forbiddenDeps = []string{
	module + "trace", "gonum.org/v1/gonum/",
	"net", "os/exec", "os/signal", "database/sql", "crypto/tls",
	module + "iterative/slotsim", module + "iterative/campaign",
	module + "coupled/slotsim", module + "coupled/campaign",
	module + "overlay/accuracy", module + "overlay/stars", module + "overlay/node",
	module + "oversim", module + "des", module + "workload", module + "failure",
	module + "experiment", module + "figure", module + "report", module + "whatif",
	module + "live/", module + "cmd/", module + "cli",
	"gonum.org/v1/plot", "github.com/spf13/cobra",
	"connectrpc.com/", "google.golang.org/protobuf", "modernc.org/sqlite",
	"github.com/prometheus/",
}

// forbiddenImports may not be imported by a core's own files: no clock
// reading, network, disk, processes or databases (time as a type is not
// needed either: the cores think in slots and seconds as numbers).
var forbiddenImports = []string{"os", "os/exec", "os/signal", "net", "net/http", "database/sql", "time", "io/fs", "log", "log/slog"}

func TestCoresArePure(t *testing.T) {
	var pats []string
	for _, p := range append(cores, foundations...) {
		pats = append(pats, "./"+p)
	}
	direct := list(t, pats...)
	for _, p := range cores {
		checkPure(t, direct, "core", p)
	}
	for _, p := range foundations {
		checkPure(t, direct, "foundation", p)
	}
}

// checkPure checks the direct imports of package name against
// forbiddenImports and all its dependencies against forbiddenDeps.
func checkPure(t *testing.T, pkgs map[string]pkg, kind, name string) {
	t.Helper()
	p, ok := pkgs[name]
	if !ok {
		t.Fatalf("%s %s not found", kind, name)
	}
	for _, imp := range p.Imports {
		for _, f := range forbiddenImports {
			if imp == f {
				t.Errorf("%s %s imports %s: the cores and their foundations do no IO and read no clock; the driver does", kind, name, imp)
			}
		}
	}
	for _, f := range forbiddenDeps {
		var hit []string
		for _, d := range p.Deps {
			if d == f || strings.HasPrefix(d, strings.TrimSuffix(f, "/")+"/") {
				hit = append(hit, d)
			}
		}
		if len(hit) > 0 {
			t.Errorf("%s %s depends on %s (docs/architecture.md: a core and its foundations may not import a driver, a simulator, trace files or fits, an experiment, a plot, a numerics library or the network)", kind, name, strings.Join(hit, ", "))
		}
	}
}

// Each driver reaches the decisions through its core: a simulator or a live
// system that does not import the core would be deciding with a copy.
func TestDriversCallTheirCore(t *testing.T) {
	drivers := map[string]string{
		"iterative/slotsim": "iterative",
		"coupled/slotsim":   "coupled",
		"oversim":           "overlay",
		"live/master":       "iterative",
		"overlay/node":      "overlay",
		"overlay/accuracy":  "overlay",
		"whatif/simulate":   "iterative",
	}
	pats := []string{}
	for d := range drivers {
		pats = append(pats, "./"+d)
	}
	pkgs := list(t, pats...)
	for d, core := range drivers {
		p, ok := pkgs[d]
		if !ok {
			t.Errorf("driver %s not found", d)
			continue
		}
		found := false
		for _, imp := range p.Imports {
			if imp == module+core {
				found = true
			}
		}
		if !found {
			t.Errorf("driver %s does not import its core %s", d, core)
		}
	}
}

// The two sides of the drivers' rows (docs/architecture.md, "The rules"):
// the simulators with their campaigns and experiments, and the live
// system. Neither imports the other, directly or not. A test may: the
// agreement tests compare the live system with a simulator (go list -deps
// without -test, so test files are not counted).
var (
	simulators = []string{
		"iterative/slotsim", "iterative/campaign", "coupled/slotsim", "coupled/campaign",
		"oversim", "oversim/", "des", "workload", "failure", "whatif", "whatif/", "experiment",
		"overlay/accuracy", "overlay/stars", "redundant/campaign",
	}
	live = []string{"live/", "overlay/node"}
)

// in reports whether package path (relative to the module) is one of set:
// an entry ending in "/" is a prefix (its packages below), any other the
// package itself.
func in(path string, set []string) bool {
	for _, s := range set {
		if path == s || strings.HasSuffix(s, "/") && strings.HasPrefix(path, s) {
			return true
		}
	}
	return false
}

// TestSimulatorsAndLiveApart: no package of the live system depends on a
// simulator's package and none of the simulators' on the live system's (a
// prediction the live system needs comes through an interface the CLI
// wires: live/master.Predictor).
func TestSimulatorsAndLiveApart(t *testing.T) {
	pkgs := list(t, "./...")
	checked := map[bool]int{}
	for name, p := range pkgs {
		var other []string
		var side, otherSide string
		switch {
		case in(name, live):
			other, side, otherSide = simulators, "the live system's", "a simulator's"
		case in(name, simulators):
			other, side, otherSide = live, "a simulator's", "the live system's"
		default:
			continue
		}
		checked[in(name, live)]++
		var hit []string
		for _, d := range p.Deps {
			if dep, ok := strings.CutPrefix(d, module); ok && in(dep, other) {
				hit = append(hit, dep)
			}
		}
		if len(hit) > 0 {
			t.Errorf("%s package %s depends on %s %s (docs/architecture.md: a simulator and the live system never import each other)", side, name, otherSide, strings.Join(hit, ", "))
		}
	}
	// The sets name packages that exist.
	if checked[true] < 5 || checked[false] < 10 {
		t.Errorf("checked %d packages of the live system and %d of the simulators: the sets above name packages that moved", checked[true], checked[false])
	}
}
