package availability

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Family is the law of a sojourn time.
type Family uint8

// The three families of seed 002 §V and seed 003 §3.1 (availability
// intervals "approximately Weibull or log-normal"), with the exponential
// (the memoryless case).
const (
	Exponential Family = iota
	Weibull
	LogNormal
)

// String names the family as trace.Fit does ("exponential", "weibull",
// "lognormal").
func (f Family) String() string {
	switch f {
	case Exponential:
		return "exponential"
	case Weibull:
		return "weibull"
	case LogNormal:
		return "lognormal"
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// ParseFamily reads "exponential", "weibull" or "lognormal" (also
// "log-normal").
func ParseFamily(s string) (Family, error) {
	switch strings.ToLower(s) {
	case "exponential":
		return Exponential, nil
	case "weibull":
		return Weibull, nil
	case "lognormal", "log-normal":
		return LogNormal, nil
	}
	return 0, fmt.Errorf("distribution %q: want exponential, weibull or lognormal", s)
}

// Sojourn is the law of the time a processor stays in one state. Which
// parameters count depends on the family: Exponential uses Rate (mean
// 1/Rate); Weibull uses Shape k and Scale λ (CDF 1 − exp(−(x/λ)^k));
// LogNormal uses Mu and Sigma, the mean and standard deviation of the
// logarithm. Times are in whatever unit the caller chose; a SemiMarkov
// takes them in slots (see Scaled).
type Sojourn struct {
	Family                        Family
	Rate, Shape, Scale, Mu, Sigma float64
}

// ExponentialMean is the exponential law of the given mean.
func ExponentialMean(mean float64) Sojourn { return Sojourn{Family: Exponential, Rate: 1 / mean} }

// WeibullMean is the Weibull law of the given shape and mean (scale =
// mean / Γ(1 + 1/shape)).
func WeibullMean(shape, mean float64) Sojourn {
	return Sojourn{Family: Weibull, Shape: shape, Scale: mean / math.Gamma(1+1/shape)}
}

// LogNormalMean is the log-normal law of the given σ and mean (μ = ln mean
// − σ²/2).
func LogNormalMean(sigma, mean float64) Sojourn {
	return Sojourn{Family: LogNormal, Sigma: sigma, Mu: math.Log(mean) - sigma*sigma/2}
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s = %v, want a finite number > 0", name, v)
	}
	return nil
}

// Validate checks the parameters of the family: finite, and > 0 except
// the log-normal μ (any finite number). The error names the parameter and
// its value.
func (d Sojourn) Validate() error {
	switch d.Family {
	case Exponential:
		return positive("exponential rate", d.Rate)
	case Weibull:
		if err := positive("weibull shape", d.Shape); err != nil {
			return err
		}
		if err := positive("weibull scale", d.Scale); err != nil {
			return err
		}
		if d.Shape < 0.05 {
			return fmt.Errorf("weibull shape = %v, want ≥ 0.05 (smaller shapes overflow: the mean is Γ(1+1/shape)·scale)", d.Shape)
		}
	case LogNormal:
		if math.IsNaN(d.Mu) || math.IsInf(d.Mu, 0) {
			return fmt.Errorf("lognormal mu = %v, want a finite number", d.Mu)
		}
		if err := positive("lognormal sigma", d.Sigma); err != nil {
			return err
		}
		if d.Sigma > 10 {
			return fmt.Errorf("lognormal sigma = %v, want ≤ 10 (larger overflow the mean exp(mu+sigma²/2))", d.Sigma)
		}
	default:
		return fmt.Errorf("%v: unknown family, want exponential, weibull or lognormal", d.Family)
	}
	if m := d.Mean(); !(m > 0) || math.IsInf(m, 0) {
		return fmt.Errorf("%v law with mean %v: want a finite mean > 0", d.Family, m)
	}
	return nil
}

// Mean is the expectation of the law.
func (d Sojourn) Mean() float64 {
	switch d.Family {
	case Exponential:
		return 1 / d.Rate
	case Weibull:
		return d.Scale * math.Gamma(1+1/d.Shape)
	default:
		return math.Exp(d.Mu + d.Sigma*d.Sigma/2)
	}
}

// CDF is P(X ≤ x).
func (d Sojourn) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	switch d.Family {
	case Exponential:
		return -math.Expm1(-d.Rate * x)
	case Weibull:
		return -math.Expm1(-math.Pow(x/d.Scale, d.Shape))
	default:
		return normalCDF((math.Log(x) - d.Mu) / d.Sigma)
	}
}

// Rand draws one time from r.
func (d Sojourn) Rand(r *rand.Rand) float64 {
	switch d.Family {
	case Exponential:
		return r.ExpFloat64() / d.Rate
	case Weibull: // inversion: λ·E^(1/k), E ~ Exp(1)
		return d.Scale * math.Pow(r.ExpFloat64(), 1/d.Shape)
	default:
		return math.Exp(d.Mu + d.Sigma*r.NormFloat64())
	}
}

// residual draws the time left in a sojourn observed at a random instant
// of a stationary process (the equilibrium, or forward-recurrence, law):
// U·X̃ with U uniform and X̃ length-biased (density x·f(x)/mean). The
// length-biased laws: exponential → Gamma(2, rate); Weibull(k, λ) → λ·G^(1/k)
// with G ~ Gamma(1 + 1/k, 1); log-normal(μ, σ) → log-normal(μ + σ², σ).
func (d Sojourn) residual(r *rand.Rand) float64 {
	var x float64
	switch d.Family {
	case Exponential:
		x = (r.ExpFloat64() + r.ExpFloat64()) / d.Rate
	case Weibull:
		g := gammaRand(1+1/d.Shape, r)
		x = d.Scale * math.Pow(g, 1/d.Shape)
	default:
		x = math.Exp(d.Mu + d.Sigma*d.Sigma + d.Sigma*r.NormFloat64())
	}
	return r.Float64() * x
}

// normalCDF is Φ(z), the standard normal CDF.
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// gammaRand draws from the Gamma(a, 1) law, a ≥ 1, by Marsaglia and
// Tsang's method ("A simple method for generating gamma variables", ACM
// TOMS 26(3), 2000): one normal and one uniform per try, squeeze test
// first. The draws and the arithmetic are those of gonum's distuv.Gamma
// (v0.17.0) for a ≥ 1, so the same stream gives bit-identical times
// (TestGammaRandIsGonums); a = 1 is the exponential law.
func gammaRand(a float64, r *rand.Rand) float64 {
	if a == 1 {
		return r.ExpFloat64()
	}
	d := a - 1.0/3
	c := 1 / (3 * math.Sqrt(d))
	for {
		x := r.NormFloat64()
		v := 1 + x*c
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// residualMean is the mean of the equilibrium law, E[X²]/(2·E[X]).
func (d Sojourn) residualMean() float64 {
	var m2 float64
	switch d.Family {
	case Exponential:
		m2 = 2 / (d.Rate * d.Rate)
	case Weibull:
		m2 = d.Scale * d.Scale * math.Gamma(1+2/d.Shape)
	default:
		m2 = math.Exp(2*d.Mu + 2*d.Sigma*d.Sigma)
	}
	return m2 / (2 * d.Mean())
}

// Scaled re-expresses the law in another unit: if X is measured in the
// current unit, Scaled(u) is the law of X/u (e.g. Scaled(60) turns a law in
// seconds into one in 60-second slots).
func (d Sojourn) Scaled(u float64) Sojourn {
	switch d.Family {
	case Exponential:
		d.Rate *= u
	case Weibull:
		d.Scale /= u
	default:
		d.Mu -= math.Log(u)
	}
	return d
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
// or log-normal ones it is not.
type SemiMarkov struct {
	Sojourn [3]Sojourn
	Jump    [3][3]float64
}

// Validate checks the sojourn laws and the jump chain (entries in [0, 1],
// rows summing to 1 within RowTolerance, zero diagonal). Errors name the
// state and the entry.
func (m SemiMarkov) Validate() error {
	for i := 0; i < 3; i++ {
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

// EquivalentChain is, when every sojourn is exponential, the Markov chain
// whose slot-level behaviour the model has: P[i][i] = e^(−rate_i) and
// P[i][j] = (1 − e^(−rate_i))·Jump[i][j]. ok is false when a sojourn is not
// exponential.
func (m SemiMarkov) EquivalentChain() (c Chain, ok bool) {
	for i := 0; i < 3; i++ {
		if m.Sojourn[i].Family != Exponential {
			return Chain{}, false
		}
		stay := math.Exp(-m.Sojourn[i].Rate)
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
		s.rem = SlotsOf(s.m.Sojourn[s.cur].residual(s.r))
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
