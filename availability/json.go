package availability

import (
	"fmt"

	"github.com/volsched/volsched/internal/jsonin"
)

// ChainSet is the JSON form of several chains: {"chains": [{"P": ...}, ...]}.
type ChainSet struct {
	Chains []Chain `json:"chains"`
}

// decodeStrict decodes one JSON object by the rules of the project's JSON
// inputs (internal/jsonin: a byte-order mark skipped; unknown fields,
// duplicate keys, trailing data and NaN refused; errors with the line and
// column of syntax errors and the field).
func decodeStrict(data []byte, v any, source string) error {
	return jsonin.Decode(data, v, source)
}

// rawChain keeps P as a slice so that a matrix of the wrong shape is
// reported instead of silently padded or truncated.
type rawChain struct {
	P [][]float64 `json:"P"`
}

func (r rawChain) chain(source string) (Chain, error) {
	var c Chain
	if r.P == nil {
		return c, fmt.Errorf("%s: missing field \"P\" (a 3x3 matrix [[puu,pur,pud],[pru,prr,prd],[pdu,pdr,pdd]])", source)
	}
	if len(r.P) != 3 {
		return c, fmt.Errorf("%s: \"P\" has %d rows, want 3 (u, r, d)", source, len(r.P))
	}
	for i, row := range r.P {
		if len(row) != 3 {
			return c, fmt.Errorf("%s: \"P\" row %d has %d entries, want 3", source, i, len(row))
		}
		copy(c.P[i][:], row)
	}
	return c, c.Validate(source)
}

// ParseChain reads one chain {"P": [[...],[...],[...]]} and validates it.
// source names the input in error messages (typically the file name).
func ParseChain(data []byte, source string) (Chain, error) {
	var r rawChain
	if err := decodeStrict(data, &r, source); err != nil {
		return Chain{}, err
	}
	return r.chain(source)
}

// ParseChainSet reads {"chains": [{"P": ...}, ...]} and validates every
// chain; errors name the chain's index.
func ParseChainSet(data []byte, source string) ([]Chain, error) {
	var r struct {
		Chains []rawChain `json:"chains"`
	}
	if err := decodeStrict(data, &r, source); err != nil {
		return nil, err
	}
	if r.Chains == nil {
		return nil, fmt.Errorf("%s: missing field \"chains\" (a list of {\"P\": ...} objects)", source)
	}
	if len(r.Chains) == 0 {
		return nil, fmt.Errorf("%s: \"chains\" is empty, want at least one chain", source)
	}
	out := make([]Chain, len(r.Chains))
	for i, rc := range r.Chains {
		c, err := rc.chain(fmt.Sprintf("%s: chains[%d]", source, i))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
