package overlay

import "sync"

// Summaries carry their sampled functions' spreads (DistMSE) only where
// some spread is not zero, i.e. above the level where clustering starts:
// a summary whose functions all have a zero spread (single nodes, or
// identical nodes merged) is the policy's plain slice type (IBPSummary,
// MMPSummary, DPSummary), and one with spreads is a *spreadSummary
// wrapping that slice, so the many summaries below SF_max cost nothing
// more. Policies read both through plainOf; forwarding only needs the
// values.

// plainSummary is a built-in policy's plain summary type.
type plainSummary[C any] interface {
	~[]C
	Summary
	Policy() Policy
}

// spreadSummary is a summary whose functions carry spreads: d per
// function, sp[i*d:(i+1)*d] for vals[i]. It is immutable, like every
// summary.
type spreadSummary[S plainSummary[C], C any] struct {
	vals S
	d    int
	sp   []Spread
}

func (s *spreadSummary[S, C]) Nodes() int     { return s.vals.Nodes() }
func (s *spreadSummary[S, C]) Len() int       { return len(s.vals) }
func (s *spreadSummary[S, C]) Policy() Policy { return s.vals.Policy() }
func (s *spreadSummary[S, C]) Plain() Summary { return s.vals }

// Bytes adds to the plain size 3 float32 per attribute for each function
// whose spread is not zero (a flag bit of v on the wire).
func (s *spreadSummary[S, C]) Bytes() int {
	b := s.vals.Bytes()
	for i := range s.vals {
		for _, x := range s.sp[i*s.d : (i+1)*s.d] {
			if !x.zero() {
				b += 12 * s.d
				break
			}
		}
	}
	return b
}

// fn is a sampled function with its spreads (the first d of s), the unit
// Aggregate works on.
type fn[C any] struct {
	c C
	s [4]Spread
}

// plainOf returns a summary's functions and spreads (d per function; nil:
// all zero).
func plainOf[S plainSummary[C], C any](x Summary) (S, []Spread) {
	switch v := x.(type) {
	case nil:
		return nil, nil
	case S:
		return v, nil
	case *spreadSummary[S, C]:
		return v.vals, v.sp
	}
	panic("overlay: summary of another policy")
}

// fnsOf appends to dst the functions of x with their d spreads.
func fnsOf[S plainSummary[C], C any](dst []fn[C], x Summary, d int) []fn[C] {
	vals, sp := plainOf[S, C](x)
	for i := range vals {
		f := fn[C]{c: vals[i]}
		if sp != nil {
			copy(f.s[:d], sp[i*d:(i+1)*d])
		}
		dst = append(dst, f)
	}
	return dst
}

// summaryOf builds the summary of z: the plain slice when every spread is
// zero, else a spreadSummary; nil when z is empty.
func summaryOf[S plainSummary[C], C any](z []fn[C], d int) Summary {
	if len(z) == 0 {
		return nil
	}
	vals := make(S, len(z))
	any := false
	for i := range z {
		vals[i] = z[i].c
		any = any || z[i].s != [4]Spread{}
	}
	if !any {
		return vals
	}
	sp := make([]Spread, d*len(z))
	for i := range z {
		copy(sp[i*d:], z[i].s[:d])
	}
	return &spreadSummary[S, C]{vals: vals, d: d, sp: sp}
}

// cmpFn orders functions by their values (cmpVals), then their spreads;
// cmpFnPtr is the same order on pointers.
func cmpFn[C any](cmpVals func(a, b C) int) func(a, b fn[C]) int {
	return func(a, b fn[C]) int { return cmpFnAt(cmpVals, &a, &b) }
}

func cmpFnPtr[C any](cmpVals func(a, b C) int) func(a, b *fn[C]) int {
	return func(a, b *fn[C]) int { return cmpFnAt(cmpVals, a, b) }
}

func cmpFnAt[C any](cmpVals func(a, b C) int, a, b *fn[C]) int {
	if c := cmpVals(a.c, b.c); c != 0 {
		return c
	}
	return cmpSpreads(a.s[:], b.s[:])
}

// mergeFn returns the merge of identical functions (see dedupe.go): equal
// values (cmpVals) and mergeable spreads; addV adds b's nodes to a.
func mergeFn[C any](d Distance, cmpVals func(a, b C) int, addV func(a, b *C)) func(a, b *fn[C]) bool {
	return func(a, b *fn[C]) bool {
		if cmpVals(a.c, b.c) != 0 || !mergeable(d, a.s[:], b.s[:]) {
			return false
		}
		addV(&a.c, &b.c)
		addSpreads(a.s[:], b.s[:])
		return true
	}
}

// fnOps holds a policy's cmpFn and its mergeFn for each distance, built
// once (package variables) so that an aggregation allocates no closures.
type fnOps[C any] struct {
	cmp    func(a, b *fn[C]) int
	sortBy func(a, b fn[C]) int // cmp on values, for slices.SortStableFunc
	merge  [DistLoss + 1]func(a, b *fn[C]) bool
}

func newFnOps[C any](cmpVals func(a, b C) int, addV func(a, b *C)) fnOps[C] {
	o := fnOps[C]{cmp: cmpFnPtr(cmpVals), sortBy: cmpFn(cmpVals)}
	for d := range o.merge {
		o.merge[d] = mergeFn(Distance(d), cmpVals, addV)
	}
	return o
}

// mergeFor returns the merge for distance d (mergeable treats every
// distance but DistLoss as DistMSE).
func (o *fnOps[C]) mergeFor(d Distance) func(a, b *fn[C]) bool {
	if int(d) < len(o.merge) {
		return o.merge[d]
	}
	return o.merge[DistMSE]
}

// equalSummaries says whether two summaries hold the same functions and
// spreads (eq compares two functions' values).
func equalSummaries[S plainSummary[C], C any](x, y Summary, eq func(a, b *C) bool) bool {
	a, sa := plainOf[S, C](x)
	b, sb := plainOf[S, C](y)
	if len(a) != len(b) || (sa == nil) != (sb == nil) || len(sa) != len(sb) {
		return false
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

// lenOf is x.Len(), 0 for the empty summary.
func lenOf(x Summary) int {
	if x == nil {
		return 0
	}
	return x.Len()
}

// fnWork is the scratch space of one Aggregate: the functions of the two
// summaries and their union (copied out by summaryOf), pooled per policy.
type fnWork[C any] struct{ buf, z []fn[C] }

// release clears the scratch (it may point at l samples) for the pool:
// only what this aggregation used, the rest being zero already (a union
// only writes below its length, and compactDedup zeroes what it drops).
func (w *fnWork[C]) release(buf, z []fn[C]) {
	clear(buf)
	clear(z)
	w.buf, w.z = buf[:0], z[:0]
}

// unionScratch is the pooled scratch of one union; done returns it.
type unionScratch[C any] struct {
	pool   *sync.Pool
	w      *fnWork[C]
	buf, z []fn[C]
}

func (u unionScratch[C]) done() { u.w.release(u.buf, u.z); u.pool.Put(u.w) }

// unionOf returns the union of x and y with mergeable identical functions
// merged (unionDedup), in scratch from pool; the caller defers done.
func unionOf[S plainSummary[C], C any](pool *sync.Pool, x, y Summary, d int, ops *fnOps[C], dist Distance) ([]fn[C], unionScratch[C]) {
	w := pool.Get().(*fnWork[C])
	buf := fnsOf[S](w.buf[:0], x, d)
	mid := len(buf)
	buf = fnsOf[S](buf, y, d)
	z := unionDedup(w.z[:0], buf[:mid], buf[mid:], ops.cmp, ops.sortBy, ops.mergeFor(dist))
	return z, unionScratch[C]{pool: pool, w: w, buf: buf, z: z}
}

// plainUnion is Aggregate's fast path for the many aggregations below the
// level where clustering starts: when x and y are plain summaries (no
// spreads, or nil), sorted by cmpVals, and hold at most k functions
// together, their union fits without clustering and is what unionOf and
// summaryOf would return (identical adjacent functions merged by adding
// their v: zero spreads are mergeable under every distance), built
// directly in the result. ok is false when the fast path does not apply.
func plainUnion[S plainSummary[C], C any](x, y Summary, k int, cmpVals func(a, b C) int, addV func(a, b *C)) (s Summary, ok bool) {
	var a, b S
	if x != nil {
		if a, ok = x.(S); !ok {
			return nil, false
		}
	}
	if y != nil {
		if b, ok = y.(S); !ok {
			return nil, false
		}
	}
	inOrder := func(p, q *C) int { return cmpVals(*p, *q) }
	if len(a)+len(b) > k || !sortedBy(a, inOrder) || !sortedBy(b, inOrder) {
		return nil, false
	}
	if len(a)+len(b) == 0 {
		return nil, true
	}
	merge := func(p, q *C) bool {
		if cmpVals(*p, *q) != 0 {
			return false
		}
		addV(p, q)
		return true
	}
	return mergeSorted(make(S, 0, len(a)+len(b)), a, b, inOrder, merge), true
}

// Plain returns the plain summary of s: its sampled functions without
// what only steers the clustering (for IBP, MMP and DP the spreads; nil
// for the empty summary). A summary type provides it with a method
// Plain() Summary (IBPSummary, MMPSummary and DPSummary return themselves;
// package overlay/stars' summaries their DP functions); a summary without
// one is its own plain summary.
func Plain(s Summary) Summary {
	if p, ok := s.(interface{ Plain() Summary }); ok {
		return p.Plain()
	}
	return s
}
