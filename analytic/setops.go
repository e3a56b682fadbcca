package analytic

import "math"

// Set accumulates the product sequence P^{(S)}_{u→u}(t) = ∏_{q∈S}
// P^{(q)}_{u→u}(t) of a set of processors of a Table. Adding a processor
// multiplies one sequence in (O(T) for a horizon T that shrinks as the set
// grows) and never recomputes the others; StatsWith evaluates S ∪ {q}
// without building it, which is what incremental heuristics need.
//
// A Set is not safe for concurrent use. The zero Set is not usable; get one
// from Table.NewSet.
type Set struct {
	tab     *Table
	members []bool
	n       int
	prod    []float64 // prod[t] for t < len(prod), the set's horizon
	lam     float64   // Λ = ∏ decay rates of the members
	piU     float64   // ∏ π_u of the members that never go DOWN
}

// NewSet returns an empty set of t's processors.
func (t *Table) NewSet() *Set {
	s := &Set{tab: t, members: make([]bool, len(t.procs)), lam: 1, piU: 1}
	return s
}

// SetOf returns the set of the given processors.
func (t *Table) SetOf(qs ...int) *Set {
	s := t.NewSet()
	for _, q := range qs {
		s.Add(q)
	}
	return s
}

// Len is the number of processors in the set.
func (s *Set) Len() int { return s.n }

// Has reports whether q is in the set.
func (s *Set) Has(q int) bool { return s.members[q] }

// Members lists the processors of the set in increasing order.
func (s *Set) Members() []int {
	out := make([]int, 0, s.n)
	for q, in := range s.members {
		if in {
			out = append(out, q)
		}
	}
	return out
}

// Reset empties the set, keeping its memory.
func (s *Set) Reset() {
	clear(s.members)
	s.n = 0
	s.prod = s.prod[:0]
	s.lam, s.piU = 1, 1
}

// CopyFrom makes s a copy of o (same table), reusing s's memory.
func (s *Set) CopyFrom(o *Set) {
	s.tab = o.tab
	if cap(s.members) < len(o.members) {
		s.members = make([]bool, len(o.members))
	}
	s.members = s.members[:len(o.members)]
	copy(s.members, o.members)
	s.n, s.lam, s.piU = o.n, o.lam, o.piU
	s.prod = append(s.prod[:0], o.prod...)
}

// Clone returns an independent copy of s.
func (s *Set) Clone() *Set {
	c := &Set{}
	c.CopyFrom(s)
	return c
}

// length is the number of terms the set S∪{q} needs: its horizon, at most
// the table's.
func (s *Set) lengthFor(lam float64) int {
	T := horizon(lam, s.tab.opt.Epsilon, s.tab.opt.MaxHorizon)
	if T > s.tab.L {
		T = s.tab.L
	}
	return T
}

// Add puts processor q in the set (no-op if it is already in).
func (s *Set) Add(q int) {
	if s.members[q] {
		return
	}
	p := &s.tab.procs[q]
	s.members[q] = true
	s.n++
	s.lam *= p.lam
	if p.lam >= 1 {
		s.piU *= p.piU
	}
	T := s.lengthFor(s.lam)
	seq := s.tab.seq[q]
	if s.n == 1 {
		s.prod = append(s.prod[:0], seq[:T]...)
		return
	}
	if T < len(s.prod) {
		s.prod = s.prod[:T]
	}
	for t := range s.prod {
		s.prod[t] *= seq[t]
	}
}

// Stats returns the seed-002 quantities of the set.
func (s *Set) Stats() Stats {
	switch {
	case s.n == 0:
		return Stats{EU: math.Inf(1), A: math.Inf(1), PPlus: 1, Ec: 1}
	case s.lam >= 1:
		return s.neverDown(s.piU)
	case s.n == 1:
		for q, in := range s.members {
			if in {
				return s.tab.procs[q].single
			}
		}
	}
	eu, a := 0.0, 0.0
	for t := 1; t < len(s.prod); t++ {
		v := s.prod[t]
		eu += v
		a += float64(t) * v
	}
	st := fromSums(eu, a)
	st.Terms = len(s.prod)
	st.TailBound = tailBound(s.lam, len(s.prod))
	return st
}

// neverDown is the case where no member can go DOWN: the members return UP
// together with probability 1 and, by Kac's lemma, the mean return time is
// the inverse of the stationary probability that all are UP.
func (s *Set) neverDown(piU float64) Stats {
	ec := math.Inf(1)
	if piU > 0 {
		ec = 1 / piU
	}
	return Stats{EU: math.Inf(1), A: math.Inf(1), PPlus: 1, Ec: ec}
}

// StatsWith returns the Stats of S ∪ {q} without modifying s.
func (s *Set) StatsWith(q int) Stats {
	if s.members[q] {
		return s.Stats()
	}
	if s.n == 0 {
		return s.tab.procs[q].single
	}
	p := &s.tab.procs[q]
	lam := s.lam * p.lam
	if lam >= 1 {
		return s.neverDown(s.piU * p.piU)
	}
	T := s.lengthFor(lam)
	if T > len(s.prod) {
		T = len(s.prod)
	}
	seq := s.tab.seq[q][:T]
	prod := s.prod[:T]
	eu, a := 0.0, 0.0
	for t := 1; t < T; t++ {
		v := prod[t] * seq[t]
		eu += v
		a += float64(t) * v
	}
	st := fromSums(eu, a)
	st.Terms = T
	st.TailBound = tailBound(lam, T)
	return st
}
