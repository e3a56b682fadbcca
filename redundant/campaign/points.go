package campaign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
)

// PointsHeader is the first line of DIR/figN-points.jsonl: the
// configuration every stored point was computed with.
type PointsHeader struct {
	Figure       int      `json:"figure"`
	Seed         uint64   `json:"seed"`
	Reps         int      `json:"reps"`
	Algos        []string `json:"algos"`
	MovesPerHost int      `json:"moves_per_host"`
}

type labPoint struct {
	Key  string    `json:"key"`
	Mean []float64 `json:"mean"`
	SE   []float64 `json:"se"`
}

// PointFile is a redundant.PointStore backed by an append-only JSON-lines
// file: each finished point of a laboratory figure is written (and synced)
// as soon as it is computed, and a re-run with the same configuration skips
// the points already there.
type PointFile struct {
	mu     sync.Mutex
	f      *os.File
	points map[string]labPoint
}

// OpenPoints opens (or creates) DIR/figN-points.jsonl for the given
// configuration. A file written with another configuration is refused with
// an error naming the field; a torn last line (an interrupted write) is
// dropped.
func OpenPoints(dir string, h PointsHeader) (*PointFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fmt.Sprintf("fig%d-points.jsonl", h.Figure))
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	points, keep, err := parsePoints(data, path, h)
	if err != nil {
		return nil, err
	}
	s := &PointFile{points: points}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(int64(keep)); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(int64(keep), 0); err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	if keep == 0 {
		if err := s.writeLine(h); err != nil {
			f.Close()
			return nil, err
		}
	}
	return s, nil
}

// parsePoints reads the contents of a points file written for the
// configuration h: the points by key and how many bytes are complete,
// valid lines to keep (a torn last line, left by an interruption, is not
// kept). A file of another configuration or damaged before its last line
// is an error.
func parsePoints(data []byte, path string, h PointsHeader) (map[string]labPoint, int, error) {
	points := map[string]labPoint{}
	keep := 0 // bytes of data to keep (complete, valid lines)
	if len(data) == 0 {
		return points, 0, nil
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var got PointsHeader
	if !bytes.HasSuffix(lines[0], []byte("\n")) || json.Unmarshal(lines[0], &got) != nil {
		return nil, 0, fmt.Errorf("%s: line 1 is not a figure header; remove the file or choose another --out", path)
	}
	if err := sameLabConfig(path, got, h); err != nil {
		return nil, 0, err
	}
	keep = len(lines[0])
	for i, l := range lines[1:] {
		if len(l) == 0 {
			continue
		}
		var p labPoint
		complete := bytes.HasSuffix(l, []byte("\n"))
		if err := json.Unmarshal(l, &p); err != nil || !complete {
			if i == len(lines)-2 { // the last line: torn by an interruption
				break
			}
			return nil, 0, fmt.Errorf("%s: line %d is damaged (%v); remove the file to recompute", path, i+2, err)
		}
		points[p.Key] = p
		keep += len(l)
	}
	return points, keep, nil
}

func sameLabConfig(path string, got, want PointsHeader) error {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := 0; i < gv.NumField(); i++ {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			name := reflect.TypeOf(got).Field(i).Tag.Get("json")
			return fmt.Errorf("%s: its points were computed with %s = %v, this run has %v; use another --out (or remove the file) to recompute",
				path, name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
	return nil
}

func (s *PointFile) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(s.f)
	w.Write(b)
	w.WriteByte('\n')
	if err := w.Flush(); err != nil {
		return err
	}
	return s.f.Sync()
}

// Get returns a stored point.
func (s *PointFile) Get(key string) ([]float64, []float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.points[key]
	return p.Mean, p.SE, ok
}

// Put appends a finished point to the file.
func (s *PointFile) Put(key string, mean, se []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := labPoint{Key: key, Mean: mean, SE: se}
	s.points[key] = p
	return s.writeLine(p)
}

// Close closes the file.
func (s *PointFile) Close() error { return s.f.Close() }
