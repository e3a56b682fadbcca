package overlay

import (
	"fmt"
	"math"
)

// Defaults, each written here only.
const (
	// DefaultBeta is Fig. 6's β (the paper's 0.5).
	DefaultBeta = 0.5
	// DefaultSamples is the number of samples a DP l function is reduced
	// to (§6.3.1; ours).
	DefaultSamples = 10
	// DefaultHorizon is the span in seconds over which DP compares l
	// functions when it reduces them (ours).
	DefaultHorizon = 100000.0
	// MaxSFMax bounds SF_max: summaries of more functions than this are
	// refused (the paper tests up to 256; a summary of 65,536 functions is
	// already megabytes per update).
	MaxSFMax = 1 << 16
)

// Options are the parameters of a policy, one type for every policy.
// Start from DefaultOptions, which holds every default (or fill the zero
// fields with WithDefaults); NewRules builds the policy's rules from them.
// Every field is validated, whatever the policy (a field of another policy
// is not used).
type Options struct {
	// Policy is the registered policy (RegisterPolicy, ParsePolicy).
	Policy Policy
	// SFMax is the maximum number of sampled functions of a summary, 1 to
	// MaxSFMax (default Policy.DefaultSFMax()).
	SFMax int
	// Beta is MMP's β of Fig. 6, in (0, 1] (default DefaultBeta).
	Beta float64
	// Distance of the clustering (default DistMSE, the authors').
	Distance Distance
	// NoGrid turns off the grid of SF_max^(1/d) cells per attribute that
	// the clustering merges within first (the authors' choice).
	NoGrid bool
	// Samples (DP) is the number of samples l functions are reduced to,
	// 2 to 1024 (default DefaultSamples).
	Samples int
	// Horizon (DP) is the span, in seconds, over which l functions are
	// compared when reduced (default DefaultHorizon).
	Horizon float64
	// MaxPerNode (DP), when > 0, caps the tasks of one request that
	// forwarding (and the centralized reference) sends to each node (a
	// sampled function of v nodes takes at most v·MaxPerNode). 0, the
	// paper's rule, gives each node every task it can finish by the
	// deadline. A diagnostic variant (docs/reproduction-004.md, DP), not
	// the paper's policy.
	MaxPerNode int
	// Clustering, when not nil, replaces Fig. 3's exact clustering in
	// Aggregate (see Clustering): an extension point for variants such as
	// the authors' approximate clustering (package overlay/stars).
	Clustering Clustering
	// Cells, when not nil, replaces the grid's cell rule (see Cells).
	Cells Cells
}

// DefaultOptions are policy p's options with every default: its SF_max
// (for IBP, MMP and DP the paper's of Table 3 and §7.4), β = 0.5, DP l
// functions of 10 samples compared over 100,000 s, the authors' distance
// (mse) with the grid.
func DefaultOptions(p Policy) Options {
	return Options{Policy: p, SFMax: p.DefaultSFMax(), Beta: DefaultBeta, Distance: DistMSE,
		Samples: DefaultSamples, Horizon: DefaultHorizon}
}

// WithDefaults returns o with its zero numeric fields (SFMax, Beta,
// Samples, Horizon) set to its policy's defaults (DefaultOptions); the
// other fields are kept. A configuration that takes Options (a daemon's)
// uses it so that only what differs from the defaults need be given.
func (o Options) WithDefaults() Options {
	d := DefaultOptions(o.Policy)
	if o.SFMax == 0 {
		o.SFMax = d.SFMax
	}
	if o.Beta == 0 {
		o.Beta = d.Beta
	}
	if o.Samples == 0 {
		o.Samples = d.Samples
	}
	if o.Horizon == 0 {
		o.Horizon = d.Horizon
	}
	return o
}

// Validate checks the options; errors name the field, the value and what
// is expected.
func (o Options) Validate() error {
	if !o.Policy.Valid() {
		return fmt.Errorf("policy: none given: want %s", PolicyNames())
	}
	if o.SFMax < 1 || o.SFMax > MaxSFMax {
		return fmt.Errorf("sfmax %d: want 1 to %d", o.SFMax, MaxSFMax)
	}
	if o.Distance > DistLoss {
		return fmt.Errorf("distance %v: want mse or loss", o.Distance)
	}
	if !(o.Beta > 0 && o.Beta <= 1) {
		return fmt.Errorf("beta %g: want a value in (0, 1]", o.Beta)
	}
	if o.Samples < 2 || o.Samples > 1<<10 {
		return fmt.Errorf("samples %d: want 2 to %d", o.Samples, 1<<10)
	}
	if !(o.Horizon > 0) || math.IsInf(o.Horizon, 0) {
		return fmt.Errorf("horizon %g s: want a finite value > 0", o.Horizon)
	}
	if o.MaxPerNode < 0 {
		return fmt.Errorf("max per node %d: want >= 0 (0: no cap)", o.MaxPerNode)
	}
	return nil
}

// NewRules validates o and builds the policy's rules (PolicyDef.Rules:
// *IBP, *MMP, *DP for the built-in policies): the one constructor of a
// policy, used by the simulator, the accuracy experiment, the daemons and
// the command line.
func NewRules(o Options) (Rules, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o.Policy.d.Rules(o)
}
