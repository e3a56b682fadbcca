package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/volsched/volsched/internal/atomicfile"
	"github.com/volsched/volsched/internal/jsondiff"
)

// ManifestFile is the name of the manifest in a campaign directory.
const ManifestFile = "manifest.json"

// Shard is one part of a campaign split into Count parts. Index is 1-based:
// 1 ≤ Index ≤ Count, written "i/n" on the command line (like Slurm array
// indices with --array=1-n). Unit u (0-based) belongs to shard
// (u mod Count) + 1. The zero Shard is not valid; the whole campaign is 1/1.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole is the shard holding every unit.
var Whole = Shard{Index: 1, Count: 1}

// String formats s as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Validate reports whether 1 ≤ Index ≤ Count.
func (s Shard) Validate() error {
	if s.Count < 1 {
		return fmt.Errorf("shard %s: count %d, want ≥ 1", s, s.Count)
	}
	if s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %s: index %d, want 1 ≤ i ≤ %d (shards are numbered from 1)", s, s.Index, s.Count)
	}
	return nil
}

// Owns reports whether unit u belongs to shard s.
func (s Shard) Owns(u int) bool { return u >= 0 && u%s.Count == s.Index-1 }

// Units returns the units of a campaign of total units that belong to s,
// in increasing order.
func (s Shard) Units(total int) []int {
	var us []int
	for u := s.Index - 1; u < total; u += s.Count {
		us = append(us, u)
	}
	return us
}

// ParseShard parses "i/n" (1 ≤ i ≤ n). flag names the command-line flag in
// error messages (e.g. "--shard").
func ParseShard(flag, v string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%s %q: want i/n, e.g. 2/8 for the second of 8 shards (numbered from 1)", flag, v)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%s %q: i and n must be integers, want i/n, e.g. 2/8", flag, v)
	}
	s := Shard{Index: i, Count: n}
	if n < 1 {
		return Shard{}, fmt.Errorf("%s %q: shard count %d, want n ≥ 1", flag, v, n)
	}
	if i < 1 || i > n {
		return Shard{}, fmt.Errorf("%s %q: shard index %d, want 1 ≤ i ≤ %d (shards are numbered from 1, e.g. Slurm --array=1-%d)", flag, v, i, n, n)
	}
	return s, nil
}

// Manifest identifies a campaign: what it computes (Kind and Params), from
// which seed, how many units it has, and which shard of it a directory was
// created for. Two runs belong to the same campaign when Kind, Seed, Units
// and Params agree; Params are compared in canonical form (see
// CanonicalJSON), so key order and spacing do not matter.
type Manifest struct {
	Kind   string          `json:"kind"`
	Seed   uint64          `json:"seed"`
	Units  int             `json:"units"`
	Params json.RawMessage `json:"params,omitempty"`
	Shard  Shard           `json:"shard"`
}

// MaxUnits bounds the units of a campaign: the runner keeps a few words
// per unit (the seed-001 campaign in full has 2,964).
const MaxUnits = 1 << 24

// Validate checks the fields of m.
func (m Manifest) Validate() error {
	if m.Kind == "" {
		return errors.New("manifest: kind is empty, want the campaign's kind (e.g. \"independent\")")
	}
	if m.Units < 0 || m.Units > MaxUnits {
		return fmt.Errorf("manifest: units %d, want 0 to %d", m.Units, MaxUnits)
	}
	if len(m.Params) > 0 && !json.Valid(m.Params) {
		return fmt.Errorf("manifest: params are not valid JSON: %.80q", m.Params)
	}
	if err := m.Shard.Validate(); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return nil
}

// ValidateParams calls the Validate method of a campaign's parameters, if
// they have one (on the value or on a pointer to it): a runner checks the
// grid with it before the first unit, so that a degenerate grid is refused
// instead of computed and then rejected by the summary.
func ValidateParams(p any) error {
	type validator interface{ Validate() error }
	if v, ok := p.(validator); ok {
		return v.Validate()
	}
	rv := reflect.ValueOf(p)
	if !rv.IsValid() || rv.Kind() == reflect.Pointer {
		return nil
	}
	ptr := reflect.New(rv.Type())
	ptr.Elem().Set(rv)
	if v, ok := ptr.Interface().(validator); ok {
		return v.Validate()
	}
	return nil
}

// CanonicalJSON marshals v (or re-encodes v when it is already JSON bytes,
// []byte or json.RawMessage) into a canonical form: object keys sorted, no
// insignificant space, numbers kept exactly as written. Use it to build
// Manifest.Params.
func CanonicalJSON(v any) (json.RawMessage, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("canonical JSON: %w", err)
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("canonical JSON: trailing data after the value")
	}
	// encoding/json sorts map keys and writes json.Number verbatim.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// canonical returns a copy of m with canonical Params.
func (m Manifest) canonical() (Manifest, error) {
	p, err := CanonicalJSON(m.Params)
	if err != nil {
		return m, fmt.Errorf("manifest params: %w", err)
	}
	m.Params = p
	return m, nil
}

// SameCampaign reports, as an error naming the first field that differs,
// whether a and b describe the same campaign (Kind, Seed, Units, Params;
// the shard is not compared). aName and bName say where each came from.
func SameCampaign(a, b Manifest, aName, bName string) error {
	ca, err := a.canonical()
	if err != nil {
		return fmt.Errorf("%s: %w", aName, err)
	}
	cb, err := b.canonical()
	if err != nil {
		return fmt.Errorf("%s: %w", bName, err)
	}
	switch {
	case ca.Kind != cb.Kind:
		return fmt.Errorf("kind differs: %q in %s, %q in %s", ca.Kind, aName, cb.Kind, bName)
	case ca.Seed != cb.Seed:
		return fmt.Errorf("seed differs: %d in %s, %d in %s", ca.Seed, aName, cb.Seed, bName)
	case ca.Units != cb.Units:
		return fmt.Errorf("units differs: %d in %s, %d in %s", ca.Units, aName, cb.Units, bName)
	case !bytes.Equal(ca.Params, cb.Params):
		return fmt.Errorf("params differ: %s", jsondiff.Describe(ca.Params, cb.Params, aName, bName))
	}
	return nil
}

func abbrev(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	return parseManifest(b, path)
}

// parseManifest is ReadManifest on the file's contents.
func parseManifest(b []byte, path string) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	return m.canonical()
}

// writeManifest writes m to dir/manifest.json atomically (temporary file,
// then rename).
func writeManifest(dir string, m Manifest) error {
	m, err := m.canonical()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// writeFileAtomic writes data to path (mode 0644, as figures and reports)
// with atomicfile.Write, its error naming path.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func newIndentEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc
}
