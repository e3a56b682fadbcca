package overlay

import "fmt"

// Addr is the address of a vertex of the overlay tree: a routing node
// (internal vertex) or an execution/submission node (leaf). NoAddr marks
// "none" (the father of the root).
type Addr int32

// NoAddr is the absent address (the root's father).
const NoAddr Addr = -1

// App holds the properties PR of a bag-of-tasks application (Table 1 of
// the paper). Units: MFLOP, MB and seconds.
type App struct {
	ID       uint64  // application identifier, chosen by the submitter
	Length   float64 // a: length of one task, MFLOP (> 0)
	Mem      float64 // m: memory a task needs, MB
	Disk     float64 // d: disk a task needs, MB
	Deadline float64 // δ: absolute deadline, seconds (DP only)
}

// Validate checks the fields a user can get wrong.
func (a App) Validate() error {
	switch {
	case !(a.Length > 0):
		return fmt.Errorf("app %d: length %g, want > 0 MFLOP", a.ID, a.Length)
	case !(a.Mem >= 0):
		return fmt.Errorf("app %d: memory %g, want >= 0 MB", a.ID, a.Mem)
	case !(a.Disk >= 0):
		return fmt.Errorf("app %d: disk %g, want >= 0 MB", a.ID, a.Disk)
	}
	return nil
}

// Request is an application scheduling request: N tasks of App, submitted
// from the leaf Submitter, last forwarded by Src.
type Request struct {
	App       App
	Submitter Addr // leaf of the submission node; KindReturn/KindDone go there
	Src       Addr // vertex that sent this copy (req.srcAddr of Figs. 5, 6)
	N         int  // number of tasks
}

// Kind says what a message carries.
type Kind uint8

const (
	// KindRequest carries Req: tasks to place. To a router it is a request
	// to forward; to a leaf it is an assignment of tasks to its execution
	// node.
	KindRequest Kind = iota + 1
	// KindUpdate carries Sum: the availability summary of the sender's
	// branch, child to father.
	KindUpdate
	// KindBound carries Bound: (MMP) the maximum queue end time outside the
	// receiver's branch, father to child.
	KindBound
	// KindReturn carries Req: tasks that could not be placed (they reached
	// the root, or a leaf refused them), to the submitter.
	KindReturn
	// KindDone carries Req: Req.N tasks of Req.App finished at the sender,
	// to the submitter.
	KindDone
	// KindTick wakes a role at the time it asked for (see Wake). It is
	// the driver's, never sent between nodes.
	KindTick
	// KindAccepted carries Req: the sender, an execution node, accepted
	// Req.N tasks of Req.App (an assignment it was sent), to the submitter.
	// The submitter knows from it where its tasks are (and which to
	// resubmit when that node fails).
	KindAccepted
	// KindRestarted says that the sender lost its state: a failed node
	// replaced by a fresh one (§3.5) tells its neighbours. To a child, from
	// its father: send your summary again (the father lost it). To a
	// father, from a child: the child lost the MMP bound it was sent (the
	// child's summary comes back by its own update).
	KindRestarted
)

// kindNames are the kinds' names, by value.
var kindNames = [...]string{KindRequest: "request", KindUpdate: "update", KindBound: "bound", KindReturn: "return",
	KindDone: "done", KindTick: "tick", KindAccepted: "accepted", KindRestarted: "restarted"}

func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

func (k Kind) valid() bool { return k >= KindRequest && int(k) < len(kindNames) }

// Msg is one message between roles. Only the fields of its Kind are used.
type Msg struct {
	Kind     Kind
	From, To Addr
	Req      Request // KindRequest, KindReturn, KindDone, KindAccepted
	Sum      Summary // KindUpdate (immutable, may be shared)
	Bound    float64 // KindBound
}

// NewRequest builds the message a submission node at leaf sub sends to
// start the search for n tasks of app: it goes to the leaf's father. Its
// Src is NoAddr: Fig. 5 skips the branch a request came from only when
// that is a child routing node, and the submitter's own leaf (which in
// this tree is also an execution node) must stay eligible.
func NewRequest(t *Tree, sub Addr, app App, n int) Msg {
	return Msg{Kind: KindRequest, From: sub, To: t.Father(sub),
		Req: Request{App: app, Submitter: sub, Src: NoAddr, N: n}}
}
