package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Params is what LoadCampaign needs of a campaign's parameters type P: a
// pointer to it that validates the parameters (errors naming the field,
// the value and what is expected) and counts the campaign's units.
type Params[P any] interface {
	*P
	Validate() error
	Units() int
}

// LoadCampaign reads the complete campaign of kind in dir for its summary:
// the manifest, the parameters decoded into P and validated, and the
// results ordered by unit (LoadComplete). Its errors name the directory or
// file: a missing or invalid manifest, another kind, parameters that do
// not decode (the field, its value and the type wanted) or that Validate
// refuses, a manifest whose units are not the ones its parameters give,
// damaged results files, and missing units (wrapping ErrIncomplete).
//
// Type inference needs only P and R:
//
//	m, p, results, err := experiment.LoadCampaign[CampaignParams, UnitResult](dir, Kind)
func LoadCampaign[P, R any, PP Params[P]](dir, kind string) (Manifest, PP, []R, error) {
	m, p, results, present, err := LoadCampaignPartial[P, R, PP](dir, kind)
	if err != nil {
		return m, nil, nil, err
	}
	if err := checkComplete(dir, present); err != nil {
		return m, nil, nil, err
	}
	return m, p, results, nil
}

// LoadCampaignPartial is LoadCampaign for a campaign that may be
// unfinished: present[u] says whether results[u] is unit u's result (Load).
func LoadCampaignPartial[P, R any, PP Params[P]](dir, kind string) (m Manifest, p PP, results []R, present []bool, err error) {
	m, err = ReadManifest(dir)
	if err != nil {
		return m, nil, nil, nil, err
	}
	path := filepath.Join(dir, ManifestFile)
	if m.Kind != kind {
		return m, nil, nil, nil, fmt.Errorf("%s: kind %q, want %q (the directory of another campaign)", path, m.Kind, kind)
	}
	p = PP(new(P))
	if err := decodeParams(m.Params, p); err != nil {
		return m, nil, nil, nil, fmt.Errorf("%s: params: %w", path, err)
	}
	if err := p.Validate(); err != nil {
		return m, nil, nil, nil, fmt.Errorf("%s: params: %w", path, err)
	}
	if n := p.Units(); n != m.Units {
		return m, nil, nil, nil, fmt.Errorf("%s: units %d, but its params give %d units (the manifest was edited or written by another version of the program)", path, m.Units, n)
	}
	results, present, err = loadResults[R](dir, m)
	if err != nil {
		return m, nil, nil, nil, err
	}
	return m, p, results, present, nil
}

// decodeParams decodes a manifest's params into p. A value of the wrong
// type is reported with its field, its value (as in the manifest) and the
// Go type wanted.
func decodeParams(raw json.RawMessage, p any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return errors.New("none, want the campaign's parameters (a JSON object)")
	}
	err := json.Unmarshal(raw, p)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	if te.Field == "" {
		return fmt.Errorf("a JSON %s, want an object (%s)", te.Value, te.Type)
	}
	b := lookupField(raw, te.Field)
	switch {
	case b == nil:
		return fmt.Errorf("field %q is a JSON %s, want a value of type %s", te.Field, te.Value, te.Type)
	case b[0] == '[' && te.Value != "array":
		return fmt.Errorf("field %q is %s: an element is a JSON %s, want a value of type %s", te.Field, abbrev(b), te.Value, te.Type)
	}
	return fmt.Errorf("field %q is %s, want a value of type %s", te.Field, abbrev(b), te.Type)
}

// lookupField returns the JSON value at path (object keys separated by
// dots, as in json.UnmarshalTypeError.Field; keys matched as
// encoding/json matches them, exactly or else without case), or nil when
// the path leads through something other than an object.
func lookupField(raw json.RawMessage, path string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	for key := range strings.SplitSeq(path, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		v, ok := obj[key]
		if !ok {
			for k, kv := range obj {
				if strings.EqualFold(k, key) {
					v, ok = kv, true
					break
				}
			}
		}
		if !ok {
			return nil
		}
		raw = bytes.TrimSpace(v)
	}
	if len(raw) == 0 {
		return nil
	}
	return raw
}
