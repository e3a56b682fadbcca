package overlay

import "fmt"

// Tree is a balanced binary tree over n leaves, built by splitting the
// leaves (ordered by address, i.e. by leaf index) in halves recursively.
// Vertices are numbered in pre-order: the root is 0. Leaf i (0 <= i < n) is
// vertex Leaf(i). It holds 12 bytes per vertex (2n-1 vertices).
type Tree struct {
	father, left, right []Addr
	leaf                []Addr // leaf index -> vertex
}

// NewTree builds the tree of n >= 1 leaves.
func NewTree(n int) *Tree {
	if n < 1 {
		n = 1
	}
	m := 2*n - 1
	t := &Tree{father: make([]Addr, m), left: make([]Addr, m), right: make([]Addr, m), leaf: make([]Addr, n)}
	next := Addr(0)
	var build func(lo, hi int, father Addr) Addr
	build = func(lo, hi int, father Addr) Addr {
		v := next
		next++
		t.father[v] = father
		if hi-lo == 1 {
			t.left[v], t.right[v] = NoAddr, NoAddr
			t.leaf[lo] = v
			return v
		}
		mid := lo + (hi-lo+1)/2
		t.left[v] = build(lo, mid, v)
		t.right[v] = build(mid, hi, v)
		return v
	}
	build(0, n, NoAddr)
	return t
}

// ValidateTreeSize checks a user-given number of nodes (1 to 2^26).
func ValidateTreeSize(n int) error {
	if n < 1 || n > 1<<26 {
		return fmt.Errorf("nodes %d: want 1 to %d", n, 1<<26)
	}
	return nil
}

// Leaves is the number of leaves; Vertices the number of vertices.
func (t *Tree) Leaves() int   { return len(t.leaf) }
func (t *Tree) Vertices() int { return len(t.father) }

// Root is vertex 0.
func (t *Tree) Root() Addr { return 0 }

// Father, Left, Right give the neighbours of v (NoAddr when absent).
func (t *Tree) Father(v Addr) Addr { return t.father[v] }
func (t *Tree) Left(v Addr) Addr   { return t.left[v] }
func (t *Tree) Right(v Addr) Addr  { return t.right[v] }

// IsLeaf says whether v is a leaf (an execution/submission node).
func (t *Tree) IsLeaf(v Addr) bool { return t.left[v] == NoAddr }

// Leaf returns the vertex of leaf i.
func (t *Tree) Leaf(i int) Addr { return t.leaf[i] }

// Links returns the links of internal vertex v.
func (t *Tree) Links(v Addr) Links {
	return Links{Self: v, Father: t.father[v], Left: t.left[v], Right: t.right[v],
		LeftLeaf: t.left[v] != NoAddr && t.IsLeaf(t.left[v]), RightLeaf: t.right[v] != NoAddr && t.IsLeaf(t.right[v])}
}

// Router returns the routing-role state of internal vertex v, with its
// links set and no availability information yet (NewRouter(t.Links(v))).
func (t *Tree) Router(v Addr) Router {
	r, err := NewRouter(t.Links(v))
	if err != nil {
		panic(err) // a tree's internal vertex has valid links
	}
	return r
}

// NewLeaf returns the execution role of leaf i over e
// (NewLeaf(t.Leaf(i), its father, e)).
func (t *Tree) NewLeaf(i int, e Exec) (Leaf, error) {
	v := t.leaf[i]
	return NewLeaf(v, t.father[v], e)
}

// Depth returns the height of the tree (edges on the longest root-leaf path).
func (t *Tree) Depth() int {
	d := 0
	for i := range t.leaf {
		k := 0
		for v := t.leaf[i]; t.father[v] != NoAddr; v = t.father[v] {
			k++
		}
		d = max(d, k)
	}
	return d
}
