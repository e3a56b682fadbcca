package whatif

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimal is a valid platform; the error cases below edit it.
const minimal = `{
  "slot_seconds": 60,
  "master": {"ncom": 2, "tprog": 5, "tdata": 1},
  "workers": [
    {"name": "a", "w": 2, "availability": {"chain": {"P": [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]]}}}
  ]
}`

func TestParsePlatformMinimal(t *testing.T) {
	p, err := ParsePlatform([]byte(minimal), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Workers) != 1 || p.Workers[0].W != 2 || p.NCom != 2 || p.TProg != 5 || p.TData != 1 || !p.Estimator.KnownChains || p.Estimator.History != 0 {
		t.Fatalf("%+v", p)
	}
	// Without slot_seconds a platform in slots is fine.
	if _, err := ParsePlatform([]byte(strings.Replace(minimal, `"slot_seconds": 60,`, "", 1)), "p.json"); err != nil {
		t.Fatal(err)
	}
}

// TestPlatformErrors: each bad file is refused with an error naming the
// file, the place, the field and the value.
func TestPlatformErrors(t *testing.T) {
	chain := `{"chain": {"P": [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]]}}`
	sm := func(up string) string {
		return `{"semi_markov": {"up": ` + up + `, "reclaimed": {"dist": "exponential", "mean_seconds": 60}, "down": {"dist": "exponential", "mean_seconds": 60}, "jump": [[0, 0.5, 0.5], [1, 0, 0], [1, 0, 0]]}}`
	}
	worker := func(fields string) string {
		return `{"slot_seconds": 60, "master": {"ncom": 2, "tprog": 5, "tdata": 1}, "workers": [` + fields + `]}`
	}
	cases := []struct{ in, want string }{
		{``, "p.json: empty, want a JSON object"},
		{`[1]`, "p.json: got an array, want a JSON object"},
		{`{"slot_seconds": 60,}`, "p.json:1:21: invalid character '}'"},
		{`{"slot_seconds": 60} x`, "p.json:1:22: unexpected data after the JSON object"},
		{`{"slot_seconds": 60, "slot_seconds": 30}`, `p.json:1:22: key "slot_seconds" appears twice`},
		{`{"slots": 60}`, `p.json: unknown field "slots"`},
		{`{"slot_seconds": "60"}`, `p.json: field "slot_seconds": got JSON string, want a number`},
		{`{"slot_seconds": -1}`, "p.json: slot_seconds = -1, want a slot length in seconds in (0, 1e+09]"},
		{`{"workers": []}`, `p.json: missing field "master"`},
		{`{"master": {"ncom": 0, "tprog": 1, "tdata": 1}}`, "p.json: master: ncom = 0, want an integer in [1, 32768]"},
		{`{"master": {"ncom": 2.5}}`, `p.json: master: field "ncom": got JSON number 2.5, want an integer`},
		{`{"master": {"tprog": 1, "tdata": 1}}`, "p.json: master: missing ncom (or master_bandwidth with bandwidth)"},
		{`{"master": {"ncom": 1, "ncomm": 1}}`, `p.json: master: unknown field "ncomm"`},
		{`{"master": {"ncom": 1, "tprog": 1, "program_bytes": 5, "tdata": 1}}`, "p.json: master: both tprog and program_bytes given"},
		{`{"master": {"ncom": 1, "program_bytes": 5, "tdata": 1}}`, `p.json: master: program_bytes needs "bandwidth"`},
		{`{"master": {"ncom": 1, "program_bytes": 5, "tdata": 1, "bandwidth": 1}}`, `p.json: master: program_bytes needs "slot_seconds"`},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1, "bandwidth": 1}}`, "p.json: master: bandwidth is given but unused"},
		{`{"master": {"master_bandwidth": 1.5, "bandwidth": 2, "tprog": 1, "tdata": 1}}`, "master_bandwidth / bandwidth = 1.5 / 2 gives ncom = 0"},
		{`{"master": {"ncom": 1, "tprog": -1, "tdata": 1}}`, "p.json: master: tprog = -1, want an integer number of slots in [0, 16777216]"},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}}`, `p.json: "workers" is missing or empty`},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}, "start": "down", "workers": [1]}`, `p.json: start = "down", want stationary or up`},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}, "estimator": {"window_transitions": -5}, "workers": [1]}`, "p.json: estimator: window_transitions = -5"},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}, "estimator": {"prior": [[1, 1, 1], [0, 0, 0], [1, 1, 1]]}, "workers": [1]}`, "p.json: estimator: prior row r sums to 0"},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}, "estimator": {"prior": [[1, 1, 1]]}, "workers": [1]}`, "p.json: estimator: prior has 1 rows, want 3"},
		{worker(`1`), "p.json: workers[0]: got a number, want a JSON object"},
		{worker(`{"w": 1}`), `p.json: workers[0]: missing "availability"`},
		{worker(`{"availability": ` + chain + `}`), "p.json: workers[0]: missing w (UP slots per task) or task_seconds"},
		{worker(`{"w": 0, "availability": ` + chain + `}`), "p.json: workers[0]: w = 0, want an integer number of UP slots per task in [1, 16777216]"},
		{worker(`{"w": 1, "task_seconds": 5, "availability": ` + chain + `}`), "p.json: workers[0]: both w and task_seconds given"},
		{worker(`{"task_seconds": 0, "availability": ` + chain + `}`), "p.json: workers[0]: task_seconds = 0, want a task time in seconds > 0"},
		{worker(`{"w": 1, "count": 0, "availability": ` + chain + `}`), "p.json: workers[0]: count = 0"},
		{worker(`{"w": 1, "name": "", "availability": ` + chain + `}`), "p.json: workers[0]: name is empty"},
		{worker(`{"w": 1, "name": "x", "availability": ` + chain + `}, {"w": 1, "name": "x", "availability": ` + chain + `}`), `p.json: workers[1]: worker name "x" is already used by workers[0]`},
		{worker(`{"w": 1, "name": "x", "count": 2, "availability": ` + chain + `}, {"w": 1, "name": "x-2", "availability": ` + chain + `}`), `p.json: workers[1]: worker name "x-2" is already used by workers[0]`},
		{worker(`{"w": 1, "availability": {}}`), "p.json: workers[0].availability: 0 of chain, trace, semi_markov given, want exactly one"},
		{worker(`{"w": 1, "availability": {"chain": {"P": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "trace": "t"}}`), "2 of chain, trace, semi_markov given"},
		{worker(`{"w": 1, "availability": {"chain": {"P": [[0.5, 0.5, 0.5], [0, 1, 0], [0, 0, 1]]}}}`), "p.json: workers[0].availability.chain: row 0 (from state u) sums to 1.5"},
		{worker(`{"w": 1, "availability": {"chain": {"P": [[1, 0], [0, 1, 0], [0, 0, 1]]}}}`), `p.json: workers[0].availability.chain: "P" row 0 has 2 entries, want 3`},
		{worker(`{"w": 1, "availability": {"chain": {"P": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "host": "h"}}`), "p.json: workers[0].availability: host and hosts are for trace availability"},
		{worker(`{"w": 1, "availability": {"trace": "t"}}`), `p.json: workers[0].availability: trace = "t", want the name of an entry of "traces"`},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "gamma", "mean_seconds": 5}`) + `}`), `p.json: workers[0].availability.semi_markov.up: dist = "gamma": want exponential, weibull or lognormal`},
		{worker(`{"w": 1, "availability": ` + sm(`{"mean_seconds": 5}`) + `}`), `p.json: workers[0].availability.semi_markov.up: missing "dist"`},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "exponential", "mean_seconds": 5, "shape": 2}`) + `}`), "semi_markov.up: shape is not a parameter of the exponential law (it takes mean_seconds)"},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "weibull", "shape": 0.5}`) + `}`), "semi_markov.up: missing scale_seconds or mean_seconds"},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "weibull", "shape": 0.5, "scale_seconds": 1, "mean_seconds": 1}`) + `}`), "semi_markov.up: both scale_seconds and mean_seconds given"},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "weibull", "shape": -0.5, "mean_seconds": 1}`) + `}`), "semi_markov.up: shape = -0.5, want a finite number > 0"},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "lognormal", "mu": 3}`) + `}`), "semi_markov.up: missing sigma"},
		{worker(`{"w": 1, "availability": ` + sm(`{"dist": "lognormal", "mu": 800, "sigma": 1}`) + `}`), "semi_markov.up: lognormal law with mean +Inf: want a finite mean > 0"},
		{worker(`{"w": 1, "availability": {"semi_markov": {"up": {"dist": "exponential", "mean_seconds": 1}}}}`), `semi_markov: missing "reclaimed"`},
		{worker(`{"w": 1, "availability": ` + strings.Replace(sm(`{"dist": "exponential", "mean_seconds": 1}`), `[[0, 0.5, 0.5]`, `[[0.2, 0.4, 0.4]`, 1) + `}`), "p.json: workers[0].availability.semi_markov: jump[u][u] = 0.2, want 0"},
		{worker(`{"w": 1, "availability": ` + strings.Replace(sm(`{"dist": "exponential", "mean_seconds": 1}`), `"jump": [[0, 0.5, 0.5], [1, 0, 0], [1, 0, 0]]`, `"jump": [[0, 0.5, 0.5]]`, 1) + `}`), "semi_markov: jump has 1 rows, want 3"},
		{strings.Replace(worker(`{"w": 1, "availability": `+sm(`{"dist": "exponential", "mean_seconds": 1}`)+`}`), `"slot_seconds": 60,`, "", 1), `p.json: workers[0].availability: semi_markov needs "slot_seconds"`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {}}, "workers": [1]}`, `p.json: traces.t: missing or empty "file"`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.csv", "unavailable": "down"}}, "workers": [1]}`, "p.json: traces.t: unavailable is for FTA traces"},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab", "unavailable": "up"}}, "workers": [1]}`, `p.json: traces.t: unavailable = "up", want down or reclaimed`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab", "format": "swf"}}, "workers": [1]}`, `p.json: traces.t: format = "swf", want fta or csv`},
		{`{"master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [1]}`, `p.json: traces.t: a trace needs "slot_seconds"`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [` + `{"w": 1, "availability": ` + chain + `}]}`, "p.json: traces.t is not used by any worker"},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [{"w": 1, "count": 2, "availability": {"trace": "t", "host": "h"}}]}`, `p.json: workers[0].availability: host "h" with count = 2, want count 1`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [{"w": 1, "count": 3, "availability": {"trace": "t", "hosts": ["a", "b"]}}]}`, "p.json: workers[0]: count = 3 but 2 hosts"},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [{"w": 1, "availability": {"trace": "t", "hosts": ["a", "a"]}}]}`, `p.json: workers[0].availability: hosts[1] = "a" appears twice`},
		{`{"slot_seconds": 1, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": "x.tab"}}, "workers": [{"w": 1, "availability": {"trace": "t", "host": "a"}}, {"w": 1, "availability": {"trace": "t", "hosts": ["b", "a"]}}]}`, `p.json: workers[1]: host "a" of trace "t" is already replayed by workers[0]`},
	}
	for _, c := range cases {
		_, err := ParsePlatform([]byte(c.in), "p.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error %v\n  want it to contain %q", c.in, err, c.want)
		}
	}
}

// TestLoadTracesErrors: trace files that cannot be read, parsed, cut, or
// that lack the hosts the workers need.
func TestLoadTracesErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "two.csv"), []byte("a,0,600,u\nb,0,600,d\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("a,0,600,u\nb,0,600,q\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.tab"), []byte("1\t0\t7\t1\th\t2\t0\t10\n"), 0o644)
	plat := func(file, avail string, slot float64) string {
		return fmt.Sprintf(`{"slot_seconds": %v, "master": {"ncom": 1, "tprog": 1, "tdata": 1}, "traces": {"t": {"file": %q}}, "workers": [%s]}`, slot, file, avail)
	}
	cases := []struct{ in, want string }{
		{plat("none.csv", `{"w": 1, "availability": {"trace": "t"}}`, 60), `p.json: traces.t: file "none.csv": open`},
		{plat("bad.csv", `{"w": 1, "availability": {"trace": "t"}}`, 60), `p.json: traces.t: bad.csv:2: state = "q"`},
		{plat("bad.tab", `{"w": 1, "availability": {"trace": "t"}}`, 60), `p.json: traces.t: bad.tab:1: event_type = "2"`},
		{plat("two.csv", `{"w": 1, "availability": {"trace": "t"}}`, 6000), "p.json: traces.t: two.csv: trace spans 600 s, shorter than one slot of 6000 s"},
		{plat("two.csv", `{"w": 1, "availability": {"trace": "t", "host": "c"}}`, 60), `p.json: workers[0] (worker1): trace t: host "c": not in the trace (2 hosts: a, b)`},
		{plat("two.csv", `{"w": 1, "count": 2, "availability": {"trace": "t"}}, {"w": 1, "availability": {"trace": "t", "host": "a"}}`, 60), "p.json: traces.t: 1 workers replay fixed hosts and 2 draw theirs at each trial, but two.csv has 2 hosts, want at least 3"},
	}
	for _, c := range cases {
		p, err := ParsePlatform([]byte(c.in), "p.json")
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		err = p.LoadTraces(DirReader(dir))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error %v\n  want it to contain %q", c.in, err, c.want)
		}
	}
	p, _ := ParsePlatform([]byte(plat("two.csv", `{"w": 1, "availability": {"trace": "t"}}`, 60)), "p.json")
	if _, err := p.Trial(1, 1); err == nil || !strings.Contains(err.Error(), "traces.t: not loaded") {
		t.Errorf("trial before LoadTraces: %v", err)
	}
}

func TestApplicationErrors(t *testing.T) {
	a, err := ParseApplication([]byte(`{"kind": "coupled", "tasks": 4, "iterations": 3, "mu": 2, "mu_per_worker": {"x": 0}}`), "a.json")
	if err != nil || a.Kind != Coupled || a.Tasks != 4 || a.Iterations != 3 || a.Mu != 2 || a.MuPerWorker["x"] != 0 {
		t.Fatalf("%+v %v", a, err)
	}
	for in, want := range map[string]string{
		`{"tasks": 1, "iterations": 1}`:                                                `a.json: missing "kind"`,
		`{"kind": "bag", "tasks": 1, "iterations": 1}`:                                 `a.json: kind = "bag", want independent or coupled`,
		`{"kind": "independent", "iterations": 1}`:                                     `a.json: missing "tasks"`,
		`{"kind": "independent", "tasks": 0, "iterations": 1}`:                         "a.json: tasks = 0, want an integer in [1, 32768]",
		`{"kind": "independent", "tasks": 1, "iterations": 0}`:                         "a.json: iterations = 0",
		`{"kind": "independent", "tasks": 1}`:                                          `a.json: missing "iterations"`,
		`{"kind": "independent", "tasks": 1, "iterations": 1, "mu": 1}`:                "a.json: mu and mu_per_worker are for coupled applications",
		`{"kind": "coupled", "tasks": 1, "iterations": 1, "mu": -1}`:                   "a.json: mu = -1",
		`{"kind": "coupled", "tasks": 1, "iterations": 1, "mu_per_worker": {"a": -2}}`: `a.json: mu_per_worker["a"] = -2`,
		`{"kind": "coupled", "tasks": 1, "iterations": 1, "m": 2}`:                     `a.json: unknown field "m"`,
		`{"kind": "coupled", "tasks": "1", "iterations": 1}`:                           `a.json: field "tasks": got JSON string, want an integer`,
	} {
		_, err := ParseApplication([]byte(in), "a.json")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n  error %v\n  want it to contain %q", in, err, want)
		}
	}
	// Conversion checks that need both files.
	p, _ := ParsePlatform([]byte(minimal), "p.json")
	for in, want := range map[string]string{
		`{"kind": "coupled", "tasks": 3, "iterations": 1, "mu": 2}`:                    "p.json with a.json: platform: Σ mu = 2 < m = 3",
		`{"kind": "coupled", "tasks": 1, "iterations": 1, "mu_per_worker": {"zz": 1}}`: `a.json: mu_per_worker: worker "zz" is not in p.json`,
	} {
		a, err := ParseApplication([]byte(in), "a.json")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := CoupledModel(p, a); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func FuzzParsePlatform(f *testing.F) {
	f.Add([]byte(minimal))
	if b, err := os.ReadFile(filepath.Join(exampleDir, "platform.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"slot_seconds": 1, "master": {"master_bandwidth": 10, "bandwidth": 3, "program_bytes": 0, "data_bytes": 7}, "workers": [{"task_seconds": 1e-300, "count": 3, "availability": {"semi_markov": {"up": {"dist": "weibull", "shape": 0.05, "mean_seconds": 1e300}, "reclaimed": {"dist": "lognormal", "sigma": 10, "mean_seconds": 1e-300}, "down": {"dist": "exponential", "mean_seconds": 1}, "jump": [[0, 1, 0], [0, 0, 1], [1, 0, 0]]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlatform(data, "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(p.Workers) == 0 || len(p.Workers) > MaxWorkers || p.NCom < 1 || p.TProg < 0 || p.TData < 0 {
			t.Fatalf("accepted %+v", p)
		}
		for _, w := range p.Workers {
			if w.W < 1 || w.Name == "" {
				t.Fatalf("accepted worker %+v", w)
			}
			switch w.Avail.Kind {
			case KindChain:
				if err := w.Avail.Chain.Validate("x"); err != nil {
					t.Fatal(err)
				}
			case KindSemiMarkov:
				if err := w.Avail.SemiMarkov.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		}
		a := &Application{Source: "a", Kind: Independent, Tasks: 1, Iterations: 1}
		if _, err := IterativeInstance(p, a); err != nil {
			t.Fatalf("valid platform refused by the model: %v", err)
		}
		if len(p.Traces) == 0 && p.Estimator.History*len(p.Workers) <= 100000 {
			if _, err := p.Trial(1, 1); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzParseApplication(f *testing.F) {
	f.Add([]byte(`{"kind": "coupled", "tasks": 5, "iterations": 10, "mu": 2, "mu_per_worker": {"a": 1}}`))
	f.Add([]byte(`{"kind": "independent", "tasks": 5, "iterations": 10, "comment": {"any": [1]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseApplication(data, "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if a.Tasks < 1 || a.Iterations < 1 || a.Mu < 0 {
			t.Fatalf("accepted %+v", a)
		}
		if !json.Valid(data) {
			t.Fatal("accepted invalid JSON")
		}
	})
}

func TestHistoryBound(t *testing.T) {
	in := strings.Replace(minimal, `"workers": [`, `"estimator": {"history_slots": 16777216}, "workers": [`, 1)
	in = strings.Replace(in, `{"name": "a", "w": 2`, `{"name": "a", "count": 100, "w": 2`, 1)
	if _, err := ParsePlatform([]byte(in), "p.json"); err == nil || !strings.Contains(err.Error(), "p.json: estimator: history_slots = 16777216 for 100 workers is 1677721600 draws per trial, want at most 1073741824") {
		t.Errorf("huge history: %v", err)
	}
}
