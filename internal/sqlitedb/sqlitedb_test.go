package sqlitedb

import (
	"path/filepath"
	"testing"
)

// TestOpenSettings: a database opened by Open is in WAL mode with
// synchronous=FULL (2), the busy timeout set, and the extra pragmas
// applied; a second connection sees the same settings (they are in the
// DSN, applied to every connection the pool opens).
func TestOpenSettings(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "x.db"), "foreign_keys(ON)", "cache_size(-512)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(2)
	tx, err := db.Begin() // holds one connection: the checks below use another
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, c := range []struct {
		pragma string
		want   string
	}{{"journal_mode", "wal"}, {"synchronous", "2"}, {"busy_timeout", "10000"}, {"foreign_keys", "1"}, {"cache_size", "-512"}} {
		var got string
		if err := db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
}
