package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/volsched/volsched/live/master"
)

// checkEventLog replays the master's event log (events.jsonl) against the
// rules the runtime must keep: at most ncom channels held at once and at
// most one transfer per worker (counted from the grants and releases, not
// from the logged counter, which is checked too), at most 1+extra copies
// of a task at once, one accepted result per task of an iteration, and
// every iteration's tasks all completed before the next begins. The slot
// model checker (iterative.Check) does not apply: the runtime's events are
// not slot-aligned.
func checkEventLog(t *testing.T, state string, ncom, extra int) {
	t.Helper()
	f, err := os.Open(filepath.Join(state, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	held := 0
	perWorker := map[int]int{}
	copies := map[string]int{}
	results := map[string]int{}
	segment := map[string]int{}
	iterTasks := map[int]int{}
	sc := bufio.NewScanner(f)
	line := 0
	maxHeld := 0
	for sc.Scan() {
		line++
		var r master.LogRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("events.jsonl:%d: %v", line, err)
		}
		key := fmt.Sprintf("%d/%d", r.Iter, r.Task)
		switch r.Kind {
		case master.LogStart:
			// A new master process: what the previous one accepted but did
			// not make durable is redone; each process accepts a task once.
			for k := range segment {
				delete(segment, k)
			}
			held = 0
			perWorker = map[int]int{}
			copies = map[string]int{}
		case master.LogIter:
			if r.Info == "" {
				iterTasks[r.Iter] = r.Task
			}
			// A restarted master starts from 0 held channels.
			held = 0
			perWorker = map[int]int{}
			copies = map[string]int{}
		case master.LogGrant:
			held++
			perWorker[r.Worker]++
			if perWorker[r.Worker] > 1 {
				t.Errorf("events.jsonl:%d: worker %d holds %d channels", line, r.Worker, perWorker[r.Worker])
			}
		case master.LogRelease:
			held--
			perWorker[r.Worker]--
		case master.LogBegin:
			copies[key]++
			if copies[key] > 1+extra {
				t.Errorf("events.jsonl:%d: task %s has %d copies, want ≤ %d", line, key, copies[key], 1+extra)
			}
		case master.LogCancel, master.LogDrop:
			copies[key]--
			if copies[key] < 0 {
				t.Errorf("events.jsonl:%d: task %s: more copies ended than begun", line, key)
			}
		case master.LogResult:
			results[key]++
			segment[key]++
			if segment[key] > 1 {
				t.Errorf("events.jsonl:%d: task %s accepted %d times by one master process", line, key, segment[key])
			}
			copies[key]--
		}
		if held > ncom {
			t.Errorf("events.jsonl:%d: %d channels held, ncom = %d", line, held, ncom)
		}
		if r.Held != held && r.Kind != master.LogIter && r.Kind != master.LogStart {
			t.Errorf("events.jsonl:%d: logged %d channels held, replay says %d", line, r.Held, held)
		}
		maxHeld = max(maxHeld, held)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for it, n := range iterTasks {
		for i := 0; i < n; i++ {
			if results[fmt.Sprintf("%d/%d", it, i)] == 0 {
				t.Errorf("iteration %d: no result for task %d", it, i)
			}
		}
	}
	if maxHeld == 0 {
		t.Error("no channel ever held")
	}
	t.Logf("event log: %d records, at most %d channels held (ncom %d)", line, maxHeld, ncom)
}
