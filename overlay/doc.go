// Package overlay implements the decentralized scheduling model of seed 004
// (Celaya & Arronategui): execution, submission and routing roles on a
// balanced binary tree, availability summaries aggregated by agglomerative
// clustering under a size limit SF_max, stateless forwarding of task
// requests, and the three policies IBP (idle/busy), MMP (makespan
// minimization, FCFS queues) and DP (deadlines, EDF queues).
//
// It is the core only: no simulator, experiment, clock or IO. The §7.1
// accuracy experiment is package overlay/accuracy, the authors'
// implementation variants package overlay/stars (through the extension
// points Options.Clustering and Options.Cells), the event-driven
// simulator package oversim.
//
// # Policies
//
// A policy is one PolicyDef registered once (RegisterPolicy; IBP, MMP and
// DP register themselves, PolicyIBP, PolicyMMP, PolicyDP) and looked up by
// name (ParsePolicy): its defaults, its rules, its executor
// (Policy.NewExec) and the one encoding of its summaries (SummaryCodec),
// from which their wire form and their form in checkpoints are derived.
// A Policy and its Options (DefaultOptions holds every default) give the
// policy's Rules through NewRules: the sum and distance of its summaries
// (Aggregate, Fig. 3) and its forwarding (Forward, Figs. 5 and 6). A
// policy of another package is one file with one registration
// (docs/extending.md); package overlay/policytest checks it.
//
// # One core, several drivers
//
// Every role is a deterministic state machine with no clock, network or
// randomness of its own, in the style of etcd's raft library:
//
//   - a Router (routing role, an internal vertex of the tree; NewRouter)
//     consumes a Msg with Router.Step(cfg, now, msg, out) and appends the
//     messages it wants sent to out;
//   - a Leaf (execution role, a leaf of the tree; NewLeaf) does the same
//     with Leaf.Step, and wraps an Exec (the local scheduler of the
//     policy: Policy.NewExec; IBPExec, MMPExec or DPExec);
//   - the submission role is just a leaf address that sends a KindRequest
//     message to the father of its leaf (see NewRequest) and receives
//     KindAccepted (tasks an execution node accepted), KindReturn (tasks
//     the tree could not place) and KindDone (finished tasks) messages.
//
// Time is the argument now (seconds, any origin, non-decreasing per role).
// A role that wants to be woken later says so through its Wake method
// (Router.Wake: a pending, bandwidth-delayed update; Leaf.Wake: the next
// task completion); the driver then calls Step with a KindTick message at
// that time. A node that replaces a failed one tells its neighbours with
// KindRestarted, and they send it what it lost. Messages are values; the
// Summary they carry is immutable and may be shared by any number of
// routers and messages. Between nodes, messages travel in their wire form
// (AppendMsg, DecodeMsg).
//
// # How a driver uses it
//
//	t := overlay.NewTree(n)                 // n leaves, ordered by address (or build the links by hand)
//	r, _ := overlay.NewRouter(t.Links(v))   // each internal vertex v
//	l, _ := t.NewLeaf(i, exec)              // each leaf i
//	out = l.Step(cfg, now, overlay.Msg{Kind: overlay.KindTick}, out) // first summary goes up
//	deliver each out message to msg.To (a router or a leaf) after the
//	network delay of your choice, calling Step there; repeat.
//
// Tree is plain data (a balanced binary tree built by splitting the sorted
// leaves in halves); a real deployment would replace it by a self-balancing
// peer-to-peer tree overlay such as VBI-Tree (see docs/overlay.md).
package overlay
