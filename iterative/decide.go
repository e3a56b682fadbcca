package iterative

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

// Decider holds the scratch memory of the decisions; its zero value is
// ready. It keeps nothing between calls: a decision depends only on its
// arguments. It is not safe for concurrent use; use one per goroutine.
type Decider struct {
	nq     []int
	keys   []float64
	w      []float64 // the random heuristic's weights: Hints.Weights or weights
	copies []int
	delay  []int
	// weights is the random heuristic's weights computed here (or set to 1
	// when degenerate).
	weights []float64
	rank    []int
	acc     []int
	// el is the eligible processors not yet excluded, in index order: the
	// UP processors (possibly Hints.Up itself, never modified), then, in
	// the replica phase, those with nothing to do (in elBuf).
	el, elBuf []int
	// kn caches the keys of the rank shortcut: kn[q*kStride+n-1] is
	// processor q's key for its n-th task, computed for n ≤ kCount[q].
	kn      []float64
	kCount  []int
	kStride int
	// The call's Hints.Want and Hints.StopAfter (nil, 0: the full
	// decision); wantedOnly: picks of other processors are not returned.
	want       []bool
	stopAfter  int
	wantedOnly bool
	// the loop's counters: processors with a task in this round, and those
	// of them wanted; the contention factor.
	nActive, watched, factor int
	// loopBudget > 0: the tasks the loop may place before it gives way to
	// the rank shortcut (rankOrLoop).
	loopBudget int
	// forceRank (tests): 0 lets rankOrLoop choose; 1 takes the rank; 2 the
	// loop with rankOrLoop's budget; 3 the loop with a budget of 1 task.
	forceRank int
}

// Decide runs heuristic h on the snapshot and returns its decisions in the
// order it made them, appended to out[:0]. For a greedy or a random
// heuristic (a key or a weight: the 17 of §6 and registered ones alike):
// first the m − m' unstarted tasks in task order, each on the UP processor
// h prefers (§6.2, §6.3), then, when more processors are UP than tasks
// remain (§6.1), replicas on UP processors that have nothing to do (no
// begun copy, nothing assigned in this round), first a second copy of every
// task in task order, then a third, … up to ExtraReplicas more. Random
// heuristics draw from rng (the greedy ones may be given nil); the greedy
// ones break ties by the lowest processor index. A heuristic with a whole
// decision of its own (Spec.Decide) returns its picks (checked: each names
// an open task and an UP processor). h must be valid; the snapshot must be
// valid (Snapshot.Validate); it is not modified.
//
// A driver applies the picks it can: a processor begins the first task it
// is given if it can take one (§6.1: each task can be sent to a processor
// that is ready), the others are decided again at the next decision.
func (d *Decider) Decide(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick) []Pick {
	return d.DecideWith(h, s, nil, rng, out)
}

// DecideWith is Decide with a driver's hints (nil: none), documented with
// Hints: the simulator's performance aids and its Sticky variant.
func (d *Decider) DecideWith(h Heuristic, s *Snapshot, x *Hints, rng *rand.Rand, out []Pick) []Pick {
	out = out[:0]
	if h.s.Decide != nil {
		out = h.s.Decide(s, x, rng, out)
		checkPicks(h, s, out)
		return out
	}
	var up0, queued0 []int
	var weights0 []float64
	d.want, d.stopAfter, d.wantedOnly = nil, 0, false
	if x != nil {
		up0, queued0, weights0 = x.Up, x.Queued, x.Weights
		if x.StopAfter > 0 && x.Want != nil {
			d.want, d.stopAfter = x.Want, x.StopAfter
		}
	}
	p := len(s.Procs)
	d.nq = resize(d.nq, p)
	d.keys = resizeF(d.keys, p)
	d.delay = resize(d.delay, p)
	if up0 != nil {
		d.el = up0
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
	for _, n := range queued0 {
		if n > 0 {
			queued++
		}
	}
	random := h.s.Weight != nil
	if random { // the random heuristics need weights, not delays
		d.weights = resizeF(d.weights, p)
		d.w = d.weights
		if weights0 != nil {
			d.w = weights0
			for _, q := range d.el {
				d.nq[q] = 0
			}
		} else {
			for _, q := range d.el {
				d.nq[q] = 0
				d.weights[q] = h.s.Weight(&s.Crit[q], s.Procs[q].W)
			}
		}
	} else {
		for _, q := range d.el {
			d.nq[q] = 0
			d.delay[q] = Delay(&s.Procs[q])
		}
	}
	if queued0 != nil {
		for _, q := range d.el {
			d.nq[q] = queued0[q]
		}
	}
	if d.stopAfter > 0 && queued0 == nil {
		switch {
		case random:
			return d.decideRandomPrefix(h, s, rng, out, up)
		case (s.ExtraReplicas <= 0 || up <= len(s.Tasks)) && (!h.Contention() || up <= s.NCom):
			// Both give the wanted processors' first picks of the full
			// decision, in its order: take the cheaper (rankFirst), and
			// leave the loop for the rank when it runs over its budget.
			budget, rankFirst := d.rankOrLoop(s, unstarted(s))
			if rankFirst {
				return d.decideByRank(h, s, out)
			}
			d.loopBudget = budget
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
	var q int
	start, budget := len(out), d.loopBudget
	d.loopBudget = 0
	for task := range s.Tasks {
		if s.Tasks[task].Copies != 0 {
			continue
		}
		if out, q = d.assign(h, s, rng, out, task, false); q < 0 || d.done() {
			return out
		}
		if budget > 0 {
			if budget--; budget == 0 {
				// Over the estimate: the rank shortcut gives the same picks.
				return d.decideByRank(h, s, out[:start])
			}
		}
	}
	if s.ExtraReplicas <= 0 || up <= len(s.Tasks) {
		return out
	}
	return d.replicate(h, s, rng, out)
}

// assign places task (a replica or not) on the processor h picks among
// d.el, appends the pick (unless only wanted processors' picks are
// returned and q is not wanted) and updates the round's counters and the
// keys that changed; it returns the processor, −1 when none is left.
func (d *Decider) assign(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick, task int, replica bool) ([]Pick, int) {
	random := h.s.Weight != nil
	var q int
	if random {
		q = d.pickRandom(rng)
	} else {
		q = d.pickMin()
	}
	if q < 0 {
		return out, q
	}
	if !d.wantedOnly || d.want[q] {
		out = append(out, Pick{Task: task, Proc: q, Replica: replica})
	}
	if d.nq[q] == 0 {
		d.nActive++
		if d.stopAfter > 0 && d.want[q] {
			d.watched++
		}
	}
	d.nq[q]++
	if random {
		return out, q
	}
	if h.Contention() {
		if f := ceilDiv(d.nActive, s.NCom); f != d.factor {
			d.factor = f
			for _, r := range d.el {
				d.keys[r] = d.key(h, s, r, f)
			}
			return out, q
		}
	}
	d.keys[q] = d.key(h, s, q, d.factor)
	return out, q
}

// done reports whether the StopAfter wanted processors are picked.
func (d *Decider) done() bool { return d.stopAfter > 0 && d.watched >= d.stopAfter }

// replicate is the replica phase of §6.1, once every unstarted task has a
// copy (d.nq says which processors got one in this round): on the UP
// processors with nothing to do, a second copy of every task in task order,
// then a third, …, each where h prefers, until no such processor is left.
// The full decision and the random prefix share it.
func (d *Decider) replicate(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick) []Pick {
	d.copies = d.copies[:0]
	for _, t := range s.Tasks {
		d.copies = append(d.copies, max(t.Copies, 1))
	}
	buf := d.elBuf[:0]
	for _, q := range d.el {
		if d.nq[q] == 0 && s.Procs[q].Idle() {
			buf = append(buf, q)
		}
	}
	d.el, d.elBuf = buf, buf
	var q int
	for level := 1; level <= s.ExtraReplicas && len(d.el) > 0; level++ {
		for task := range d.copies {
			if len(d.el) == 0 {
				break
			}
			if d.copies[task] != level {
				continue
			}
			if out, q = d.assign(h, s, rng, out, task, true); q < 0 {
				return out
			}
			d.copies[task]++
			d.exclude(q)
			if d.done() {
				return out
			}
		}
	}
	return out
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
// its n_q tasks already assigned in this round (Spec.Key).
func (d *Decider) key(h Heuristic, s *Snapshot, q, factor int) float64 {
	return d.keyN(h, s, q, d.nq[q]+1, factor)
}

// keyN is the key of processor q for its n-th task of the round.
func (d *Decider) keyN(h Heuristic, s *Snapshot, q, n, factor int) float64 {
	ct := float64(CompletionTime(d.delay[q], s.TData, s.Procs[q].W, n, factor))
	switch h.s.fast { // the paper's keys by a direct call (paperKey), the same functions as h.s.Key
	case keyIsCT:
		return keyCT(s, q, ct)
	case keyIsExpected:
		return keyExpected(s, q, ct)
	case keyIsLW:
		return keyLW(s, q, ct)
	case keyIsUD:
		return keyUD(s, q, ct)
	}
	return h.s.Key(s, q, ct)
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

// checkPicks panics when a whole decision of heuristic h (Spec.Decide)
// returned a pick that names no open task of s or no UP processor: the
// drivers index their state with the picks.
func checkPicks(h Heuristic, s *Snapshot, picks []Pick) {
	for _, pk := range picks {
		switch {
		case pk.Task < 0 || pk.Task >= len(s.Tasks):
			panic(fmt.Sprintf("iterative: heuristic %s picked task %d of a snapshot of %d open tasks (pick %+v)", h, pk.Task, len(s.Tasks), pk))
		case pk.Proc < 0 || pk.Proc >= len(s.Procs):
			panic(fmt.Sprintf("iterative: heuristic %s picked processor %d of a snapshot of %d (pick %+v)", h, pk.Proc, len(s.Procs), pk))
		case s.Procs[pk.Proc].State != availability.Up:
			panic(fmt.Sprintf("iterative: heuristic %s picked processor %d, whose state is %v (not UP), want an UP one (pick %+v)", h, pk.Proc, s.Procs[pk.Proc].State, pk))
		}
	}
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

// unstarted is the number of open tasks with no copy.
func unstarted(s *Snapshot) int {
	k := 0
	for _, t := range s.Tasks {
		if t.Copies == 0 {
			k++
		}
	}
	return k
}

// rankOrLoop chooses, for a decision both the rank shortcut and the
// greedy loop with early stop can make (they return the same picks of the
// wanted processors, in the same order), the one expected to be cheaper,
// counting key evaluations and comparisons. The rank costs about
// (up + k) per wanted processor (k unstarted tasks). The loop costs up per
// task placed, and stops once StopAfter wanted processors have a task:
// about StopAfter·up/wanted tasks when the wanted processors are spread
// through the greedy order (all of them wanted: StopAfter tasks), at most
// k. It returns rankFirst, or the loop's budget in tasks: past it, the
// loop gives way to the rank, so a wrong guess costs at most about twice
// the rank's price. Only the speed depends on the choice.
func (d *Decider) rankOrLoop(s *Snapshot, k int) (budget int, rankFirst bool) {
	up, wanted := len(d.el), 0
	for _, q := range d.el {
		if d.want[q] {
			wanted++
		}
	}
	if wanted == 0 || k == 0 {
		return 0, true // the rank returns at once
	}
	rankCost := wanted * (up + min(k, up))
	loopTasks := min(k, (d.stopAfter*up+wanted-1)/wanted)
	budget = max(1, rankCost/up)
	switch d.forceRank {
	case 1:
		return 0, true
	case 2:
		return budget, false
	case 3:
		return 1, false
	}
	if loopTasks*up >= rankCost {
		return 0, true
	}
	return budget, false
}

// decideByRank computes, for a greedy heuristic with no replica to place,
// the same picks of the wanted processors as the greedy loop, without
// running it. Without the contention factor, each processor's keys for its
// 1st, 2nd, … task of the round do not decrease, so the greedy (repeatedly
// the smallest key, ties to the lowest index) visits the pairs (key,
// processor) in sorted order: a processor a with nothing assigned is first
// picked at rank = the number of pairs of other processors that sort before
// (K_a(1), a), and only if that rank is below the number of tasks. Counting
// costs at most (tasks + processors) key evaluations per wanted processor
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
// The picks returned are those of the wanted processors, in pick order,
// truncated to StopAfter: exactly the part of the full decision the driver
// uses.
func (d *Decider) decideByRank(h Heuristic, s *Snapshot, out []Pick) []Pick {
	k := unstarted(s)
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
	if first >= 0 && d.want[first] {
		d.rank[first] = 0
		d.acc = append(d.acc, first)
	}
	for _, a := range d.el {
		if !d.want[a] || a == first {
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
	// Sort the picked wanted processors by rank (insertion sort: few).
	for i := 1; i < len(d.acc); i++ {
		for j := i; j > 0 && d.rank[d.acc[j]] < d.rank[d.acc[j-1]]; j-- {
			d.acc[j], d.acc[j-1] = d.acc[j-1], d.acc[j]
		}
	}
	if len(d.acc) > d.stopAfter {
		d.acc = d.acc[:d.stopAfter]
	}
	for _, a := range d.acc {
		// The rank-th pick takes the rank-th unstarted task.
		r := d.rank[a]
		for task, t := range s.Tasks {
			if t.Copies == 0 {
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

// decideRandomPrefix samples, for a random heuristic, the part of the
// decision the driver uses with the distribution of the full decision,
// without drawing the picks nobody uses. In the full decision every
// unstarted task, in task order, independently goes to an UP processor q
// with probability π_q = weight_q / Σ weights; the driver uses each wanted
// processor's first pick only, up to StopAfter of them; the replica phase
// (§6.1) needs to know only which idle processors got a task. So only the
// first picks of the tracked processors T (wanted, or idle: no begun copy)
// are drawn: the number of tasks before the next first pick of a tracked
// processor not yet picked (set A) is geometric with success probability
// π_A, and that processor is a ∈ A with probability π_a / π_A. Each first
// pick costs two draws instead of one draw per task. The picks returned
// are the wanted processors' first picks in task order, then their
// replicas from the replica phase of the full loop (the replicas of other
// idle processors are drawn, not returned). The result is equal in
// distribution to the full loop, not draw for draw
// (TestRandomPrefixMatchesLoop).
func (d *Decider) decideRandomPrefix(h Heuristic, s *Snapshot, rng *rand.Rand, out []Pick, up int) []Pick {
	replicas := s.ExtraReplicas > 0 && up > len(s.Tasks)
	// d.acc: the tracked eligible processors not yet picked.
	d.acc = d.acc[:0]
	sum := 0.0
	for _, q := range d.el {
		sum += d.w[q]
		if d.want[q] || (replicas && s.Procs[q].Idle()) {
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
	d.watched = 0
	task := -1 // index in s.Tasks of the last task considered
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
			if g >= float64(len(s.Tasks)) {
				break
			}
			skip = int(g)
		}
		for ; skip >= 0 && task < len(s.Tasks); skip-- {
			task++
			for task < len(s.Tasks) && s.Tasks[task].Copies != 0 {
				task++
			}
		}
		if task >= len(s.Tasks) {
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
		if d.want[q] {
			out = append(out, Pick{Task: task, Proc: q})
			if d.watched++; d.done() {
				return out
			}
		}
	}
	if !replicas {
		return out
	}
	// Every unstarted task now has one copy; replicas go to the idle UP
	// processors that got no task, as in the full loop; only the wanted
	// processors' are returned.
	d.wantedOnly = true
	return d.replicate(h, s, rng, out)
}
