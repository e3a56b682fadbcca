package regname

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestTable: the paper's entries come first by label and the others by
// name, whatever the order they were added in; a name is taken in any
// case, a label once; lookups by the exact name or regardless of case.
func TestTable(t *testing.T) {
	var tab Table[string]
	add := func(name string, label uint64, paper bool) error {
		return tab.Add("thing", name, label, paper, "v-"+name)
	}
	for _, c := range []struct {
		name  string
		label uint64
		paper bool
	}{{"zeta", Label("zeta"), false}, {"P2", 2, true}, {"alpha", Label("alpha"), false}, {"P0", 0, true}, {"P1", 1, true}} {
		if err := add(c.name, c.label, c.paper); err != nil {
			t.Fatal(err)
		}
	}
	if got := tab.All(); !slices.Equal(got, []string{"v-P0", "v-P1", "v-P2", "v-alpha", "v-zeta"}) {
		t.Errorf("All() = %v", got)
	}
	if got := tab.Paper(); !slices.Equal(got, []string{"v-P0", "v-P1", "v-P2"}) {
		t.Errorf("Paper() = %v", got)
	}
	for _, c := range []struct {
		name  string
		label uint64
		want  string
	}{{"ALPHA", 99, `thing "ALPHA": the name of thing alpha is taken`}, {"other", 1, `its random stream's label 0x1 is thing P1's`}} {
		if err := add(c.name, c.label, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%s): %v, want %q", c.name, err, c.want)
		}
	}
	if v, ok := tab.Get("p1", false); ok {
		t.Errorf("Get(p1) exact = %q", v)
	}
	if v, ok := tab.Get("p1", true); !ok || v != "v-P1" {
		t.Errorf("Get(p1) folded = %q, %v", v, ok)
	}
	parse := func(n string) (string, error) {
		if v, ok := tab.Get(n, true); ok {
			return v, nil
		}
		return "", errors.New("unknown " + n)
	}
	id := func(v string) string { return v }
	if got, err := ParseList("thing", nil, parse, id, tab.All); err != nil || len(got) != 5 {
		t.Errorf("ParseList(nil) = %v, %v; want all", got, err)
	}
	if got, err := ParseList("thing", []string{"zeta", "P0"}, parse, id, tab.All); err != nil || !slices.Equal(got, []string{"v-zeta", "v-P0"}) {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if _, err := ParseList("thing", []string{"P0", "p0"}, parse, id, tab.All); err == nil || !strings.Contains(err.Error(), "thing v-P0 named twice") {
		t.Errorf("a thing named twice: %v", err)
	}
}

// TestCheck: the characters of a name, its length, one-line texts.
func TestCheck(t *testing.T) {
	for _, ok := range []string{"EMCT*", "P-IE", "IE+IP", "a_b.c", strings.Repeat("x", MaxLen)} {
		if err := Check("thing", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxLen+1), "a,b", "a b", "é", "a/b"} {
		if err := Check("thing", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if CheckLine("thing", "x", "description", "one line") != nil || CheckLine("thing", "x", "description", " ") == nil || CheckLine("thing", "x", "description", "a\nb") == nil {
		t.Error("CheckLine")
	}
	if Label("a") == Label("b") || Label("a") < 1<<32 {
		t.Errorf("labels %#x %#x", Label("a"), Label("b"))
	}
}
