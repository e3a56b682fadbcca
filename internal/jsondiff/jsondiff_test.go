package jsondiff

import "testing"

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{`{"p":20,"n":[5,10]}`, `{"p":21,"n":[5,10]}`, "p: 20 in A, 21 in B"},
		{`{"p":20,"n":[5,10]}`, `{"n":[5,11],"p":20}`, "n[1]: 10 in A, 11 in B"},
		{`{"n":[5,10]}`, `{"n":[5]}`, "n: [5,10] in A, [5] in B"},
		{`{"o":{"x":1}}`, `{"o":{"x":1,"y":null}}`, "o.y: absent in A, null in B"},
		{`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1}`, `{"a":2,"b":2,"c":2,"d":2,"e":2,"f":2,"g":2}`,
			"a: 1 in A, 2 in B; b: 1 in A, 2 in B; c: 1 in A, 2 in B; d: 1 in A, 2 in B; e: 1 in A, 2 in B; and 2 more"},
		{`1.0`, `1`, "the value: 1.0 in A, 1 in B"},
		{`{`, `{}`, "{ in A, {} in B"},
	} {
		if got := Describe([]byte(c.a), []byte(c.b), "A", "B"); got != c.want {
			t.Errorf("Describe(%s, %s) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
