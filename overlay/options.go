package overlay

import (
	"fmt"
	"math"
)

// Policy is one of the paper's three scheduling policies (§6). Its values
// are stable (they are written in the wire format and label the random
// streams of the accuracy experiment). The zero value is no policy
// (refused by Options.Validate and by the wire decoder).
type Policy uint8

const (
	// PolicyIBP is idle/busy (§6.1): one task per idle node.
	PolicyIBP Policy = iota + 1
	// PolicyMMP is makespan minimization (§6.2): FCFS queues.
	PolicyMMP
	// PolicyDP is the deadline policy (§6.3): EDF queues.
	PolicyDP
)

var policyNames = [...]string{PolicyIBP: "ibp", PolicyMMP: "mmp", PolicyDP: "dp"}

// Policies lists the policies in the paper's order.
func Policies() []Policy { return []Policy{PolicyIBP, PolicyMMP, PolicyDP} }

// String is the policy's name as the command line spells it.
func (p Policy) String() string {
	if p.Valid() {
		return policyNames[p]
	}
	return fmt.Sprintf("policy(%d)", uint8(p))
}

// Valid says whether p is one of Policies().
func (p Policy) Valid() bool { return p >= PolicyIBP && p <= PolicyDP }

// ParsePolicy parses "ibp", "mmp" or "dp".
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies() {
		if s == policyNames[p] {
			return p, nil
		}
	}
	return 0, fmt.Errorf("policy %q: want ibp, mmp or dp", s)
}

// MarshalText writes the policy's name (JSON records keep "ibp", "mmp",
// "dp").
func (p Policy) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("policy %d: not a policy", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText parses a policy's name.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

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

// DefaultSFMax is the SF_max of the paper's Table 3 and simulations
// (§7.1, §7.4): the largest it tests, base^d with d = 2, 4, 3 attributes:
// 225 for IBP, 256 for MMP, 216 for DP.
func (p Policy) DefaultSFMax() int {
	switch p {
	case PolicyMMP:
		return 256
	case PolicyDP:
		return 216
	}
	return 225
}

// DefaultBandwidth is the update limit, in bytes per second per link, that
// §7.4 settles on: 1 KB/s for IBP and DP, 10 KB/s for MMP (Config.Bandwidth).
func (p Policy) DefaultBandwidth() float64 {
	if p == PolicyMMP {
		return 10000
	}
	return 1000
}

// Options are the parameters of a policy, one type for IBP, MMP and DP.
// Start from DefaultOptions, which holds every default; NewRules builds
// the policy's rules from them. Every field is validated, whatever the
// policy (a field of another policy is not used).
type Options struct {
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

// DefaultOptions are policy p's options with every default: the paper's
// SF_max of Table 3 and §7.4, β = 0.5, DP l functions of 10 samples
// compared over 100,000 s, the authors' distance (mse) with the grid.
func DefaultOptions(p Policy) Options {
	return Options{Policy: p, SFMax: p.DefaultSFMax(), Beta: DefaultBeta, Distance: DistMSE,
		Samples: DefaultSamples, Horizon: DefaultHorizon}
}

// Validate checks the options; errors name the field, the value and what
// is expected.
func (o Options) Validate() error {
	if !o.Policy.Valid() {
		return fmt.Errorf("policy %d: want ibp, mmp or dp", uint8(o.Policy))
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

// NewRules validates o and builds the policy's rules (*IBP, *MMP or *DP):
// the one constructor of a policy, used by the simulator, the accuracy
// experiment and the command line.
func NewRules(o Options) (Rules, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	switch o.Policy {
	case PolicyIBP:
		return &IBP{o: o}, nil
	case PolicyMMP:
		return &MMP{o: o}, nil
	}
	return &DP{o: o}, nil
}
