package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrIncomplete is wrapped by the errors of LoadComplete and Merge when
// some units of the campaign have no result.
var ErrIncomplete = errors.New("campaign incomplete")

// Load reads the manifest and every results file of dir (a shard's
// directory, or a merged one). results[u] is unit u's result and present[u]
// says whether there is one; both have length m.Units, so they are ordered
// by unit whatever the order of the lines. A unit found in several files
// must have identical results. A torn last line of a file is ignored (Load
// never modifies the directory).
func Load[R any](dir string) (m Manifest, results []R, present []bool, err error) {
	m, err = ReadManifest(dir)
	if err != nil {
		return m, nil, nil, err
	}
	results, present, err = loadResults[R](dir, m)
	if err != nil {
		return m, nil, nil, err
	}
	return m, results, present, nil
}

// loadResults is Load once the manifest m of dir is read.
func loadResults[R any](dir string, m Manifest) (results []R, present []bool, err error) {
	raw := make([]json.RawMessage, m.Units)
	from := make([]string, m.Units)
	if err := rawResults(dir, m.Units, raw, from); err != nil {
		return nil, nil, err
	}
	results = make([]R, m.Units)
	present = make([]bool, m.Units)
	for u, b := range raw {
		if b == nil {
			continue
		}
		if err := json.Unmarshal(b, &results[u]); err != nil {
			return nil, nil, fmt.Errorf("%s: unit %d: decode result: %w", from[u], u, err)
		}
		present[u] = true
	}
	return results, present, nil
}

// LoadComplete is Load for a campaign that must be complete: it returns an
// error wrapping ErrIncomplete, with the missing units, if some are absent.
// Summaries should be computed from its results (ordered by unit) so that
// they do not depend on workers or shards.
func LoadComplete[R any](dir string) (Manifest, []R, error) {
	m, rs, present, err := Load[R](dir)
	if err != nil {
		return m, nil, err
	}
	if err := checkComplete(dir, present); err != nil {
		return m, nil, err
	}
	return m, rs, nil
}

// checkComplete returns an error wrapping ErrIncomplete, naming dir and
// the missing units, if some unit is not present.
func checkComplete(dir string, present []bool) error {
	if miss := Missing(present); len(miss) > 0 {
		return fmt.Errorf("%s: %w: %s", dir, ErrIncomplete, describeMissing(miss, len(present)))
	}
	return nil
}

// Missing returns the units u with !present[u], in increasing order.
func Missing(present []bool) []int {
	var miss []int
	for u, ok := range present {
		if !ok {
			miss = append(miss, u)
		}
	}
	return miss
}

func describeMissing(miss []int, units int) string {
	const show = 10
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d units missing (", len(miss), units)
	for i, u := range miss {
		if i == show {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, u)
	}
	b.WriteString(")")
	return b.String()
}

// Merge combines the directories of the shards of one campaign into the
// directory out, which must not exist or be empty. The manifests must agree
// on everything but the shard (the error names the field that differs and
// the directories), and a unit found more than once must have identical
// results (else the error names the unit). out gets a manifest for shard
// 1/1 and one results file, results-1-of-1.jsonl, ordered by unit: it is
// exactly what an unsharded run would have left, so Load and the summaries
// work on it unchanged.
//
// If some units are missing, Merge still writes out (a run of the campaign
// with shard 1/1 and --out pointing at it computes just the missing units)
// and returns the manifest with an error wrapping ErrIncomplete that lists
// them.
func Merge(out string, dirs []string) (Manifest, error) {
	return MergeSummarized(out, dirs, nil)
}

// MergeSummarized is Merge that, when every unit is present, also calls
// summarize on out (which writes the campaign's summary there). If the
// summary cannot be made, out is left as it was before (removed, or
// emptied if it existed empty) and the error is returned: a directory that
// looks complete but whose summary fails is never left behind.
func MergeSummarized(out string, dirs []string, summarize func(m Manifest, dir string) error) (Manifest, error) {
	if len(dirs) == 0 {
		return Manifest{}, errors.New("merge: no shard directories given")
	}
	var m Manifest
	for i, d := range dirs {
		dm, err := ReadManifest(d)
		if err != nil {
			return Manifest{}, fmt.Errorf("merge: %w", err)
		}
		if i == 0 {
			m = dm
			continue
		}
		if err := SameCampaign(m, dm, dirs[0], d); err != nil {
			return Manifest{}, fmt.Errorf("merge: %s and %s are not shards of one campaign: %w", dirs[0], d, err)
		}
	}
	if err := checkEmptyDir(out); err != nil {
		return Manifest{}, fmt.Errorf("merge: --out %w", err)
	}
	for _, d := range dirs {
		if same, _ := sameDir(out, d); same {
			return Manifest{}, fmt.Errorf("merge: output %s is also an input", out)
		}
	}
	raw := make([]json.RawMessage, m.Units)
	from := make([]string, m.Units)
	for _, d := range dirs {
		if err := rawResultsInto(d, m.Units, raw, from); err != nil {
			return Manifest{}, fmt.Errorf("merge: %w", err)
		}
	}
	m.Shard = Whole
	present := make([]bool, m.Units)
	for u, b := range raw {
		present[u] = b != nil
	}
	miss := Missing(present)
	var buf bytes.Buffer
	for u, b := range raw {
		if b == nil {
			continue
		}
		fmt.Fprintf(&buf, `{"unit":%d,"result":`, u)
		buf.Write(b)
		buf.WriteString("}\n")
	}
	_, statErr := os.Stat(out)
	existed := statErr == nil
	undo := func(err error) (Manifest, error) {
		if existed {
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				os.RemoveAll(filepath.Join(out, e.Name()))
			}
		} else {
			os.RemoveAll(out)
		}
		return Manifest{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("merge: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(out, ResultsFileName(Whole)), buf.Bytes()); err != nil {
		return undo(fmt.Errorf("merge: %w", err))
	}
	if err := writeManifest(out, m); err != nil {
		return undo(fmt.Errorf("merge: %w", err))
	}
	m, err := ReadManifest(out)
	if err != nil {
		return undo(fmt.Errorf("merge: %w", err))
	}
	if len(miss) == 0 && summarize != nil {
		if err := summarize(m, out); err != nil {
			// The merged files are gone: do not name them.
			msg := strings.ReplaceAll(err.Error(), filepath.Join(out, ResultsFileName(Whole))+": ", "")
			return undo(fmt.Errorf("merge: the merged campaign cannot be summarized, so nothing was written to %s: %s", out, msg))
		}
	}
	if len(miss) > 0 {
		return m, fmt.Errorf("merge: %w: %s; %s holds what there is, and a run of the campaign with --shard 1/1 --out %s computes the rest",
			ErrIncomplete, describeMissing(miss, m.Units), out, out)
	}
	return m, nil
}

// rawResultsInto adds the results of dir to raw/from, checking that a unit
// already seen (in this or an earlier directory) has an identical result.
func rawResultsInto(dir string, units int, raw []json.RawMessage, from []string) error {
	r := make([]json.RawMessage, units)
	f := make([]string, units)
	if err := rawResults(dir, units, r, f); err != nil {
		return err
	}
	for u, b := range r {
		if b == nil {
			continue
		}
		if raw[u] != nil {
			if !bytes.Equal(raw[u], b) {
				return fmt.Errorf("unit %d has different results in %s and %s: %s vs %s", u, from[u], f[u], abbrev(raw[u]), abbrev(b))
			}
			continue
		}
		raw[u], from[u] = b, f[u]
	}
	return nil
}

// checkEmptyDir accepts a directory that does not exist or is empty.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty (%d entries); give a new directory", dir, len(entries))
	}
	return nil
}

func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
