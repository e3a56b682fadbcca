package iterative_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// A live master builds a snapshot from what it knows of its workers (their
// state from heart-beats, what they hold, their estimated availability
// chains) and of the iteration's open tasks, asks a heuristic, and maps the
// picks back to its own worker and task IDs.
func Example() {
	// Estimated availability chains (rows: from UP, RECLAIMED, DOWN; columns:
	// to UP, RECLAIMED, DOWN), e.g. availability.Estimator's Chain().
	steady := availability.Chain{P: [3][3]float64{{0.98, 0.01, 0.01}, {0.50, 0.49, 0.01}, {0.10, 0.00, 0.90}}}
	shaky := availability.Chain{P: [3][3]float64{{0.80, 0.15, 0.05}, {0.10, 0.85, 0.05}, {0.05, 0.05, 0.90}}}

	s := &iterative.Snapshot{
		Procs: []iterative.ProcView{
			// Worker 101: UP, holds the program, idle, 3 slots per task.
			{ID: 101, State: availability.Up, W: 3},
			// Worker 102: UP and fast, but 4 slots of program still to receive.
			{ID: 102, State: availability.Up, W: 2, ProgramLeft: 4},
			// Worker 205: UP, computing a copy of task 7 (3 slots of work left).
			{ID: 205, State: availability.Up, W: 5, HasCur: true, Cur: iterative.Work{WorkLeft: 3}},
			// Worker 307: RECLAIMED by its owner: it gets nothing now.
			{ID: 307, State: availability.Reclaimed, W: 1},
		},
		Crit: []iterative.Criteria{
			iterative.NewCriteria(steady), iterative.NewCriteria(shaky),
			iterative.NewCriteria(steady), iterative.NewCriteria(steady),
		},
		TData: 2, NCom: 2, ExtraReplicas: 2,
		// The open tasks of the iteration: 7 is running on worker 205, 8 and
		// 9 are unstarted.
		Tasks: []iterative.OpenTask{{ID: 7, Copies: 1}, {ID: 8}, {ID: 9}},
	}
	if err := s.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	var d iterative.Decider
	show := func(h iterative.Heuristic, picks []iterative.Pick) {
		for _, p := range picks {
			kind := "copy"
			if p.Replica {
				kind = "replica"
			}
			fmt.Printf("%v: task %d → worker %d (%s)\n", h, s.Tasks[p.Task].ID, s.Procs[p.Proc].ID, kind)
		}
	}
	show(iterative.EMCTStar, d.Decide(iterative.EMCTStar, s, nil, nil))
	rng := rand.New(rand.NewPCG(1, 2)) // the random heuristics draw from a stream
	show(iterative.Random2W, d.Decide(iterative.Random2W, s, rng, nil))

	// Worker 307 comes back: four UP workers for three open tasks, so the
	// idle ones also get replicas (§6.1).
	s.Procs[3].State = availability.Up
	show(iterative.EMCTStar, d.Decide(iterative.EMCTStar, s, nil, nil))
	// Output:
	// EMCT*: task 8 → worker 101 (copy)
	// EMCT*: task 9 → worker 101 (copy)
	// RANDOM2W: task 8 → worker 102 (copy)
	// RANDOM2W: task 9 → worker 102 (copy)
	// EMCT*: task 8 → worker 307 (copy)
	// EMCT*: task 9 → worker 101 (copy)
	// EMCT*: task 7 → worker 102 (replica)
}
