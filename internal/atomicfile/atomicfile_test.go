package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the file has the data and the mode; an existing file is
// replaced; no temporary file is left; a failed write (a directory that
// does not exist) returns an error and creates nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old content, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new" {
		t.Fatalf("content %q, %v: want \"new\"", b, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries in the directory, want only the file", len(ents))
	}
	missing := filepath.Join(dir, "no", "f")
	if err := Write(missing, []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing directory: no error")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the failed write left %s: %v", missing, err)
	}
}
