package node

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/overlay"
)

// ProtocolVersion is sent in every Hello; a peer speaking another version
// is refused.
const ProtocolVersion = 1

// Frames on a connection: a 4-byte big-endian length L, then L bytes: one
// byte of frame type and the payload. MaxFrame bounds L (a blob of
// MaxBlob bytes plus its envelope fits).
const (
	MaxBlob  = 16 << 20
	MaxFrame = MaxBlob + 1<<20
)

// FrameType says what a frame carries. Overlay frames carry one
// overlay.Msg in the overlay package's wire form; every other type carries
// one control message, JSON-encoded (unknown fields refused).
type FrameType uint8

const (
	fOverlay FrameType = iota + 1
	fHello
	fHeartbeat
	fJoin
	fWelcome
	fSetFather
	fReplaceChild
	fAdopt
	fLeave
	fClaim
	fAssign
	fLease
	fResult
	fResultAck
	fBlobGet
	fBlobData
	fSubmit
	fSubmitted
	fStatus
	fStatusResp
	fResults
	fResultsResp
	fError
	fDissolve
	fHandoff
	fJoinAck
	fJoinWait
	fMax
)

var frameNames = [...]string{fOverlay: "overlay", fHello: "hello", fHeartbeat: "heartbeat", fJoin: "join",
	fWelcome: "welcome", fSetFather: "set-father", fReplaceChild: "replace-child", fAdopt: "adopt",
	fLeave: "leave", fClaim: "claim", fAssign: "assign", fLease: "lease", fResult: "result",
	fResultAck: "result-ack", fBlobGet: "blob-get", fBlobData: "blob-data", fSubmit: "submit",
	fSubmitted: "submitted", fStatus: "status", fStatusResp: "status-resp", fResults: "results",
	fResultsResp: "results-resp", fError: "error", fDissolve: "dissolve", fHandoff: "handoff", fJoinAck: "join-ack",
	fJoinWait: "join-wait"}

func (t FrameType) String() string {
	if t > 0 && t < fMax {
		return frameNames[t]
	}
	return fmt.Sprintf("frame(%d)", uint8(t))
}

// Ref names a vertex of the tree and the node that plays it: the vertex
// id (an overlay.Addr, unique among the vertex's neighbours), the player's
// network address (its identity) and the vertex's epoch (incremented each
// time another node takes the vertex over). The zero Ref (Node "") is
// "none".
type Ref struct {
	ID    overlay.Addr `json:"id"`
	Node  string       `json:"node,omitempty"`
	Epoch uint32       `json:"epoch,omitempty"`
}

// None reports whether r names no vertex.
func (r Ref) None() bool { return r.Node == "" }

// Same reports whether r and s name the same vertex (id and player).
func (r Ref) Same(s Ref) bool { return r.ID == s.ID && r.Node == s.Node }

func (r Ref) String() string {
	if r.None() {
		return "-"
	}
	return fmt.Sprintf("%d@%s#%d", r.ID, r.Node, r.Epoch)
}

func (r Ref) validate(field string) error {
	if r.None() {
		if r.ID != 0 && r.ID != overlay.NoAddr || r.Epoch != 0 {
			return fmt.Errorf("%s: id %d epoch %d without a node: want a zero reference", field, r.ID, r.Epoch)
		}
		return nil
	}
	if r.ID < 0 {
		return fmt.Errorf("%s: vertex id %d: want >= 0", field, r.ID)
	}
	return validNodeAddr(field+".node", r.Node)
}

// validNodeAddr checks a node's network address as a host:port string.
func validNodeAddr(field, a string) error {
	if len(a) == 0 || len(a) > 255 {
		return fmt.Errorf("%s %q: want host:port of 1 to 255 bytes", field, a)
	}
	i := strings.LastIndexByte(a, ':')
	if i <= 0 || i == len(a)-1 {
		return fmt.Errorf("%s %q: want host:port", field, a)
	}
	for _, c := range a {
		if c <= ' ' || c == 0x7f {
			return fmt.Errorf("%s %q: control or space character: want host:port", field, a)
		}
	}
	return nil
}

// Stats describe the subtree below a vertex, sent child to father with
// every heartbeat: what keeps joins going to the shallowest place and
// lets the root see how far the tree is from balanced.
type Stats struct {
	Leaves int `json:"leaves"`
	MinH   int `json:"min_h"` // height of the shallowest leaf below (0: the vertex is a leaf)
	MaxH   int `json:"max_h"` // height of the deepest leaf below
	// Spare is a node of the subtree that plays no routing vertex ("" if
	// none): where an extra routing vertex is handed over.
	Spare string `json:"spare,omitempty"`
	// Extra is a node of the subtree that plays more than one routing
	// vertex ("" if none): the root has it hand one over to a spare.
	Extra string `json:"extra,omitempty"`
	// Deep is a deepest leaf of the subtree (the one moved when the tree
	// is unbalanced).
	Deep Ref `json:"deep"`
	// Partial: some vertex of the subtree has not yet heard its child's
	// stats (a tree just built or relinked: heights counted from
	// placeholders, not to be balanced on).
	Partial bool `json:"partial,omitempty"`
}

func (s Stats) validate() error {
	if s.Leaves < 1 || s.Leaves > 1<<26 || s.MinH < 0 || s.MaxH < s.MinH || s.MaxH > 64 {
		return fmt.Errorf("stats: %d leaves, heights %d..%d: want 1 to %d leaves and 0 <= min <= max <= 64", s.Leaves, s.MinH, s.MaxH, 1<<26)
	}
	if s.Spare != "" {
		if err := validNodeAddr("stats.spare", s.Spare); err != nil {
			return err
		}
	}
	if s.Extra != "" {
		if err := validNodeAddr("stats.extra", s.Extra); err != nil {
			return err
		}
	}
	return s.Deep.validate("stats.deep")
}

// View is a vertex with its links, as its player reports it (a leaf has
// no children).
type View struct {
	Self      Ref  `json:"self"`
	Father    Ref  `json:"father"`
	Left      Ref  `json:"left"`
	Right     Ref  `json:"right"`
	LeftLeaf  bool `json:"left_leaf,omitempty"`
	RightLeaf bool `json:"right_leaf,omitempty"`
}

// IsLeaf reports whether the view is a leaf's.
func (v View) IsLeaf() bool { return v.Left.None() && v.Right.None() }

func (v View) validate(field string) error {
	if v.Self.None() {
		return fmt.Errorf("%s.self: none: want a vertex", field)
	}
	if v.Left.None() != v.Right.None() {
		return fmt.Errorf("%s: one child (%v, %v): want two or none", field, v.Left, v.Right)
	}
	for _, x := range []struct {
		n string
		r Ref
	}{{"self", v.Self}, {"father", v.Father}, {"left", v.Left}, {"right", v.Right}} {
		if err := x.r.validate(field + "." + x.n); err != nil {
			return err
		}
	}
	return nil
}

// Hello opens every connection: the dialer's identity. A node gives its
// advertised address; a client (the command line) gives none.
type Hello struct {
	Version int    `json:"version"`
	Node    string `json:"node,omitempty"`
	Client  bool   `json:"client,omitempty"`
}

// Heartbeat travels every interval along each tree edge, both ways: From
// is the sender's vertex, To the receiver's. The sender's links (View)
// tell the receiver what the sender believes; a child adds its subtree's
// Stats; a leaf adds the routing vertices its node plays (Routers), so
// that its father can have them taken over if the node dies.
type Heartbeat struct {
	From    View   `json:"from"`
	To      Ref    `json:"to"`
	Stats   *Stats `json:"stats,omitempty"`
	Routers []View `json:"routers,omitempty"`
	// Root is the sender's idea of the tree's root vertex (fathers tell
	// their children): a node that loses its father rejoins through it.
	Root Ref `json:"root"`
	// Depth is the sender's depth in the tree (root 0), fathers to
	// children.
	Depth int `json:"depth,omitempty"`
}

// Join asks to add a vertex played by Node to the tree: a new node's leaf
// (Attach none), or a vertex cut off the tree that comes back with its
// subtree (Attach, a leaf if AttachLeaf). It is routed up to the root,
// then down towards the shallowest leaf, whose father splits that place:
// a new routing vertex, played by Node, gets the old leaf and the
// attached vertex as children.
type Join struct {
	Node       string `json:"node"`
	Attach     Ref    `json:"attach"`
	AttachLeaf bool   `json:"attach_leaf,omitempty"`
	Hops       int    `json:"hops"`
	// Down is true once the join has passed the root.
	Down bool `json:"down,omitempty"`
	// To is the vertex the join is for (none: any vertex of the receiver).
	To Ref `json:"to"`
	// MaxDepth (> 0) places the attached leaf no deeper than that (a leaf
	// moved to balance the tree must end higher than it was).
	MaxDepth int `json:"max_depth,omitempty"`
}

// JoinAck tells a joining node that its join has reached a root (sent by
// the root's player): a tree exists, and a node that heard this lately
// does not start a tree of its own.
type JoinAck struct {
	Root Ref `json:"root"`
}

func (j *JoinAck) validate() error { return j.Root.validate("join-ack.root") }

// JoinWait answers a join that the node it entered by cannot place: that
// node is in no tree (it is looking for one too) or is cut off from its
// root. It carries nothing: being heard from is the message. A joining
// node that hears from a node of a smaller address does not start a tree
// of its own (formTree), so that when a whole overlay restarts, the nodes
// whose joins reach another searching node wait for the smallest one's
// tree instead of starting trees that are never merged.
type JoinWait struct{}

func (j *JoinWait) validate() error { return nil }

// Welcome tells a joining node its place: it plays leaf Leaf, whose
// father is Router.Self, and the new routing vertex Router (its children
// are the old leaf at that place and Leaf).
type Welcome struct {
	Leaf   Ref  `json:"leaf"`
	Router View `json:"router"`
	Root   Ref  `json:"root"`
}

// SetFather tells the player of Vertex that its father is now Father
// (none: Vertex is the root).
type SetFather struct {
	Vertex Ref `json:"vertex"`
	Father Ref `json:"father"`
}

// ReplaceChild tells the player of Vertex (a routing vertex) to replace
// its child Old by New (New none: Old is gone, and Vertex, left with one
// child, removes itself). NewView is what the sender knows of New.
type ReplaceChild struct {
	Vertex  Ref  `json:"vertex"`
	Old     Ref  `json:"old"`
	New     Ref  `json:"new"`
	NewView View `json:"new_view"`
}

// Adopt tells a neighbour of View.Self that the vertex is now played by
// View.Self.Node at epoch View.Self.Epoch (a failed or departing node's
// routing vertex taken over). The neighbour resends what the vertex lost
// (a child its summary, a father the MMP bound).
type Adopt struct {
	View View   `json:"view"`
	Prev string `json:"prev"`
}

// Leave says the sending node is going away: its neighbours treat it as
// failed at once instead of waiting for missing heartbeats.
type Leave struct {
	Node string `json:"node"`
}

// Dissolve tells the player of Vertex that its subtree has been cut off
// the tree for good (its father died and nobody took it over): it passes
// the word down, drops its routing vertices and rejoins.
type Dissolve struct {
	Vertex Ref `json:"vertex"`
}

// Handoff balances the routing vertices: the root asks a node that plays
// more than one (Extra in the stats) to hand one over to Spare, a node
// that plays none; that node then sends the vertex's View to the spare,
// which takes it over.
type Handoff struct {
	Spare string `json:"spare,omitempty"`
	View  *View  `json:"view,omitempty"`
}

// Claim: an execution node accepted N tasks of bag Bag (the overlay's
// request placed them there) and asks the submission node for them.
type Claim struct {
	Bag  uint64 `json:"bag"`
	N    int    `json:"n"`
	Node string `json:"node"`
}

// TaskSpec is one task sent to an execution node: its index in the bag
// and its input (a digest, the bytes inline when small, or none).
type TaskSpec struct {
	Index     int    `json:"index"`
	Input     string `json:"input,omitempty"`
	InputData []byte `json:"input_data,omitempty"`
}

// Assign answers a Claim: the tasks (as many as the submission node still
// had to place, possibly fewer than claimed) and the program.
type Assign struct {
	Bag         uint64     `json:"bag"`
	Claimed     int        `json:"claimed"`
	Tasks       []TaskSpec `json:"tasks"`
	Program     string     `json:"program"`
	ProgramData []byte     `json:"program_data,omitempty"`
}

// Lease: the execution node Node still holds these tasks of Bag (queued,
// running or with a result not yet acknowledged).
type Lease struct {
	Node  string `json:"node"`
	Bag   uint64 `json:"bag"`
	Tasks []int  `json:"tasks"`
	// Claims is the number of claimed tasks not yet assigned.
	Claims int `json:"claims,omitempty"`
}

// Result is one task's outcome, execution node to submission node.
type Result struct {
	Node   string `json:"node"`
	Bag    uint64 `json:"bag"`
	Task   int    `json:"task"`
	Exit   int    `json:"exit"`
	Output string `json:"output"` // digest of the output file ("" if the task failed without one)
	Data   []byte `json:"data,omitempty"`
	Err    string `json:"err,omitempty"`
	// Start and End are when the task ran (seconds, the execution node's
	// clock).
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// ResultAck: the submission node has the result durably.
type ResultAck struct {
	Bag  uint64 `json:"bag"`
	Task int    `json:"task"`
}

// BlobGet asks for a blob by digest; BlobData answers (Data empty and Err
// set if the sender does not have it).
type BlobGet struct {
	Digest string `json:"digest"`
}

type BlobData struct {
	Digest string `json:"digest"`
	Data   []byte `json:"data,omitempty"`
	Err    string `json:"err,omitempty"`
}

// ErrorMsg answers a client request that failed.
type ErrorMsg struct {
	Err string `json:"err"`
}

func validTime(field string, t float64) error {
	if math.IsNaN(t) || math.IsInf(t, -1) {
		return fmt.Errorf("%s %g: want a time or +Inf", field, t)
	}
	return nil
}

// validator is implemented by every control message: the checks a
// message must pass before it is applied.
type validator interface{ validate() error }

func (h *Hello) validate() error {
	if h.Version != ProtocolVersion {
		return fmt.Errorf("hello: protocol version %d: want %d", h.Version, ProtocolVersion)
	}
	if h.Client {
		if h.Node != "" {
			return fmt.Errorf("hello: a client with node %q: want none", h.Node)
		}
		return nil
	}
	return validNodeAddr("hello.node", h.Node)
}

func (h *Heartbeat) validate() error {
	if err := h.From.validate("heartbeat.from"); err != nil {
		return err
	}
	if err := h.To.validate("heartbeat.to"); err != nil {
		return err
	}
	if h.To.None() {
		return errors.New("heartbeat.to: none: want a vertex")
	}
	if h.Stats != nil {
		if err := h.Stats.validate(); err != nil {
			return err
		}
	}
	if h.Depth < 0 || h.Depth > 64 {
		return fmt.Errorf("heartbeat: depth %d: want 0 to 64", h.Depth)
	}
	if len(h.Routers) > 64 {
		return fmt.Errorf("heartbeat: %d routers: want at most 64", len(h.Routers))
	}
	for i, v := range h.Routers {
		if err := v.validate(fmt.Sprintf("heartbeat.routers[%d]", i)); err != nil {
			return err
		}
	}
	return h.Root.validate("heartbeat.root")
}

func (j *Join) validate() error {
	if j.MaxDepth < 0 || j.MaxDepth > 64 {
		return fmt.Errorf("join: max depth %d: want 0 to 64", j.MaxDepth)
	}
	if j.Hops < 0 || j.Hops > 256 {
		return fmt.Errorf("join: %d hops: want 0 to 256", j.Hops)
	}
	if err := j.To.validate("join.to"); err != nil {
		return err
	}
	if err := j.Attach.validate("join.attach"); err != nil {
		return err
	}
	if !j.Attach.None() && j.Attach.Node != j.Node {
		return fmt.Errorf("join.attach: played by %q, not by the joining node %q", j.Attach.Node, j.Node)
	}
	return validNodeAddr("join.node", j.Node)
}

func (w *Welcome) validate() error {
	if err := w.Leaf.validate("welcome.leaf"); err != nil {
		return err
	}
	if w.Leaf.None() {
		return errors.New("welcome.leaf: none: want a vertex")
	}
	if err := w.Router.validate("welcome.router"); err != nil {
		return err
	}
	return w.Root.validate("welcome.root")
}

func (s *SetFather) validate() error {
	if s.Vertex.None() {
		return errors.New("set-father.vertex: none: want a vertex")
	}
	if err := s.Vertex.validate("set-father.vertex"); err != nil {
		return err
	}
	return s.Father.validate("set-father.father")
}

func (r *ReplaceChild) validate() error {
	if r.Vertex.None() || r.Old.None() {
		return errors.New("replace-child: vertex or old is none: want both")
	}
	if !r.New.None() {
		if err := r.NewView.validate("replace-child.new_view"); err != nil {
			return err
		}
		if !r.NewView.Self.Same(r.New) {
			return fmt.Errorf("replace-child: new %v but its view is of %v", r.New, r.NewView.Self)
		}
	}
	for _, x := range []struct {
		n string
		r Ref
	}{{"vertex", r.Vertex}, {"old", r.Old}, {"new", r.New}} {
		if err := x.r.validate("replace-child." + x.n); err != nil {
			return err
		}
	}
	return nil
}

func (a *Adopt) validate() error {
	if err := a.View.validate("adopt.view"); err != nil {
		return err
	}
	if a.Prev != "" {
		return validNodeAddr("adopt.prev", a.Prev)
	}
	return nil
}

func (l *Leave) validate() error { return validNodeAddr("leave.node", l.Node) }

func (d *Dissolve) validate() error {
	if d.Vertex.None() {
		return errors.New("dissolve.vertex: none: want a vertex")
	}
	return d.Vertex.validate("dissolve.vertex")
}

func (h *Handoff) validate() error {
	if (h.Spare == "") == (h.View == nil) {
		return errors.New("handoff: want a spare node or a view, one of them")
	}
	if h.View != nil {
		return h.View.validate("handoff.view")
	}
	return validNodeAddr("handoff.spare", h.Spare)
}

// MaxTasks bounds the tasks of one bag and of one message.
const MaxTasks = 1 << 20

func (c *Claim) validate() error {
	if c.N < 1 || c.N > MaxTasks {
		return fmt.Errorf("claim: %d tasks: want 1 to %d", c.N, MaxTasks)
	}
	return validNodeAddr("claim.node", c.Node)
}

func (a *Assign) validate() error {
	if a.Claimed < 0 || a.Claimed > MaxTasks || len(a.Tasks) > a.Claimed {
		return fmt.Errorf("assign: %d tasks for %d claimed: want at most the claimed number (<= %d)", len(a.Tasks), a.Claimed, MaxTasks)
	}
	if len(a.Tasks) > 0 && !blob.ValidDigest(a.Program) {
		return fmt.Errorf("assign.program %q: want a SHA-256 digest (64 hex digits)", a.Program)
	}
	for i, t := range a.Tasks {
		if t.Index < 0 || t.Index >= MaxTasks {
			return fmt.Errorf("assign.tasks[%d].index %d: want 0 to %d", i, t.Index, MaxTasks-1)
		}
		if t.Input != "" && !blob.ValidDigest(t.Input) {
			return fmt.Errorf("assign.tasks[%d].input %q: want a SHA-256 digest or none", i, t.Input)
		}
		if t.Input == "" && len(t.InputData) > 0 {
			return fmt.Errorf("assign.tasks[%d]: input data without a digest", i)
		}
	}
	return nil
}

func (l *Lease) validate() error {
	if len(l.Tasks) > MaxTasks || l.Claims < 0 || l.Claims > MaxTasks {
		return fmt.Errorf("lease: %d tasks, %d claims: want at most %d", len(l.Tasks), l.Claims, MaxTasks)
	}
	for i, t := range l.Tasks {
		if t < 0 || t >= MaxTasks {
			return fmt.Errorf("lease.tasks[%d] %d: want 0 to %d", i, t, MaxTasks-1)
		}
	}
	return validNodeAddr("lease.node", l.Node)
}

func (r *Result) validate() error {
	if r.Task < 0 || r.Task >= MaxTasks {
		return fmt.Errorf("result.task %d: want 0 to %d", r.Task, MaxTasks-1)
	}
	if r.Output != "" && !blob.ValidDigest(r.Output) {
		return fmt.Errorf("result.output %q: want a SHA-256 digest or none", r.Output)
	}
	if r.Output == "" && len(r.Data) > 0 {
		return errors.New("result: output data without a digest")
	}
	if len(r.Err) > 4096 {
		return fmt.Errorf("result.err: %d bytes: want at most 4096", len(r.Err))
	}
	if math.IsNaN(r.Start) || math.IsNaN(r.End) || math.IsInf(r.Start, 0) || math.IsInf(r.End, 0) {
		return fmt.Errorf("result: start %g end %g: want finite times", r.Start, r.End)
	}
	return validNodeAddr("result.node", r.Node)
}

func (r *ResultAck) validate() error {
	if r.Task < 0 || r.Task >= MaxTasks {
		return fmt.Errorf("result-ack.task %d: want 0 to %d", r.Task, MaxTasks-1)
	}
	return nil
}

func (b *BlobGet) validate() error {
	if !blob.ValidDigest(b.Digest) {
		return fmt.Errorf("blob-get.digest %q: want a SHA-256 digest", b.Digest)
	}
	return nil
}

func (b *BlobData) validate() error {
	if !blob.ValidDigest(b.Digest) {
		return fmt.Errorf("blob-data.digest %q: want a SHA-256 digest", b.Digest)
	}
	return nil
}

func (e *ErrorMsg) validate() error { return nil }

// newControl returns an empty control message of frame type t.
func newControl(t FrameType) validator {
	switch t {
	case fHello:
		return new(Hello)
	case fHeartbeat:
		return new(Heartbeat)
	case fJoin:
		return new(Join)
	case fWelcome:
		return new(Welcome)
	case fSetFather:
		return new(SetFather)
	case fReplaceChild:
		return new(ReplaceChild)
	case fAdopt:
		return new(Adopt)
	case fLeave:
		return new(Leave)
	case fDissolve:
		return new(Dissolve)
	case fHandoff:
		return new(Handoff)
	case fJoinAck:
		return new(JoinAck)
	case fJoinWait:
		return new(JoinWait)
	case fClaim:
		return new(Claim)
	case fAssign:
		return new(Assign)
	case fLease:
		return new(Lease)
	case fResult:
		return new(Result)
	case fResultAck:
		return new(ResultAck)
	case fBlobGet:
		return new(BlobGet)
	case fBlobData:
		return new(BlobData)
	case fSubmit:
		return new(Job)
	case fSubmitted:
		return new(Submitted)
	case fStatus:
		return new(StatusReq)
	case fStatusResp:
		return new(Status)
	case fResults:
		return new(ResultsReq)
	case fResultsResp:
		return new(Results)
	case fError:
		return new(ErrorMsg)
	}
	return nil
}

// frameOf returns the frame type of a control message.
func frameOf(v validator) FrameType {
	switch v.(type) {
	case *Hello:
		return fHello
	case *Heartbeat:
		return fHeartbeat
	case *Join:
		return fJoin
	case *Welcome:
		return fWelcome
	case *SetFather:
		return fSetFather
	case *ReplaceChild:
		return fReplaceChild
	case *Adopt:
		return fAdopt
	case *Leave:
		return fLeave
	case *Dissolve:
		return fDissolve
	case *Handoff:
		return fHandoff
	case *JoinAck:
		return fJoinAck
	case *JoinWait:
		return fJoinWait
	case *Claim:
		return fClaim
	case *Assign:
		return fAssign
	case *Lease:
		return fLease
	case *Result:
		return fResult
	case *ResultAck:
		return fResultAck
	case *BlobGet:
		return fBlobGet
	case *BlobData:
		return fBlobData
	case *Job:
		return fSubmit
	case *Submitted:
		return fSubmitted
	case *StatusReq:
		return fStatus
	case *Status:
		return fStatusResp
	case *ResultsReq:
		return fResults
	case *Results:
		return fResultsResp
	case *ErrorMsg:
		return fError
	}
	panic(fmt.Sprintf("node: %T is not a control message", v))
}

// encodeControl returns the frame of a control message.
func encodeControl(v validator) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0, 0, byte(frameOf(v))})
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b)-4 > MaxFrame {
		return nil, fmt.Errorf("%s message of %d bytes: over the frame limit %d", frameOf(v), len(b)-4, MaxFrame)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b, nil
}

// decodeControl decodes and validates the payload of a control frame.
func decodeControl(t FrameType, payload []byte) (validator, error) {
	v := newControl(t)
	if v == nil {
		return nil, fmt.Errorf("frame type %d: not a control message", uint8(t))
	}
	d := json.NewDecoder(bytes.NewReader(payload))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return nil, fmt.Errorf("%s message: %w", t, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%s message: trailing data", t)
	}
	if err := v.validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// frameType is the type of an encoded frame (its length, then its type
// byte), ok false when the frame has none.
func frameType(frame []byte) (FrameType, bool) {
	if len(frame) < 5 || frame[4] == 0 || frame[4] >= byte(fMax) {
		return 0, false
	}
	return FrameType(frame[4]), true
}

// readFrame reads one frame: its type and payload (a fresh slice).
func readFrame(r io.Reader) (FrameType, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < 1 || n > MaxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes: want 1 to %d", n, MaxFrame)
	}
	if _, err := io.ReadFull(r, hdr[4:5]); err != nil {
		return 0, nil, err
	}
	t := FrameType(hdr[4])
	if t == 0 || t >= fMax {
		return 0, nil, fmt.Errorf("frame type %d: unknown", hdr[4])
	}
	// Read in steps so that a lying length costs no more memory than the
	// bytes that actually arrive.
	payload := make([]byte, 0, min(int(n-1), 64<<10))
	for rest := int(n - 1); rest > 0; {
		k := min(rest, 1<<20)
		off := len(payload)
		payload = append(payload, make([]byte, k)...)
		if _, err := io.ReadFull(r, payload[off:]); err != nil {
			return 0, nil, err
		}
		rest -= k
	}
	return t, payload, nil
}
