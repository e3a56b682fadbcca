// Package jsonin reads the JSON files users write for the command line
// (what-if platforms and applications, availability chains, allocation
// inputs, workload parameters, job descriptions): one object, strictly,
// with errors that begin with the input's name and say where the problem
// is and which field it is in.
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Decode decodes the one JSON object in data into v. where names the input
// in errors: a file name ("platform.json"), or a file and the part of it
// that data is ("platform.json: workers[3]").
//
// A UTF-8 byte-order mark at the start is skipped (editors on Windows
// write one). Refused, with an error naming the problem:
//
//   - empty input, or a value that is not an object ("got an array, want a
//     JSON object {...}");
//   - text in UTF-16 or UTF-32 (byte-order mark or NUL bytes);
//   - a syntax error: line and column (counted in characters, from 1), the
//     decoder's message and the field it is in ("in workers[0].w");
//   - NaN, Infinity and the like, which JSON does not have: named as such,
//     with the field;
//   - a value of the wrong type: the field with its array indices
//     ("field \"workers[1].w\": got JSON string, want an integer");
//   - an unknown field, a key twice in the same object (encoding/json would
//     keep the last silently), data after the object.
//
// Line and column are those of data: for a part of a file, where names the
// part and the field is relative to it.
func Decode(data []byte, v any, where string) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkEncoding(data, where); err != nil {
		return err
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return fmt.Errorf("%s: empty, want a JSON object", where)
	}
	if got := kind(data, len(data)-len(t)); got != "" {
		return fmt.Errorf("%s: got %s, want a JSON object {...}", where, got)
	}
	// Anything else that is not an object is a syntax error, reported with
	// its position below.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describe(data, err, where)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s:%s: unexpected data after the JSON object", where, Position(data, dec.InputOffset()))
	}
	return checkDuplicates(data, where)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// kind names the JSON value that starts at offset at when it is not an
// object ("an array", "NaN"), and is "" for an object or text that is no
// JSON value (a syntax error, reported with its position).
func kind(data []byte, at int) string {
	t := data[at:]
	if tok, _, ok := nonFinite(data, at); ok {
		return tok
	}
	switch {
	case t[0] == '[':
		return "an array"
	case t[0] == '"':
		return "a string"
	case bytes.HasPrefix(t, []byte("null")):
		return "null"
	case bytes.HasPrefix(t, []byte("true")) || bytes.HasPrefix(t, []byte("false")):
		return "a boolean"
	case t[0] == '-' || t[0] >= '0' && t[0] <= '9':
		return "a number"
	}
	return ""
}

// checkEncoding refuses UTF-16 and UTF-32 text, which encoding/json would
// report as an invalid character.
func checkEncoding(data []byte, where string) error {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return fmt.Errorf("%s: the text is UTF-16 or UTF-32 (it begins with the byte-order mark % X), want UTF-8", where, data[:2])
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return fmt.Errorf("%s: the text is UTF-32 (it begins with the byte-order mark 00 00 FE FF), want UTF-8", where)
	case bytes.IndexByte(data, 0) >= 0:
		return fmt.Errorf("%s:%s: NUL byte: the text looks like UTF-16 or UTF-32, want UTF-8", where, Position(data, int64(bytes.IndexByte(data, 0))))
	}
	return nil
}

func describe(data []byte, err error, where string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		at := int(se.Offset - 1)
		if tok, start, ok := nonFinite(data, at); ok {
			return fmt.Errorf("%s:%s: %sgot %s, want a number (JSON has no NaN or infinity)", where, Position(data, int64(start)), fieldOf(data, start), tok)
		}
		msg := se.Error()
		in := at
		if in > 0 && in < len(data) && strings.IndexByte(" \t\r\n,:{}[]", data[in]) >= 0 && isWord(data[in-1]) {
			in-- // a literal cut short ("tru}"): the field is the literal's
		}
		if f := PathAt(data, in); f != "" {
			msg += fmt.Sprintf(" (in %s)", f)
		}
		return fmt.Errorf("%s:%s: %s", where, Position(data, int64(at)), msg)
	case errors.As(err, &te):
		field := te.Field
		if p, ok := pathOfValueEnding(data, int(te.Offset)); ok {
			field = p
		}
		want := goType(te.Type.String())
		if want == "a number" && strings.HasPrefix(te.Value, "number") {
			want = "a number within ±1.8e308" // the value overflows a float64
		}
		if field == "" {
			return fmt.Errorf("%s: got JSON %s, want %s", where, te.Value, want)
		}
		return fmt.Errorf("%s: field %q: got JSON %s, want %s", where, field, te.Value, want)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the JSON ends early (unclosed object or array)", where)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("%s: unknown field %s", where, f)
	}
	return fmt.Errorf("%s: %s", where, strings.TrimPrefix(msg, "json: "))
}

// fieldOf is `field "PATH": ` for the value at offset at, or "" at the top.
func fieldOf(data []byte, at int) string {
	if f := PathAt(data, at); f != "" {
		return fmt.Sprintf("field %q: ", f)
	}
	return ""
}

// nonFinite reports whether the word around offset at spells a number
// JSON does not have (NaN or an infinity, in any case, with an optional
// sign), and returns it with its start.
func nonFinite(data []byte, at int) (tok string, start int, ok bool) {
	if at < 0 || at >= len(data) {
		return "", 0, false
	}
	// encoding/json stops after a sign, or inside "nan" (read as null).
	start = at
	for start > 0 && (isWord(data[start-1]) || data[start-1] == '-' || data[start-1] == '+') {
		start--
	}
	end := at
	for end < len(data) && (isWord(data[end]) || data[end] == '-' || data[end] == '+') {
		end++
	}
	tok = string(data[start:end])
	switch strings.ToLower(strings.TrimLeft(tok, "+-")) {
	case "nan", "inf", "infinity":
		return tok, start, true
	}
	return "", 0, false
}

func isWord(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.'
}

func goType(t string) string {
	switch strings.TrimPrefix(t, "*") {
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "an integer"
	case "float64", "float32", "jsonnum.Float":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	if strings.HasPrefix(t, "[]") || strings.HasPrefix(t, "[") {
		return "an array"
	}
	if strings.HasPrefix(t, "map[") || strings.Contains(t, ".") {
		return "an object"
	}
	return t
}

// Position is the line and column ("3:14", from 1) of byte offset off in
// data, columns counted in characters.
func Position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line, col := 1, 1
	for _, b := range data[:off] {
		switch {
		case b == '\n':
			line++
			col = 1
		case utf8.RuneStart(b):
			col++
		}
	}
	return fmt.Sprintf("%d:%d", line, col)
}

// checkDuplicates refuses an object with the same key twice, at any depth
// (encoding/json would silently keep the last one).
func checkDuplicates(data []byte, where string) error {
	dups := scan(data).dups
	if len(dups) == 0 {
		return nil
	}
	return fmt.Errorf("%s:%s: key %q appears twice in the same object", where, Position(data, int64(dups[0].at)), dups[0].key)
}

// PathAt is the field the byte at offset at of data belongs to, as a path
// from the top object ("workers[0].availability.chain.P[1][2]"; "" for the
// top object itself). It reads data leniently, so that it also names the
// place of a syntax error.
func PathAt(data []byte, at int) string {
	d := scan(data)
	in := -1
	for i, v := range d.values {
		if v.start > at {
			break
		}
		if v.end < 0 || v.end > at {
			in = i // values are in order of start: the last is the innermost
		}
	}
	return d.path(in)
}

// pathOfValueEnding is the path of the value that ends at offset end (as
// encoding/json's UnmarshalTypeError.Offset gives it for a scalar).
func pathOfValueEnding(data []byte, end int) (string, bool) {
	d := scan(data)
	for i, v := range d.values {
		if v.end == end {
			return d.path(i), true
		}
	}
	return "", false
}

// doc is what scan finds in a JSON text: its values in order of start and
// the keys that appear twice in an object.
type doc struct {
	values []value
	dups   []struct {
		key string
		at  int
	}
}

// value is one value of the text: where it starts, where it ends (one
// past its last byte; -1 for a container the text leaves open), the
// container it is in (an index in doc.values, -1 for the top) and its place
// there: a key in an object, an index in an array.
type value struct {
	start, end int
	parent     int
	key        string
	index      int
	inObject   bool
}

// path is the path of values[i] ("" for the top object, or i < 0).
func (d *doc) path(i int) string {
	var segs []string
	for ; i >= 0; i = d.values[i].parent {
		v := d.values[i]
		switch {
		case v.parent < 0:
		case v.inObject:
			segs = append(segs, "."+v.key)
		default:
			segs = append(segs, fmt.Sprintf("[%d]", v.index))
		}
	}
	var b strings.Builder
	for k := len(segs) - 1; k >= 0; k-- {
		b.WriteString(segs[k])
	}
	return strings.TrimPrefix(b.String(), ".")
}

// scan reads data as JSON, leniently: it never fails (a syntax error stops
// nothing), so that it also places the errors encoding/json reports. It
// takes time and memory linear in the text.
func scan(data []byte) *doc {
	type frame struct {
		value     int // index in d.values; -1 outside any container
		obj       bool
		index     int
		key       string
		expectKey bool
		keys      map[string]bool
	}
	d := &doc{}
	stack := []*frame{{value: -1}}
	add := func(start, end int) int {
		t := stack[len(stack)-1]
		d.values = append(d.values, value{start: start, end: end, parent: t.value, key: t.key, index: t.index, inObject: t.obj})
		return len(d.values) - 1
	}
	i := 0
	for i < len(data) {
		c := data[i]
		t := stack[len(stack)-1]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':':
			i++
		case c == ',':
			if t.obj {
				t.expectKey = true
			} else {
				t.index++
			}
			i++
		case c == '{' || c == '[':
			fr := &frame{value: add(i, -1), obj: c == '{', expectKey: c == '{'}
			if fr.obj {
				fr.keys = map[string]bool{}
			}
			stack = append(stack, fr)
			i++
		case c == '}' || c == ']':
			i++
			if len(stack) > 1 {
				d.values[t.value].end = i
				stack = stack[:len(stack)-1]
			}
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(data))
			if t.obj && t.expectKey {
				k := string(data[i+1 : max(j-1, i+1)])
				if bytes.IndexByte(data[i:j], '\\') >= 0 {
					json.Unmarshal(data[i:j], &k) // escapes: the key as encoding/json reads it
				}
				if t.keys[k] {
					d.dups = append(d.dups, struct {
						key string
						at  int
					}{k, i})
				}
				t.keys[k], t.key, t.expectKey = true, k, false
			} else {
				add(i, j)
			}
			i = j
		default: // a number, a literal, or a stray token
			j := i + 1
			for j < len(data) && strings.IndexByte(" \t\r\n,:{}[]\"", data[j]) < 0 {
				j++
			}
			add(i, j)
			i = j
		}
	}
	return d
}
