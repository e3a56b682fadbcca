// Package layout holds the test that keeps the architecture of
// docs/architecture.md true: the scheduling cores import no driver, no
// simulator, no experiment or plotting code and do no IO; the drivers never
// copy a decision (they import the core instead).
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

// forbiddenDeps may not appear among a core's dependencies, direct or not:
// simulators, campaigns, experiments, plots, reports, the live system.
var forbiddenDeps = []string{
	module + "iterative/slotsim", module + "iterative/campaign",
	module + "coupled/slotsim", module + "coupled/campaign",
	module + "overlay/accuracy", module + "overlay/stars", module + "overlay/node",
	module + "oversim", module + "des", module + "workload", module + "failure",
	module + "experiment", module + "figure", module + "report", module + "whatif",
	module + "live/", module + "cmd/",
	"gonum.org/v1/plot", "github.com/spf13/cobra",
	"connectrpc.com/", "google.golang.org/protobuf", "modernc.org/sqlite",
	"github.com/prometheus/",
}

// forbiddenImports may not be imported by a core's own files: no clock
// reading, network, disk, processes or databases (time as a type is not
// needed either: the cores think in slots and seconds as numbers).
var forbiddenImports = []string{"os", "os/exec", "os/signal", "net", "net/http", "database/sql", "time", "io/fs", "log", "log/slog"}

func TestCoresArePure(t *testing.T) {
	direct := list(t, "./iterative", "./coupled", "./overlay")
	for _, core := range cores {
		p, ok := direct[core]
		if !ok {
			t.Fatalf("core %s not found", core)
		}
		for _, imp := range p.Imports {
			for _, f := range forbiddenImports {
				if imp == f {
					t.Errorf("core %s imports %s: the core does no IO and reads no clock; the driver does", core, imp)
				}
			}
		}
		for _, d := range p.Deps {
			for _, f := range forbiddenDeps {
				if d == f || strings.HasPrefix(d, strings.TrimSuffix(f, "/")+"/") {
					t.Errorf("core %s depends on %s (docs/architecture.md: a core may not import a driver, a simulator, an experiment or a plot)", core, d)
				}
			}
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
