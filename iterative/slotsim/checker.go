package slotsim

import (
	"fmt"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

type checkCopy struct {
	task     int
	data     int
	dataDone int // slot in which the last data slot arrived (−1: not yet)
	work     int
}

type checkProc struct {
	prog   int
	copies []checkCopy
}

// Check replays a simulation's event log against the rules of §3 and §6.1,
// independently of the simulator's own bookkeeping: at most n_com transfer
// slots per slot and one per processor; no transfer or computation on a
// processor that is not UP; the program before any data and lost with all
// data and partial work when DOWN; data for at most one task beyond the one
// computed; computation only of a task whose data arrived in an earlier
// slot; a completion only after w_q computed slots; no task completed twice
// in an iteration; at most 1+extraReplicas copies of a task; iterations end
// exactly when their m tasks are done; the makespan is the slot after the
// last iteration ends.
func Check(in *iterative.Instance, extraReplicas int, real *Realization, makespan int, log []Event) error {
	p := len(in.Chains)
	procs := make([]checkProc, p)
	done := make([]bool, in.Tasks)
	nDone, iters := 0, 0
	i := 0
	lastIterEnd := -1
	for t := 0; t < makespan || i < len(log); t++ {
		if i < len(log) && int(log[i].Slot) < t {
			return fmt.Errorf("event %d: slot %d out of order (at slot %d)", i, log[i].Slot, t)
		}
		if t >= makespan {
			return fmt.Errorf("event %d (%+v) after the makespan %d", i, log[i], makespan)
		}
		st := real.At(t)
		for q := 0; q < p; q++ {
			if st[q] == availability.Down {
				procs[q].prog = 0
				procs[q].copies = procs[q].copies[:0]
			}
		}
		transfers := 0
		var busy, computed = make([]bool, p), make([]bool, p)
		for ; i < len(log) && int(log[i].Slot) == t; i++ {
			e := log[i]
			q, task := int(e.Proc), int(e.Task)
			if e.Kind != EvIterDone {
				if q < 0 || q >= p {
					return fmt.Errorf("slot %d: event %d names processor %d of %d", t, i, q, p)
				}
			}
			if e.Kind != EvIterDone && e.Kind != EvProgram {
				if task < 0 || task >= in.Tasks {
					return fmt.Errorf("slot %d: event %d names task %d of %d", t, i, task, in.Tasks)
				}
			}
			var pr *checkProc
			if q >= 0 && q < p {
				pr = &procs[q]
			}
			find := func() int {
				for k, c := range pr.copies {
					if c.task == task {
						return k
					}
				}
				return -1
			}
			switch e.Kind {
			case EvProgram, EvData, EvCompute, EvBegin:
				if st[q] != availability.Up {
					return fmt.Errorf("slot %d: %v on processor %d which is %v", t, kindName(e.Kind), q, st[q])
				}
			}
			switch e.Kind {
			case EvProgram:
				if pr.prog >= in.TProg {
					return fmt.Errorf("slot %d: processor %d receives program it already holds", t, q)
				}
				pr.prog++
				transfers++
				if busy[q] {
					return fmt.Errorf("slot %d: processor %d receives two transfers", t, q)
				}
				busy[q] = true
			case EvBegin:
				if done[task] {
					return fmt.Errorf("slot %d: processor %d begins task %d already done", t, q, task)
				}
				if pr.prog < in.TProg {
					return fmt.Errorf("slot %d: processor %d begins task %d without the program", t, q, task)
				}
				if find() >= 0 {
					return fmt.Errorf("slot %d: processor %d begins task %d twice", t, q, task)
				}
				if len(pr.copies) >= 2 {
					return fmt.Errorf("slot %d: processor %d begins a third task (more than one ahead)", t, q)
				}
				if len(pr.copies) == 1 && pr.copies[0].data < in.TData {
					return fmt.Errorf("slot %d: processor %d begins task %d while the data of task %d is incomplete", t, q, task, pr.copies[0].task)
				}
				n := 0
				for r := range procs {
					for _, c := range procs[r].copies {
						if c.task == task {
							n++
						}
					}
				}
				if n >= 1+extraReplicas {
					return fmt.Errorf("slot %d: task %d gets copy %d, at most %d allowed", t, task, n+1, 1+extraReplicas)
				}
				dd := -1
				if in.TData == 0 {
					dd = t - 1
				}
				pr.copies = append(pr.copies, checkCopy{task: task, dataDone: dd})
			case EvData:
				k := find()
				if k < 0 {
					return fmt.Errorf("slot %d: processor %d receives data of task %d it has not begun", t, q, task)
				}
				if pr.prog < in.TProg {
					return fmt.Errorf("slot %d: processor %d receives data without the program", t, q)
				}
				if k == 1 && pr.copies[0].data < in.TData {
					return fmt.Errorf("slot %d: processor %d receives data of two tasks at once", t, q)
				}
				c := &pr.copies[k]
				if c.data >= in.TData {
					return fmt.Errorf("slot %d: processor %d receives more than T_data of task %d", t, q, task)
				}
				c.data++
				if c.data == in.TData {
					c.dataDone = t
				}
				transfers++
				if busy[q] {
					return fmt.Errorf("slot %d: processor %d receives two transfers", t, q)
				}
				busy[q] = true
			case EvCompute:
				k := find()
				if k != 0 {
					return fmt.Errorf("slot %d: processor %d computes task %d which is not its first task", t, q, task)
				}
				c := &pr.copies[0]
				if pr.prog < in.TProg {
					return fmt.Errorf("slot %d: processor %d computes without the program", t, q)
				}
				if c.data < in.TData || c.dataDone >= t {
					return fmt.Errorf("slot %d: processor %d computes task %d before its data arrived", t, q, task)
				}
				if computed[q] {
					return fmt.Errorf("slot %d: processor %d computes twice", t, q)
				}
				computed[q] = true
				c.work++
				if c.work > in.W[q] {
					return fmt.Errorf("slot %d: processor %d computes task %d for %d slots, w = %d", t, q, task, c.work, in.W[q])
				}
			case EvDone:
				k := find()
				if k != 0 || pr.copies[0].work != in.W[q] {
					return fmt.Errorf("slot %d: processor %d completes task %d without w = %d computed slots", t, q, task, in.W[q])
				}
				if done[task] {
					return fmt.Errorf("slot %d: task %d completed twice", t, task)
				}
				done[task] = true
				nDone++
				pr.copies = pr.copies[1:]
			case EvCancel:
				k := find()
				if k < 0 {
					return fmt.Errorf("slot %d: processor %d cancels task %d it does not hold", t, q, task)
				}
				if !done[task] {
					return fmt.Errorf("slot %d: processor %d cancels task %d which is not done", t, q, task)
				}
				pr.copies = append(pr.copies[:k], pr.copies[k+1:]...)
			case EvIterDone:
				if nDone != in.Tasks {
					return fmt.Errorf("slot %d: iteration ends with %d of %d tasks done", t, nDone, in.Tasks)
				}
				for r := range procs {
					if len(procs[r].copies) > 0 {
						return fmt.Errorf("slot %d: iteration ends with processor %d holding task %d", t, r, procs[r].copies[0].task)
					}
				}
				for k := range done {
					done[k] = false
				}
				nDone = 0
				iters++
				lastIterEnd = t
			default:
				return fmt.Errorf("slot %d: event %d of unknown kind %d", t, i, e.Kind)
			}
		}
		if transfers > in.NCom {
			return fmt.Errorf("slot %d: %d transfers, n_com = %d", t, transfers, in.NCom)
		}
		if nDone == in.Tasks {
			return fmt.Errorf("slot %d: all %d tasks done but the iteration did not end", t, in.Tasks)
		}
	}
	if iters != in.Iterations {
		return fmt.Errorf("%d iterations completed, want %d", iters, in.Iterations)
	}
	if lastIterEnd != makespan-1 {
		return fmt.Errorf("last iteration ended at slot %d but makespan is %d", lastIterEnd, makespan)
	}
	return nil
}

func kindName(k EventKind) string {
	switch k {
	case EvProgram:
		return "program transfer"
	case EvBegin:
		return "task begin"
	case EvData:
		return "data transfer"
	case EvCompute:
		return "computation"
	case EvDone:
		return "completion"
	case EvCancel:
		return "cancel"
	case EvIterDone:
		return "iteration end"
	}
	return fmt.Sprintf("event kind %d", k)
}
