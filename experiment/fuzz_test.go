package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadResults: whatever bytes a results file holds, reading it returns
// lines or an error (never panics), keeps only well-formed lines of units
// of the shard, and a torn tail is never part of the good prefix.
func FuzzReadResults(f *testing.F) {
	f.Add([]byte("{\"unit\":0,\"result\":1}\n{\"unit\":2,\"result\":[1,2]}\n"))
	f.Add([]byte("{\"unit\":0,\"result\":1}\n{\"unit\":2,\"res"))
	f.Add([]byte("{\"unit\":1,\"result\":1}\n"))
	f.Add([]byte("\n\n"))
	f.Add([]byte("{\"unit\":0,\"result\":1,\"x\":2}\n"))
	f.Add([]byte("{\"unit\":0,\"result\":1}\n{\"unit\":0,\"result\":2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := Shard{1, 2}
		fl, err := readResultsFile(path, s, 10)
		if err != nil {
			return
		}
		if fl.good > int64(len(data)) || (fl.good > 0 && data[fl.good-1] != '\n') {
			t.Fatalf("good prefix %d of %d bytes does not end a line", fl.good, len(data))
		}
		if !fl.torn && fl.good != int64(len(data)) {
			t.Fatalf("not torn but only %d of %d bytes good", fl.good, len(data))
		}
		for _, l := range fl.lines {
			if !s.Owns(l.Unit) || l.Unit >= 10 || len(l.Result) == 0 {
				t.Fatalf("kept line %+v", l)
			}
		}
	})
}
