// Package iterative is the scheduling core of seed 001 (Casanova, Dufossé,
// Robert, Vivien, "Scheduling Parallel Iterative Applications on Volatile
// Resources"): the independent-task iterative master–worker model of §3
// (Instance, Options) and the 17 dynamic on-line heuristics of §6 as pure
// decision functions (Decider) over an explicit Snapshot of what a master
// knows. It imports only the standard library, availability and analytic:
// a live master and the simulators call the same decisions.
//
// The time-slot simulator, its availability realizations and the model
// checker are in iterative/slotsim; the campaign of §7 (Table 2, Figure 2)
// is in iterative/campaign.
//
// The choices the paper leaves open (which waiting transfer gets a free
// channel, the order of events within a slot, the initial states, tie
// breaking) are fields of Options and are documented in docs/model-001.md.
package iterative

import (
	"fmt"

	"github.com/volsched/volsched/availability"
)

// Instance is one platform and application of §3: p processors with their
// availability chains and speeds (w_q UP slots per task), the master's
// bounded multi-port link (at most NCom simultaneous transfers), the program
// and data transfer times in slots, the number of tasks per iteration and
// the number of iterations to run.
type Instance struct {
	Chains     []availability.Chain
	W          []int
	TProg      int
	TData      int
	NCom       int
	Tasks      int // m, tasks per iteration
	Iterations int
}

// Validate checks the instance; errors name the field, the value and what
// was expected.
func (in *Instance) Validate() error {
	p := len(in.Chains)
	if p == 0 {
		return fmt.Errorf("instance: no processors (chains is empty), want at least 1")
	}
	if len(in.W) != p {
		return fmt.Errorf("instance: %d speeds w for %d chains, want one per processor", len(in.W), p)
	}
	if p > 1<<15 {
		return fmt.Errorf("instance: %d processors, want at most %d", p, 1<<15)
	}
	for q, c := range in.Chains {
		if err := c.Validate(fmt.Sprintf("processor %d", q)); err != nil {
			return fmt.Errorf("instance: %w", err)
		}
	}
	for q, w := range in.W {
		if w < 1 {
			return fmt.Errorf("instance: w[%d] = %d, want an integer ≥ 1 (UP slots per task)", q, w)
		}
	}
	switch {
	case in.TProg < 0:
		return fmt.Errorf("instance: TProg = %d, want ≥ 0", in.TProg)
	case in.TData < 0:
		return fmt.Errorf("instance: TData = %d, want ≥ 0", in.TData)
	case in.NCom < 1:
		return fmt.Errorf("instance: ncom = %d, want ≥ 1", in.NCom)
	case in.Tasks < 1 || in.Tasks > 1<<15:
		return fmt.Errorf("instance: tasks per iteration = %d, want 1..%d", in.Tasks, 1<<15)
	case in.Iterations < 1:
		return fmt.Errorf("instance: iterations = %d, want ≥ 1", in.Iterations)
	}
	return nil
}

// ChannelRule says which waiting transfers get the master's n_com channels
// when more want one than there are (§3.2 is silent).
type ChannelRule uint8

const (
	// ChannelFIFO serves transfers in the order they were requested:
	// transfers already begun first, by the slot they began (ties by
	// processor index), then the new ones in the order the heuristic made
	// its assignments (its preferred processor first).
	ChannelFIFO ChannelRule = iota
	// ChannelIndex serves transfers already begun first, then new ones,
	// each group by increasing processor index.
	ChannelIndex
)

// String names the rule as the CLI does.
func (c ChannelRule) String() string {
	switch c {
	case ChannelFIFO:
		return "fifo"
	case ChannelIndex:
		return "index"
	}
	return fmt.Sprintf("ChannelRule(%d)", c)
}

// ParseChannelRule reads "fifo" or "index".
func ParseChannelRule(s string) (ChannelRule, error) {
	switch s {
	case "fifo":
		return ChannelFIFO, nil
	case "index":
		return ChannelIndex, nil
	}
	return 0, fmt.Errorf("channel rule %q: want fifo or index", s)
}

// SlotOrder is the order of events within a time slot (§3 is silent).
type SlotOrder uint8

const (
	// ObserveThenDecide: at the boundary of slot t the processors take their
	// state for slot t, the master sees it (heart-beats) and decides, then
	// the slot's computation and transfers happen.
	ObserveThenDecide SlotOrder = iota
	// DecideThenObserve: the master decides with the states of slot t−1
	// (heart-beats lag one slot), then the states of slot t apply. A
	// transfer assigned to a processor that is not UP in slot t does not
	// start.
	DecideThenObserve
)

// String names the order as the CLI does.
func (o SlotOrder) String() string {
	switch o {
	case ObserveThenDecide:
		return "observe-decide"
	case DecideThenObserve:
		return "decide-observe"
	}
	return fmt.Sprintf("SlotOrder(%d)", o)
}

// ParseSlotOrder reads "observe-decide" or "decide-observe".
func ParseSlotOrder(s string) (SlotOrder, error) {
	switch s {
	case "observe-decide":
		return ObserveThenDecide, nil
	case "decide-observe":
		return DecideThenObserve, nil
	}
	return 0, fmt.Errorf("slot order %q: want observe-decide or decide-observe", s)
}

// ParseInitialState reads the initial state of Options ("stationary" or
// "up").
func ParseInitialState(s string) (availability.Start, error) {
	st, err := availability.ParseStart(s)
	if err != nil {
		return 0, fmt.Errorf("initial state %q: want stationary or up", s)
	}
	return st, nil
}

// Options are the model choices the paper leaves open. DefaultOptions gives
// the ones the reproduction uses.
type Options struct {
	Channels ChannelRule
	Order    SlotOrder
	// HoldWhileReclaimed keeps a begun transfer's channel while its
	// receiver is RECLAIMED (suspended); by default the channel is free for
	// others during that slot and the suspended transfer competes again
	// (ahead of new transfers) when its receiver is UP.
	HoldWhileReclaimed bool
	// ExtraReplicas is the maximum number of additional copies of a task
	// (§6.1 uses 2; 0 disables replication).
	ExtraReplicas int
	// Initial is how the processors' states at slot 0 are drawn:
	// availability.StartStationary from each chain's stationary
	// distribution (the platform has been running for a while),
	// availability.StartUp every processor UP.
	Initial availability.Start
	// Sticky changes the reading of the dynamic class: a task the heuristic
	// assigned stays queued on its processor (until that processor goes
	// DOWN) instead of being reassigned at every slot; the heuristic only
	// places tasks that are not queued anywhere. Off by default (§6.1 says
	// the m − m' tasks are assigned at each slot); used to test why random
	// heuristics fare better here than in Table 2.
	Sticky bool
	// MaxSlots aborts a simulation that has not finished after this many
	// slots (0: 1<<26).
	MaxSlots int
}

// DefaultOptions are the choices of the reproduction: FIFO channels,
// observe-then-decide, channels released while RECLAIMED, 2 extra replicas,
// stationary initial states.
func DefaultOptions() Options {
	return Options{Channels: ChannelFIFO, Order: ObserveThenDecide, ExtraReplicas: 2, Initial: availability.StartStationary}
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Channels > ChannelIndex {
		return fmt.Errorf("options: channel rule %d unknown", o.Channels)
	}
	if o.Order > DecideThenObserve {
		return fmt.Errorf("options: slot order %d unknown", o.Order)
	}
	if err := o.Initial.Validate(); err != nil {
		return fmt.Errorf("options: %w", err)
	}
	if o.ExtraReplicas < 0 || o.ExtraReplicas > 64 {
		return fmt.Errorf("options: extra replicas = %d, want 0..64", o.ExtraReplicas)
	}
	if o.MaxSlots < 0 {
		return fmt.Errorf("options: max slots = %d, want ≥ 0", o.MaxSlots)
	}
	return nil
}
