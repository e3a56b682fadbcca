package simulate

import (
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// PredictIndependent describes the estimate of an independent-task run
// (docs/whatif.md, "The model's estimate").
const PredictIndependent = "E(W)-based: the heuristic's own plan of an iteration with every worker UP, " +
	"each worker's last task completing after E_q(CT_q) slots (Theorem 2 of seed 001 with the chains believed at slot 0), " +
	"the first iteration with the program to send; no worker going DOWN"

// predictIterative is the model's estimate of heuristic h's makespan on
// the instance with the chains the heuristics believe at slot 0: h decides
// where the m tasks of an iteration go with every worker UP and idle (the
// first iteration with the program to send, T_prog, the others with it
// held); worker q given n_q > 0 tasks finishes them after
// E_q(CT_q) slots, CT_q = delay + f·T_data + (n_q − 1)·max(f·T_data, w_q) +
// w_q (Eq. 2, f = ⌈n_active / n_com⌉, delay = T_prog or 0), and E_q the
// expected time to be UP for CT_q slots given no DOWN (Theorem 2); the
// iteration takes the largest of these. The estimate is
//
//	T̂ = max_q E_q(CT_q with T_prog) + (iterations − 1)·max_q E_q(CT_q without).
//
// It assumes that no worker goes DOWN and that every worker is UP when an
// iteration starts: it is optimistic when workers fail or are often
// unavailable, and says how the heuristic's own criteria see the platform.
// Replicas are left out (they do not shorten the plan).
func predictIterative(d *iterative.Decider, in *iterative.Instance, chains []availability.Chain, h iterative.Heuristic, rng *rand.Rand) float64 {
	p := len(chains)
	s := &iterative.Snapshot{
		Procs: make([]iterative.ProcView, p), Crit: make([]iterative.Criteria, p),
		TData: in.TData, NCom: in.NCom, ExtraReplicas: 0,
	}
	for q := range chains {
		s.Crit[q] = iterative.NewCriteria(chains[q])
	}
	for i := 0; i < in.Tasks; i++ {
		s.Tasks = append(s.Tasks, iterative.OpenTask{ID: int64(i)})
	}
	nq := make([]int, p)
	iter := func(tprog int) float64 {
		for q := range s.Procs {
			s.Procs[q] = iterative.ProcView{ID: int64(q), State: availability.Up, W: in.W[q], ProgramLeft: tprog}
			nq[q] = 0
		}
		active := 0
		for _, pk := range d.Decide(h, s, rng, nil) {
			if pk.Replica {
				continue
			}
			if nq[pk.Proc] == 0 {
				active++
			}
			nq[pk.Proc]++
		}
		f := (active + in.NCom - 1) / in.NCom
		worst := 0.0
		for q, n := range nq {
			if n == 0 {
				continue
			}
			ct := iterative.CompletionTime(tprog, in.TData, in.W[q], n, f)
			worst = math.Max(worst, s.Crit[q].ExpectedTime(float64(ct)))
		}
		return worst
	}
	first := iter(in.TProg)
	if in.Iterations == 1 {
		return first
	}
	return first + float64(in.Iterations-1)*iter(0)
}
