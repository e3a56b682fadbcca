package availability

import (
	"fmt"
	"slices"
)

// ViewConfig says what a master remembers of its processors' availability
// and how often it re-estimates their chains.
type ViewConfig struct {
	// Prior is every processor's Dirichlet prior (DefaultPrior() for the
	// project's default).
	Prior [3][3]float64
	// Window is the number of most recent transitions (slot to slot)
	// remembered per processor; 0 remembers every transition seen.
	Window int
	// Refresh is the number of slots between re-estimations of the chains;
	// 0 and 1 re-estimate after every slot.
	Refresh int
}

// View is a master's knowledge of p processors' availability: what it has
// seen so far, slot after slot, and the chains it estimates from that
// (one Estimator per processor, over the last Window transitions). A
// simulator feeds it the states of each slot once they have happened and
// gives its heuristics Chains(): they never see a state before its slot
// (no peeking at the future of a trace or of a semi-Markov draw).
type View struct {
	cfg    ViewConfig
	procs  []viewProc
	chains []Chain
	fixed  []bool
	slots  int
	epoch  int
}

type viewProc struct {
	est  Estimator
	ring []uint8 // the last Window transitions, from*3+to
	head int     // next ring slot to write
	n    int     // transitions in the ring
	last State
	// dirty has bit i set when row i's counts changed since the last
	// re-estimation (only those rows are recomputed).
	dirty uint8
}

// NewView returns the view of p processors that have not been seen yet:
// their chains are the prior's mean.
func NewView(p int, cfg ViewConfig) (*View, error) {
	if p < 0 {
		return nil, fmt.Errorf("view of %d processors, want ≥ 0", p)
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("estimator window = %d transitions, want ≥ 0 (0 = all)", cfg.Window)
	}
	if cfg.Refresh < 0 {
		return nil, fmt.Errorf("estimator refresh = %d slots, want ≥ 0 (0 = every slot)", cfg.Refresh)
	}
	e, err := NewEstimator(cfg.Prior)
	if err != nil {
		return nil, err
	}
	v := &View{cfg: cfg, procs: make([]viewProc, p), chains: make([]Chain, p), fixed: make([]bool, p)}
	prior := e.Chain()
	for q := range v.procs {
		v.procs[q].est = *e
		if cfg.Window > 0 {
			v.procs[q].ring = make([]uint8, cfg.Window)
		}
		v.chains[q] = prior
	}
	return v, nil
}

// Fix declares processor q's chain known: Chains reports c for it whatever
// is observed (the papers' setting, where heuristics are given P).
func (v *View) Fix(q int, c Chain) {
	v.fixed[q] = true
	v.chains[q] = c
}

// Observe records one slot: states[q] is processor q's state at the next
// slot (the first call gives slot 0, which has no transition before it).
func (v *View) Observe(states []State) {
	for q := range v.procs {
		if v.fixed[q] {
			continue
		}
		pr := &v.procs[q]
		s := states[q]
		if v.slots > 0 {
			tr := uint8(pr.last)*3 + uint8(s)
			if pr.ring != nil {
				if pr.n == len(pr.ring) {
					old := pr.ring[pr.head]
					pr.est.Counts[old/3][old%3]--
					pr.dirty |= 1 << (old / 3)
				} else {
					pr.n++
				}
				pr.ring[pr.head] = tr
				pr.head++
				if pr.head == len(pr.ring) {
					pr.head = 0
				}
			}
			pr.est.Counts[pr.last][s]++
			pr.dirty |= 1 << pr.last
		}
		pr.last = s
	}
	v.slots++
	if v.cfg.Refresh <= 1 || v.slots%v.cfg.Refresh == 0 {
		v.refresh()
	}
}

func (v *View) refresh() {
	for q := range v.procs {
		pr := &v.procs[q]
		if v.fixed[q] || pr.dirty == 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			if pr.dirty&(1<<i) != 0 {
				pr.est.rowInto(&v.chains[q], i)
			}
		}
		pr.dirty = 0
	}
	v.epoch++
}

// Chains returns every processor's chain as of the last re-estimation (or
// its fixed chain). The slice is the view's own: do not modify it; it
// changes at the next re-estimation.
func (v *View) Chains() []Chain { return v.chains }

// Epoch counts the re-estimations; Chains may differ only when it has
// changed (a heuristic can key its caches on it).
func (v *View) Epoch() int { return v.epoch }

// Slots is the number of slots observed.
func (v *View) Slots() int { return v.slots }

// Estimator returns a copy of processor q's estimator: the prior and the
// counts of the transitions in its window.
func (v *View) Estimator(q int) Estimator { return v.procs[q].est }

// Clone returns an independent copy of the view (to branch a simulation).
func (v *View) Clone() *View {
	c := *v
	c.procs = slices.Clone(v.procs)
	for q := range c.procs {
		c.procs[q].ring = slices.Clone(v.procs[q].ring)
	}
	c.chains = slices.Clone(v.chains)
	c.fixed = slices.Clone(v.fixed)
	return &c
}
