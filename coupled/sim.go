package coupled

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// Availability produces the processors' states slot after slot. States is
// called with t = 0, 1, 2, … in order and fills s (one entry per
// processor).
type Availability interface {
	States(t int, s []availability.State)
}

// Markov is the availability of independent Markov chains (§V). Processor
// q's states come from its own stream (seed, labels…, q), so the
// realization depends only on the seed and labels: every heuristic of a
// trial sees the same one (common random numbers). Slot 0 is drawn from the
// chain's stationary distribution.
type Markov struct {
	chains []availability.Chain
	rngs   []*rand.Rand
	cur    []availability.State
	next   int
}

// NewMarkov returns the availability of the chains for stream (seed,
// labels…).
func NewMarkov(chains []availability.Chain, seed uint64, labels ...uint64) *Markov {
	m := &Markov{chains: chains, rngs: make([]*rand.Rand, len(chains)), cur: make([]availability.State, len(chains))}
	ls := append(append([]uint64(nil), labels...), 0)
	for q := range chains {
		ls[len(ls)-1] = uint64(q)
		m.rngs[q] = stream.New(seed, ls...)
	}
	return m
}

// States implements Availability.
func (m *Markov) States(t int, s []availability.State) {
	if t != m.next {
		panic(fmt.Sprintf("coupled.Markov: slot %d requested, want %d", t, m.next))
	}
	for q, c := range m.chains {
		u := m.rngs[q].Float64()
		if t == 0 {
			pi := c.Stationary()
			switch {
			case u < pi[0]:
				m.cur[q] = availability.Up
			case u < pi[0]+pi[1]:
				m.cur[q] = availability.Reclaimed
			default:
				m.cur[q] = availability.Down
			}
		} else {
			m.cur[q] = c.NextU(m.cur[q], u)
		}
	}
	m.next++
	copy(s, m.cur)
}

// Recording shares one availability realization among several
// simulations (the heuristics of a trial): the first to reach a slot draws
// its states from the source, the others replay them. Every replay sees
// exactly the source's states.
type Recording struct {
	src Availability
	p   int
	buf []availability.State
	n   int // slots drawn
}

// NewRecording records src, an availability of p processors.
func NewRecording(src Availability, p int) *Recording {
	return &Recording{src: src, p: p}
}

// Replay returns an Availability that reads the recording from slot 0.
func (r *Recording) Replay() Availability { return replay{r} }

type replay struct{ r *Recording }

// States implements Availability.
func (rp replay) States(t int, s []availability.State) {
	r := rp.r
	for r.n <= t {
		l := len(r.buf)
		r.buf = slices.Grow(r.buf, r.p)[:l+r.p]
		r.src.States(r.n, r.buf[l:])
		r.n++
	}
	copy(s, r.buf[t*r.p:(t+1)*r.p])
}

// Action is what an enrolled processor does in a slot.
type Action byte

const (
	// NotEnrolled: the processor is not in the configuration.
	NotEnrolled Action = '-'
	// Idle: enrolled but neither receiving nor computing.
	Idle Action = 'I'
	// RecvProg: receiving one slot of the program.
	RecvProg Action = 'P'
	// RecvData: receiving one slot of task data.
	RecvData Action = 'D'
	// Compute: computing its tasks (lock-step with all enrolled).
	Compute Action = 'C'
)

// Slot is one slot of a trace.
type Slot struct {
	States []availability.State
	X      []int    // configuration in force during the slot (nil: none)
	Act    []Action // what each processor does
	// Completed is true when an iteration completes at the end of the slot.
	Completed bool
}

// Options of a simulation.
type Options struct {
	// Cap is the slot limit: reaching it is a failure (default 1,000,000).
	Cap int
	// FreshRebuild makes a proactive heuristic build and measure its new
	// configuration as at the start of the iteration (§VI.B "as if no task
	// were allocated to any worker"): without the task data the processors
	// hold (the program, not a task, still counts). When it is launched,
	// members kept from the running configuration keep their data as
	// usual. Default: built and measured with everything held.
	FreshRebuild bool
	// Trace records every slot (for the checker and tests; memory grows
	// with the makespan).
	Trace bool
}

// Result of one simulation.
type Result struct {
	// Makespan is the number of slots to complete all iterations (Cap when
	// Failed).
	Makespan int `json:"makespan"`
	// Failed is true when the cap was reached.
	Failed bool `json:"failed"`
	// Iterations completed.
	Iterations int `json:"iterations"`
	// Configs counts the configurations launched (initial, after a DOWN,
	// proactive).
	Configs int `json:"configs"`
	// Proactive counts the proactive replacements among them.
	Proactive int `json:"proactive"`
	// Trace, when requested.
	Trace []Slot `json:"-"`
}

// Simulate runs the application with heuristic h on the platform whose
// estimates are e's, availability av, and RANDOM's draws from rng (unused by
// the other heuristics; may be nil for them). ctx is checked every 4096
// slots.
//
// Slot t: (1) the states of slot t are observed; processors DOWN lose the
// program and their data; a configuration with a DOWN member is abandoned
// (all computation of the iteration is lost). (2) Without a configuration
// (start of an iteration, after a DOWN) the heuristic builds one from the UP
// processors; a proactive heuristic otherwise builds one from scratch and
// launches it when its criterion is strictly better than the running one's
// updated value. (3) If some member still needs program or data, up to NCom
// UP members receive one slot each, in enrolment order (communication
// phase); otherwise, if every member is UP, all compute one slot. (4) When
// the computation reaches max_q x_q·w_q slots the iteration completes and
// the next one begins at slot t+1.
func Simulate(ctx context.Context, e *Evaluator, app Application, h Heuristic, av Availability, rng *rand.Rand, opt Options) (Result, error) {
	if err := app.Validate(); err != nil {
		return Result{}, err
	}
	if app.M != e.m {
		return Result{}, fmt.Errorf("simulate: application has m = %d but evaluator %d, want equal", app.M, e.m)
	}
	if h.Build == Random && rng == nil {
		return Result{}, fmt.Errorf("simulate: heuristic %s needs a random stream", h.Name)
	}
	if opt.Cap <= 0 {
		opt.Cap = 1_000_000
	}
	plat := e.plat
	p := plat.P()
	states := make([]availability.State, p)
	snap := &Snapshot{Up: make([]bool, p), Prog: make([]int, p), Data: make([]int, p)}
	fresh := &Snapshot{Data: make([]int, p)} // no task data (FreshRebuild)
	var cur Config                           // X == nil: no configuration
	W, done, iterStart := 0, 0, 0
	var res Result

	launch := func(c Config) {
		for q := range p {
			if c.X[q] == 0 {
				snap.Data[q] = 0
				if snap.Prog[q] < plat.TProg {
					snap.Prog[q] = 0 // interrupted communications restart from scratch
				}
			} else if lim := c.X[q] * plat.TData; snap.Data[q] > lim {
				snap.Data[q] = lim
			}
		}
		cur = c
		W = 0
		for q, x := range c.X {
			W = max(W, x*plat.W[q])
		}
		done = 0
		res.Configs++
	}

	for t := 0; ; t++ {
		if t >= opt.Cap {
			res.Makespan, res.Failed = opt.Cap, true
			return res, nil
		}
		if t&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("simulate %s: slot %d: %w", h.Name, t, err)
			}
		}
		av.States(t, states)
		broken := false
		for q, s := range states {
			snap.Up[q] = s == availability.Up
			if s == availability.Down {
				snap.Prog[q], snap.Data[q] = 0, 0
				if cur.X != nil && cur.X[q] > 0 {
					broken = true
				}
			}
		}
		if broken {
			for q := range p { // survivors keep their data for possible reuse
				if cur.X[q] == 0 {
					snap.Data[q] = 0
				}
			}
			cur, done = Config{}, 0
		}
		snap.Elapsed = t - iterStart
		if cur.X == nil {
			if c, ok := h.choose(e, snap, rng); ok {
				launch(c)
			} else { // nobody enrolled: interrupted communications are lost
				clear(snap.Data)
				for q := range p {
					if snap.Prog[q] < plat.TProg {
						snap.Prog[q] = 0
					}
				}
			}
		} else if h.Proactive() {
			from := snap
			if opt.FreshRebuild {
				fresh.Up, fresh.Prog, fresh.Elapsed = snap.Up, snap.Prog, snap.Elapsed
				from = fresh
			}
			// With done = 0 a rebuild of the running allocation from the
			// same holdings has exactly its value (same computation), so it
			// cannot be strictly better.
			if c, ok := h.choose(e, from, rng); ok && (done > 0 || opt.FreshRebuild || !slices.Equal(c.X, cur.X)) {
				now := Score(h.Switch, e.Value(cur, snap, done), snap.Elapsed)
				if Score(h.Switch, e.Value(c, from, 0), snap.Elapsed) > now {
					launch(c)
					res.Proactive++
				}
			}
		}
		var rec *Slot
		if opt.Trace {
			res.Trace = append(res.Trace, Slot{States: append([]availability.State(nil), states...), Act: make([]Action, p)})
			rec = &res.Trace[len(res.Trace)-1]
			for q := range rec.Act {
				rec.Act[q] = NotEnrolled
			}
			if cur.X != nil {
				rec.X = append([]int(nil), cur.X...)
				for _, q := range cur.Order {
					rec.Act[q] = Idle
				}
			}
		}
		if cur.X == nil {
			continue
		}
		// communication phase?
		comm := false
		for _, q := range cur.Order {
			if snap.Prog[q] < plat.TProg || snap.Data[q] < cur.X[q]*plat.TData {
				comm = true
				break
			}
		}
		if comm {
			ch := plat.NCom
			for _, q := range cur.Order {
				if ch == 0 {
					break
				}
				if !snap.Up[q] {
					continue
				}
				switch {
				case snap.Prog[q] < plat.TProg:
					snap.Prog[q]++
					if rec != nil {
						rec.Act[q] = RecvProg
					}
				case snap.Data[q] < cur.X[q]*plat.TData:
					snap.Data[q]++
					if rec != nil {
						rec.Act[q] = RecvData
					}
				default:
					continue
				}
				ch--
			}
			continue
		}
		all := true
		for _, q := range cur.Order {
			if !snap.Up[q] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		done++
		if rec != nil {
			for _, q := range cur.Order {
				rec.Act[q] = Compute
			}
		}
		if done < W {
			continue
		}
		res.Iterations++
		if rec != nil {
			rec.Completed = true
		}
		if res.Iterations == app.Iterations {
			res.Makespan = t + 1
			return res, nil
		}
		clear(snap.Data) // every iteration needs new data
		cur, done, iterStart = Config{}, 0, t+1
	}
}
