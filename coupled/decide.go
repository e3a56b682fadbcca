package coupled

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
)

// Readings are the choices this project made where §VI is silent
// (docs/model-002.md). The zero value is the default reading of every one.
type Readings struct {
	// FreshRebuild makes a proactive heuristic build and measure its new
	// configuration as at the start of the iteration (§VI.B "as if no task
	// were allocated to any worker"): without the task data the processors
	// hold (the program, not a task, still counts). When it is launched,
	// members kept from the running configuration keep their data as
	// usual. Default: built and measured with everything held.
	FreshRebuild bool
	// ResendData (with FreshRebuild: the "scratch" reading) makes a
	// proactive switch start the new configuration's communications from
	// scratch: members kept from the running configuration lose their task
	// data too (the program is kept).
	ResendData bool
	// Reclaimed is how a proactive heuristic values the running
	// configuration when a member is RECLAIMED.
	Reclaimed ReclaimedValue
	// RandomDistinct makes RANDOM give its tasks to different UP
	// processors while some UP processor has none (default: each task to
	// any UP processor, so a processor may get several).
	RandomDistinct bool
}

// ReclaimedValue is how a proactive heuristic values a running
// configuration with a RECLAIMED member. §V's estimates assume every member
// UP; the paper does not say what the simulator does otherwise.
type ReclaimedValue int

const (
	// AsUp (the default) uses §V's estimates as they are, as if every
	// member were UP.
	AsUp ReclaimedValue = iota
	// Wait multiplies P by each RECLAIMED member's probability of returning
	// UP before going DOWN, P_ru/(P_ru+P_rd), and adds to E the largest
	// expected time of that return, 1/(1−P_rr).
	Wait
	// Replace gives the configuration no estimate (P = 0, E = +∞): any
	// configuration the building block can build replaces it.
	Replace
	// Together multiplies P by the probability that the members, from
	// their current states, are all UP together at a later slot before any
	// goes DOWN (ReunionOf), and adds to E the expected time to that slot
	// given that it comes. The all-UP estimate's P_comm·P+(S)^(W−done−1)
	// counts the current slot as the first of the W − done slots of
	// computation left; with a RECLAIMED member the reunion slot is that
	// first one, so P = Reunion.P·P_comm·P+(S)^(W−done−1).
	Together
)

var reclaimedNames = []string{AsUp: "asup", Wait: "wait", Replace: "replace", Together: "together"}

func (r ReclaimedValue) String() string {
	if r < 0 || int(r) >= len(reclaimedNames) {
		return fmt.Sprintf("ReclaimedValue(%d)", int(r))
	}
	return reclaimedNames[r]
}

// ParseReclaimed parses a ReclaimedValue name ("" is AsUp).
func ParseReclaimed(s string) (ReclaimedValue, error) {
	if s == "" {
		return AsUp, nil
	}
	for i, n := range reclaimedNames {
		if s == n {
			return ReclaimedValue(i), nil
		}
	}
	return AsUp, fmt.Errorf("reclaimed = %q, want asup, wait, replace or together", s)
}

// Running is the configuration in force when a decision is taken.
type Running struct {
	// Config is the configuration (X == nil: none, as at the start of an
	// iteration).
	Config Config
	// Done is the number of slots of the iteration's computation it has
	// completed.
	Done int
}

// Decision is what a heuristic decides at one slot.
type Decision struct {
	// Config is the configuration to run from this slot on (X == nil:
	// none, the UP processors cannot hold the m tasks). The evaluator may
	// share it: do not modify it.
	Config Config
	// Switch is true when Config replaces the running configuration: it
	// must be launched (members receive what they lack, the computation of
	// the iteration starts from zero; a processor that leaves loses its task
	// data). That happens when nothing ran, when a member of the running
	// configuration is DOWN, and when a proactive heuristic finds a better
	// one. False: keep running what runs (Config is then it).
	Switch bool
	// Proactive is true when the switch replaces a configuration whose
	// members are all alive (the proactive rule of §VI.B).
	Proactive bool
	// ResendData is true when, by the scratch reading, the members kept
	// from the running configuration must also receive their task data
	// again.
	ResendData bool
	// Compared is true when a proactive heuristic compared the running
	// configuration with a rebuilt one; Now and New are then their values
	// (Now as corrected by the RECLAIMED reading).
	Compared bool
	Now, New Value
}

// Comparison is the proactive rule's view of a rebuilt configuration
// against the running one: the running one's value (its remaining
// communications and computation, corrected for RECLAIMED members by the
// reading) and the new one's, from scratch.
type Comparison struct {
	Now, New Value
}

// Switches reports whether a proactive heuristic with switching criterion
// sw replaces the running configuration: the new one's score is strictly
// larger (§VI.B), elapsed being the slots since the iteration began. A
// passive heuristic (None) never switches.
func (c Comparison) Switches(sw Criterion, elapsed int) bool {
	return sw != None && Score(sw, c.New, elapsed) > Score(sw, c.Now, elapsed)
}

// RebuildSnapshot is the snapshot a proactive heuristic builds and values
// its new configuration from: s itself, or, with FreshRebuild, s without
// any task data. The returned snapshot belongs to the evaluator and is
// valid until the next call.
func (e *Evaluator) RebuildSnapshot(s *Snapshot, r Readings) *Snapshot {
	if !r.FreshRebuild {
		return s
	}
	f := e.fresh
	f.IDs, f.States, f.Prog, f.Elapsed = s.IDs, s.States, s.Prog, s.Elapsed
	return f
}

// Compare values configuration c, rebuilt from snapshot from (see
// RebuildSnapshot), against the running configuration run, whose members
// are all alive in s. ok is false when there is nothing to compare: with
// no computation done and the holdings kept, a rebuild of the running
// allocation has exactly its value, so it cannot be strictly better.
func (e *Evaluator) Compare(run Running, c Config, s, from *Snapshot, r Readings) (cmp Comparison, ok bool) {
	if run.Done == 0 && !r.FreshRebuild && slices.Equal(c.X, run.Config.X) {
		return Comparison{}, false
	}
	cmp.Now = e.Value(run.Config, s, run.Done)
	if r.Reclaimed != AsUp {
		cmp.Now = e.reclaimedValue(cmp.Now, run.Config, s, r.Reclaimed)
	}
	cmp.New = e.Value(c, from, 0)
	return cmp, true
}

// Decide takes heuristic h's whole decision at one slot, as the slot
// simulator does: s is what the master knows (states, holdings, elapsed
// time), run the configuration in force and its progress, rng RANDOM's
// draws (nil for the other heuristics), r the readings.
//
// Without a configuration, or when a member of the running one is DOWN,
// h's building block builds one from the UP processors (Switch; with none
// possible, nothing runs). Otherwise a passive heuristic keeps it; a
// proactive one rebuilds from RebuildSnapshot(s) and switches when the new
// configuration's score is strictly larger than the running one's by its
// criterion (Compare, Comparison.Switches).
//
// Decide uses the evaluator's own constructions (incremental: a sequence
// of snapshots that change little is cheap) and its scratch space: one
// evaluator per goroutine.
func (e *Evaluator) Decide(h Heuristic, s *Snapshot, run Running, rng *rand.Rand, r Readings) (Decision, error) {
	p := e.plat.P()
	if err := s.Validate(p); err != nil {
		return Decision{}, err
	}
	if err := e.checkRunning(run, s); err != nil {
		return Decision{}, err
	}
	if err := h.Check(); err != nil {
		return Decision{}, fmt.Errorf("decide: %w", err)
	}
	if h.Draws() && rng == nil {
		return Decision{}, fmt.Errorf("decide: heuristic %q draws at random and needs a random stream", h.Name)
	}
	broken := false
	if run.Config.X != nil {
		for _, q := range run.Config.Order {
			if s.States[q] == availability.Down {
				broken = true
			}
		}
	}
	if run.Config.X == nil || broken {
		c, ok := e.Build(h, nil, s, rng, r)
		if !ok {
			return Decision{Switch: broken}, nil
		}
		return Decision{Config: c, Switch: true}, nil
	}
	keep := Decision{Config: run.Config}
	if !h.Proactive() {
		return keep, nil
	}
	from := e.RebuildSnapshot(s, r)
	c, ok := e.Build(h, nil, from, rng, r)
	if !ok {
		return keep, nil
	}
	cmp, ok := e.Compare(run, c, s, from, r)
	if !ok {
		return keep, nil
	}
	keep.Compared, keep.Now, keep.New = true, cmp.Now, cmp.New
	if !cmp.Switches(h.Switch, s.Elapsed) {
		return keep, nil
	}
	return Decision{Config: c, Switch: true, Proactive: true, ResendData: r.ResendData,
		Compared: true, Now: cmp.Now, New: cmp.New}, nil
}

// checkRunning checks that run is a configuration of m tasks on this
// evaluator's processors, its Order listing exactly the processors with
// tasks, none above μ.
func (e *Evaluator) checkRunning(run Running, s *Snapshot) error {
	c := run.Config
	if run.Done < 0 {
		return fmt.Errorf("decide: running configuration has done = %d slots, want ≥ 0", run.Done)
	}
	if c.X == nil {
		if len(c.Order) != 0 {
			return fmt.Errorf("decide: running configuration has an order (%v) but no tasks (x is nil)", c.Order)
		}
		return nil
	}
	p := e.plat.P()
	if len(c.X) != p {
		return fmt.Errorf("decide: running configuration has %d entries in x, want %d (one per processor)", len(c.X), p)
	}
	sum, members := 0, 0
	for q, x := range c.X {
		if x < 0 || x > e.plat.MaxTasks(q) {
			return fmt.Errorf("decide: running configuration gives processor %s %d tasks, want 0..μ", s.ID(q), x)
		}
		sum += x
		if x > 0 {
			members++
		}
	}
	if sum != e.m {
		return fmt.Errorf("decide: running configuration holds %d tasks, want m = %d", sum, e.m)
	}
	seen := make(map[int]bool, len(c.Order))
	for _, q := range c.Order {
		if q < 0 || q >= p || c.X[q] == 0 || seen[q] {
			return fmt.Errorf("decide: running configuration's order %v: want each processor with tasks exactly once", c.Order)
		}
		seen[q] = true
	}
	if len(c.Order) != members {
		return fmt.Errorf("decide: running configuration's order %v lists %d processors, %d have tasks", c.Order, len(c.Order), members)
	}
	return nil
}

// Platform returns the platform the evaluator estimates for.
func (e *Evaluator) Platform() Platform { return e.plat }

// Tasks returns m, the tasks of every iteration.
func (e *Evaluator) Tasks() int { return e.m }

// Form returns the E(S)(W) form the evaluator uses.
func (e *Evaluator) Form() analytic.Form { return e.form }
