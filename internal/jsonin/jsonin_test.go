package jsonin

import (
	"strings"
	"testing"
)

type worker struct {
	Name string  `json:"name"`
	W    int     `json:"w"`
	Rate float64 `json:"rate"`
}

type platform struct {
	Slot    float64           `json:"slot_seconds"`
	Workers []worker          `json:"workers"`
	Traces  map[string]worker `json:"traces"`
	P       [][]float64       `json:"P"`
}

func TestDecodeAccepts(t *testing.T) {
	for name, in := range map[string]string{
		"plain":           `{"slot_seconds": 60, "workers": [{"name": "a", "w": 2}]}`,
		"byte-order mark": "\uFEFF" + `{"slot_seconds": 60, "workers": [{"name": "a", "w": 2}]}`,
		"spaces around":   "\n  {\"slot_seconds\": 60, \"workers\": [{\"name\": \"a\", \"w\": 2}]}  \n",
	} {
		var p platform
		if err := Decode([]byte(in), &p, "p.json"); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Slot != 60 || len(p.Workers) != 1 || p.Workers[0].W != 2 {
			t.Errorf("%s: decoded %+v", name, p)
		}
	}
}

// TestDecodeErrors: every refusal names the input, and the place and the
// field where there is one. The byte-order mark and NaN cases are issue
// 28's: the first said "got a number, want a JSON object", the second gave
// a line and column but not the field.
func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", ``, "p.json: empty, want a JSON object"},
		{"only a mark", "\uFEFF  ", "p.json: empty, want a JSON object"},
		{"array", `[1]`, "p.json: got an array, want a JSON object {...}"},
		{"string", `"x"`, "p.json: got a string, want a JSON object {...}"},
		{"null", `null`, "p.json: got null, want a JSON object {...}"},
		{"boolean", ` true`, "p.json: got a boolean, want a JSON object {...}"},
		{"number", `12`, "p.json: got a number, want a JSON object {...}"},
		{"NaN at the top", `NaN`, "p.json: got NaN, want a JSON object {...}"},
		{"mark then syntax error", "\uFEFF{\"slot_seconds\": 60,}", "p.json:1:21: invalid character '}' looking for beginning of object key string"},
		{"UTF-16 LE with mark", "\xFF\xFE{\x00}\x00", "p.json: the text is UTF-16 or UTF-32 (it begins with the byte-order mark FF FE), want UTF-8"},
		{"UTF-16 BE with mark", "\xFE\xFF\x00{\x00}", "byte-order mark FE FF"},
		{"UTF-16 without mark", "{\x00\"\x00", "p.json:1:2: NUL byte: the text looks like UTF-16 or UTF-32, want UTF-8"},
		{"NaN", "{\"workers\": [\n  {\"name\": \"a\", \"w\": 1, \"rate\": NaN}]}", `p.json:2:33: field "workers[0].rate": got NaN, want a number (JSON has no NaN or infinity)`},
		{"Infinity", `{"slot_seconds": Infinity}`, `p.json:1:18: field "slot_seconds": got Infinity, want a number`},
		{"-Infinity", `{"slot_seconds": -Infinity}`, `field "slot_seconds": got -Infinity, want a number`},
		{"+inf", `{"P": [[1, +inf]]}`, `p.json:1:12: field "P[0][1]": got +inf, want a number`},
		{"nan in a map", `{"traces": {"lab": {"rate": nan}}}`, `p.json:1:29: field "traces.lab.rate": got nan, want a number`},
		{"syntax error in an element", "{\"workers\": [{\"w\": 1}, {\"w\": 2,}]}", `p.json:1:32: invalid character '}' looking for beginning of object key string (in workers[1])`},
		{"bad literal", `{"workers": [{"name": tru}]}`, `(in workers[0].name)`},
		{"columns count characters", `{"workers": [{"name": "é", "w": x}]}`, `p.json:1:33: invalid character 'x' looking for beginning of value (in workers[0].w)`},
		{"type in an element", `{"workers": [{"w": 1}, {"w": "2"}]}`, `p.json: field "workers[1].w": got JSON string, want an integer`},
		{"fraction for an integer", `{"workers": [{"w": 2.5}]}`, `p.json: field "workers[0].w": got JSON number 2.5, want an integer`},
		{"overflow", `{"workers": [{"rate": 1e999}]}`, `p.json: field "workers[0].rate": got JSON number 1e999, want a number within ±1.8e308`},
		{"type in a map", `{"traces": {"lab": {"w": true}}}`, `p.json: field "traces.lab.w": got JSON bool, want an integer`},
		{"type in a matrix", `{"P": [[0.5, 0.5], [0.5, "x"]]}`, `p.json: field "P[1][1]": got JSON string, want a number`},
		{"object for an array", `{"workers": {"w": 1}}`, `p.json: field "workers": got JSON object, want an array`},
		{"unknown field", `{"slots": 60}`, `p.json: unknown field "slots"`},
		{"duplicate key", `{"slot_seconds": 60, "slot_seconds": 30}`, `p.json:1:22: key "slot_seconds" appears twice in the same object`},
		{"duplicate key deep", "{\"workers\": [{\"w\": 1},\n {\"w\": 1, \"w\": 2}]}", `p.json:2:11: key "w" appears twice`},
		{"escaped duplicate", `{"workers": [{"w": 1, "\u0077": 2}]}`, `key "w" appears twice`},
		{"trailing data", `{"slot_seconds": 60} x`, "p.json:1:22: unexpected data after the JSON object"},
		{"unclosed", `{"workers": [{"w": 1}`, "p.json: the JSON ends early (unclosed object or array)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p platform
			err := Decode([]byte(tc.in), &p, "p.json")
			if err == nil {
				t.Fatalf("accepted %q", tc.in)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// A part of a file: where names the part, fields are relative to it.
func TestDecodePart(t *testing.T) {
	var w worker
	err := Decode([]byte(`{"w": "x"}`), &w, "p.json: workers[3]")
	if err == nil || err.Error() != `p.json: workers[3]: field "w": got JSON string, want an integer` {
		t.Errorf("got %v", err)
	}
}

func TestPathAt(t *testing.T) {
	in := `{"a": {"b": [10, {"c": "x,y"}, [1, 2]]}, "d": 4}`
	for _, tc := range []struct {
		at   string
		want string
	}{
		{`{"a"`, ""}, {`10`, "a.b[0]"}, {`"x,y"`, "a.b[1].c"}, {`2]`, "a.b[2][1]"}, {`4}`, "d"},
	} {
		if got := PathAt([]byte(in), strings.Index(in, tc.at)); got != tc.want {
			t.Errorf("PathAt(%q) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"workers": [{"w": 1}]}`, "\uFEFF{}", `{"P": [[NaN]]}`, `{"a": "\"}`, `[}`, `{"traces": {"x": {"w": 1, "w": 2}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p platform
		err := Decode(b, &p, "f.json")
		if err != nil && !strings.HasPrefix(err.Error(), "f.json") {
			t.Errorf("error %q does not name the input", err)
		}
		for i := range b {
			PathAt(b, i)
		}
	})
}
