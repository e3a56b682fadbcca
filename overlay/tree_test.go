package overlay

import (
	"math/bits"
	"testing"
)

func TestTreeBalancedAndOrdered(t *testing.T) {
	for n := 1; n <= 70; n++ {
		tr := NewTree(n)
		if tr.Vertices() != 2*n-1 || tr.Leaves() != n {
			t.Fatalf("n=%d: %d vertices, %d leaves", n, tr.Vertices(), tr.Leaves())
		}
		// In-order traversal visits the leaves in address order.
		var order []Addr
		var walk func(v Addr)
		walk = func(v Addr) {
			if tr.IsLeaf(v) {
				order = append(order, v)
				return
			}
			if tr.Father(tr.Left(v)) != v || tr.Father(tr.Right(v)) != v {
				t.Fatalf("n=%d: vertex %d: children do not point back", n, v)
			}
			walk(tr.Left(v))
			walk(tr.Right(v))
		}
		walk(tr.Root())
		for i, v := range order {
			if tr.Leaf(i) != v {
				t.Fatalf("n=%d: leaf %d is vertex %d, in-order gives %d", n, i, tr.Leaf(i), v)
			}
		}
		want := bits.Len(uint(n - 1)) // ceil(log2 n)
		if d := tr.Depth(); d != want {
			t.Fatalf("n=%d: depth %d, want %d", n, d, want)
		}
	}
}
