package whatif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// decodeStrict decodes one JSON object into v: unknown fields, duplicate
// keys, trailing data and null for the whole object are refused. where
// names the object in errors ("platform.json", "platform.json:
// workers[3]"); syntax errors carry their line and column in data.
func decodeStrict(data []byte, v any, where string) error {
	if t := bytes.TrimSpace(data); len(t) == 0 {
		return fmt.Errorf("%s: empty, want a JSON object", where)
	} else if t[0] != '{' {
		return fmt.Errorf("%s: got %s, want a JSON object {...}", where, jsonKind(t))
	}
	if err := checkDuplicates(data, where); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describe(data, err, where)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: unexpected data after the JSON object", where)
	}
	return nil
}

func jsonKind(t []byte) string {
	switch t[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func describe(data []byte, err error, where string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%s: %v", where, position(data, se.Offset-1), err)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(value)"
		}
		return fmt.Errorf("%s: field %q: got JSON %s, want %s", where, field, te.Value, goType(te.Type.String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the JSON ends early (unclosed object or array)", where)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("%s: unknown field %s", where, f)
	}
	return fmt.Errorf("%s: %s", where, strings.TrimPrefix(msg, "json: "))
}

func goType(t string) string {
	switch strings.TrimPrefix(t, "*") {
	case "int":
		return "an integer"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	if strings.HasPrefix(t, "[]") {
		return "an array"
	}
	if strings.HasPrefix(t, "map[") || strings.Contains(t, ".") {
		return "an object"
	}
	return t
}

func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
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

// checkDuplicates refuses an object with the same key twice, at any depth
// (encoding/json would silently keep the last one).
func checkDuplicates(data []byte, where string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // next string token in an object is a key
	}
	var stack []*frame
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // syntax errors are reported by the decoder
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if d, ok := tok.(json.Delim); !ok || d != '}' {
				k, _ := tok.(string)
				if top.keys[k] {
					at := before // skip the separator and spaces before the key
					for at < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[at]) >= 0 {
						at++
					}
					return fmt.Errorf("%s:%s: key %q appears twice in the same object", where, position(data, at), k)
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
				continue
			case '[':
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true // a value ended: a key comes next
		}
	}
}

// checkRange checks that a number read from a file is finite and in
// [lo, hi] (lo excluded when loOpen). JSON cannot carry NaN or ±Inf, and
// encoding/json refuses numbers that overflow float64, but the check keeps
// values built in Go honest too.
func checkRange(where, field string, v, lo, hi float64, loOpen bool, want string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v > hi || v < lo || (loOpen && v == lo) {
		return fmt.Errorf("%s: %s = %v, want %s", where, field, v, want)
	}
	return nil
}

func checkInt(where, field string, v, lo, hi int, want string) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %s = %d, want %s", where, field, v, want)
	}
	return nil
}
