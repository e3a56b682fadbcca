// Package master is the live runtime's master: a deterministic state
// machine (Machine) that keeps the view of §3 of seed 001 from what it
// observes — workers registering, heart-beats with their state, transfers
// and tasks ending, time passing — and decides with the iterative core's
// heuristics (decide.go is the only file that calls package iterative);
// and a Server that drives it with a real clock, TLS sockets (Connect RPC
// and an HTTP blob store), SQLite and the application's driver.
//
// The machine does no IO: every input is an explicit event carrying the
// time, every effect an explicit output (a command for a worker, a result
// to persist, the driver to run). This makes it testable without sockets
// and replayable from its event log.
package master

import (
	"fmt"
	"time"

	"github.com/volsched/volsched/availability"
)

// Config is what the machine needs to know of the run.
type Config struct {
	Heuristic     Heuristic     // the iterative model's heuristic: one of the 17 of §6 or a registered one
	NCom          int           // at most NCom transfers (program or data) at once
	Slot          time.Duration // the model's time slot
	ExtraReplicas int           // additional copies of a task (§6.1: 2)
	// DownAfter: a worker not heard from for this long is DOWN (its
	// session ends; it must register again).
	DownAfter time.Duration
	// Heartbeat is the workers' heart-beat period (0: unknown): a worker
	// declared DOWN for silence is counted DOWN from its first missed
	// heart-beat on.
	Heartbeat   time.Duration
	MaxAttempts int // failed attempts of a task before the application stops
	// BackoffBase, BackoffMax: after n failed transfers in a row a worker
	// is given no transfer for a delay in [d/2, d), d = BackoffBase·2^(n−1)
	// ≤ BackoffMax (defaults: one slot, 64 slots).
	BackoffBase, BackoffMax time.Duration
	Seed                    uint64 // random heuristics' stream
	Prior                   [3][3]float64
	// The program every worker needs (the paper's T_prog transfer).
	ProgramDigest string
	ProgramSize   int64
	Entry         string
	Env           map[string]string
}

// Validate checks the configuration; errors name the field.
func (c *Config) Validate() error {
	switch {
	case c.NCom < 1:
		return fmt.Errorf("ncom = %d, want ≥ 1", c.NCom)
	case c.Slot <= 0:
		return fmt.Errorf("slot = %v, want > 0", c.Slot)
	case c.ExtraReplicas < 0 || c.ExtraReplicas > 64:
		return fmt.Errorf("extra replicas = %d, want 0..64", c.ExtraReplicas)
	case c.DownAfter <= 0:
		return fmt.Errorf("down-after = %v, want > 0", c.DownAfter)
	case c.MaxAttempts < 1:
		return fmt.Errorf("max attempts = %d, want ≥ 1", c.MaxAttempts)
	case c.BackoffBase < 0 || c.BackoffMax < 0:
		return fmt.Errorf("backoff base %v, max %v: want ≥ 0 (0: the defaults)", c.BackoffBase, c.BackoffMax)
	case c.ProgramDigest == "":
		return fmt.Errorf("program digest is empty")
	}
	if _, err := availability.NewEstimator(c.Prior); err != nil {
		return err
	}
	if !c.Heuristic.Valid() {
		return errNoHeuristic
	}
	return nil
}

// CmdKind is the kind of a command sent to a worker.
type CmdKind uint8

const (
	// CmdFetch grants a channel: download blob Digest now (the program,
	// or a begun copy's input resuming after a pause).
	CmdFetch CmdKind = iota
	// CmdRun gives the worker a task copy; Fetch says it may download the
	// input now (a channel is granted) — false when it holds the input.
	CmdRun
	// CmdCancel cancels a copy (another copy completed, or the task
	// failed too often): kill its process, drop its transfer.
	CmdCancel
)

func (k CmdKind) String() string {
	return [...]string{"fetch", "run", "cancel"}[k]
}

// Command is one message for a worker.
type Command struct {
	Worker  int
	Session uint64
	Kind    CmdKind
	Digest  string // CmdFetch: the blob; CmdRun: the input
	Size    int64
	Program bool // CmdFetch of the program
	Iter    int
	Task    int
	Name    string
	Attempt uint32
	Fetch   bool
}

// Accepted is a result the driver must make durable before it tells the
// worker.
type Accepted struct {
	Iter    int
	Task    int
	Name    string
	Digest  string
	Worker  string
	Attempt uint32
	Data    []byte // the result's bytes when sent inline (set by the driver)
}

// TaskSpec is one task of an iteration, as the driver wrote it.
type TaskSpec struct {
	Name   string
	Digest string
	Size   int64
	// Result, when not empty, is a result already durable (a reloaded
	// state): the task is done.
	Result string
}

// Phase is where the application is.
type Phase uint8

const (
	PhaseStarting Phase = iota // the first driver run not done
	PhaseRunning               // tasks of an iteration open
	PhaseDriver                // the iteration is done: the driver must run
	PhaseFinished              // the driver wrote no task
	PhaseFailed                // a task failed MaxAttempts times, or the driver failed
)

func (p Phase) String() string {
	return [...]string{"starting", "running", "driver", "finished", "failed"}[p]
}

// LogRecord is one entry of the master's event log (JSON lines in the
// state directory): enough to check the n_com bound and the copies rule,
// and to replay the platform's availability.
type LogRecord struct {
	T      int64  `json:"t"` // ns since the machine's epoch
	Kind   string `json:"k"`
	Worker int    `json:"q"`
	Iter   int    `json:"i"`
	Task   int    `json:"task"`
	Held   int    `json:"held"` // channels held after the event
	Info   string `json:"info,omitempty"`
	// Since (backfill): the worker's state as now recorded began then.
	Since int64 `json:"since,omitempty"`
	// Name (register): the worker's name (Worker is its index in this
	// master process).
	Name string `json:"name,omitempty"`
}

// Log kinds.
const (
	LogRegister = "register"
	LogDown     = "down"
	LogState    = "state"
	LogGrant    = "grant"    // a channel granted (Info: program or data)
	LogRelease  = "release"  // a channel released (Info: why)
	LogReceived = "received" // a transfer ended on its worker: it holds the program or the copy's input (Info: program or data)
	LogBegin    = "begin"    // a task copy begun (Info: "replica" for one, "cached" when its input is on the worker)
	LogResult   = "result"   // a result accepted
	LogRefused  = "refused"  // a result or report refused (Info: why)
	LogCancel   = "cancel"
	LogDrop     = "drop" // a copy lost (its worker DOWN, failed, input missing)
	LogFail     = "fail"
	LogIterDone = "iter-done"
	LogIter     = "iter"
	LogDecide   = "decide"
	LogStart    = "start"    // a master process started (results after an earlier start may be redone: only the durable ones count)
	LogBackoff  = "backoff"  // a worker's transfers failed: it is given none for a while (Info: how long)
	LogBackfill = "backfill" // a worker's recent slots corrected: its current state began at Since (its return, or its first missed heart-beat)
)

// WorkerInfo is what Status shows of a worker.
type WorkerInfo struct {
	Name        string
	State       availability.State
	Connected   bool
	HasProgram  bool
	Chain       availability.Chain
	Transitions float64
	W           int
	Copies      []string
}

// StatusInfo is the master's state for `volsched status`.
type StatusInfo struct {
	Phase          Phase
	Iter           int
	Tasks, Done    int
	Workers        []WorkerInfo
	TProg, TData   int
	Held           int
	Slot           time.Duration
	Heuristic      string
	Err            string
	Completions    int64
	PredictedSlots float64 // mean predicted slots to finish the iteration (−1: unknown)
	// Predict: the parameters of that prediction (nil: none to make), for
	// the caller to run outside the machine's loop (it may take a while).
	Predict *PredictParams
}
