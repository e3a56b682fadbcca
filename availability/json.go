package availability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// ChainSet is the JSON form of several chains: {"chains": [{"P": ...}, ...]}.
type ChainSet struct {
	Chains []Chain `json:"chains"`
}

// decodeStrict decodes one JSON value, rejecting unknown fields and trailing
// data, and reports syntax errors with their line and column.
func decodeStrict(data []byte, v any, source string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describeJSONError(data, err, source)
	}
	if dec.More() {
		return fmt.Errorf("%s: unexpected data after the JSON object", source)
	}
	return nil
}

func describeJSONError(data []byte, err error, source string) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		return fmt.Errorf("%s:%s: field %q: got JSON %s, want %s", source, position(data, off), e.Field, e.Value, e.Type)
	}
	if err == io.EOF {
		return fmt.Errorf("%s: empty input, want a JSON object", source)
	}
	if off >= 0 {
		return fmt.Errorf("%s:%s: %v", source, position(data, off), err)
	}
	return fmt.Errorf("%s: %v", source, err)
}

func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%d:%d", line, col)
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
