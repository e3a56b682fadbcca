package node

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/sqlitedb"
)

// store is a node's durable state: the bags submitted there with their
// tasks' states and results, the blobs (programs, inputs, outputs) by
// SHA-256, and the results this node computed for other submission nodes
// that they have not yet acknowledged. SQLite in WAL mode with
// synchronous=FULL: a committed transaction survives a crash of the
// process or the machine.
//
// Writes go through one goroutine that groups the operations queued
// meanwhile into one transaction (one fsync for many results); each
// operation's callback runs after the commit, so an acknowledgement sent
// from it is only sent once its result is durable. Reads the node needs
// while it runs go through another goroutine (read), in order: the node's
// loop never waits on the disk.
type store struct {
	db    *sql.DB
	ops   chan storeOp
	reads chan func()
	wg    sync.WaitGroup
	once  sync.Once
	// readGate, when set (tests), is called before each blob read: a test
	// makes the disk slow with it.
	readGate atomic.Pointer[func()]
}

type storeOp struct {
	fn   func(tx *sql.Tx) error
	done func(error)
}

const schema = `
CREATE TABLE IF NOT EXISTS blobs(digest TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS bags(id INTEGER PRIMARY KEY, job TEXT NOT NULL, submitted REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(
	bag INTEGER NOT NULL, idx INTEGER NOT NULL, input TEXT NOT NULL,
	state INTEGER NOT NULL, node TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 0,
	exit INTEGER NOT NULL DEFAULT 0, output TEXT NOT NULL DEFAULT '', err TEXT NOT NULL DEFAULT '',
	start REAL NOT NULL DEFAULT 0, finish REAL NOT NULL DEFAULT 0,
	PRIMARY KEY(bag, idx));
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS held(bag INTEGER NOT NULL, idx INTEGER NOT NULL, submitter TEXT NOT NULL,
	result TEXT NOT NULL, PRIMARY KEY(bag, idx, submitter));
`

// openStore opens (creating) dir/node.db.
func openStore(dir string) (*store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	p := filepath.Join(dir, "node.db")
	db, err := sqlitedb.Open(p, "cache_size(-512)") // KiB: a node's state is small
	if err != nil {
		return nil, fmt.Errorf("state database %s: %w", p, err)
	}
	db.SetMaxOpenConns(4) // WAL: readers do not wait for the writer's commit
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("state database %s: %w", p, err)
	}
	s := &store{db: db, ops: make(chan storeOp, 4096), reads: make(chan func(), 4096)}
	s.wg.Add(2)
	go s.run()
	go func() {
		defer s.wg.Done()
		for f := range s.reads {
			f()
		}
	}()
	return s, nil
}

// read runs f (which reads the database and hands its answer on) in the
// store's reader goroutine, after the reads queued before it.
func (s *store) read(f func()) {
	s.reads <- f
}

// do queues an operation; done (may be nil) is called with the outcome of
// the transaction that held it, after its commit.
func (s *store) do(fn func(tx *sql.Tx) error, done func(error)) {
	s.ops <- storeOp{fn, done}
}

func (s *store) run() {
	defer s.wg.Done()
	for op := range s.ops {
		batch := []storeOp{op}
	more:
		for len(batch) < 512 {
			select {
			case o, ok := <-s.ops:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		if err := s.commit(batch); err != nil && len(batch) > 1 {
			// One operation failed: apply each alone, so that the others
			// are not lost with it.
			for _, o := range batch {
				e := s.commit([]storeOp{o})
				if o.done != nil {
					o.done(e)
				}
			}
			continue
		} else {
			for _, o := range batch {
				if o.done != nil {
					o.done(err)
				}
			}
		}
	}
}

func (s *store) commit(batch []storeOp) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	for _, o := range batch {
		if err := o.fn(tx); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// close waits for the queued operations and closes the database.
func (s *store) close() error {
	var err error
	s.once.Do(func() {
		close(s.ops)
		close(s.reads)
		s.wg.Wait()
		err = s.db.Close()
	})
	return err
}

// putBlob stores data under its digest (inside a transaction).
func putBlob(tx *sql.Tx, d string, data []byte) error {
	_, err := tx.Exec(`INSERT OR IGNORE INTO blobs(digest, data) VALUES(?, ?)`, d, data)
	return err
}

// blob reads a blob and verifies it against its digest.
func (s *store) blob(d string) ([]byte, error) {
	if g := s.readGate.Load(); g != nil {
		(*g)()
	}
	var data []byte
	err := s.db.QueryRow(`SELECT data FROM blobs WHERE digest = ?`, d).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: not here", d)
	}
	if err != nil {
		return nil, err
	}
	if blob.Sum(data) != d {
		return nil, fmt.Errorf("blob %s: stored bytes hash to %s", d, blob.Sum(data))
	}
	return data, nil
}

// storedTask is a task row.
type storedTask struct {
	idx, state, attempts, exit int
	input, node, output, err   string
	start, finish              float64
}

type storedBag struct {
	id        uint64
	job       Job
	submitted float64
	tasks     []storedTask
}

// loadBags reads every bag submitted at this node.
func (s *store) loadBags() ([]storedBag, error) {
	rows, err := s.db.Query(`SELECT id, job, submitted FROM bags ORDER BY id`)
	if err != nil {
		return nil, err
	}
	var bags []storedBag
	for rows.Next() {
		var b storedBag
		var id int64
		var js string
		if err := rows.Scan(&id, &js, &b.submitted); err != nil {
			rows.Close()
			return nil, err
		}
		b.id = uint64(id)
		if err := json.Unmarshal([]byte(js), &b.job); err != nil {
			rows.Close()
			return nil, fmt.Errorf("bag %d: stored job: %w", b.id, err)
		}
		bags = append(bags, b)
	}
	rows.Close()
	for i := range bags {
		rows, err := s.db.Query(`SELECT idx, input, state, node, attempts, exit, output, err, start, finish FROM tasks WHERE bag = ? ORDER BY idx`, int64(bags[i].id))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var t storedTask
			if err := rows.Scan(&t.idx, &t.input, &t.state, &t.node, &t.attempts, &t.exit, &t.output, &t.err, &t.start, &t.finish); err != nil {
				rows.Close()
				return nil, err
			}
			bags[i].tasks = append(bags[i].tasks, t)
		}
		rows.Close()
		if len(bags[i].tasks) != bags[i].job.Tasks {
			return nil, fmt.Errorf("bag %d: %d task rows for %d tasks", bags[i].id, len(bags[i].tasks), bags[i].job.Tasks)
		}
	}
	return bags, nil
}

// heldResult is a result computed here, not yet acknowledged by its
// submission node.
type heldResult struct {
	submitter string
	res       Result
	// stored: its row has committed (loaded ones are); storing: a write
	// is queued. It is sent only once stored.
	stored, storing bool
}

func (s *store) loadHeld() ([]heldResult, error) {
	rows, err := s.db.Query(`SELECT submitter, result FROM held ORDER BY bag, idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []heldResult
	for rows.Next() {
		h := heldResult{stored: true}
		var js string
		if err := rows.Scan(&h.submitter, &js); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(js), &h.res); err != nil {
			return nil, fmt.Errorf("held result: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
