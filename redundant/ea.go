package redundant

// EA is the Equal Arbitrary allocation: it ignores failure probabilities and
// gives each task k or k+1 hosts, k = ⌊m/n⌋. The arbitrary choice made here
// is round robin in host order: host i runs task i mod n, so tasks 0 …
// (m mod n)−1 get k+1 hosts. The allocation depends only on (m, n).
func EA(m, n int) []int {
	x := make([]int, m)
	for i := range x {
		x[i] = i % n
	}
	return x
}

// EAGroupSizes returns the number of hosts EA gives each task.
func EAGroupSizes(m, n int) []int {
	s := make([]int, n)
	for i := 0; i < m; i++ {
		s[i%n]++
	}
	return s
}
