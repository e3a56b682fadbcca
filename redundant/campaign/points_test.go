package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLabPointsResume(t *testing.T) {
	dir := t.TempDir()
	h := PointsHeader{Figure: 3, Seed: 7, Reps: 20, Algos: []string{"ea", "ppb"}, MovesPerHost: 0}
	s, err := OpenPoints(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("a", []float64{0.1, 0.2}, []float64{0.01, 0.02}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("b", []float64{0.3, 0.4}, []float64{0.03, 0.04}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// An interruption tore a third line.
	path := filepath.Join(dir, "fig3-points.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"c","mean":[0.5`)
	f.Close()

	s, err = OpenPoints(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if m, _, ok := s.Get("b"); !ok || m[1] != 0.4 {
		t.Errorf("point b not kept: %v %v", m, ok)
	}
	if _, _, ok := s.Get("c"); ok {
		t.Error("torn point c was kept")
	}
	if err := s.Put("c", []float64{0.5, 0.6}, []float64{0, 0}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 4 {
		t.Errorf("file has %d lines, want header + 3 points:\n%s", n, data)
	}

	// Another configuration is refused, naming the field.
	h2 := h
	h2.Reps = 2000
	if _, err := OpenPoints(dir, h2); err == nil || !strings.Contains(err.Error(), "reps = 20") {
		t.Errorf("changed reps: %v", err)
	}
}

// FuzzLabPoints: the reader of exp redundant's points file keeps a prefix
// of complete lines (what it keeps reads back as the same points), or errs.
func FuzzLabPoints(f *testing.F) {
	h := PointsHeader{Figure: 1, Seed: 1, Reps: 10, Algos: []string{"ea", "ppb"}}
	hb, _ := json.Marshal(h)
	f.Add(append(hb, []byte("\n{\"key\":\"fig1/0/0\",\"mean\":[0.5,0.6],\"se\":[0.01,0.02]}\n{\"key\":\"fig1/0/1\",\"mea")...))
	f.Add(append(hb, []byte("\n\n{\"key\":\"a\"}\nnot json\n{}\n")...))
	f.Add([]byte(`{"figure":2,"seed":1}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		points, keep, err := parsePoints(data, "fig1-points.jsonl", h)
		if err != nil {
			return
		}
		if keep > len(data) || (keep > 0 && data[keep-1] != '\n') {
			t.Fatalf("keeps %d of %d bytes, not a prefix of whole lines", keep, len(data))
		}
		again, keep2, err := parsePoints(data[:keep], "again", h)
		if err != nil || keep2 != keep || !reflect.DeepEqual(again, points) {
			t.Fatalf("the kept prefix reads differently: %v, %d vs %d", err, keep2, keep)
		}
	})
}
