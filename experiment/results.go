package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// ResultsFileName is the name of the results file of shard s:
// "results-<i>-of-<n>.jsonl".
func ResultsFileName(s Shard) string {
	return fmt.Sprintf("results-%d-of-%d.jsonl", s.Index, s.Count)
}

var resultsFileRE = regexp.MustCompile(`^results-([0-9]+)-of-([0-9]+)\.jsonl$`)

// line is one line of a results file.
type line struct {
	Unit   int             `json:"unit"`
	Result json.RawMessage `json:"result"`
}

// fileLines is what readResultsFile found in one results file.
type fileLines struct {
	path  string
	shard Shard
	lines []line
	// good is the byte length of the well-formed prefix (complete lines);
	// torn says whether anything followed it (a torn last line).
	good int64
	torn bool
}

// readResultsFile reads a results file of shard s of a campaign of units
// units. A last line that is incomplete (no final newline) or not valid
// JSON is reported through torn and excluded from good; a bad line before
// the last one is an error. A missing file is empty.
func readResultsFile(path string, s Shard, units int) (fileLines, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileLines{path: path, shard: s}, nil
	}
	if err != nil {
		return fileLines{path: path, shard: s}, fmt.Errorf("read results: %w", err)
	}
	return parseResults(data, path, s, units)
}

// parseResults is readResultsFile on the file's contents.
func parseResults(data []byte, path string, s Shard, units int) (fileLines, error) {
	fl := fileLines{path: path, shard: s}
	seen := map[int]int{} // unit → line number
	off := 0
	for n := 1; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0 || off+end+1 == len(data)
		if end < 0 {
			fl.torn = true // no final newline: the write was cut
			break
		}
		raw := data[off : off+end]
		var l line
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		derr := dec.Decode(&l)
		if derr == nil && (len(l.Result) == 0 || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`{`))) {
			derr = errors.New(`want {"unit": u, "result": ...}`)
		}
		if derr != nil {
			if last {
				fl.torn = true
				break
			}
			return fl, fmt.Errorf("%s line %d: %v (the file is damaged before its last line; remove the line or the file to recompute)", path, n, derr)
		}
		if l.Unit < 0 || l.Unit >= units {
			return fl, fmt.Errorf("%s line %d: unit %d, want 0 ≤ unit < %d (the campaign's units)", path, n, l.Unit, units)
		}
		if !s.Owns(l.Unit) {
			return fl, fmt.Errorf("%s line %d: unit %d does not belong to shard %s", path, n, l.Unit, s)
		}
		if prev, dup := seen[l.Unit]; dup {
			// Possible only if two processes ran the same shard at once.
			if !bytes.Equal(compact(fl.lines[prev].Result), compact(l.Result)) {
				return fl, fmt.Errorf("%s: unit %d appears on lines %d and %d with different results", path, l.Unit, prev+1, n)
			}
		} else {
			seen[l.Unit] = len(fl.lines)
		}
		fl.lines = append(fl.lines, l)
		off += end + 1
		fl.good = int64(off)
	}
	return fl, nil
}

// compact removes insignificant space from JSON (used to compare results).
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// resultsFiles lists the results files of dir with their shards, sorted by
// shard count then index.
func resultsFiles(dir string) ([]fileLines, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list results: %w", err)
	}
	var out []fileLines
	for _, e := range entries {
		m := resultsFileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		s := Shard{Index: i, Count: n}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err)
		}
		out = append(out, fileLines{path: filepath.Join(dir, e.Name()), shard: s})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].shard.Count != out[b].shard.Count {
			return out[a].shard.Count < out[b].shard.Count
		}
		return out[a].shard.Index < out[b].shard.Index
	})
	return out, nil
}

// rawResults gathers the results of every results file of dir: raw[u] is
// unit u's result (nil when absent) and from[u] the file it came from.
// Units present in several files must have identical results.
func rawResults(dir string, units int, raw []json.RawMessage, from []string) error {
	files, err := resultsFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		fl, err := readResultsFile(f.path, f.shard, units)
		if err != nil {
			return err
		}
		for _, l := range fl.lines {
			r := compact(l.Result)
			if raw[l.Unit] != nil {
				if !bytes.Equal(raw[l.Unit], r) {
					return fmt.Errorf("unit %d has different results in %s and %s: %s vs %s",
						l.Unit, from[l.Unit], f.path, abbrev(raw[l.Unit]), abbrev(r))
				}
				continue
			}
			raw[l.Unit] = r
			from[l.Unit] = f.path
		}
	}
	return nil
}
