package slotsim

import (
	"fmt"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/coupled"
)

// CheckOptions tune Check.
type CheckOptions struct {
	// Passive requires the configuration to change only at the start of an
	// iteration or when a member went DOWN.
	Passive bool
	// ResendData: a proactive switch (a launch neither at an iteration
	// start nor after a DOWN) leaves every member without task data (the
	// "scratch" reading).
	ResendData bool
}

// Check verifies a trace against the lock-step rules of §III, independently
// of the simulator's bookkeeping: the configuration changes only by a
// launch; at most NCom communications per slot; only
// UP enrolled processors communicate or compute; the program is received
// before any data and again after every DOWN; a processor holds at most
// x_q·T_data slots of data, lost when it goes DOWN or leaves the
// configuration; either every member computes in a slot or none does, and
// only when every member is UP and holds the program and all its data; an
// iteration completes exactly when max_q x_q·w_q such slots have been done
// without any reconfiguration or DOWN member; a new iteration needs new data.
// It returns the number of iterations completed and the makespan (slot after
// the last completion, 0 if none).
func Check(plat coupled.Platform, app coupled.Application, trace []Slot, opt CheckOptions) (iterations, makespan int, err error) {
	p := plat.P()
	prog := make([]int, p)
	data := make([]int, p)
	var prevX []int
	done := 0
	newIter := true
	for t, s := range trace {
		if len(s.States) != p || len(s.Act) != p {
			return 0, 0, fmt.Errorf("slot %d: %d states and %d actions, want %d", t, len(s.States), len(s.Act), p)
		}
		for q, st := range s.States {
			if st == availability.Down {
				prog[q], data[q] = 0, 0
			}
		}
		// configuration change: a launch (possibly of the same allocation)
		changed := s.Launch
		if (prevX == nil || !slices.Equal(prevX, s.X)) && !s.Launch && s.X != nil {
			return 0, 0, fmt.Errorf("slot %d: the configuration changed without a launch", t)
		}
		if s.X == nil && prevX != nil {
			changed = true // abandoned (a member DOWN, nothing could be built)
		}
		memberDown := false
		if prevX != nil {
			for q, x := range prevX {
				if x > 0 && s.States[q] == availability.Down {
					memberDown = true
				}
			}
		}
		if memberDown && !changed {
			return 0, 0, fmt.Errorf("slot %d: a member went DOWN but the configuration was kept", t)
		}
		if changed {
			if opt.Passive && prevX != nil && !memberDown && !newIter {
				return 0, 0, fmt.Errorf("slot %d: passive heuristic changed a configuration whose members are alive", t)
			}
			done = 0
			if opt.ResendData && prevX != nil && !memberDown && !newIter {
				clear(data)
			}
			for q := range p {
				if s.X == nil || s.X[q] == 0 {
					data[q] = 0
					if prog[q] < plat.TProg {
						prog[q] = 0
					}
				} else if lim := s.X[q] * plat.TData; data[q] > lim {
					data[q] = lim
				}
			}
		}
		if memberDown {
			done = 0
		}
		if s.X != nil {
			sum := 0
			for q, x := range s.X {
				if x < 0 || x > plat.MaxTasks(q) {
					return 0, 0, fmt.Errorf("slot %d: processor %d has %d tasks, want 0..mu", t, q, x)
				}
				if x > 0 && s.States[q] == availability.Down {
					return 0, 0, fmt.Errorf("slot %d: processor %d is enrolled while DOWN", t, q)
				}
				sum += x
			}
			if sum != app.Tasks {
				return 0, 0, fmt.Errorf("slot %d: configuration holds %d tasks, want m = %d", t, sum, app.Tasks)
			}
		}
		newIter = false
		comms, computing, members := 0, 0, 0
		for q, a := range s.Act {
			enrolled := s.X != nil && s.X[q] > 0
			if enrolled {
				members++
			}
			if a == NotEnrolled {
				if enrolled {
					return 0, 0, fmt.Errorf("slot %d: processor %d enrolled but marked not enrolled", t, q)
				}
				continue
			}
			if !enrolled {
				return 0, 0, fmt.Errorf("slot %d: processor %d acts (%c) without being enrolled", t, q, a)
			}
			if a != Idle && s.States[q] != availability.Up {
				return 0, 0, fmt.Errorf("slot %d: processor %d acts (%c) while %v", t, q, a, s.States[q])
			}
			switch a {
			case RecvProg:
				if prog[q] >= plat.TProg {
					return 0, 0, fmt.Errorf("slot %d: processor %d receives the program it holds", t, q)
				}
				prog[q]++
				comms++
			case RecvData:
				if prog[q] < plat.TProg {
					return 0, 0, fmt.Errorf("slot %d: processor %d receives data before the program", t, q)
				}
				if data[q] >= s.X[q]*plat.TData {
					return 0, 0, fmt.Errorf("slot %d: processor %d receives more data than its %d tasks need", t, q, s.X[q])
				}
				data[q]++
				comms++
			case Compute:
				if prog[q] < plat.TProg || data[q] < s.X[q]*plat.TData {
					return 0, 0, fmt.Errorf("slot %d: processor %d computes without program and data", t, q)
				}
				computing++
			case Idle:
			default:
				return 0, 0, fmt.Errorf("slot %d: processor %d: unknown action %q", t, q, a)
			}
		}
		if comms > plat.NCom {
			return 0, 0, fmt.Errorf("slot %d: %d communications, want at most ncom = %d", t, comms, plat.NCom)
		}
		if computing > 0 && (computing != members || comms > 0) {
			return 0, 0, fmt.Errorf("slot %d: %d of %d members compute (%d communicate): want all or none", t, computing, members, comms)
		}
		if computing > 0 {
			done++
		}
		W := 0
		if s.X != nil {
			for q, x := range s.X {
				W = max(W, x*plat.W[q])
			}
		}
		if s.Completed != (computing > 0 && done == W) {
			return 0, 0, fmt.Errorf("slot %d: completion flag %v but %d of %d slots computed", t, s.Completed, done, W)
		}
		prevX = s.X
		if s.Completed {
			iterations++
			makespan = t + 1
			clear(data)
			done = 0
			prevX = nil
			newIter = true
		}
	}
	if iterations > app.Iterations {
		return 0, 0, fmt.Errorf("%d iterations completed, want at most %d", iterations, app.Iterations)
	}
	return iterations, makespan, nil
}
