package analytic

import (
	"fmt"
	"testing"
)

var sink Stats

// BenchmarkSetStats measures P+(S) and E(S)(W) of a set of generated chains:
//   - Stats: the set already built (sums over its horizon),
//   - StatsWith: one more candidate evaluated incrementally (the inner loop
//     of the tightly-coupled heuristics),
//   - FromScratch: building the set then computing its stats.
func BenchmarkSetStats(b *testing.B) {
	tab := randomTable(b, 42, 21, Options{})
	for _, size := range []int{5, 10, 20} {
		members := make([]int, size)
		for i := range members {
			members[i] = i
		}
		s := tab.SetOf(members...)
		b.Run(fmt.Sprintf("Stats/n=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				st := s.Stats()
				_ = st.ExpectedTime(50, Published)
				sink = st
			}
		})
		prefix := tab.SetOf(members[:size-1]...)
		b.Run(fmt.Sprintf("StatsWith/n=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				st := prefix.StatsWith(members[size-1])
				_ = st.ExpectedTime(50, Published)
				sink = st
			}
		})
		scratch := tab.NewSet()
		b.Run(fmt.Sprintf("FromScratch/n=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				scratch.Reset()
				for _, q := range members {
					scratch.Add(q)
				}
				sink = scratch.Stats()
			}
		})
		b.Run(fmt.Sprintf("Terms/n=%d", size), func(b *testing.B) {
			b.ReportMetric(float64(s.Stats().Terms), "terms")
			for i := 0; i < b.N; i++ {
			}
		})
	}
}

func BenchmarkNewTable(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		randomTable(b, 42, 20, Options{})
	}
}
