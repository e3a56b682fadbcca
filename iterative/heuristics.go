package iterative

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

// Heuristic is one of the 17 dynamic on-line heuristics of §6.
type Heuristic uint8

// The heuristics, in the order of §6.
const (
	Random Heuristic = iota
	Random1
	Random2
	Random3
	Random4
	Random1W
	Random2W
	Random3W
	Random4W
	MCT
	MCTStar
	EMCT
	EMCTStar
	LW
	LWStar
	UD
	UDStar
	numHeuristics
)

var heuristicNames = [numHeuristics]string{
	"RANDOM", "RANDOM1", "RANDOM2", "RANDOM3", "RANDOM4",
	"RANDOM1W", "RANDOM2W", "RANDOM3W", "RANDOM4W",
	"MCT", "MCT*", "EMCT", "EMCT*", "LW", "LW*", "UD", "UD*",
}

// Heuristics returns the 17 heuristics in the order of §6.
func Heuristics() []Heuristic {
	hs := make([]Heuristic, numHeuristics)
	for i := range hs {
		hs[i] = Heuristic(i)
	}
	return hs
}

// String is the paper's name of the heuristic.
func (h Heuristic) String() string {
	if h < numHeuristics {
		return heuristicNames[h]
	}
	return fmt.Sprintf("Heuristic(%d)", uint8(h))
}

// ParseHeuristic reads a heuristic's name as the paper writes it (case
// sensitive: "EMCT*", "RANDOM2W").
func ParseHeuristic(s string) (Heuristic, error) {
	for i, n := range heuristicNames {
		if n == s {
			return Heuristic(i), nil
		}
	}
	return 0, fmt.Errorf("heuristic %q: want one of %v", s, heuristicNames)
}

// NumHeuristics is the number of heuristics: len(Heuristics()).
const NumHeuristics = int(numHeuristics)

// Valid reports whether h is one of the 17 heuristics.
func (h Heuristic) Valid() bool { return h < numHeuristics }

// IsRandom reports whether h is one of the nine random heuristics.
func (h Heuristic) IsRandom() bool { return h <= Random4W }

// Contention reports whether h uses the contention-correcting factor of
// Eq. 2 (the starred greedy heuristics).
func (h Heuristic) Contention() bool {
	return h == MCTStar || h == EMCTStar || h == LWStar || h == UDStar
}

// Criteria are the per-processor quantities the heuristics use, derived
// once from its availability chain with the analytic package.
type Criteria struct {
	Chain   availability.Chain
	Puu     float64 // RANDOM1 weight
	PPlus   float64 // Lemma 1, RANDOM2 weight and LW
	PiU     float64 // π_u, RANDOM3 weight
	NotDown float64 // 1 − π_d, RANDOM4 weight

	// E(W) of Theorem 2 is affine for W ≥ 1: E(W) = W + (W−1)·eSlope.
	eSlope float64
	// −ln P+ (LW minimizes CT·negLogPPlus, i.e. maximizes P+^CT).
	negLogPPlus float64
	// ln P_UD(k) = lnPUD2 + (k−2)·lnDecay for k ≥ 2 (the approximation of
	// §6.3.3).
	lnPUD2, lnDecay float64
}

// NewCriteria computes the criteria of a processor from its chain.
func NewCriteria(c availability.Chain) Criteria {
	pi := c.Stationary()
	cr := Criteria{
		Chain:   c,
		Puu:     c.P[availability.Up][availability.Up],
		PPlus:   analytic.PPlus(c),
		PiU:     pi[availability.Up],
		NotDown: 1 - pi[availability.Down],
		eSlope:  analytic.ExpectedTime(c, 2) - 2,
	}
	cr.negLogPPlus = -math.Log(cr.PPlus)
	p2, p3 := analytic.PUDApprox(c, 2), analytic.PUDApprox(c, 3)
	cr.lnPUD2 = math.Log(p2)
	cr.lnDecay = math.Log(p3) - math.Log(p2)
	return cr
}

// ExpectedTime is E^{(q)}(W) of Theorem 2 (analytic.ExpectedTime).
func (c *Criteria) ExpectedTime(w float64) float64 {
	if w <= 1 || math.IsInf(c.eSlope, 1) {
		return analytic.ExpectedTime(c.Chain, w)
	}
	return w + (w-1)*c.eSlope
}

// lnPUD is ln P_UD(k) with the paper's approximation (analytic.PUDApprox).
func (c *Criteria) lnPUD(k float64) float64 {
	if k < 2 {
		return math.Log(analytic.PUDApprox(c.Chain, k))
	}
	return c.lnPUD2 + (k-2)*c.lnDecay
}

// Key is the quantity greedy heuristic h minimizes for a processor with
// these criteria whose completion time (CT of Eq. 1 or 2) is ct: CT (MCT),
// E(CT) (EMCT), CT·(−ln P+) (LW maximizes P+^CT), −ln P_UD(E(CT)) (UD).
// For a random heuristic it is the UD key (not used).
func (c *Criteria) Key(h Heuristic, ct float64) float64 {
	switch h {
	case MCT, MCTStar:
		return ct
	case EMCT, EMCTStar:
		return c.ExpectedTime(ct)
	case LW, LWStar:
		return ct * c.negLogPPlus
	default: // UD, UD*
		return -c.lnPUD(c.ExpectedTime(ct))
	}
}

// Weight is the §6.2 weight of a processor with these criteria and speed w
// (UP slots per task) for random heuristic h: 1 (RANDOM), P_uu (RANDOM1),
// P+ (RANDOM2), π_u (RANDOM3), 1 − π_d (RANDOM4), each divided by w for the
// W variants. It is 0 for the greedy heuristics.
func (c *Criteria) Weight(h Heuristic, w int) float64 {
	var x float64
	switch h {
	case Random:
		return 1
	case Random1, Random1W:
		x = c.Puu
	case Random2, Random2W:
		x = c.PPlus
	case Random3, Random3W:
		x = c.PiU
	case Random4, Random4W:
		x = c.NotDown
	default:
		return 0
	}
	if h >= Random1W {
		x /= float64(w)
	}
	return x
}

// Work is a task copy a processor has begun: its data transfer has started.
type Work struct {
	DataLeft int // slots of data still to receive
	WorkLeft int // UP slots of computation still needed
}

// ProcView is what the master knows of one processor at decision time.
type ProcView struct {
	State       availability.State
	W           int
	ProgramLeft int  // slots of program still to receive (0: it holds the program)
	HasCur      bool // a begun task copy (receiving its data or computing)
	Cur         Work
	HasNext     bool // a second begun copy, receiving its data while Cur computes
	Next        Work
}

// Idle reports whether the processor holds no begun task copy.
func (v *ProcView) Idle() bool { return !v.HasCur && !v.HasNext }

// Delay is Delay(q) of §6.3.1: the number of slots before the processor
// finishes its current activities (the program it still needs, the copies it
// has begun), assuming it stays UP and there is no contention.
func Delay(v *ProcView) int {
	if !v.HasCur {
		return v.ProgramLeft
	}
	end := v.Cur.DataLeft + v.Cur.WorkLeft
	if v.HasNext {
		end = max(end, v.Next.DataLeft) + v.Next.WorkLeft
	}
	return end
}

// CompletionTime is CT(P_q, n) of Eq. 1 with factor = 1 and of Eq. 2 with
// factor = ⌈n_active/n_com⌉: Delay + factor·T_data + max(n−1, 0)·max(factor·T_data, w) + w.
func CompletionTime(delay, tdata, w, n, factor int) int {
	td := factor * tdata
	return delay + td + max(n-1, 0)*max(td, w) + w
}

// Snapshot is the explicit state a heuristic decides on.
type Snapshot struct {
	Procs []ProcView
	Crit  []Criteria // one per processor
	TData int
	NCom  int
	// Copies has one entry per task of the iteration not yet completed: the
	// number of its copies already begun. The tasks with 0 are the m − m'
	// tasks the heuristic (re)assigns; the others may get replicas.
	Copies []int
	// ExtraReplicas is the maximum number of additional copies of a task.
	ExtraReplicas int

	// Watch and StopAfter let a driver ask for only the part of the
	// decision it can use: when StopAfter > 0, Decide returns as soon as
	// StopAfter distinct processors with Watch[q] set have been picked. The
	// picks returned are then a prefix of the full decision. Nil/0: the
	// full decision.
	Watch     []bool
	StopAfter int
	// Queued, when not nil, is the number of tasks already queued on each
	// processor (Options.Sticky): they count in n_q and n_active.
	Queued []int
	// Eligible, when not nil, lists the processors whose State is UP in
	// increasing index order (a driver that maintains the list saves the
	// scan); nil: Decide finds them. Decide does not modify it.
	Eligible []int
	// Weights, when not nil, are a random heuristic's weights per
	// processor, weight(h, s, q) precomputed by a driver; nil: Decide
	// computes them.
	Weights []float64
}

// Pick is one decision: task Copies[Task] goes to processor Proc; Replica
// says it is an additional copy.
type Pick struct {
	Task    int
	Proc    int
	Replica bool
}

// Decider holds the scratch memory of Decide; its zero value is ready. It
// keeps nothing between calls: a decision depends only on its arguments.
type Decider struct {
	nq      []int
	keys    []float64
	w       []float64 // the random heuristic's weights: Snapshot.Weights or weights
	copies  []int
	delay   []int
	weights []float64
	rank    []int
	acc     []int
	// el is the eligible processors not yet excluded, in index order: the
	// UP processors (possibly Snapshot.Eligible itself, never modified),
	// then, in the replica phase, those with nothing to do (in elBuf).
	el, elBuf []int
	// kn caches the keys of the rank shortcut: kn[q*kStride+n-1] is
	// processor q's key for its n-th task, computed for n ≤ kCount[q].
	kn      []float64
	kCount  []int
	kStride int
	// the greedy loop's counters: processors with a task in this round, and
	// those of them watched; the contention factor.
	nActive, watched, factor int
}

// Decide runs heuristic h on the snapshot and returns its decisions in the
// order it made them, appended to out[:0]: first the m − m' unstarted tasks
// in task order, each on the UP processor h prefers (§6.2, §6.3), then, when
// more processors are UP than tasks remain (§6.1), replicas on UP processors
// that have nothing to do (no begun copy, nothing assigned in this round),
// first a second copy of every task in task order, then a third, ….
// Random heuristics draw from rng; the greedy ones break ties by the lowest
// processor index.
func (d *Decider) Decide(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick) []Pick {
	out = out[:0]
	p := len(s.Procs)
	d.nq = resize(d.nq, p)
	d.keys = resizeF(d.keys, p)
	d.delay = resize(d.delay, p)
	if s.Eligible != nil {
		d.el = s.Eligible
	} else {
		d.el = d.elBuf[:0]
		for q := range s.Procs {
			if s.Procs[q].State == availability.Up {
				d.el = append(d.el, q)
			}
		}
		d.elBuf = d.el
	}
	up := len(d.el)
	if up == 0 {
		return out
	}
	queued := 0
	if s.Queued != nil {
		for _, n := range s.Queued {
			if n > 0 {
				queued++
			}
		}
	}
	random := h.IsRandom()
	if random { // the random heuristics need weights, not delays
		d.weights = resizeF(d.weights, p)
		d.w = d.weights
		if s.Weights != nil {
			d.w = s.Weights
			for _, q := range d.el {
				d.nq[q] = 0
			}
		} else {
			for _, q := range d.el {
				d.nq[q] = 0
				d.weights[q] = weight(h, s, q)
			}
		}
	} else {
		for _, q := range d.el {
			d.nq[q] = 0
			d.delay[q] = Delay(&s.Procs[q])
		}
	}
	if s.Queued != nil {
		for _, q := range d.el {
			d.nq[q] = s.Queued[q]
		}
	}
	if s.StopAfter > 0 && s.Watch != nil {
		switch {
		case random:
			return d.decideRandomWatched(s, rng, out, up)
		case (s.ExtraReplicas <= 0 || up <= len(s.Copies)) && (!h.Contention() || (s.Queued == nil && up <= s.NCom)):
			return d.decideByRank(h, s, out)
		}
	}
	d.nActive, d.watched, d.factor = queued, 0, 1
	if h.Contention() {
		d.factor = ceilDiv(d.nActive, s.NCom)
	}
	if !random {
		for _, q := range d.el {
			d.keys[q] = d.key(h, s, q, d.factor)
		}
	}
	var ok bool
	for task, c := range s.Copies {
		if c != 0 {
			continue
		}
		if out, ok = d.assign(h, s, rng, out, task, false); !ok || d.done(s) {
			return out
		}
	}
	if s.ExtraReplicas <= 0 || up <= len(s.Copies) {
		return out
	}
	// Replicas: only processors with nothing to do; every task has a copy.
	d.replicaPhase(s)
	for level := 1; level <= s.ExtraReplicas && len(d.el) > 0; level++ {
		for task := range d.copies {
			if len(d.el) == 0 {
				break
			}
			if d.copies[task] != level {
				continue
			}
			if out, ok = d.assign(h, s, rng, out, task, true); !ok {
				return out
			}
			d.copies[task]++
			d.exclude(out[len(out)-1].Proc)
			if d.done(s) {
				return out
			}
		}
	}
	return out
}

// assign places task (a replica or not) on the processor h picks among
// d.el and updates the round's counters and the keys that changed; false
// when no processor is left.
func (d *Decider) assign(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick, task int, replica bool) ([]Pick, bool) {
	random := h <= Random4W
	var q int
	if random {
		q = d.pickRandom(rng)
	} else {
		q = d.pickMin()
	}
	if q < 0 {
		return out, false
	}
	out = append(out, Pick{Task: task, Proc: q, Replica: replica})
	if d.nq[q] == 0 {
		d.nActive++
		if s.StopAfter > 0 && s.Watch[q] {
			d.watched++
		}
	}
	d.nq[q]++
	if random {
		return out, true
	}
	if h.Contention() {
		if f := ceilDiv(d.nActive, s.NCom); f != d.factor {
			d.factor = f
			for _, r := range d.el {
				d.keys[r] = d.key(h, s, r, f)
			}
			return out, true
		}
	}
	d.keys[q] = d.key(h, s, q, d.factor)
	return out, true
}

// done reports whether the driver's StopAfter watched processors are picked.
func (d *Decider) done(s *Snapshot) bool { return s.StopAfter > 0 && d.watched >= s.StopAfter }

// replicaPhase prepares the replica phase once every unstarted task has a
// copy: d.copies holds the copies of each task, d.el keeps only the
// processors with nothing to do (no begun copy, nothing in this round).
func (d *Decider) replicaPhase(s *Snapshot) {
	d.copies = append(d.copies[:0], s.Copies...)
	for i, c := range d.copies {
		if c == 0 {
			d.copies[i] = 1
		}
	}
	buf := d.elBuf[:0]
	for _, q := range d.el {
		if d.nq[q] == 0 && s.Procs[q].Idle() {
			buf = append(buf, q)
		}
	}
	d.el, d.elBuf = buf, buf
}

// exclude removes q from d.el (a private list: the replica phase's).
func (d *Decider) exclude(q int) {
	for i, r := range d.el {
		if r == q {
			d.el = append(d.el[:i], d.el[i+1:]...)
			return
		}
	}
}

// key is the quantity the greedy heuristic minimizes for processor q given
// its n_q tasks already assigned in this round: CT (MCT), E(CT) (EMCT),
// CT·(−ln P+) (LW maximizes P+^CT), −ln P_UD(E(CT)) (UD).
func (d *Decider) key(h Heuristic, s *Snapshot, q, factor int) float64 {
	return d.keyN(h, s, q, d.nq[q]+1, factor)
}

// keyN is the key of processor q for its n-th task of the round.
func (d *Decider) keyN(h Heuristic, s *Snapshot, q, n, factor int) float64 {
	ct := float64(CompletionTime(d.delay[q], s.TData, s.Procs[q].W, n, factor))
	return s.Crit[q].Key(h, ct)
}

func (d *Decider) pickMin() int {
	best := -1
	for _, q := range d.el {
		if best < 0 || d.keys[q] < d.keys[best] {
			best = q
		}
	}
	return best
}

// weight is the §6.2 weight of processor q for a random heuristic.
func weight(h Heuristic, s *Snapshot, q int) float64 { return s.Crit[q].Weight(h, s.Procs[q].W) }

// pickRandom draws a processor of d.el with probability proportional to
// its weight (uniformly when the weights are degenerate); −1 if none.
func (d *Decider) pickRandom(rng *rand.Rand) int {
	n := len(d.el)
	if n == 0 {
		return -1
	}
	sum := 0.0
	for _, q := range d.el {
		sum += d.w[q]
	}
	if sum <= 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		// Degenerate weights: uniform.
		return d.el[rng.IntN(n)]
	}
	x := rng.Float64() * sum
	for _, q := range d.el {
		x -= d.w[q]
		if x < 0 {
			return q
		}
	}
	return d.el[n-1]
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func resize(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

func resizeF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// decideByRank computes, for a greedy heuristic with no replica to place,
// the same picks of the watched processors as the greedy loop, without
// running it. Without the contention factor, each processor's keys for its
// 1st, 2nd, … task of the round do not decrease, so the greedy (repeatedly
// the smallest key, ties to the lowest index) visits the pairs (key,
// processor) in sorted order: a processor a with nothing assigned is first
// picked at rank = the number of pairs of other processors that sort before
// (K_a(1), a), and only if that rank is below the number of tasks. Counting
// costs at most (tasks + processors) key evaluations per watched processor
// instead of tasks × processors for the loop.
//
// The starred heuristics qualify when no more processors are UP than the
// master has channels (and none has queued tasks): n_active then never
// exceeds n_com, so the factor ⌈n_active/n_com⌉ is 0 for the first pick of
// the round (n_active = 0) and 1 for all the others. The first pick is the
// smallest key with factor 0; the others are the sorted pairs with factor 1
// (Eq. 1, the non-starred keys), the first pick's processor starting at its
// 2nd task, over the remaining tasks.
//
// The picks returned are those of the watched processors, in pick order,
// truncated to StopAfter: exactly the prefix of the full decision the
// driver uses.
func (d *Decider) decideByRank(h Heuristic, s *Snapshot, out []Pick) []Pick {
	k := 0
	for _, c := range s.Copies {
		if c == 0 {
			k++
		}
	}
	if k == 0 {
		return out
	}
	p := len(s.Procs)
	d.rank = resize(d.rank, p)
	d.kCount = resize(d.kCount, p)
	if d.kStride = max(k+1, d.kStride); len(d.kn) < p*d.kStride {
		d.kn = make([]float64, p*d.kStride)
	}
	// The first pick of a starred heuristic (factor 0); its processor's
	// pairs start at its 2nd task and the others compete for k − 1 tasks.
	first, offset := -1, 0
	if h.Contention() {
		best := math.Inf(1)
		for _, q := range d.el {
			if kq := d.keyN(h, s, q, 1, 0); first < 0 || kq < best {
				first, best = q, kq
			}
		}
		offset = 1
	}
	for _, q := range d.el {
		d.kn[q*d.kStride] = d.keyN(h, s, q, 1, 1)
		d.kCount[q] = 1
	}
	d.acc = d.acc[:0]
	if first >= 0 && s.Watch[first] {
		d.rank[first] = 0
		d.acc = append(d.acc, first)
	}
	for _, a := range d.el {
		if !s.Watch[a] || a == first {
			continue
		}
		ka := d.kn[a*d.kStride]
		rank := offset
		for _, q := range d.el {
			if q == a {
				continue
			}
			base := q * d.kStride
			n := 1
			if q == first {
				n = 2
			}
			for ; rank < k; n++ {
				if n > d.kCount[q] {
					d.kn[base+n-1] = d.keyN(h, s, q, n, 1)
					d.kCount[q] = n
				}
				if kq := d.kn[base+n-1]; kq < ka || (kq == ka && q < a) {
					rank++
				} else {
					break
				}
			}
			if rank >= k {
				break
			}
		}
		if rank < k {
			d.rank[a] = rank
			d.acc = append(d.acc, a)
		}
	}
	// Sort the picked watched processors by rank (insertion sort: few).
	for i := 1; i < len(d.acc); i++ {
		for j := i; j > 0 && d.rank[d.acc[j]] < d.rank[d.acc[j-1]]; j-- {
			d.acc[j], d.acc[j-1] = d.acc[j-1], d.acc[j]
		}
	}
	if len(d.acc) > s.StopAfter {
		d.acc = d.acc[:s.StopAfter]
	}
	for _, a := range d.acc {
		// The rank-th pick takes the rank-th unstarted task.
		r := d.rank[a]
		for task, c := range s.Copies {
			if c == 0 {
				if r == 0 {
					out = append(out, Pick{Task: task, Proc: a})
					break
				}
				r--
			}
		}
	}
	return out
}

// decideRandomWatched samples, for a random heuristic, the part of the
// decision the driver uses with the distribution of the full decision,
// without drawing the picks nobody uses. In the full decision every
// unstarted task, in task order, independently goes to an UP processor q
// with probability π_q = weight_q / Σ weights; the driver uses each watched
// processor's first pick only, up to StopAfter of them; the replica phase
// (§6.1) needs to know only which idle processors got a task. So only the
// first picks of the tracked processors T (watched, or idle: no begun copy)
// are drawn: the number of tasks before the next first pick of a tracked
// processor not yet picked (set A) is geometric with success probability
// π_A, and that processor is a ∈ A with probability π_a / π_A. Each first
// pick costs two draws instead of one draw per task. The picks returned
// are the watched processors' first picks in task order, then their
// replicas as in the full loop (the replicas of other idle processors are
// drawn, not returned). The result is equal in distribution to the full
// loop, not draw for draw (TestRandomWatchedMatchesLoop).
func (d *Decider) decideRandomWatched(s *Snapshot, rng *rand.Rand, out []Pick, up int) []Pick {
	replicas := s.ExtraReplicas > 0 && up > len(s.Copies)
	// d.acc: the tracked eligible processors not yet picked.
	d.acc = d.acc[:0]
	sum := 0.0
	for _, q := range d.el {
		sum += d.w[q]
		if s.Watch[q] || (replicas && s.Procs[q].Idle()) {
			d.acc = append(d.acc, q)
		}
	}
	if sum <= 0 || math.IsNaN(sum) || math.IsInf(sum, 0) { // degenerate: uniform
		for _, q := range d.el {
			d.weights[q] = 1
		}
		d.w = d.weights
		sum = float64(len(d.el))
	}
	watched := 0
	task := -1 // index in s.Copies of the last task considered
	for len(d.acc) > 0 {
		wA := 0.0
		for _, q := range d.acc {
			wA += d.w[q]
		}
		pA := wA / sum
		if !(pA > 0) {
			break
		}
		// Failures before the next success: ⌊ln U / ln(1 − π_A)⌋, U ∈ (0, 1].
		skip := 0
		if pA < 1 {
			g := math.Log(1-rng.Float64()) / math.Log1p(-pA)
			if g >= float64(len(s.Copies)) {
				break
			}
			skip = int(g)
		}
		for ; skip >= 0 && task < len(s.Copies); skip-- {
			task++
			for task < len(s.Copies) && s.Copies[task] != 0 {
				task++
			}
		}
		if task >= len(s.Copies) {
			break
		}
		x := rng.Float64() * wA
		i := 0
		for ; i < len(d.acc)-1; i++ {
			x -= d.w[d.acc[i]]
			if x < 0 {
				break
			}
		}
		q := d.acc[i]
		d.acc = append(d.acc[:i], d.acc[i+1:]...)
		d.nq[q] = 1
		if s.Watch[q] {
			out = append(out, Pick{Task: task, Proc: q})
			if watched++; watched >= s.StopAfter {
				return out
			}
		}
	}
	if !replicas {
		return out
	}
	// Every unstarted task now has one copy; replicas go to the idle UP
	// processors that got no task, as in the full loop.
	d.replicaPhase(s)
	for level := 1; level <= s.ExtraReplicas && len(d.el) > 0; level++ {
		for task := range d.copies {
			if len(d.el) == 0 {
				break
			}
			if d.copies[task] != level {
				continue
			}
			q := d.pickRandom(rng)
			if q < 0 {
				return out
			}
			d.copies[task]++
			d.exclude(q)
			if s.Watch[q] {
				out = append(out, Pick{Task: task, Proc: q, Replica: true})
				if watched++; watched >= s.StopAfter {
					return out
				}
			}
		}
	}
	return out
}
