// Package sqlitedb opens the embedded SQLite databases of the live master
// and the overlay daemons with the settings both rely on for durability:
// write-ahead logging (readers do not wait for the writer), synchronous=FULL
// (a committed transaction survives a power loss, not only a process kill)
// and a busy timeout, through the pure-Go driver modernc.org/sqlite.
package sqlitedb

import (
	"database/sql"
	"net/url"

	_ "modernc.org/sqlite" // the pure-Go database/sql driver "sqlite"
)

// Open opens (creating it) the database file at path with WAL,
// synchronous=FULL and a 10 s busy timeout, then the extra pragmas given as
// "name(value)" (e.g. "foreign_keys(ON)"), in order. Like sql.Open it does
// not touch the file: the first statement does.
func Open(path string, pragmas ...string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range append([]string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)"}, pragmas...) {
		q.Add("_pragma", p)
	}
	return sql.Open("sqlite", "file:"+path+"?"+q.Encode())
}
