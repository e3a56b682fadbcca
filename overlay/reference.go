package overlay

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Placement says that N tasks of a request go to execution node Node
// (an index into the nodes the Placer was given).
type Placement struct{ Node, N int }

// Placer is a scheduler with a global view, the references against which
// the overlay is compared (§7): given the exact summary of every execution
// node (Exec.Summary at time now), it places the tasks of a request. The
// tasks it does not place are the request's N minus the placed ones.
// Implementations: Centralized, Random.
type Placer interface {
	Place(now float64, req Request, nodes []Summary, out []Placement) []Placement
}

// Centralized is the centralized scheduler with full knowledge: the same
// heuristic as the policy's forwarding, applied to every node's exact
// availability instead of aggregated summaries, when the policy's Rules
// provide one (CentralPlacer). IBP: one task per idle fitting node,
// closest to the requirements first; MMP: the makespan q of Fig. 6's
// search over all nodes, then each node filled up to q in node order; DP:
// least computation available before the deadline first.
type Centralized struct{ Rules Rules }

// CentralPlacer is implemented by the Rules of a policy that has a
// centralized reference (Centralized): the policy's heuristic over every
// execution node's exact summary, placing req's tasks as Placer.Place
// does. IBP, MMP and DP have one; a driver refuses the centralized
// reference for a policy without.
type CentralPlacer interface {
	Central(now float64, req Request, nodes []Summary, out []Placement) []Placement
}

// Place is the policy's centralized reference (nothing is placed for a
// policy without one).
func (c Centralized) Place(now float64, req Request, nodes []Summary, out []Placement) []Placement {
	if req.N <= 0 {
		return out
	}
	if p, ok := c.Rules.(CentralPlacer); ok {
		return p.Central(now, req, nodes, out)
	}
	return out
}

// placeMMP is the centralized MMP reference: the makespan q of Fig. 6's
// search over every node's summary (Makespan), then each node filled up to
// q in node order (MMPSummary.Admits). It gives exactly what Makespan and
// Admits over all nodes give, faster: the clusters that can run the task
// (memory, disk, power > 0) are copied once per request into flat arrays,
// each probe of the search stops as soon as the nodes admit the request's n
// tasks (it only decides admits(q) >= n, and every AF is >= 0), and the
// clusters that cannot run the task are never visited again. The arithmetic
// is AF's, term for term (TestCentralizedMMPMatchesMakespan).
func placeMMP(now float64, req Request, nodes []Summary, out []Placement) []Placement {
	n0 := len(nodes) // one cluster per node for execution nodes' summaries
	c := mmpFlat{node: make([]int32, 0, n0), q: make([]float64, 0, n0), power: make([]float64, 0, n0), v: make([]int, 0, n0)}
	app := req.App
	for i, s := range nodes {
		for _, cl := range asMMP(s) {
			if float64(cl.Mem) >= app.Mem && float64(cl.Disk) >= app.Disk && cl.Power > 0 {
				c.node = append(c.node, int32(i))
				c.q = append(c.q, max(cl.Q, now))
				c.power = append(c.power, float64(cl.Power))
				c.v = append(c.v, int(cl.V))
			}
		}
	}
	if len(c.q) == 0 {
		return out
	}
	n := req.N
	q := makespanSearch(now, func(q float64) bool {
		k := 0
		for x := range c.q {
			if k += c.af(x, q, app.Length); k >= n {
				return true
			}
		}
		return false
	})
	// Fill in node order up to q. A node's clusters are consecutive; the
	// sum is capped as Admits caps it (irrelevant below 2^50 tasks).
	for x := 0; x < len(c.q) && n > 0; {
		node, k := c.node[x], 0
		for ; x < len(c.q) && c.node[x] == node; x++ {
			if k <= 1<<50 {
				k += c.af(x, q, app.Length)
			}
		}
		if k = min(k, n); k > 0 {
			out = append(out, Placement{Node: int(node), N: k})
			n -= k
		}
	}
	return out
}

// mmpFlat holds the clusters that can run a request's task, in node order:
// their node, queue end max(Q, now), power and v.
type mmpFlat struct {
	node  []int32
	q     []float64
	power []float64
	v     []int
}

// af is MMPCluster.AF of cluster x at makespan q for tasks of the given
// length, computed in the same order of operations.
func (c *mmpFlat) af(x int, q, length float64) int {
	t := (q - c.q[x]) * c.power[x] / length
	if !(t >= 1) {
		return 0
	}
	if t > 1<<40 {
		t = 1 << 40
	}
	return c.v[x] * int(math.Floor(t))
}

// ibpKey is the centralized IBP key of a node of memory mem and disk disk
// (im, id: the inverses of the spans over the fitting candidates), shared
// with IBPIndex so that both compute it the same way.
func ibpKey(mem, disk float32, app App, im, id float64) float64 {
	return (float64(mem)-app.Mem)*im + (float64(disk)-app.Disk)*id
}

// placeSorted places n tasks on the candidates in sortCandidates' order
// (key, then position in cand: a stable sort), each taking up to its n. Only
// the candidates reached before n tasks are placed matter, so it selects them
// with a heap (O(len(cand) + placed·log len(cand))) instead of sorting all;
// the order is the stable sort's whenever no key is NaN, and with a NaN key
// it sorts cand (TestPlaceSortedMatchesStableSort).
func placeSorted(cand []candidate, n int, out []Placement) []Placement {
	if n <= 0 || len(cand) == 0 {
		return out
	}
	take := func(c *candidate) {
		k := min(c.n, n)
		n -= k
		out = append(out, Placement{Node: c.index, N: k})
	}
	if slices.ContainsFunc(cand, func(c candidate) bool { return math.IsNaN(c.key) }) {
		sortCandidates(cand)
		for i := 0; i < len(cand) && n > 0; i++ {
			take(&cand[i])
		}
		return out
	}
	h := make([]int32, len(cand))
	for i := range h {
		h[i] = int32(i)
	}
	less := func(a, b int32) bool {
		ka, kb := cand[a].key, cand[b].key
		return ka < kb || (ka == kb && a < b)
	}
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for n > 0 && len(h) > 0 {
		take(&cand[h[0]])
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		down(0)
	}
	return out
}

// Random is the uniformly random allocator: every task goes to a node
// drawn uniformly among all nodes, whatever its state (the node's local
// scheduler may then refuse it). The generator is the caller's.
type Random struct{ Rand *rand.Rand }

func (r Random) Place(_ float64, req Request, nodes []Summary, out []Placement) []Placement {
	if len(nodes) == 0 {
		return out
	}
	for range req.N {
		out = append(out, Placement{Node: r.Rand.IntN(len(nodes)), N: 1})
	}
	return out
}
