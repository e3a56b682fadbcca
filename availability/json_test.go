package availability

import (
	"strings"
	"testing"
)

func TestParseChain(t *testing.T) {
	c, err := ParseChain([]byte(`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.P[2][1] != 0.3 {
		t.Fatalf("P[2][1] = %g", c.P[2][1])
	}
	bad := []struct{ in, want string }{
		{``, "c.json: empty, want a JSON object"},
		{`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1]]}`, "2 rows, want 3"},
		{`{"P": [[0.9,0.1],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`, "row 0 has 2 entries"},
		{`{"P": [[0.9,0.05,0.06],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`, "row 0 (from state u) sums to 1.01"},
		{`{"Q": 1}`, "unknown field \"Q\""},
		{`{}`, "missing field \"P\""},
		{`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,"x"]]}`, `c.json: field "P[2][2]": got JSON string, want a number`},
		{`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,NaN]]}`, `c.json:1:47: field "P[2][2]": got NaN, want a number (JSON has no NaN or infinity)`},
		{`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]], "P": [[1,0,0],[0,1,0],[0,0,1]]}`, `c.json:1:54: key "P" appears twice`},
		{"{\"P\": [[0.9,0.05,0.05],\n[0.1,0.8,0.1],[0.2,0.3,0.5]", "c.json"},
		{`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]} extra`, "after the JSON object"},
	}
	for _, b := range bad {
		_, err := ParseChain([]byte(b.in), "c.json")
		if err == nil {
			t.Errorf("%q accepted", b.in)
			continue
		}
		if !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %q, want it to mention %q", b.in, err, b.want)
		}
	}
}

func TestParseChainSet(t *testing.T) {
	in := `{"chains": [{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]},
	                    {"P": [[0.95,0.05,0],[0.1,0.9,0],[0.2,0.3,0.5]]}]}`
	cs, err := ParseChainSet([]byte(in), "s.json")
	if err != nil || len(cs) != 2 {
		t.Fatalf("%v %v", cs, err)
	}
	_, err = ParseChainSet([]byte(`{"chains": [{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]}, {"P": [[1,1,1],[0,1,0],[0,0,1]]}]}`), "s.json")
	if err == nil || !strings.Contains(err.Error(), "chains[1]") {
		t.Errorf("bad second chain: %v", err)
	}
	for in, want := range map[string]string{`{"chains": []}`: "empty", `{}`: "missing field \"chains\"", `[]`: "s.json"} {
		if _, err := ParseChainSet([]byte(in), "s.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func FuzzParseChain(f *testing.F) {
	f.Add([]byte(`{"P": [[0.9,0.05,0.05],[0.1,0.8,0.1],[0.2,0.3,0.5]]}`))
	f.Add([]byte(`{"chains": [{"P": [[1,0,0],[0,1,0],[0,0,1]]}]}`))
	f.Add([]byte(`{"P": [[1e308,1e308,-1e308],[0,1,0],[0,0,1]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ParseChain(data, "fuzz"); err == nil {
			if err := c.Validate("again"); err != nil {
				t.Fatalf("accepted an invalid chain: %v", err)
			}
		}
		if cs, err := ParseChainSet(data, "fuzz"); err == nil {
			for _, c := range cs {
				if err := c.Validate("again"); err != nil {
					t.Fatalf("accepted an invalid chain: %v", err)
				}
			}
		}
	})
}
