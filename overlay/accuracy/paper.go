package accuracy

import "github.com/volsched/volsched/overlay"

// Published numbers of the paper's §7.1, for side-by-side tables. Accuracies
// are fractions; for l(δ) the paper gives approximate averages ("∼").

// PaperSFMax is, per policy, the SF_max values the paper tests (Table 2,
// Table 4, Figs. 12–17), increasing; the last is the one of Table 3 and of
// the other simulations (225, 256, 216: base^d with d = 2, 4, 3), which is
// overlay's default (Policy.DefaultSFMax; tested equal).
var PaperSFMax = map[overlay.Policy][]int{overlay.PolicyIBP: {9, 64, 225}, overlay.PolicyMMP: {16, 81, 256}, overlay.PolicyDP: {8, 64, 216}}

// PaperTable2 is Table 2: accuracy for 1024 nodes, per policy and SF_max.
var PaperTable2 = map[overlay.Policy]map[int]map[string]float64{
	overlay.PolicyIBP: {
		9:   {"memory": 0.5932, "disk": 0.5886},
		64:  {"memory": 0.8855, "disk": 0.8913},
		225: {"memory": 0.9554, "disk": 0.9568},
	},
	overlay.PolicyMMP: {
		16:  {"memory": 0.4392, "disk": 0.4706, "power": 0.4957, "queue": 0.3650},
		81:  {"memory": 0.7091, "disk": 0.7136, "power": 0.7071, "queue": 0.6860},
		256: {"memory": 0.8457, "disk": 0.8487, "power": 0.8454, "queue": 0.8473},
	},
	overlay.PolicyDP: {
		8:   {"memory": 0.5165, "disk": 0.5077, "l": 0.006},
		64:  {"memory": 0.7929, "disk": 0.7845, "l": 0.37},
		216: {"memory": 0.8937, "disk": 0.8854, "l": 0.74},
	},
}

// PaperTable3Sizes are the network sizes of Table 3.
var PaperTable3Sizes = []int{512, 2048, 8192, 32768, 131072}

// PaperTable3SFMax is the SF_max of Table 3 per policy (the caption's
// "225, 216 and 256 ... respectively" matched to the policies by their
// base^d form: 15², 4⁴, 6³).
var PaperTable3SFMax = map[overlay.Policy]int{overlay.PolicyIBP: 225, overlay.PolicyMMP: 256, overlay.PolicyDP: 216}

// PaperTable3 is Table 3: accuracy per policy, attribute and size (in the
// order of PaperTable3Sizes).
var PaperTable3 = map[overlay.Policy]map[string][]float64{
	overlay.PolicyIBP: {
		"memory": {0.974, 0.944, 0.934, 0.929, 0.928},
		"disk":   {0.975, 0.941, 0.932, 0.930, 0.928},
	},
	overlay.PolicyMMP: {
		"memory": {0.917, 0.796, 0.761, 0.750, 0.744},
		"disk":   {0.924, 0.809, 0.762, 0.749, 0.745},
		"power":  {0.918, 0.804, 0.762, 0.749, 0.745},
		"queue":  {0.916, 0.805, 0.763, 0.750, 0.746},
	},
	overlay.PolicyDP: {
		"memory": {0.938, 0.867, 0.840, 0.832, 0.827},
		"disk":   {0.932, 0.859, 0.832, 0.828, 0.826},
		"l":      {0.85, 0.65, 0.46, 0.35, 0.21},
	},
}

// PaperPolicies are the paper's policies, in its order: those of its
// tables and figures (and of the authors' tests, authorsTests).
var PaperPolicies = []overlay.Policy{overlay.PolicyIBP, overlay.PolicyMMP, overlay.PolicyDP}

// Attributes lists a policy's attributes in table order (the keys of
// Result.Accuracy): for IBP, MMP and DP those of the authors' tests; for
// another policy those its summaries say (Attributed), or none.
func Attributes(p overlay.Policy) []string {
	if t, ok := authorsTests[p.String()]; ok {
		return t.attrs
	}
	if !p.Valid() {
		return nil
	}
	e := p.NewExec(overlay.Hardware{Mem: MemHi, Disk: DiskHi, Power: PowHi}, overlay.DefaultOptions(p))
	if a, ok := overlay.Plain(e.Summary(0)).(Attributed); ok {
		return a.Attributes()
	}
	return nil
}
