package master

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/internal/sqlitedb"
)

// DBFile is the master's database in the state directory.
const DBFile = "master.db"

// DB is the master's durable state: SQLite (pure Go) in WAL mode with
// synchronous=FULL, so that a committed transaction survives a crash of
// the process or the machine.
type DB struct {
	db *sql.DB
}

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens(name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, created TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS iterations(iter INTEGER PRIMARY KEY, ntasks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(iter INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL, PRIMARY KEY(iter, idx));
CREATE TABLE IF NOT EXISTS results(iter INTEGER NOT NULL, idx INTEGER NOT NULL, digest TEXT NOT NULL, worker TEXT NOT NULL, attempt INTEGER NOT NULL, at TEXT NOT NULL, PRIMARY KEY(iter, idx));
CREATE TABLE IF NOT EXISTS measures(id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS result_data(digest TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tokens_version(id INTEGER PRIMARY KEY CHECK (id = 1), v INTEGER NOT NULL);
INSERT OR IGNORE INTO tokens_version(id, v) VALUES(1, 0);
CREATE TRIGGER IF NOT EXISTS tokens_version_insert AFTER INSERT ON tokens BEGIN UPDATE tokens_version SET v = v + 1; END;
CREATE TRIGGER IF NOT EXISTS tokens_version_update AFTER UPDATE ON tokens BEGIN UPDATE tokens_version SET v = v + 1; END;
CREATE TRIGGER IF NOT EXISTS tokens_version_delete AFTER DELETE ON tokens BEGIN UPDATE tokens_version SET v = v + 1; END;
`

// OpenDB opens (creating it) the database of a state directory.
func OpenDB(stateDir string) (*DB, error) {
	p := filepath.Join(stateDir, DBFile)
	db, err := sqlitedb.Open(p, "foreign_keys(ON)")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &DB{db: db}, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Meta reads a meta value ("" if absent).
func (d *DB) Meta(key string) (string, error) {
	var v string
	err := d.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a meta value.
func (d *DB) SetMeta(key, value string) error {
	_, err := d.db.Exec(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// AddToken makes a token for worker name and stores its hash; the token
// itself is returned once and never stored.
func (d *DB) AddToken(name string) (string, error) {
	if !tokenName.MatchString(name) {
		return "", fmt.Errorf("worker name %q: want 1-64 characters [A-Za-z0-9._-], starting with a letter or digit", name)
	}
	tok, err := pki.NewToken()
	if err != nil {
		return "", err
	}
	res, err := d.db.Exec(`INSERT INTO tokens(name, hash, created) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET hash = excluded.hash, created = excluded.created, revoked = 0 WHERE tokens.revoked = 1`,
		name, pki.HashToken(tok), time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return "", err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", fmt.Errorf("worker %q already has a token (revoke it first to make a new one)", name)
	}
	return tok, nil
}

// CopyTokens copies from's valid tokens (their hashes) into d: a name d
// has no valid token for gets from's; a name with a valid token in d keeps
// it (kept counts those). For the next application of a pool of workers:
// its new state directory accepts their tokens.
func (d *DB) CopyTokens(from *DB) (copied, kept int, err error) {
	rows, err := from.db.Query(`SELECT name, hash, created FROM tokens WHERE revoked = 0 ORDER BY name`)
	if err != nil {
		return 0, 0, err
	}
	type tok struct{ name, hash, created string }
	var toks []tok
	for rows.Next() {
		var t tok
		if err := rows.Scan(&t.name, &t.hash, &t.created); err != nil {
			rows.Close()
			return 0, 0, err
		}
		toks = append(toks, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	tx, err := d.db.Begin()
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	for _, t := range toks {
		res, err := tx.Exec(`INSERT INTO tokens(name, hash, created) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET hash = excluded.hash, created = excluded.created, revoked = 0 WHERE tokens.revoked = 1`,
			t.name, t.hash, t.created)
		if err != nil {
			return 0, 0, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			copied++
		} else {
			kept++
		}
	}
	return copied, kept, tx.Commit()
}

// RevokeToken revokes worker name's token.
func (d *DB) RevokeToken(name string) error {
	res, err := d.db.Exec(`UPDATE tokens SET revoked = 1 WHERE name = ? AND revoked = 0`, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("worker %q has no valid token", name)
	}
	return nil
}

// TokensVersion changes whenever the tokens table does (any writer, any
// process: triggers count the changes), so that a master can poll it
// instead of rereading every token.
func (d *DB) TokensVersion() (int64, error) {
	var v int64
	err := d.db.QueryRow(`SELECT v FROM tokens_version WHERE id = 1`).Scan(&v)
	return v, err
}

// Tokens returns the valid tokens' hashes → worker names.
func (d *DB) Tokens() (map[string]string, error) {
	rows, err := d.db.Query(`SELECT hash, name FROM tokens WHERE revoked = 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var h, n string
		if err := rows.Scan(&h, &n); err != nil {
			return nil, err
		}
		m[h] = n
	}
	return m, rows.Err()
}

// Progress is what the database says of the application.
type Progress struct {
	Iter     int // the last iteration with tasks written (−1: none)
	Tasks    []TaskSpec
	Finished bool // an iteration with no task was written
}

// LoadProgress reads the last iteration, its tasks and their results.
func (d *DB) LoadProgress() (Progress, error) {
	p := Progress{Iter: -1}
	var iter, n sql.NullInt64
	err := d.db.QueryRow(`SELECT iter, ntasks FROM iterations ORDER BY iter DESC LIMIT 1`).Scan(&iter, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	p.Iter = int(iter.Int64)
	if n.Int64 == 0 {
		p.Finished = true
		return p, nil
	}
	rows, err := d.db.Query(`SELECT t.name, t.digest, t.size, COALESCE(r.digest, '') FROM tasks t LEFT JOIN results r ON r.iter = t.iter AND r.idx = t.idx WHERE t.iter = ? ORDER BY t.idx`, p.Iter)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var s TaskSpec
		if err := rows.Scan(&s.Name, &s.Digest, &s.Size, &s.Result); err != nil {
			return p, err
		}
		p.Tasks = append(p.Tasks, s)
	}
	return p, rows.Err()
}

// StoredResult is a result as the database holds it: its digest, and its
// bytes when they were sent inline (small results) rather than as a blob.
type StoredResult struct {
	Name   string
	Digest string
	Data   []byte // nil: in the blob store
}

// Results returns iteration iter's results in task order.
func (d *DB) Results(iter int) ([]StoredResult, error) {
	rows, err := d.db.Query(`SELECT t.name, r.digest, rd.data FROM results r JOIN tasks t ON t.iter = r.iter AND t.idx = r.idx
		LEFT JOIN result_data rd ON rd.digest = r.digest WHERE r.iter = ? ORDER BY r.idx`, iter)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredResult
	for rows.Next() {
		var r StoredResult
		if err := rows.Scan(&r.Name, &r.Digest, &r.Data); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AddIteration writes an iteration's tasks in one transaction (none: the
// application is finished).
func (d *DB) AddIteration(iter int, specs []TaskSpec) error {
	tx, err := d.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO iterations(iter, ntasks) VALUES(?, ?)`, iter, len(specs)); err != nil {
		return err
	}
	ins, err := tx.Prepare(`INSERT INTO tasks(iter, idx, name, digest, size) VALUES(?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for i, s := range specs {
		if _, err := ins.Exec(iter, i, s.Name, s.Digest, s.Size); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// AddResults writes accepted results in one transaction (group commit).
// A result already there for the same task is an error: it would be
// counted twice.
func (d *DB) AddResults(acc []Accepted) error {
	tx, err := d.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	ins, err := tx.Prepare(`INSERT INTO results(iter, idx, digest, worker, attempt, at) VALUES(?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	var data *sql.Stmt
	for _, a := range acc {
		if _, err := ins.Exec(a.Iter, a.Task, a.Digest, a.Worker, a.Attempt, now); err != nil {
			return fmt.Errorf("result of task %s of iteration %d: %v", a.Name, a.Iter, err)
		}
		if a.Data == nil {
			continue
		}
		if data == nil {
			if data, err = tx.Prepare(`INSERT INTO result_data(digest, data) VALUES(?, ?) ON CONFLICT(digest) DO NOTHING`); err != nil {
				return err
			}
			defer data.Close()
		}
		if _, err := data.Exec(a.Digest, a.Data); err != nil {
			return fmt.Errorf("result of task %s of iteration %d: %v", a.Name, a.Iter, err)
		}
	}
	return tx.Commit()
}

// CountResults is the number of results stored for iteration iter.
func (d *DB) CountResults(iter int) (int, error) {
	var n int
	err := d.db.QueryRow(`SELECT COUNT(*) FROM results WHERE iter = ?`, iter).Scan(&n)
	return n, err
}

// SaveMeasures stores the machine's measurements.
func (d *DB) SaveMeasures(s Saved) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = d.db.Exec(`INSERT INTO measures(id, state) VALUES(1, ?) ON CONFLICT(id) DO UPDATE SET state = excluded.state`, string(b))
	return err
}

// LoadMeasures reads the stored measurements (zero if none).
func (d *DB) LoadMeasures() (Saved, error) {
	var s Saved
	var b string
	err := d.db.QueryRow(`SELECT state FROM measures WHERE id = 1`).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal([]byte(b), &s)
}

// ResultsByIndex returns iteration iter's results: task index → digest.
func (d *DB) ResultsByIndex(iter int) (map[int]string, error) {
	rows, err := d.db.Query(`SELECT idx, digest FROM results WHERE iter = ?`, iter)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[int]string{}
	for rows.Next() {
		var i int
		var dg string
		if err := rows.Scan(&i, &dg); err != nil {
			return nil, err
		}
		m[i] = dg
	}
	return m, rows.Err()
}

// IterationTime reads a state directory's event log and returns the time
// spent in iterations (each from its start to its last result: the driver
// runs between iterations are not counted, as the model has none) and the
// number of iterations completed. With restarts, only the last master
// process's iterations are counted from their (re)start.
func IterationTime(stateDir string) (time.Duration, int, error) {
	data, err := os.ReadFile(filepath.Join(stateDir, "events.jsonl"))
	if err != nil {
		return 0, 0, err
	}
	var total, start int64
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r LogRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return 0, 0, fmt.Errorf("%s: %v", filepath.Join(stateDir, "events.jsonl"), err)
		}
		switch r.Kind {
		case LogIter, LogStart:
			start = r.T
		case LogIterDone:
			total += r.T - start
			n++
		}
	}
	return time.Duration(total), n, nil
}

// AddTokens makes tokens for many workers in one transaction (load tests,
// provisioning); it returns name → token.
func (d *DB) AddTokens(names []string) (map[string]string, error) {
	tx, err := d.db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := map[string]string{}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, n := range names {
		if !tokenName.MatchString(n) {
			return nil, fmt.Errorf("worker name %q: want 1-64 characters [A-Za-z0-9._-]", n)
		}
		tok, err := pki.NewToken()
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO tokens(name, hash, created) VALUES(?, ?, ?)`, n, pki.HashToken(tok), now); err != nil {
			return nil, fmt.Errorf("worker %q: %v", n, err)
		}
		out[n] = tok
	}
	return out, tx.Commit()
}
