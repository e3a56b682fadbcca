package availability

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sojourn is the law of the time a processor stays in one state (a
// sojourn), in whatever unit the caller chose; a SemiMarkov takes it in
// slots (Scaled turns a law in seconds into one in slots). The laws are
// values of package availability/sojourn (exponential, Weibull,
// log-normal), each family registered there by name, and any a program
// registers: this interface is what the semi-Markov source needs of a law
// (Rand, Residual, Mean), and what the platform decoder (Scaled,
// Validate) and the robustness study (CDF, PartialMean) need.
type Sojourn interface {
	// Family is the name the law's family is registered under
	// ("weibull").
	Family() string
	// Validate checks the parameters; the error names the parameter and
	// its value. A valid law has a finite mean > 0.
	Validate() error
	// Mean is the expectation of the law.
	Mean() float64
	// CDF is P(X ≤ x).
	CDF(x float64) float64
	// PartialMean is E[X·1{X > x}] for x ≥ 0, the part of the mean above
	// x (the robustness study's mean of a sojourn cut into slots needs it
	// in closed form for its tail).
	PartialMean(x float64) float64
	// Rand draws one time from r.
	Rand(r *rand.Rand) float64
	// Residual draws from r the time left in a sojourn observed at a
	// random instant of a stationary process: the equilibrium (forward
	// recurrence) law, of density (1 − CDF(x))/Mean. A source started
	// stationary draws its first sojourn from it.
	Residual(r *rand.Rand) float64
	// Scaled is the law in another unit: if X is measured in the current
	// unit, Scaled(u) is the law of X/u (Scaled(60) turns a law in
	// seconds into one in 60-second slots).
	Scaled(u float64) Sojourn
}

// Memoryless is a sojourn law without memory, the exponential
// (sojourn.Exponential): with times in slots, cut into slots (SlotsOf) its
// sojourns last a geometric number of slots, each slot followed by another
// with probability SlotStay.
type Memoryless interface {
	Sojourn
	SlotStay() float64
}

// MaxSojournSlots bounds a sojourn once cut into slots (about 10^18 slots:
// longer than any simulation; heavy-tailed laws can draw more).
const MaxSojournSlots = int64(1) << 60

// SlotsOf is the number of slots a sojourn of continuous length x (in
// slots) occupies: ⌈x⌉, at least 1, at most MaxSojournSlots. With this rule
// an exponential sojourn of rate λ becomes a geometric number of slots with
// P(stay) = e^(−λ), exactly the sojourn of a Markov chain; and P(N ≤ n) =
// P(X ≤ n) for every n ≥ 1.
func SlotsOf(x float64) int64 {
	if !(x > 1) { // also x = 0 (a zero-length draw) and NaN
		return 1
	}
	if x >= float64(MaxSojournSlots) {
		return MaxSojournSlots
	}
	return int64(math.Ceil(x))
}

// SemiMarkov is a 3-state semi-Markov availability model: the processor
// stays in state i for a time drawn from Sojourn[i] (in slots, continuous),
// then moves to state j with probability Jump[i][j] (the embedded jump
// chain: Jump[i][i] = 0, a sojourn ends with a change of state). Cut into
// slots, a sojourn of length x lasts SlotsOf(x) = max(1, ⌈x⌉) slots. With
// exponential sojourns it is a Markov chain (EquivalentChain); with Weibull
// or log-normal ones it is not. The laws are package availability/sojourn's.
type SemiMarkov struct {
	Sojourn [3]Sojourn
	Jump    [3][3]float64
}

// Validate checks the sojourn laws and the jump chain (entries in [0, 1],
// rows summing to 1 within RowTolerance, zero diagonal). Errors name the
// state and the entry.
func (m SemiMarkov) Validate() error {
	for i := 0; i < 3; i++ {
		if m.Sojourn[i] == nil {
			return fmt.Errorf("sojourn in %s: no law, want one (package availability/sojourn)", stateName(State(i)))
		}
		if err := m.Sojourn[i].Validate(); err != nil {
			return fmt.Errorf("sojourn in %s: %w", stateName(State(i)), err)
		}
		sum := 0.0
		for j := 0; j < 3; j++ {
			p := m.Jump[i][j]
			if math.IsNaN(p) || p < 0 || p > 1 {
				return fmt.Errorf("jump[%s][%s] = %v, want a probability in [0, 1]", State(i), State(j), p)
			}
			sum += p
		}
		if m.Jump[i][i] != 0 {
			return fmt.Errorf("jump[%s][%s] = %v, want 0 (a sojourn ends with a change of state; its length is the sojourn law's)", State(i), State(i), m.Jump[i][i])
		}
		if math.Abs(sum-1) > RowTolerance {
			return fmt.Errorf("jump row %s sums to %.12g, want 1 within %g", State(i), sum, RowTolerance)
		}
	}
	return nil
}

func stateName(s State) string {
	switch s {
	case Up:
		return "UP"
	case Reclaimed:
		return "RECLAIMED"
	case Down:
		return "DOWN"
	}
	return s.String()
}

// TimeFractions is the long-run fraction of (continuous) time spent in
// each state: π_J[i]·mean_i normalized, π_J the stationary law of the jump
// chain. It is the law of the state at slot 0 under StartStationary.
func (m SemiMarkov) TimeFractions() [3]float64 {
	// The lazy chain (I + J)/2 has the stationary law of J and is
	// aperiodic (J, with its zero diagonal, may be periodic).
	var lazy Chain
	for i := range lazy.P {
		for j := range lazy.P[i] {
			lazy.P[i][j] = m.Jump[i][j] / 2
		}
		lazy.P[i][i] += 0.5
	}
	pj := lazy.Stationary()
	var w [3]float64
	sum := 0.0
	for i := range w {
		w[i] = pj[i] * m.Sojourn[i].Mean()
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// EquivalentChain is, when every sojourn is memoryless (exponential), the
// Markov chain whose slot-level behaviour the model has: P[i][i] = s_i =
// SlotStay (e^(−rate_i)) and P[i][j] = (1 − s_i)·Jump[i][j]. ok is false
// when a sojourn is not memoryless.
func (m SemiMarkov) EquivalentChain() (c Chain, ok bool) {
	for i := 0; i < 3; i++ {
		g, ok := m.Sojourn[i].(Memoryless)
		if !ok {
			return Chain{}, false
		}
		stay := g.SlotStay()
		for j := 0; j < 3; j++ {
			c.P[i][j] = (1 - stay) * m.Jump[i][j]
		}
		c.P[i][i] = stay
	}
	return c, true
}

// SemiMarkovSource is a Source drawing a SemiMarkov model: one time draw
// per sojourn and one uniform per jump, from its own stream; a slot costs a
// decrement.
type SemiMarkovSource struct {
	m     SemiMarkov
	r     *rand.Rand
	cur   State
	rem   int64 // slots left in the current sojourn
	start Start
	begun bool
	jump  Chain // m.Jump as a Chain, for NextU
}

// NewSource returns the model's availability drawn from r. The model must
// be valid (Validate). With StartStationary the slot-0 state is drawn from
// TimeFractions and the first sojourn from the equilibrium (residual)
// law of that state's sojourn, so the process looks as if it had been
// running forever; with StartUp (StartIn(s)) the processor begins a fresh
// UP sojourn (a fresh sojourn in s) at slot 0.
func (m SemiMarkov) NewSource(start Start, r *rand.Rand) *SemiMarkovSource {
	return &SemiMarkovSource{m: m, r: r, start: start, jump: Chain{P: m.Jump}}
}

func (s *SemiMarkovSource) begin() {
	s.begun = true
	if st, ok := s.start.In(); ok {
		s.cur = st
		s.rem = SlotsOf(s.m.Sojourn[st].Rand(s.r))
	} else {
		w := s.m.TimeFractions()
		u := s.r.Float64()
		switch {
		case u < w[Up]:
			s.cur = Up
		case u < w[Up]+w[Reclaimed] || w[Down] == 0:
			s.cur = Reclaimed
		default:
			s.cur = Down
		}
		s.rem = SlotsOf(s.m.Sojourn[s.cur].Residual(s.r))
	}
}

// Next implements Source.
func (s *SemiMarkovSource) Next() State {
	if s.rem == 0 {
		if !s.begun {
			s.begin()
		} else {
			s.cur = s.jump.NextU(s.cur, s.r.Float64())
			s.rem = SlotsOf(s.m.Sojourn[s.cur].Rand(s.r))
		}
	}
	s.rem--
	return s.cur
}
