package iterative

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// oracleOptions are the option sets the simulator is compared with the
// reference under: the default and every non-default choice, alone and
// combined.
func oracleOptions() []Options {
	var list []Options
	add := func(f func(o *Options)) {
		o := DefaultOptions()
		f(&o)
		list = append(list, o)
	}
	add(func(o *Options) {})
	add(func(o *Options) { o.Channels = ChannelIndex })
	add(func(o *Options) { o.Order = DecideThenObserve })
	add(func(o *Options) { o.HoldWhileReclaimed = true })
	add(func(o *Options) { o.Sticky = true })
	add(func(o *Options) { o.ExtraReplicas = 0 })
	add(func(o *Options) { o.ExtraReplicas = 1 })
	add(func(o *Options) { o.Initial = StartUp })
	add(func(o *Options) {
		o.Channels, o.Order, o.HoldWhileReclaimed = ChannelIndex, DecideThenObserve, true
	})
	add(func(o *Options) {
		o.Sticky, o.Channels, o.HoldWhileReclaimed, o.ExtraReplicas = true, ChannelIndex, true, 1
	})
	return list
}

// canonical sorts a log within each slot, so that two logs of the same
// schedule compare equal whatever order a simulator logs a slot's events in.
func canonical(log []Event) []Event {
	out := slices.Clone(log)
	slices.SortStableFunc(out, func(a, b Event) int {
		switch {
		case a.Slot != b.Slot:
			return int(a.Slot - b.Slot)
		case a.Kind != b.Kind:
			return int(a.Kind) - int(b.Kind)
		case a.Proc != b.Proc:
			return int(a.Proc - b.Proc)
		}
		return int(a.Task - b.Task)
	})
	return out
}

// oracleInstance draws a random instance: small ones with arbitrary
// parameters (T_prog or T_data may be 0) and, one in three, one of the
// campaign's (p = 20, Table 1).
func oracleInstance(i int) *Instance {
	rng := stream.New(77, uint64(i))
	if i%3 == 2 {
		c := PaperParams()
		c.Scenarios, c.Iterations = 1, 1+rng.IntN(3)
		in, _ := c.InstanceOf(uint64(i), rng.IntN(c.Units()))
		return in
	}
	p := 1 + rng.IntN(9)
	in := &Instance{Tprog: rng.IntN(7), Tdata: rng.IntN(4), Ncom: 1 + rng.IntN(4), Tasks: 1 + rng.IntN(14), Iterations: 1 + rng.IntN(3)}
	for q := 0; q < p; q++ {
		in.Chains = append(in.Chains, availability.Random(rng))
		in.W = append(in.W, 1+rng.IntN(9))
	}
	return in
}

// TestMatchesReference: the simulator produces exactly the schedule (event
// log, up to the order of events within a slot) and the makespan of the
// reference slot-by-slot simulator, for every heuristic, under every option
// set, on random instances.
func TestMatchesReference(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 12
	}
	if v, err := strconv.Atoi(os.Getenv("VOLSCHED_ORACLE_N")); err == nil {
		n = v // a longer check: VOLSCHED_ORACLE_N=1000 go test -run MatchesReference
	}
	for i := 0; i < n; i++ {
		in := oracleInstance(i)
		for oi, opt := range oracleOptions() {
			sim, err := NewSimulator(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := newRefSimulator(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			real := NewRealization(in.Chains, opt.Initial, stream.New(77, uint64(i), 1))
			for _, h := range Heuristics() {
				var l1, l2 []Event
				sim.Log, ref.Log = &l1, &l2
				m1, err1 := sim.Run(h, real, stream.New(77, uint64(i), 2, uint64(h)))
				m2, err2 := ref.Run(h, real, stream.New(77, uint64(i), 2, uint64(h)))
				where := fmt.Sprintf("instance %d (p %d, Tprog %d, Tdata %d, ncom %d, m %d), options %d %+v, %v", i, len(in.W), in.Tprog, in.Tdata, in.Ncom, in.Tasks, oi, opt, h)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: errors %v / %v", where, err1, err2)
				}
				if m1 != m2 {
					t.Fatalf("%s: makespan %d, reference %d", where, m1, m2)
				}
				c1, c2 := canonical(l1), canonical(l2)
				if !slices.Equal(c1, c2) {
					for k := range min(len(c1), len(c2)) {
						if c1[k] != c2[k] {
							t.Fatalf("%s: logs differ at entry %d: %+v, reference %+v", where, k, c1[k], c2[k])
						}
					}
					t.Fatalf("%s: logs of %d and %d events", where, len(c1), len(c2))
				}
			}
		}
	}
}
