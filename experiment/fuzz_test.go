package experiment

import (
	"encoding/json"
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
	// The parser, not the file: a temporary directory per input (as this
	// target had) holds the fuzzer to a few hundred inputs a second and
	// stalls it while it cleans up.
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Shard{1, 2}
		fl, err := parseResults(data, "r.jsonl", s, 10)
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

// FuzzParseManifest: whatever a manifest.json holds, reading it returns a
// valid manifest or an error (never panics), and a manifest read is
// written back (as writeManifest does) into one that reads the same.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"kind":"independent","seed":1,"units":2964,"params":{"p":20,"n":[5,10]},"shard":{"index":1,"count":1}}`))
	f.Add([]byte(`{"kind":"x","seed":18446744073709551615,"units":0,"shard":{"index":3,"count":8}}`))
	f.Add([]byte(`{"kind":"","units":-1,"shard":{"index":0,"count":0}}`))
	f.Add([]byte(`{"kind":"k","units":1,"params":1e999,"shard":{"index":1,"count":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b, "manifest.json")
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("read a manifest that does not validate: %v", err)
		}
		out, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatalf("manifest %+v does not encode: %v", m, err)
		}
		back, err := parseManifest(out, "again")
		if err != nil {
			t.Fatalf("written manifest %s does not read back: %v", out, err)
		}
		if err := SameCampaign(m, back, "read", "written"); err != nil || m.Shard != back.Shard {
			t.Fatalf("round trip changed the manifest: %v (shard %v, %v)", err, m.Shard, back.Shard)
		}
	})
}
