package coupled

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/regname"
)

// Criterion is a measure of a configuration (§VI): the four measures the
// passive heuristics build configurations with, and the three the proactive
// heuristics compare configurations with.
type Criterion int

const (
	// None marks a passive heuristic (no proactive criterion).
	None Criterion = iota
	// Random is the RANDOM building block: tasks go to UP processors
	// uniformly at random.
	Random
	// Prob is P: probability of success, P_comm·P+(S)^{W−1} (larger is better).
	Prob
	// Time is E: expected duration, E_comm + E(S)(W) (smaller is better).
	Time
	// Yield is Y: P/(t+E), t the slots since the iteration began.
	Yield
	// ApparentYield is AY: P/E.
	ApparentYield
)

var criterionStrings = [...]string{None: "none", Random: "random", Prob: "P", Time: "E", Yield: "Y", ApparentYield: "AY"}

// String names the criterion as the paper does (P, E, Y, AY), or "none"
// and "random".
func (c Criterion) String() string {
	if c < 0 || int(c) >= len(criterionStrings) {
		return fmt.Sprintf("Criterion(%d)", int(c))
	}
	return criterionStrings[c]
}

// Heuristic is one heuristic of §VI: a building block, the passive
// heuristic that builds a configuration (RANDOM, or the greedy IP, IE, IY,
// IAY of §VI.A, by Build; or a Builder of one's own), and, for a proactive
// heuristic, the criterion that decides whether a freshly built
// configuration replaces the running one (Switch). The 17 of §VI and any a
// program registers (Register) are in one table, looked up by name
// (ParseHeuristic); drivers take the value. A Heuristic built by hand, not
// registered, runs in the simulator and Decide too (tests, scripted
// schedules).
type Heuristic struct {
	// Name is how users, campaigns and results name the heuristic
	// ("E-IAY"): 1 to 32 letters, digits or "*+-_.", unique among the
	// registered ones regardless of case.
	Name string
	// Description says in one line what it does (listings, --help,
	// docs/whatif.md); needed to register.
	Description string
	Build       Criterion // Random, Prob (IP), Time (IE), Yield (IY), ApparentYield (IAY); not used with Builder
	Switch      Criterion // None (passive), Prob, Time or Yield

	// Builder, when set, replaces the building block: it returns the
	// configuration to build from snapshot s (ok false: none; see
	// BuildFunc), e.g. a heuristic of one's own or a given schedule such
	// as Figure 1's. Build is then not used.
	Builder BuildFunc
	// Random (with Builder) says the builder draws from its stream:
	// drivers then give it one.
	Random bool

	// stream is the label of its random stream (Stream); registered is
	// true for a value Register returned.
	stream     uint64
	registered bool
}

// BuildFunc is the building block of a heuristic of one's own: the
// configuration to run from snapshot s "as if no task were allocated"
// (§VI: the tasks of the iteration on UP processors, X[q] ≤ μ_q, Σ X = m,
// Order the members in the order their communications are served), ok
// false when it cannot build one. e values configurations (Evaluator.Value)
// and gives the platform and m; rng is its stream (nil unless
// Heuristic.Random). It is called with a snapshot whose running
// configuration, if any, is not broken, and at every slot for a proactive
// heuristic; it must be safe for concurrent use (drivers decide from
// several goroutines) and must not modify s.
type BuildFunc func(e *Evaluator, s *Snapshot, rng *rand.Rand) (c Config, ok bool)

// Proactive reports whether the heuristic may replace a running
// configuration whose members are all alive.
func (h Heuristic) Proactive() bool { return h.Switch != None }

// Draws reports whether the heuristic draws from a random stream (RANDOM,
// a Builder marked Random): drivers must give it one.
func (h Heuristic) Draws() bool {
	if h.Builder != nil {
		return h.Random
	}
	return h.Build == Random
}

// Greedy reports whether the heuristic builds with one of the greedy
// building blocks of §VI.A (IP, IE, IY, IAY), which the slot simulator
// shares between the heuristics that use the same one.
func (h Heuristic) Greedy() bool { return h.Builder == nil && h.Build != Random }

// Stream is the label of the heuristic's random stream in the campaigns and
// what-if runs: for the 17 of §VI their position in its order (what the
// committed results were drawn with), 2^32 plus a hash of the name for the
// others (registered or not), so that a heuristic's draws do not depend on
// which others exist.
func (h Heuristic) Stream() uint64 {
	if h.registered {
		return h.stream
	}
	return regname.Label(h.Name)
}

// Paper reports whether h is one of the 17 heuristics of §VI.
func (h Heuristic) Paper() bool { return h.registered && h.stream < 1<<32 }

// Check checks how h decides: a building block (a criterion of §VI.A, or
// a Builder) and a switching criterion (none, P, E or Y); Random only with
// a Builder. Decide and the slot simulator refuse a heuristic it refuses.
func (h Heuristic) Check() error {
	switch {
	case h.Builder == nil && (h.Build < Random || h.Build > ApparentYield):
		return fmt.Errorf("heuristic %q builds with criterion %v, want random, P, E, Y or AY (or a Builder)", h.Name, h.Build)
	case h.Switch != None && h.Switch != Prob && h.Switch != Time && h.Switch != Yield:
		return fmt.Errorf("heuristic %q switches by criterion %v, want none, P, E or Y", h.Name, h.Switch)
	case h.Random && h.Builder == nil:
		return fmt.Errorf("heuristic %q: Random without a Builder, want it only for a builder of one's own (RANDOM's building block always draws)", h.Name)
	}
	return nil
}

// Snapshot is what the master knows at one slot, and all a decision
// depends on: each processor's state, what it already holds, and how long
// the iteration has been running. Processor q is the evaluator's q (its
// chain is the table's q, its speed the platform's W[q]); every slice has
// one entry per processor.
type Snapshot struct {
	// IDs[q] names processor q for the caller (a live master's worker
	// identifier); nil when the processors are known by their index only.
	// Decisions index processors as the snapshot does (Config.X[q]);
	// Config.Members maps them back to IDs.
	IDs []string
	// States[q] is processor q's state at this slot: UP, RECLAIMED or
	// DOWN.
	States []availability.State
	// Prog[q] is the number of slots of the program processor q has
	// received (TProg or more: it holds the program). A DOWN processor
	// holds nothing.
	Prog []int
	// Data[q] is the number of slots of task data processor q holds and may
	// reuse in this iteration (only members of the running configuration
	// hold any).
	Data []int
	// Elapsed is the number of slots since the current iteration began (the
	// t of the yield).
	Elapsed int
}

// up reports whether processor q is UP.
func (s *Snapshot) up(q int) bool { return s.States[q] == availability.Up }

// ID names processor q: IDs[q], or its index when IDs is nil.
func (s *Snapshot) ID(q int) string {
	if s.IDs == nil {
		return fmt.Sprint(q)
	}
	return s.IDs[q]
}

// Validate checks that s describes the p processors of an evaluator:
// errors name the field, its length and the expected one.
func (s *Snapshot) Validate(p int) error {
	if len(s.States) != p {
		return fmt.Errorf("snapshot: states has %d entries, want %d (one per processor)", len(s.States), p)
	}
	if len(s.Prog) != p {
		return fmt.Errorf("snapshot: prog has %d entries, want %d (one per processor)", len(s.Prog), p)
	}
	if len(s.Data) != p {
		return fmt.Errorf("snapshot: data has %d entries, want %d (one per processor)", len(s.Data), p)
	}
	if s.IDs != nil && len(s.IDs) != p {
		return fmt.Errorf("snapshot: ids has %d entries, want %d (one per processor) or none", len(s.IDs), p)
	}
	for q, st := range s.States {
		if st > availability.Down {
			return fmt.Errorf("snapshot: states[%d] = %d, want UP, RECLAIMED or DOWN", q, st)
		}
		if s.Prog[q] < 0 || s.Data[q] < 0 {
			return fmt.Errorf("snapshot: processor %s holds prog %d, data %d slots, want ≥ 0", s.ID(q), s.Prog[q], s.Data[q])
		}
	}
	if s.Elapsed < 0 {
		return fmt.Errorf("snapshot: elapsed = %d, want ≥ 0", s.Elapsed)
	}
	return nil
}

// Config is a configuration: X[q] tasks on processor q, Σ X = m. Order lists
// the enrolled processors in the order the heuristic enrolled them; the
// simulator serves communications in this order (docs/model-002.md).
type Config struct {
	X     []int
	Order []int
}

// Member is one processor of a configuration and its tasks.
type Member struct {
	// Proc is the processor's index, ID its name in the snapshot.
	Proc  int
	ID    string
	Tasks int
}

// Members lists the configuration's processors in enrolment order with
// their tasks, named as in s.
func (c Config) Members(s *Snapshot) []Member {
	out := make([]Member, 0, len(c.Order))
	for _, q := range c.Order {
		out = append(out, Member{Proc: q, ID: s.ID(q), Tasks: c.X[q]})
	}
	return out
}

// Value is the estimate of a configuration by §V: P the probability of
// success of its remaining communications and computation, E its expected
// remaining duration.
type Value struct {
	P, E float64
}

// Score turns a value into a number where larger is better for criterion c,
// elapsed being the slots since the iteration began (used by Yield).
// NaN never comes out: it is mapped to −Inf.
func Score(c Criterion, v Value, elapsed int) float64 {
	var s float64
	switch c {
	case Prob:
		s = v.P
	case Time:
		s = -v.E
	case Yield:
		s = v.P / (v.E + float64(elapsed))
	case ApparentYield:
		s = v.P / v.E
	default:
		s = math.Inf(-1)
	}
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	return s
}

// Evaluator computes the §V estimates of configurations for one scenario. It
// caches P+(S) and E_c(S) by set and, per building block, the last greedy
// construction (incremental greedy: only the processors whose state or
// holdings changed since are re-evaluated). An Evaluator is not safe for
// concurrent use; give each goroutine its own (they may share the Table).
type Evaluator struct {
	tab  *analytic.Table
	plat Platform
	m    int
	form analytic.Form

	set *analytic.Set
	// Sets of processors are known by a 64-bit key: the XOR of bit[q]
	// over their members. With p ≤ 64 (exact) bit[q] = 1<<q and the key is
	// the set's bitmask; beyond, bit[q] is a pseudo-random word, keys may
	// collide, and the set cache checks the members it stored (members)
	// before answering: results never depend on the keys.
	exact bool
	bit   []uint64
	stats map[uint64]setEntry
	// members[key] lists, in increasing order, the members of the set
	// whose entry stats[key] holds (only when !exact).
	members map[uint64][]int
	// pages is a direct-mapped copy of what the greedy needs of the set
	// cache (P+, E_c, ln P+), 256 sets per page, when p ≤ 24.
	pages   []*[256]setFast
	scratch setFast
	// factors remembers the published E(S)(W) factor by (set, W).
	factors []factorEntry

	qs    []int
	slots []float64
	x     []int
	order []int
	// sorted lists the greedy's chosen processors in increasing order, and
	// cand and candMs a candidate's set (only when !exact); ms is Value's
	// members.
	sorted, cand, candMs, ms []int
	candKey                  uint64

	// es[q][n] is E^{(P_q)}(n) in the evaluator's form, for n up to
	// TProg + m·TData; lnd[q][t] is ln P_ND^{(q)}(t) for t below the table's
	// horizon. They make the greedy step free of transcendental calls but
	// one exp and two pow per candidate.
	es  [][]float64
	lnd [][]float64
	// lnd[q] is filled on demand (logPNotDown), up to lndL = the table's
	// horizon; lndTail[q] holds ln P_ND at lndL − 2 and lndL − 1 (the
	// geometric extrapolation beyond). A communication phase is short, so
	// most of the horizon is never asked for.
	lndL    int
	lndTail [][2]float64
	// greedy step state
	inS []bool
	nq  []int
	eq  []float64
	// ups lists the UP processors of the snapshot; n1[q] and e1[q] are the
	// communication slots processor q needs for one task and E^{(P_q)} of
	// them.
	ups []int
	n1  []int
	e1  []float64
	// prune enables the bound that skips P for candidates certainly below
	// the step's best (candValue); off only in tests.
	prune bool

	memoE, memoSum float64

	// inc[b] is the last greedy construction of building block b.
	inc     [ApparentYield + 1]*Construction
	changed []bool
	dirty   []int
	// fresh is RebuildSnapshot's snapshot without task data.
	fresh *Snapshot

	// reunions caches the Together reading's Reunion by members and
	// RECLAIMED members; reunionMs is its scratch.
	reunions  map[reunionKey]reunionEntry
	reunionMs []int

	// Calls counts the non-random Choose calls, Hits those answered
	// without evaluating any candidate, Evals the candidates evaluated,
	// Pruned those of them whose P the bound skipped (profiling).
	Calls, Hits, Evals, Pruned int
}

// Construction is what the incremental greedy keeps of its last
// construction with one building block: the snapshot it was computed for,
// the processor chosen at each step, the value of every candidate of every
// step, and the winner's score (for the criteria that do not depend on the
// elapsed time). Choose and Decide use the evaluator's own, one per
// building block; a caller that interleaves several independent runs with
// one evaluator (a simulator) keeps one per run and building block
// (NewConstruction, Build) so that they do not spoil each other's
// increments. What it holds changes speed only, never a result.
type Construction struct {
	valid      bool
	up         []bool
	prog, data []int
	n          int  // steps completed
	ok         bool // all m steps completed
	path       []int
	sum        []stepSum // summary of the chosen processors at each step
	best       []float64 // winner's score at each step
	vals       [][]Value
	lnp        [][]float64 // ln P where vals' P is not computed (NaN)
	ecomm      [][]float64
	has        [][]bool
	cfg        Config
}

// NewConstruction returns an empty construction for this evaluator's p and
// m (the next Build with it builds from scratch).
func (e *Evaluator) NewConstruction() *Construction {
	p, m := e.plat.P(), e.m
	in := &Construction{up: make([]bool, p), prog: make([]int, p), data: make([]int, p),
		path: make([]int, m), sum: make([]stepSum, m), best: make([]float64, m),
		vals: make([][]Value, m), lnp: make([][]float64, m), ecomm: make([][]float64, m), has: make([][]bool, m)}
	for k := range m {
		in.vals[k] = make([]Value, p)
		in.lnp[k] = make([]float64, p)
		in.has[k] = make([]bool, p)
		in.ecomm[k] = make([]float64, p)
	}
	return in
}

// CopyFrom makes in a copy of o (both from the same evaluator).
func (in *Construction) CopyFrom(o *Construction) {
	in.valid, in.n, in.ok, in.cfg = o.valid, o.n, o.ok, o.cfg
	copy(in.up, o.up)
	copy(in.prog, o.prog)
	copy(in.data, o.data)
	copy(in.path, o.path)
	copy(in.sum, o.sum)
	copy(in.best, o.best)
	for k := range in.vals {
		copy(in.vals[k], o.vals[k])
		copy(in.lnp[k], o.lnp[k])
		copy(in.has[k], o.has[k])
		copy(in.ecomm[k], o.ecomm[k])
	}
}

// maxCache bounds the set cache; a full cache is emptied (results do not
// depend on it, only speed does).
const maxCache = 1 << 18

// NewEvaluator builds the evaluator of a scenario whose processors' chains
// are tab's, for an application of m tasks, with the E(S)(W) form f.
func NewEvaluator(tab *analytic.Table, plat Platform, m int, f analytic.Form) (*Evaluator, error) {
	if tab.Len() != plat.P() {
		return nil, fmt.Errorf("evaluator: table has %d processors but platform %d, want equal", tab.Len(), plat.P())
	}
	if err := plat.Validate(m); err != nil {
		return nil, err
	}
	p := plat.P()
	e := &Evaluator{
		tab: tab, plat: plat, m: m, form: f,
		set:     tab.NewSet(),
		stats:   make(map[uint64]setEntry),
		qs:      make([]int, 0, p),
		slots:   make([]float64, 0, p),
		x:       make([]int, p),
		order:   make([]int, 0, p),
		es:      make([][]float64, p),
		lnd:     make([][]float64, p),
		lndTail: make([][2]float64, p),
		lndL:    tab.Horizon(),
		inS:     make([]bool, p),
		ups:     make([]int, 0, p),
		n1:      make([]int, p),
		e1:      make([]float64, p),
		prune:   true,
		factors: make([]factorEntry, 1<<factorBits),
		nq:      make([]int, p),
		eq:      make([]float64, p),
		changed: make([]bool, p),
		dirty:   make([]int, 0, p),
		fresh:   &Snapshot{Data: make([]int, p)},
		exact:   p <= 64,
		bit:     make([]uint64, p),
	}
	if !e.exact {
		e.members = make(map[uint64][]int)
	}
	for q := range p {
		if e.exact {
			e.bit[q] = 1 << uint(q)
		} else {
			e.bit[q] = splitmix64(uint64(q))
		}
	}
	if p <= 24 {
		e.pages = make([]*[256]setFast, 1<<max(0, p-8))
	}
	for b := Prob; b <= ApparentYield; b++ {
		e.inc[b] = e.NewConstruction()
	}
	nmax := plat.TProg + m*plat.TData
	L := tab.Horizon()
	for q := range p {
		e.es[q] = make([]float64, nmax+1)
		for n := range e.es[q] {
			e.es[q][n] = tab.ExpectedTimeSingle(q, float64(n), f)
		}
		if L >= 2 {
			e.lndTail[q] = [2]float64{math.Log(tab.PNotDown(q, float64(L-2))), math.Log(tab.PNotDown(q, float64(L-1)))}
		}
	}
	return e, nil
}

// logPCommWith is ln P_comm of the members order plus q for a
// communication phase of ecomm slots. The sum over order is remembered for
// the last ecomm: within a greedy step most candidates share it.
func (e *Evaluator) logPCommWith(q int, order []int, ecomm float64) float64 {
	if ecomm <= 0 {
		return 0
	}
	if ecomm != e.memoE {
		e.memoSum = 0
		for _, r := range order {
			e.memoSum += e.logPNotDown(r, ecomm)
		}
		e.memoE = ecomm
	}
	if e.inS[q] {
		return e.memoSum
	}
	return e.memoSum + e.logPNotDown(q, ecomm)
}

// compValue is {pcomm·PSuccess(W), ecomm + ExpectedTime(W)} with one pow
// (the same expressions as analytic.Stats).
func (e *Evaluator) compValue(st analytic.Stats, W int, pcomm, ecomm float64) Value {
	if W <= 1 || st.PPlus == 0 {
		return Value{P: pcomm * st.PSuccess(float64(W)), E: ecomm + st.ExpectedTime(float64(W), e.form)}
	}
	pw := math.Pow(st.PPlus, float64(W-1))
	v := Value{P: pcomm * pw}
	if e.form == analytic.Conditional {
		v.E = ecomm + 1 + float64(W-1)*st.Ec/st.PPlus
	} else {
		v.E = ecomm + (1+float64(W-1)*st.Ec)/pw
	}
	return v
}

// logPNotDown is ln P_ND^{(q)}(s), interpolated linearly in the logarithm
// between integer slots as Table.PNotDown does.
func (e *Evaluator) logPNotDown(q int, s float64) float64 {
	if n := e.lndL; s >= float64(n-1) {
		// Beyond the horizon P_ND decays geometrically at the rate the last
		// two slots show (the tail there is below the table's ε).
		if n < 2 {
			return math.Log(e.tab.PNotDown(q, s))
		}
		tl := e.lndTail[q]
		return tl[1] + (s-float64(n-1))*(tl[1]-tl[0])
	}
	lo := math.Floor(s)
	i := int(lo)
	f := s - lo
	need := i + 1
	if f != 0 {
		need = i + 2
	}
	l := e.lnd[q]
	for t := len(l); t < need; t++ {
		l = append(l, math.Log(e.tab.PNotDown(q, float64(t))))
	}
	e.lnd[q] = l
	if f != 0 {
		return (1-f)*l[i] + f*l[i+1]
	}
	return l[i]
}

// splitmix64 is the finalizer of SplitMix64: a well-mixed 64-bit word
// for x (the set keys of processors beyond 64).
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// keyOf is the key of the set of processors ms.
func (e *Evaluator) keyOf(ms []int) uint64 {
	var k uint64
	for _, q := range ms {
		k ^= e.bit[q]
	}
	return k
}

// setFast is what a greedy candidate needs of a set's Stats.
type setFast struct {
	ok             bool
	pplus, ec, lnP float64
}

// factorEntry is one entry of the table of published E(S)(W) factors.
type factorEntry struct {
	mask uint64
	w    int
	f    float64
}

// factorBits is the size (in bits) of the direct-mapped table of factors.
const factorBits = 14

// pubFactor returns (1 + (W−1)·E_c)·exp(−a), a = (W−1)·ln P+, the factor
// (1 + (W−1)·E_c)/P+^{W−1} of the published E(S)(W) of the set in mask
// whose setFast is se, remembered by (set, W) in a direct-mapped table
// when keys are exact (computed each time otherwise: the same value).
func (e *Evaluator) pubFactor(mask uint64, se *setFast, w int, a float64) float64 {
	h := (mask*0x9E3779B97F4A7C15 ^ uint64(w)*0xC2B2AE3D27D4EB4F) >> (64 - factorBits)
	fe := &e.factors[h]
	if fe.w != w || fe.mask != mask {
		f := (1 + float64(w-1)*se.ec) * math.Exp(-a)
		if !e.exact {
			return f // never stored: the table stays empty and misses
		}
		*fe = factorEntry{mask: mask, w: w, f: f}
	}
	return fe.f
}

// setFastInfo returns P+, E_c and ln P+ of the set of the greedy's chosen
// processors and q, whose bitmask is mask when keys are exact (the values
// of setInfo, looked up without hashing when p ≤ 24).
func (e *Evaluator) setFastInfo(mask uint64, q int, g *gstep) *setFast {
	if e.pages == nil {
		return e.candSetInfo(mask, q, g)
	}
	pg := e.pages[mask>>8]
	if pg == nil {
		pg = new([256]setFast)
		e.pages[mask>>8] = pg
	}
	f := &pg[mask&255]
	if !f.ok {
		se := e.setInfo(mask, nil)
		*f = setFast{ok: true, pplus: se.st.PPlus, ec: se.st.Ec, lnP: se.lnP}
	}
	return f
}

// setEntry is what the set cache holds: the Stats and ln P+.
type setEntry struct {
	st  analytic.Stats
	lnP float64
}

// setInfo returns the entry of the set of key mask. With exact keys the
// key's bits are the members (ms is not read); otherwise ms lists them in
// increasing order, and a stored entry answers only if its members are
// ms. The members are added in increasing order, so a set's Stats do not
// depend on how it was reached.
func (e *Evaluator) setInfo(mask uint64, ms []int) setEntry {
	se, ok := e.stats[mask]
	if ok && (e.exact || slices.Equal(e.members[mask], ms)) {
		return se
	}
	e.set.Reset()
	if e.exact {
		for m := mask; m != 0; m &= m - 1 {
			e.set.Add(bits.TrailingZeros64(m))
		}
	} else {
		for _, q := range ms {
			e.set.Add(q)
		}
	}
	st := e.set.Stats()
	if len(e.stats) >= maxCache {
		clear(e.stats)
		clear(e.members)
	}
	se = setEntry{st: st, lnP: math.Log(st.PPlus)}
	e.stats[mask] = se
	if !e.exact {
		e.members[mask] = slices.Clone(ms)
	}
	return se
}

// commSlots is n_q: the slots of communication processor q still needs to
// hold the program and the data of x tasks.
func (e *Evaluator) commSlots(q, x int, s *Snapshot) int {
	n := 0
	if s.Prog[q] < e.plat.TProg {
		n = e.plat.TProg - s.Prog[q]
	}
	if need := x*e.plat.TData - s.Data[q]; need > 0 {
		n += need
	}
	return n
}

// value estimates configuration x, whose members are ms in increasing
// order, from snapshot s with done slots of computation already performed.
func (e *Evaluator) value(x []int, ms []int, s *Snapshot, done int) Value {
	W, N, size := 0, 0, 0
	ecomm := 0.0
	for _, q := range ms {
		n := e.commSlots(q, x[q], s)
		ecomm = max(ecomm, e.es[q][n])
		N += n
		size++
		W = max(W, x[q]*e.plat.W[q])
	}
	if size > e.plat.NCom {
		ecomm = max(ecomm, float64(N)/float64(e.plat.NCom))
	}
	pcomm := 1.0
	if ecomm > 0 {
		l := 0.0
		for _, q := range ms {
			l += e.logPNotDown(q, ecomm)
		}
		pcomm = math.Exp(l)
	}
	return e.compValue(e.setInfo(e.keyOf(ms), ms).st, W-done, pcomm, ecomm)
}

// valueRef is value() written with analytic.Table.EComm and PComm and the
// Stats methods: the reference the fast paths are tested against.
func (e *Evaluator) valueRef(x []int, s *Snapshot, done int) Value {
	e.qs, e.slots = e.qs[:0], e.slots[:0]
	W := 0
	for q, n := range x {
		if n == 0 {
			continue
		}
		e.qs = append(e.qs, q)
		e.slots = append(e.slots, float64(e.commSlots(q, x[q], s)))
		W = max(W, x[q]*e.plat.W[q])
	}
	ecomm := e.tab.EComm(e.qs, e.slots, e.plat.NCom, e.form)
	pcomm := 1.0
	if ecomm > 0 {
		pcomm = e.tab.PComm(e.qs, ecomm)
	}
	st := e.setInfo(e.keyOf(e.qs), e.qs).st
	rem := float64(W - done)
	return Value{P: pcomm * st.PSuccess(rem), E: ecomm + st.ExpectedTime(rem, e.form)}
}

// Value estimates the running configuration c from snapshot s, done slots
// of its computation being complete.
func (e *Evaluator) Value(c Config, s *Snapshot, done int) Value {
	ms := e.ms[:0]
	if e.exact {
		var mask uint64
		for _, q := range c.Order {
			mask |= 1 << uint(q)
		}
		for m := mask; m != 0; m &= m - 1 {
			ms = append(ms, bits.TrailingZeros64(m))
		}
	} else {
		ms = append(ms, c.Order...)
		slices.Sort(ms)
	}
	e.ms = ms
	return e.value(c.X, ms, s, done)
}

// reclaimedValue corrects v, the §V estimate of the running configuration
// c, for its members that are not UP in s (RECLAIMED: a DOWN member ends
// the configuration) by rule rv (Wait, Replace or Together).
func (e *Evaluator) reclaimedValue(v Value, c Config, s *Snapshot, rv ReclaimedValue) Value {
	wait, found := 0.0, false
	var rkey uint64
	for _, q := range c.Order {
		if s.up(q) {
			continue
		}
		found = true
		rkey ^= e.bit[q]
		if rv == Replace {
			return Value{P: 0, E: math.Inf(1)}
		}
		if rv == Together {
			continue
		}
		P := e.tab.Chain(q).P
		pru, prd, prr := P[1][0], P[1][2], P[1][1]
		if pru+prd > 0 {
			v.P *= pru / (pru + prd)
		}
		if prr < 1 {
			wait = max(wait, 1/(1-prr))
		}
	}
	if !found {
		return v
	}
	if rv == Together {
		r := e.reunion(c, s, rkey)
		v.P *= r.P
		v.E += r.E
		return v
	}
	v.E += wait
	return v
}

// reunionKey identifies a configuration's members and which of them are
// RECLAIMED.
type reunionKey struct{ set, reclaimed uint64 }

// reunion is ReunionOf for the members of c in their states of s, cached
// by members and RECLAIMED members (rkey).
func (e *Evaluator) reunion(c Config, s *Snapshot, rkey uint64) Reunion {
	ms := append(e.reunionMs[:0], c.Order...)
	slices.Sort(ms)
	e.reunionMs = ms
	key := reunionKey{e.keyOf(ms), rkey}
	if r, ok := e.reunions[key]; ok && (e.exact || slices.Equal(r.members, ms)) {
		return r.Reunion
	}
	chains := make([]availability.Chain, len(ms))
	states := make([]availability.State, len(ms))
	for i, q := range ms {
		chains[i], states[i] = e.tab.Chain(q), s.States[q]
	}
	r, err := ReunionOf(chains, states)
	if err != nil { // a DOWN member: the configuration is broken, not valued here
		return Reunion{}
	}
	if e.reunions == nil || len(e.reunions) >= maxCache {
		e.reunions = make(map[reunionKey]reunionEntry)
	}
	ent := reunionEntry{Reunion: r}
	if !e.exact {
		ent.members = slices.Clone(ms)
	}
	e.reunions[key] = ent
	return r
}

type reunionEntry struct {
	Reunion
	members []int // when keys are not exact
}

// Choose builds a configuration with the building block b (a passive
// heuristic, or Random with rng) from snapshot s, as if no task were
// allocated. ok is false when the UP processors cannot hold m tasks. The
// returned Config may be shared with the evaluator: do not modify it.
func (e *Evaluator) Choose(b Criterion, s *Snapshot, rng *rand.Rand) (c Config, ok bool) {
	if b < Random || b > ApparentYield {
		return Config{}, false
	}
	return e.choose(b, e.inc[b], s, rng)
}

// Build builds a configuration with heuristic h's building block (its
// Builder when set) from snapshot s, as if no task were allocated: RANDOM
// draws from rng (distinct processors with r.RandomDistinct); the greedy
// building blocks use construction in, which must have been used with
// h.Build only (nil: the evaluator's own). ok is false when the UP
// processors cannot hold m tasks. The returned Config may be shared with
// the evaluator or the construction: do not modify it.
func (e *Evaluator) Build(h Heuristic, in *Construction, s *Snapshot, rng *rand.Rand, r Readings) (c Config, ok bool) {
	switch {
	case h.Builder != nil:
		return h.Builder(e, s, rng)
	case h.Build == Random:
		return e.chooseRandom(s, rng, r.RandomDistinct)
	case h.Build < Random || h.Build > ApparentYield:
		return Config{}, false
	}
	if in == nil {
		in = e.inc[h.Build]
	}
	return e.choose(h.Build, in, s, rng)
}

// choose is Choose with the construction in kept by the caller.
func (e *Evaluator) choose(b Criterion, in *Construction, s *Snapshot, rng *rand.Rand) (c Config, ok bool) {
	if b == Random {
		return e.chooseRandom(s, rng, false)
	}
	e.Calls++
	return e.greedy(in, b, s)
}

// forget drops the last constructions (benchmarks and tests: build from
// scratch).
func (e *Evaluator) forget() {
	for _, in := range e.inc {
		if in != nil {
			in.valid = false
		}
	}
}

// stepSum is what the E_comm of an unchanged candidate depends on, besides
// the path: the two largest E^{(P_r)}(n_r) of the processors chosen so far,
// the first one's index, and Σ n_r.
type stepSum struct {
	max1, max2 float64
	arg1, n    int
}

// gstep is the allocation built so far by the greedy; mask is its set's
// key.
type gstep struct {
	mask       uint64
	W, N, size int
	max1, max2 float64
	arg1       int
}

// candEcomm is E_comm of the allocation so far (e.x, e.inS, e.nq, g) with
// one more task on q: the only way a candidate's value depends on the
// holdings of the processors already chosen. A processor not chosen yet
// needs e.n1[q] slots (E^{(P_q)} = e.e1[q]) for one task.
func (e *Evaluator) candEcomm(q int, s *Snapshot, g *gstep) float64 {
	others, n2, sz := g.max1, g.N, g.size+1
	var eq float64
	if e.inS[q] {
		nq := e.commSlots(q, e.x[q]+1, s)
		eq = e.es[q][nq]
		if g.arg1 == q {
			others = g.max2
		}
		n2 += nq - e.nq[q]
		sz = g.size
	} else {
		eq = e.e1[q]
		n2 += e.n1[q]
	}
	ecomm := max(others, eq)
	if ncom := e.plat.NCom; sz > ncom {
		ecomm = max(ecomm, float64(n2)/float64(ncom))
	}
	return ecomm
}

// candSetInfo is setFastInfo without pages (p > 24). With keys that are
// not bitmasks it finds the set's key (e.candKey) and members in
// increasing order (e.candMs).
func (e *Evaluator) candSetInfo(mask uint64, q int, g *gstep) *setFast {
	var ms []int
	if !e.exact {
		mask, ms = g.mask, e.sorted
		if !e.inS[q] {
			mask ^= e.bit[q]
			i, _ := slices.BinarySearch(e.sorted, q)
			ms = append(append(append(e.cand[:0], e.sorted[:i]...), q), e.sorted[i:]...)
			e.cand = ms
		}
		e.candKey, e.candMs = mask, ms
	}
	i := e.setInfo(mask, ms)
	e.scratch = setFast{ok: true, pplus: i.st.PPlus, ec: i.st.Ec, lnP: i.lnP}
	return &e.scratch
}

// candValue is the value, for criterion b, of the allocation so far (e.x,
// e.order, g) with one more task on q, whose E_comm is ecomm. Given the
// processors chosen so far (in order), it depends only on q and ecomm. Only
// what the criterion needs is computed (IE: no P; IP: no E), and P, when
// the criterion needs it, only as l = ln P: v.P is NaN until candScore
// needs it.
func (e *Evaluator) candValue(b Criterion, q int, ecomm float64, g *gstep) (v Value, l float64) {
	e.Evals++
	w := max(g.W, (e.x[q]+1)*e.plat.W[q])
	mask := g.mask | 1<<uint(q) // with exact keys; else candSetInfo's
	se := e.setFastInfo(mask, q, g)
	if w <= 1 || se.pplus == 0 {
		pcomm := math.Exp(e.logPCommWith(q, e.order, ecomm))
		if !e.exact {
			mask = e.candKey
		}
		return e.compValue(e.setInfo(mask, e.candMs).st, w, pcomm, ecomm), 0
	}
	// P = exp(ln P_comm + (W−1) ln P+)
	a := float64(w-1) * se.lnP
	if b != Prob {
		if e.form == analytic.Conditional {
			v.E = ecomm + 1 + float64(w-1)*se.ec/se.pplus
		} else {
			v.E = ecomm + e.pubFactor(mask, se, w, a)
		}
	}
	if b != Time {
		v.P = math.NaN()
		l = e.logPCommWith(q, e.order, ecomm) + a
	}
	return v, l
}

// candScore is the score of a candidate's value v (ln P = l when v.P is
// NaN, not computed yet) for criterion b. ok is false, and P is left
// uncomputed, when the score is certainly below best (a score already
// reached at this step, > 0): ln P is then more than 10⁻⁶ below the
// logarithm of the power of two under best·D (D the score's denominator:
// 1, E + elapsed or E), so the computed score, exp(ln P)/D with a relative
// error of a few ulps, is below best, and the candidate can neither win
// nor tie. The bound is only used where the numbers are normal.
func (e *Evaluator) candScore(b Criterion, v *Value, l float64, elapsed int, best float64) (sc float64, ok bool) {
	if b != Time && math.IsNaN(v.P) {
		if e.prune && best > 0 {
			d := 1.0
			switch b {
			case Yield:
				d = v.E + float64(elapsed)
			case ApparentYield:
				d = v.E
			}
			if bd := best * d; d > 0 && bd > 0 && bd <= math.MaxFloat64 {
				if _, ex := math.Frexp(bd); ex > -1000 && l < float64(ex-1)*math.Ln2-1e-6 {
					e.Pruned++
					return 0, false
				}
			}
		}
		v.P = math.Exp(l)
	}
	return Score(b, *v, elapsed), true
}

// better reports whether candidate q, scoring sc, beats the best of the
// step so far (processor bq scoring best; bq < 0: no candidate yet, and
// best is −∞): a larger score, or the same score and a lower index. Both
// scans of the greedy (every candidate in increasing index, or only the
// changed ones against the kept winner) decide by it, so a tie goes to the
// lowest index whichever way the step is computed. Scores are never NaN
// (Score); a score below the best, the common case, costs one comparison.
func better(sc float64, q int, best float64, bq int) bool {
	return sc >= best && (sc > best || q < bq || bq < 0)
}

// greedy assigns the m tasks one by one, each to the UP processor that
// optimizes the criterion b of the configuration with that extra task
// (§VI.A); ties go to the lowest index. Each candidate is evaluated
// incrementally (only its own communication need changes); the result
// equals the reference on every candidate (TestGreedyMatchesValue).
//
// The construction is also incremental across calls: the candidates of
// every step of the last construction of b are kept (value and E_comm) with
// the snapshot they were computed for. Given the processors chosen before
// step k, a candidate's value depends only on the candidate and its E_comm
// (candValue), and E_comm is cheap (candEcomm); the candidate's own
// holdings enter only through E_comm. So while each step chooses the same
// processor as last time, a candidate is re-evaluated only if it was not a
// candidate then or its E_comm differs (bit for bit) from the kept one; from the first step that chooses another processor, every
// candidate is evaluated. When no UP processor changed at all, the kept
// choice is returned (except for the yield, whose scores change with the
// elapsed time and are rescanned).
func (e *Evaluator) greedy(in *Construction, b Criterion, s *Snapshot) (Config, bool) {
	p := len(s.States)
	same := in.valid // the steps so far chose as the kept construction did
	d := e.dirty[:0]
	if same {
		for q := range p {
			// the holdings of a processor that is not UP do not matter,
			// nor whether it is RECLAIMED or DOWN
			up := s.States[q] == availability.Up
			ch := up != in.up[q] || (up && (s.Prog[q] != in.prog[q] || s.Data[q] != in.data[q]))
			e.changed[q] = ch
			if ch {
				d = append(d, q)
				in.up[q] = up
			}
		}
		e.dirty = d
		if len(d) == 0 && b != Yield {
			e.Hits++
			return in.cfg, in.ok
		}
	}
	if !in.valid {
		for k := range in.has {
			clear(in.has[k])
		}
		for q, st := range s.States {
			in.up[q] = st == availability.Up
		}
	}
	copy(in.prog, s.Prog)
	copy(in.data, s.Data)
	in.valid = true
	e.ups = e.ups[:0]
	for q, up := range in.up {
		if up {
			e.ups = append(e.ups, q)
			e.n1[q] = e.commSlots(q, 1, s)
			e.e1[q] = e.es[q][e.n1[q]]
		}
	}
	samePath := in.ok
	x := e.x
	clear(x)
	clear(e.inS)
	e.order, e.sorted = e.order[:0], e.sorted[:0]
	g := gstep{arg1: -1}
	for k := 0; k < e.m; k++ {
		e.memoE, e.memoSum = math.NaN(), 0 // Σ_{r∈S} ln P_ND^{(r)}(ecomm) of the last ecomm
		vals, lnp, has, ecs := in.vals[k], in.lnp[k], in.has[k], in.ecomm[k]
		same = same && k <= in.n // step k was reached last time
		best, bq := math.Inf(-1), -1
		sum := stepSum{g.max1, g.max2, g.arg1, g.N}
		if same && b != Yield && k < in.n && sum == in.sum[k] && !e.changed[in.path[k]] {
			// Same path, same summary of the chosen processors: only the
			// changed processors' E_comm can differ, and the kept winner
			// (unchanged, so is its score) stands unless a changed
			// candidate scores more, or as much with a lower index.
			best, bq = in.best[k], in.path[k]
			for _, q := range d {
				if !s.up(q) || x[q] >= e.plat.MaxTasks(q) {
					has[q] = false
					continue
				}
				ec := e.candEcomm(q, s, &g)
				if !has[q] || ec != ecs[q] {
					vals[q], lnp[q] = e.candValue(b, q, ec, &g)
					ecs[q], has[q] = ec, true
				}
				if sc, ok := e.candScore(b, &vals[q], lnp[q], s.Elapsed, best); ok && better(sc, q, best, bq) {
					best, bq = sc, q
				}
			}
		} else {
			if !same {
				clear(has) // values of candidates of another path
			}
			for _, q := range e.ups {
				if x[q] >= e.plat.MaxTasks(q) {
					has[q] = false
					continue
				}
				ec := e.candEcomm(q, s, &g)
				if !has[q] || ec != ecs[q] {
					vals[q], lnp[q] = e.candValue(b, q, ec, &g)
					ecs[q], has[q] = ec, true
				}
				if sc, ok := e.candScore(b, &vals[q], lnp[q], s.Elapsed, best); ok && better(sc, q, best, bq) {
					best, bq = sc, q
				}
			}
		}
		in.sum[k], in.best[k] = sum, best
		if bq < 0 {
			in.n, in.ok, in.cfg = k, false, Config{}
			return Config{}, false
		}
		if k >= in.n || bq != in.path[k] {
			same, samePath = false, false // the next steps' candidates all depend on this choice
		}
		in.path[k] = bq
		if !e.inS[bq] {
			e.order = append(e.order, bq)
			e.inS[bq] = true
			g.size++
			if !e.exact {
				g.mask ^= e.bit[bq]
				i, _ := slices.BinarySearch(e.sorted, bq)
				e.sorted = slices.Insert(e.sorted, i, bq)
			}
		} else {
			g.N -= e.nq[bq]
		}
		x[bq]++
		if e.exact {
			g.mask |= 1 << uint(bq)
		}
		g.W = max(g.W, x[bq]*e.plat.W[bq])
		e.nq[bq] = e.commSlots(bq, x[bq], s)
		e.eq[bq] = e.es[bq][e.nq[bq]]
		g.N += e.nq[bq]
		g.max1, g.max2, g.arg1 = 0, 0, -1
		for _, r := range e.order {
			if v := e.eq[r]; g.arg1 < 0 || v > g.max1 {
				g.max2, g.max1, g.arg1 = g.max1, v, r
			} else if v > g.max2 {
				g.max2 = v
			}
		}
	}
	in.n, in.ok = e.m, true
	if !samePath {
		in.cfg = Config{X: append([]int(nil), x...), Order: append([]int(nil), e.order...)}
	}
	return in.cfg, true
}

// chooseRandom gives each task to a processor drawn uniformly among the UP
// ones that can take one more task; with distinct, among those that have
// no task yet while there are some (m different processors when m are UP).
func (e *Evaluator) chooseRandom(s *Snapshot, rng *rand.Rand, distinct bool) (Config, bool) {
	p := len(s.States)
	x := make([]int, p)
	var order []int
	for k := 0; k < e.m; k++ {
		free := distinct && len(order) < p
		if free {
			free = false
			for q := range p {
				if s.up(q) && x[q] == 0 && e.plat.MaxTasks(q) > 0 {
					free = true
					break
				}
			}
		}
		ok := func(q int) bool { return s.up(q) && x[q] < e.plat.MaxTasks(q) && (!free || x[q] == 0) }
		n := 0
		for q := range p {
			if ok(q) {
				n++
			}
		}
		if n == 0 {
			return Config{}, false
		}
		pick := rng.IntN(n)
		for q := range p {
			if ok(q) {
				if pick == 0 {
					if x[q] == 0 {
						order = append(order, q)
					}
					x[q]++
					break
				}
				pick--
			}
		}
	}
	return Config{X: x, Order: order}, true
}
