package analytic

import (
	"errors"
	"math"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/jsonnum"
)

// The analyses below are what `volsched analyze` prints: the quantities of
// one chain or of a set of chains, in JSON by the project's convention for
// numbers (internal/jsonnum): an infinite expectation (conditioned on an
// event of probability 0, or a sum that diverges) is written as null.

// Stationary is a stationary distribution of a chain.
type Stationary struct {
	Up        jsonnum.Float `json:"up"`
	Reclaimed jsonnum.Float `json:"reclaimed"`
	Down      jsonnum.Float `json:"down"`
}

// ClosedClass is a closed class of a chain (states that reach each other
// and that the chain never leaves) with its stationary distribution.
type ClosedClass struct {
	States     []string   `json:"states"` // "u", "r", "d"
	Stationary Stationary `json:"stationary"`
}

// ChainAnalysis is the analysis of one processor's chain for W = Work
// slots of work (seed 001).
type ChainAnalysis struct {
	// Stationary is the chain's stationary distribution when it has one
	// (StationaryUnique); otherwise the long-run law from UP, one of many
	// (availability.Chain.Stationary).
	Stationary Stationary `json:"stationary"`
	// StationaryUnique is false for a chain with several closed classes:
	// each class has its stationary distribution (ClosedClasses, then
	// listed) and every mixture of them is stationary too.
	StationaryUnique bool          `json:"stationary_unique"`
	ClosedClasses    []ClosedClass `json:"closed_classes,omitempty"`
	PPlus            jsonnum.Float `json:"p_plus"`        // Lemma 1
	ExpectedTime     jsonnum.Float `json:"expected_time"` // Theorem 2; null: +Inf (the processor never returns UP)
	PUDExact         jsonnum.Float `json:"p_ud_exact"`
	PUDApprox        jsonnum.Float `json:"p_ud_approx"`
	Work             int           `json:"work"`
}

// SetAnalysis is the analysis of a set of processors, all UP now, for W =
// Work slots of simultaneous computation (seed 002 Theorem 5.1 and
// appendix; with communication, §V.B).
type SetAnalysis struct {
	Processors              int             `json:"processors"`
	Work                    int             `json:"work"`
	PPlus                   jsonnum.Float   `json:"p_plus"`
	PSuccess                jsonnum.Float   `json:"p_success"`
	ExpectedTimePublished   jsonnum.Float   `json:"expected_time_published"`   // null: +Inf
	ExpectedTimeConditional jsonnum.Float   `json:"expected_time_conditional"` // null: +Inf
	EU                      jsonnum.Float   `json:"e_u"`                       // null: +Inf (no member can go DOWN)
	A                       jsonnum.Float   `json:"a"`                         // null: +Inf (no member can go DOWN)
	Ec                      jsonnum.Float   `json:"e_c"`
	Epsilon                 float64         `json:"epsilon"`
	Terms                   int             `json:"terms"`
	NCom                    int             `json:"ncom,omitempty"`
	Comm                    []jsonnum.Float `json:"comm,omitempty"`
	ECommPublished          *jsonnum.Float  `json:"e_comm,omitempty"` // null: +Inf
	PCommPublished          *jsonnum.Float  `json:"p_comm,omitempty"`
	ECommConditional        *jsonnum.Float  `json:"e_comm_conditional,omitempty"` // null: +Inf
	PCommConditional        *jsonnum.Float  `json:"p_comm_conditional,omitempty"`
}

// ErrDegenerate is AnalyzeSet's error when P+(S) is not a number.
var ErrDegenerate = errors.New("P+(S) is not a number; the chains are degenerate")

// AnalyzeChain analyzes chain c for work slots of work (work ≥ 1).
func AnalyzeChain(c availability.Chain, work int) ChainAnalysis {
	a := ChainAnalysis{
		Stationary:       stationaryOf(c.Stationary()),
		StationaryUnique: c.StationaryUnique(),
		PPlus:            jsonnum.Float(PPlus(c)),
		ExpectedTime:     jsonnum.Float(ExpectedTime(c, float64(work))),
		PUDExact:         jsonnum.Float(PUDExact(c, work)),
		PUDApprox:        jsonnum.Float(PUDApprox(c, float64(work))),
		Work:             work,
	}
	if !a.StationaryUnique {
		pis := c.Stationaries()
		for i, cl := range c.ClosedClasses() {
			k := ClosedClass{Stationary: stationaryOf(pis[i])}
			for s := range cl.States() {
				k.States = append(k.States, s.String())
			}
			a.ClosedClasses = append(a.ClosedClasses, k)
		}
	}
	return a
}

func stationaryOf(pi [3]float64) Stationary {
	return Stationary{Up: jsonnum.Float(pi[0]), Reclaimed: jsonnum.Float(pi[1]), Down: jsonnum.Float(pi[2])}
}

// AnalyzeSet analyzes the set of all the chains for work slots of work,
// with the appendix's sums truncated at precision eps. With comm not nil
// (slots of communication per processor, one per chain) it adds E_comm(S)
// and P_comm(S) for ncom simultaneous transfers, in both forms of the
// single-processor expectation. A set whose P+(S) is not a number is
// ErrDegenerate.
func AnalyzeSet(chains []availability.Chain, work int, eps float64, ncom int, comm []float64) (SetAnalysis, error) {
	tab, err := NewTable(chains, Options{Epsilon: eps})
	if err != nil {
		return SetAnalysis{}, err
	}
	all := make([]int, len(chains))
	for i := range all {
		all[i] = i
	}
	st := tab.SetOf(all...).Stats()
	W := float64(work)
	res := SetAnalysis{
		Processors:              len(chains),
		Work:                    work,
		PPlus:                   jsonnum.Float(st.PPlus),
		PSuccess:                jsonnum.Float(st.PSuccess(W)),
		ExpectedTimePublished:   jsonnum.Float(st.ExpectedTime(W, Published)),
		ExpectedTimeConditional: jsonnum.Float(st.ExpectedTime(W, Conditional)),
		EU:                      jsonnum.Float(st.EU),
		A:                       jsonnum.Float(st.A),
		Ec:                      jsonnum.Float(st.Ec),
		Epsilon:                 eps,
		Terms:                   st.Terms,
	}
	if comm != nil {
		res.NCom, res.Comm = ncom, jsonnum.Floats(comm)
		for _, f := range []Form{Published, Conditional} {
			e := jsonnum.Float(tab.EComm(all, comm, ncom, f))
			p := jsonnum.Float(tab.PComm(all, float64(e)))
			if f == Published {
				res.ECommPublished, res.PCommPublished = &e, &p
			} else {
				res.ECommConditional, res.PCommConditional = &e, &p
			}
		}
	}
	if math.IsNaN(st.PPlus) {
		return res, ErrDegenerate
	}
	return res, nil
}
