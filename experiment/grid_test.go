package experiment

import (
	"fmt"
	"reflect"
	"testing"
)

func TestGrid(t *testing.T) {
	g := Grid{4, 3, 10, 247}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Size() != 29640 {
		t.Fatalf("Size = %d", g.Size())
	}
	if c := g.Coords(0); !reflect.DeepEqual(c, []int{0, 0, 0, 0}) {
		t.Errorf("Coords(0) = %v", c)
	}
	if c := g.Coords(247); !reflect.DeepEqual(c, []int{0, 0, 1, 0}) {
		t.Errorf("Coords(247) = %v, want the second w_min", c)
	}
	if c := g.Coords(29639); !reflect.DeepEqual(c, []int{3, 2, 9, 246}) {
		t.Errorf("Coords(last) = %v", c)
	}
	seen := map[string]bool{}
	small := Grid{2, 3, 2}
	for u := range small.Size() {
		c := small.Coords(u)
		if small.Index(c...) != u {
			t.Fatalf("Index(Coords(%d)) = %d", u, small.Index(c...))
		}
		k := fmt.Sprint(c)
		if seen[k] {
			t.Fatalf("point %v twice", c)
		}
		seen[k] = true
	}
	for _, bad := range []Grid{{}, {3, 0}, {-1}, {1 << 40, 1 << 40}} {
		if bad.Validate() == nil {
			t.Errorf("Grid %v accepted", bad)
		}
	}
}
