package overlay

// Test shorthands for NewRules with the concrete types (tests set
// unexported options on them directly).

func newRules(pol Policy, sfmax int) (Rules, error) {
	return NewRules(withSFMax(DefaultOptions(pol), sfmax))
}

func newIBP(sfmax int) (*IBP, error) {
	r, err := NewRules(withSFMax(DefaultOptions(PolicyIBP), sfmax))
	if err != nil {
		return nil, err
	}
	return r.(*IBP), nil
}

func newMMP(sfmax int, beta float64) (*MMP, error) {
	r, err := NewRules(Options{Policy: PolicyMMP, SFMax: sfmax, Beta: beta, Samples: DefaultSamples, Horizon: DefaultHorizon})
	if err != nil {
		return nil, err
	}
	return r.(*MMP), nil
}

func newDP(sfmax, samples int, horizon float64) (*DP, error) {
	r, err := NewRules(Options{Policy: PolicyDP, SFMax: sfmax, Beta: DefaultBeta, Samples: samples, Horizon: horizon})
	if err != nil {
		return nil, err
	}
	return r.(*DP), nil
}

func withSFMax(o Options, sfmax int) Options {
	o.SFMax = sfmax
	return o
}

// builtins are the paper's policies, whose rules and executors these tests
// know (Policies() also lists what other test files register).
var builtins = []Policy{PolicyIBP, PolicyMMP, PolicyDP}
