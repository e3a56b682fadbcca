package master

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
)

func logText(t *testing.T, recs []LogRecord) string {
	var b bytes.Buffer
	for _, r := range recs {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	return b.String()
}

// TestCheckEventsAcceptsMachineLogs: the logs of emulated runs (volatile
// workers, replicas, DOWN, RECLAIMED, cached inputs) pass the checker.
func TestCheckEventsAcceptsMachineLogs(t *testing.T) {
	ch := availability.Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.3, 0.6, 0.1}, {0.3, 0.1, 0.6}}}
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := testConfig()
		e := newEmu(t, cfg, []availability.Chain{ch, ch, ch, ch, ch}, []int{2, 3, 2, 4, 1}, 2, 1, 3, 7, seed)
		var recs []LogRecord
		e.onLog = func(r []LogRecord) { recs = append(recs, r...) }
		if ms := e.run(20000); ms < 0 {
			t.Fatal("failed")
		}
		sum, err := CheckEvents(strings.NewReader(logText(t, recs)), cfg.NCom, cfg.ExtraReplicas)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if sum.Iterations != 3 || sum.Results < 21 || sum.MaxHeld != cfg.NCom {
			t.Fatalf("seed %d: %+v", seed, sum)
		}
	}
}

// TestCheckEventsRefuses: a hand-written log breaking each rule once.
func TestCheckEventsRefuses(t *testing.T) {
	r := func(kind string, q, task int, held int, info string) LogRecord {
		return LogRecord{Kind: kind, Worker: q, Iter: 0, Task: task, Held: held, Info: info}
	}
	start := []LogRecord{{Kind: LogStart, Worker: -1, Task: -1}, {Kind: LogIter, Worker: -1, Iter: 0, Task: 2},
		r(LogRegister, 0, -1, 0, "program cached"), r(LogRegister, 1, -1, 0, "")}
	cases := []struct {
		name string
		recs []LogRecord
		want string
	}{
		{"ncom", []LogRecord{r(LogBegin, 0, 0, 0, ""), r(LogGrant, 0, 0, 1, "data"), r(LogGrant, 1, -1, 2, "program")}, "n_com = 1"},
		{"data before the program", []LogRecord{r(LogRegister, 2, -1, 0, ""), r(LogBegin, 2, 0, 0, "")}, "without the program"},
		{"program twice", []LogRecord{r(LogGrant, 0, -1, 1, "program")}, "holds it"},
		{"not UP", []LogRecord{r(LogState, 0, -1, 0, "r"), r(LogBegin, 0, 0, 0, "cached")}, "is r"},
		{"third copy", []LogRecord{r(LogRegister, 3, -1, 0, "program cached"), r(LogBegin, 3, 0, 0, "cached"), r(LogBegin, 3, 1, 0, "cached"), r(LogBegin, 3, 2, 0, "cached")}, "third copy"},
		{"result before input", []LogRecord{r(LogBegin, 0, 0, 0, ""), r(LogGrant, 0, 0, 1, "data"), r(LogResult, 0, 0, 1, "")}, "input arrived"},
		{"result without copy", []LogRecord{r(LogResult, 0, 1, 0, "")}, "holds no copy"},
		{"twice", []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogResult, 0, 0, 0, ""), r(LogBegin, 0, 0, 0, "cached")}, "already done"},
		{"down holding", []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogDown, 0, -1, 0, "")}, "DOWN still holding"},
		{"cancel not done", []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogCancel, 0, 0, 0, "")}, "not done"},
		{"early end", []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogResult, 0, 0, 0, ""), {Kind: LogIterDone, Worker: -1, Iter: 0, Task: -1}}, "1 of its 2"},
		{"iteration again", []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogResult, 0, 0, 0, ""), r(LogBegin, 0, 1, 0, "cached"), r(LogResult, 0, 1, 0, ""),
			{Kind: LogIterDone, Worker: -1, Iter: 0, Task: -1}, {Kind: LogIter, Worker: -1, Iter: 0, Task: 2}}, "again after its end"},
		{"held counter", []LogRecord{r(LogBegin, 0, 0, 0, ""), r(LogGrant, 0, 0, 0, "data")}, "says 0"},
	}
	for _, c := range cases {
		_, err := CheckEvents(strings.NewReader(logText(t, append(append([]LogRecord(nil), start...), c.recs...))), 1, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	// And the valid prefix alone passes.
	if _, err := CheckEvents(strings.NewReader(logText(t, start)), 1, 1); err != nil {
		t.Fatal(err)
	}
	// A master killed after it logged the end of iteration 0 but before its
	// last result was durable: its successor takes the iteration up again
	// and completes the task.
	done := []LogRecord{r(LogBegin, 0, 0, 0, "cached"), r(LogResult, 0, 0, 0, ""), r(LogBegin, 0, 1, 0, "cached"), r(LogResult, 0, 1, 0, ""),
		{Kind: LogIterDone, Worker: -1, Iter: 0, Task: -1}}
	again := []LogRecord{{Kind: LogStart, Worker: -1, Task: -1}, {Kind: LogIter, Worker: -1, Iter: 0, Task: 2}, r(LogRegister, 0, -1, 0, "program cached"),
		r(LogBegin, 0, 1, 0, "cached"), r(LogResult, 0, 1, 0, ""), {Kind: LogIterDone, Worker: -1, Iter: 0, Task: -1}}
	sum, err := CheckEvents(strings.NewReader(logText(t, append(append(append([]LogRecord(nil), start...), done...), again...))), 1, 1)
	if err != nil || sum.Iterations != 1 || sum.Processes != 2 {
		t.Fatalf("an iteration taken up by the next process: %+v, %v", sum, err)
	}
}
