package stars

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// points are 2-attribute functions summed by a minimum, with a grid of
// two cells on the first attribute: an overlay.Items for the tests.
type points struct {
	a, b, v []float64
	grid    bool
}

func (p *points) Len() int { return len(p.a) }
func (p *points) Plain(i, j int) float64 {
	return p.v[i]*(p.a[i]-min(p.a[i], p.a[j])) + p.v[j]*(p.a[j]-min(p.a[i], p.a[j])) +
		p.v[i]*(p.b[i]-min(p.b[i], p.b[j])) + p.v[j]*(p.b[j]-min(p.b[i], p.b[j]))
}
func (p *points) Dist(i, j int) float64 {
	d := p.Plain(i, j)
	if p.Cell(i) != p.Cell(j) {
		d += 1e9
	}
	return d
}
func (p *points) Cell(i int) uint32 {
	if p.grid && p.a[i] >= 50 {
		return 1
	}
	return 0
}
func (p *points) Nodes(i int) float64   { return p.v[i] }
func (p *points) Attr(i, a int) float64 { return [][]float64{p.a, p.b}[a][i] }
func (p *points) Merge(i, j int) {
	p.a[i], p.b[i], p.v[i] = min(p.a[i], p.a[j]), min(p.b[i], p.b[j]), p.v[i]+p.v[j]
}

// TestKNNClustering: the authors' approximate clustering conserves nodes,
// returns at most k distinct positions, each the sum of some of the inputs
// (its values are the inputs' minima), in the order asked for.
func TestKNNClustering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		k := rapid.IntRange(1, 16).Draw(t, "k")
		p := &points{grid: rapid.Bool().Draw(t, "grid")}
		total := 0.0
		for range n {
			p.a = append(p.a, rapid.Float64Range(0, 100).Draw(t, "a"))
			p.b = append(p.b, rapid.Float64Range(0, 100).Draw(t, "b"))
			p.v = append(p.v, float64(rapid.IntRange(1, 5).Draw(t, "v")))
			total += p.v[len(p.v)-1]
		}
		in := slices.Clone(p.a)
		c := KNN{K: rapid.IntRange(1, 12).Draw(t, "K"), OrderBy: rapid.IntRange(-1, 1).Draw(t, "order")}
		got := c.Cluster(p, k)
		if len(got) > k {
			t.Fatalf("%d functions, want <= %d", len(got), k)
		}
		if n <= k && len(got) != n {
			t.Fatalf("%d functions of %d that fit", len(got), n)
		}
		sum := 0.0
		seen := map[int]bool{}
		for x, i := range got {
			if seen[i] {
				t.Fatalf("position %d twice", i)
			}
			seen[i] = true
			sum += p.v[i]
			if !slices.Contains(in, p.a[i]) {
				t.Fatalf("value %g is no input's", p.a[i])
			}
			if c.OrderBy >= 0 && x > 0 && p.Attr(got[x-1], c.OrderBy) > p.Attr(i, c.OrderBy) {
				t.Fatalf("not ordered by attribute %d", c.OrderBy)
			}
		}
		if math.Abs(sum-total) > 0 {
			t.Fatalf("%g nodes, want %g", sum, total)
		}
	})
}

// TestCellsAtMaximum: with the authors' cells a value at the maximum of
// its range lands in the extra cell b, exactly: computed as d·(1/Δ)·b the
// product rounds below b for some ranges (found here), which the division
// avoids; and a value just below a boundary stays below it.
func TestCellsAtMaximum(t *testing.T) {
	rounded := 0
	for s := 1.0; s <= 5000; s++ {
		for _, b := range []int{2, 3, 6, 15} {
			if int(s*(1/s*float64(b))) < b {
				rounded++
			}
			if c := (Cells{}).Cell(s, s, b); c != b {
				t.Fatalf("Cell(%v, %v, %d) = %d, want %d", s, s, b, c, b)
			}
			if c := (Cells{}).Cell(s/float64(b)*float64(b-1)-1e-9*s, s, b); c != b-2 {
				t.Fatalf("just below the last boundary: cell %d, want %d (span %v, b %d)", c, b-2, s, b)
			}
		}
	}
	if rounded == 0 {
		t.Log("no range rounds below b with a multiplication (the division is then only a safeguard)")
	}
	if (Cells{}).Cell(5, 0, 2) != 0 {
		t.Error("an empty range must give cell 0")
	}
	for _, c := range []struct {
		d    float64
		want int
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {0.99, 1}, {1, 2}} {
		if got := (Cells{}).Cell(c.d, 1, 2); got != c.want {
			t.Errorf("Cell(%v, 1, 2) = %d, want %d", c.d, got, c.want)
		}
	}
}
