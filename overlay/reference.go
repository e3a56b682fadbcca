package overlay

import (
	"math"
	"math/rand/v2"
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
// availability instead of aggregated summaries. IBP: one task per idle
// fitting node, closest to the requirements first; MMP: the makespan q of
// Fig. 6's search over all nodes, then each node filled up to q in node
// order; DP: least computation available before the deadline first.
type Centralized struct{ Policy Policy }

func (c Centralized) Place(now float64, req Request, nodes []Summary, out []Placement) []Placement {
	if req.N <= 0 {
		return out
	}
	switch p := c.Policy.(type) {
	case *MMP:
		ss := make([]MMPSummary, 0, len(nodes))
		for _, s := range nodes {
			ss = append(ss, asMMP(s))
		}
		q := Makespan(req.App, req.N, now, ss...)
		if math.IsInf(q, 1) {
			return out
		}
		n := req.N
		for i, s := range ss {
			if n == 0 {
				break
			}
			if k := min(s.Admits(req.App, q, now), n); k > 0 {
				out = append(out, Placement{Node: i, N: k})
				n -= k
			}
		}
		return out
	case *IBP:
		var cand []candidate
		lm, hm, ld, hd := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i, s := range nodes {
			for _, cl := range asIBP(s) {
				if k := cl.AF(req.App); k > 0 {
					cand = append(cand, candidate{index: i, n: k})
					lm, hm = min(lm, float64(cl.Mem)), max(hm, float64(cl.Mem))
					ld, hd = min(ld, float64(cl.Disk)), max(hd, float64(cl.Disk))
				}
			}
		}
		im, id := inv(span(lm, hm)), inv(span(ld, hd))
		for x := range cand {
			cl := asIBP(nodes[cand[x].index])[0]
			cand[x].key = ibpKey(cl.Mem, cl.Disk, req.App, im, id)
		}
		return placeSorted(cand, req.N, out)
	case *DP:
		var cand []candidate
		for i, s := range nodes {
			ds := asDP(s)
			for x := range ds {
				if k := p.capped(ds[x].AF(req.App), ds[x].V); k > 0 {
					l := ds[x].L.At(req.App.Deadline)
					cand = append(cand, candidate{index: i, n: k,
						key: l/req.App.Length + 1e-9*((float64(ds[x].Mem)-req.App.Mem)+(float64(ds[x].Disk)-req.App.Disk))})
				}
			}
		}
		return placeSorted(cand, req.N, out)
	}
	return out
}

// ibpKey is the centralized IBP key of a node of memory mem and disk disk
// (im, id: the inverses of the spans over the fitting candidates), shared
// with IBPIndex so that both compute it the same way.
func ibpKey(mem, disk float32, app App, im, id float64) float64 {
	return (float64(mem)-app.Mem)*im + (float64(disk)-app.Disk)*id
}

func placeSorted(cand []candidate, n int, out []Placement) []Placement {
	sortCandidates(cand)
	for _, c := range cand {
		if n == 0 {
			break
		}
		k := min(c.n, n)
		n -= k
		out = append(out, Placement{Node: c.index, N: k})
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
