package whatif

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/volsched/volsched/availability"
)

func init() {
	RegisterModel(Model{
		Key: "chain",
		Parse: func(c *ParseContext, fields map[string]json.RawMessage, _ int) ([]Avail, error) {
			ch, err := availability.ParseChain(fields["chain"], c.Where+".chain")
			if err != nil {
				return nil, err
			}
			return []Avail{ChainAvail{Chain: ch}}, nil
		},
	})
}

// ChainAvail is a worker following a 3-state Markov chain (per slot):
// "availability": {"chain": {"P": …}}, the papers' model.
type ChainAvail struct {
	Chain availability.Chain
}

// Source implements Avail: the chain from p.Start, drawing from the
// worker's stream.
func (a ChainAvail) Source(p *Platform, _ *Trial, _ int, r *rand.Rand) availability.Source {
	return availability.NewChainSource(a.Chain, p.Start, r)
}

// KnownChain implements Avail: the chain.
func (a ChainAvail) KnownChain() (availability.Chain, bool) { return a.Chain, true }
