package node

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"time"

	"github.com/volsched/volsched/internal/pki"
)

// StatusReq asks a node for its status.
type StatusReq struct{}

func (*StatusReq) validate() error { return nil }

// Status is a node's view: its place in the tree, its execution role, the
// bags submitted there and its traffic.
type Status struct {
	Node    string         `json:"node"`
	Policy  string         `json:"policy"`
	Uptime  float64        `json:"uptime_s"`
	Leaf    Ref            `json:"leaf"`
	Father  Ref            `json:"father"`
	Root    Ref            `json:"root"`
	Joining bool           `json:"joining,omitempty"`
	Routers []RouterStatus `json:"routers"`
	Exec    ExecStatus     `json:"exec"`
	Bags    []BagStatus    `json:"bags"`
	Traffic Traffic        `json:"traffic"`
}

// RouterStatus is one routing vertex this node plays: its links, its
// children's subtrees, and what its availability information says.
type RouterStatus struct {
	View View `json:"view"`
	// Subtree combines the children's stats; Kids are theirs.
	Subtree Stats    `json:"subtree"`
	Kids    [2]Stats `json:"kids"`
	// Lost: the father or a child is silent (repair pending).
	Lost []string `json:"lost,omitempty"`
	// Available is the number of execution nodes the branch's summary
	// covers; Functions its sampled functions.
	Available int  `json:"available"`
	Functions int  `json:"functions"`
	Detached  bool `json:"detached,omitempty"`
}

// ExecStatus is the execution role's queue.
type ExecStatus struct {
	Slots    int    `json:"slots"`
	Claimed  int    `json:"claimed"`
	Waiting  int    `json:"waiting"`
	Running  int    `json:"running"`
	Held     int    `json:"held_results"`
	TasksRun uint64 `json:"tasks_run"`
}

// BagStatus is one bag submitted at this node.
type BagStatus struct {
	ID    uint64 `json:"id"`
	Name  string `json:"name,omitempty"`
	Tasks int    `json:"tasks"`
	// Done and Failed count the tasks whose outcome is durably stored;
	// Storing those finished whose outcome is still being written (or
	// whose write failed and waits for the result to be sent again).
	Done        int            `json:"done"`
	Failed      int            `json:"failed"`
	Storing     int            `json:"storing,omitempty"`
	Pending     int            `json:"pending"`
	Requested   int            `json:"requested"`
	Assigned    int            `json:"assigned"`
	Where       map[string]int `json:"where,omitempty"` // execution node -> tasks assigned there now
	Duplicates  int            `json:"duplicate_results"`
	Resubmitted int            `json:"resubmitted"`
	Returned    int            `json:"returned"`
	Submitted   float64        `json:"submitted"`
	Allocated   float64        `json:"allocated,omitempty"` // every task assigned (first time)
	FirstStart  float64        `json:"first_start,omitempty"`
	LastStart   float64        `json:"last_start,omitempty"`
	Completed   float64        `json:"completed,omitempty"`
}

// ResultsReq asks for the results of a bag, from task From on.
type ResultsReq struct {
	Bag  uint64 `json:"bag"`
	From int    `json:"from"`
}

func (r *ResultsReq) validate() error {
	if r.From < 0 || r.From >= MaxTasks {
		return fmt.Errorf("results.from %d: want 0 to %d", r.From, MaxTasks-1)
	}
	return nil
}

// TaskResult is one task's outcome at its submission node, as far as it
// is durably stored there.
type TaskResult struct {
	Index int `json:"index"`
	// State is pending, requested, assigned, done, failed, or
	// StateStoring: finished, its outcome not yet durably stored (nothing
	// else about it is reported; ask again).
	State  string `json:"state"`
	Node   string `json:"node,omitempty"`
	Exit   int    `json:"exit"`
	Err    string `json:"err,omitempty"`
	Output []byte `json:"output,omitempty"`
	Digest string `json:"digest,omitempty"`
	// Start and End: when the task ran (its execution node's clock).
	Start float64 `json:"start,omitempty"`
	End   float64 `json:"end,omitempty"`
}

// ErrLine is the first line of Err (what a table of results shows).
func (r *TaskResult) ErrLine() string { return firstLine(r.Err) }

// Results answers a ResultsReq; Next is the first task not included (the
// bag's size when all are); Storing counts the tasks listed whose outcome
// is not yet durably stored (state StateStoring).
type Results struct {
	Bag     uint64       `json:"bag"`
	Tasks   []TaskResult `json:"tasks"`
	Next    int          `json:"next"`
	Total   int          `json:"total"`
	Storing int          `json:"storing,omitempty"`
}

// StateStoring is the state of a task that finished and whose outcome is
// still being stored at its submission node.
const StateStoring = "storing"

func (s *Status) validate() error  { return nil }
func (r *Results) validate() error { return nil }

// control dispatches a control message from node from.
func (n *Node) control(from string, m validator) {
	if n.leaving {
		return
	}
	switch m := m.(type) {
	case *Heartbeat:
		n.onHeartbeat(from, m)
	case *Join:
		n.onJoin(from, m)
	case *Welcome:
		n.onWelcome(from, m)
	case *SetFather:
		n.onSetFather(from, m)
	case *ReplaceChild:
		n.onReplaceChild(from, m)
	case *Adopt:
		n.onAdopt(from, m)
	case *Leave:
		n.onLeave(from, m)
	case *Dissolve:
		n.onDissolve(from, m)
	case *Handoff:
		n.onHandoff(from, m)
	case *JoinAck:
		n.memberSeen = time.Now()
	case *JoinWait:
		// Heard from (receive noted it): formTree defers to it if its
		// address is smaller.
	case *Claim:
		n.onClaim(from, m)
	case *Assign:
		n.onAssign(from, m)
	case *Lease:
		n.onLease(from, m)
	case *Result:
		n.onResult(from, m)
	case *ResultAck:
		n.onResultAck(from, m)
	case *BlobGet:
		n.onBlobGet(from, m)
	case *BlobData:
		n.onBlobData(from, m)
	default:
		n.invalid(from, frameOf(m).String(), errors.New("not a message between nodes"))
	}
}

// client answers a client's request.
func (n *Node) client(in inbound) {
	switch m := in.ctl.(type) {
	case *Job:
		n.submit(m, in.reply)
	case *StatusReq:
		s := n.status()
		in.reply(&s)
	case *ResultsReq:
		// Answered once every result stored so far is committed (the
		// store's operations are applied in order).
		n.st.do(func(*sql.Tx) error { return nil }, func(error) {
			n.post(func() { n.results(m, in.reply) })
		})
	default:
		in.reply(&ErrorMsg{Err: fmt.Sprintf("%s: not a client request", in.t)})
	}
}

// Status returns the node's status (from any goroutine).
func (n *Node) Status() (Status, bool) {
	var s Status
	ok := n.call(func() { s = n.status() })
	return s, ok
}

func (n *Node) status() Status {
	s := Status{Node: n.self, Policy: n.cfg.Policy.String(), Uptime: time.Since(n.started).Seconds(), Root: n.root,
		Joining: !n.joinAt.IsZero(), Traffic: n.tr.traffic()}
	if n.leaf != nil {
		s.Leaf, s.Father = n.leaf.self, n.leaf.father
	}
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		rs := RouterStatus{View: r.view, Subtree: n.subStats(r), Kids: [2]Stats{r.kidStats(0), r.kidStats(1)}, Detached: r.detached}
		if !r.flost.IsZero() {
			rs.Lost = append(rs.Lost, "father")
		}
		for i, w := range []string{"left", "right"} {
			if !r.kids[i].lost.IsZero() {
				rs.Lost = append(rs.Lost, w)
			}
		}
		if sum := r.r.Current(&n.oc); sum != nil {
			rs.Available, rs.Functions = sum.Nodes(), sum.Len()
		}
		s.Routers = append(s.Routers, rs)
	}
	c, w, ru := n.exec.counts()
	s.Exec = ExecStatus{Slots: n.cfg.Slots, Claimed: c, Waiting: w, Running: ru, Held: len(n.held), TasksRun: n.tasksRun}
	ids := make([]uint64, 0, len(n.bags))
	for id := range n.bags {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		return n.bags[ids[i]].submitted < n.bags[ids[j]].submitted || n.bags[ids[i]].submitted == n.bags[ids[j]].submitted && ids[i] < ids[j]
	})
	for _, id := range ids {
		b := n.bags[id]
		bs := BagStatus{ID: id, Name: b.job.Name, Tasks: len(b.tasks),
			Pending: b.count(tsPending), Requested: b.count(tsRequested), Duplicates: b.duplicates,
			Resubmitted: b.resubmitted, Returned: b.returned, Submitted: b.submitted, Allocated: b.allocated, FirstStart: b.firstStart,
			LastStart: b.lastStart}
		for i := range b.tasks {
			switch t := &b.tasks[i]; {
			case t.state == tsAssigned:
				bs.Assigned++
				if bs.Where == nil {
					bs.Where = map[string]int{}
				}
				bs.Where[t.node]++
			case t.state >= tsDone && !t.stored:
				bs.Storing++
			case t.state == tsDone:
				bs.Done++
			case t.state == tsFailed:
				bs.Failed++
			}
		}
		if bs.Done+bs.Failed == bs.Tasks {
			bs.Completed = b.completed
		}
		s.Bags = append(s.Bags, bs)
	}
	return s
}

// results answers a ResultsReq: a bag's task results, with their
// outputs, from r.From on (as many as fit in a few MiB). The tasks are
// listed as the loop holds them; their outputs are read from the database
// by the store's reader, which sends the answer (the loop does not wait on
// the disk).
func (n *Node) results(r *ResultsReq, reply func(validator)) {
	b := n.bags[r.Bag]
	if b == nil {
		reply(&ErrorMsg{Err: fmt.Sprintf("bag %d: not submitted at this node", r.Bag)})
		return
	}
	out := &Results{Bag: r.Bag, Next: len(b.tasks), Total: len(b.tasks)}
	for i := r.From; i < len(b.tasks); i++ {
		t := &b.tasks[i]
		if t.state >= tsDone && !t.stored {
			// Finished, its outcome not yet durable: only what is stored
			// is reported.
			out.Tasks = append(out.Tasks, TaskResult{Index: i, State: StateStoring, Node: t.node})
			continue
		}
		out.Tasks = append(out.Tasks, TaskResult{Index: i, State: taskStateNames[t.state], Node: t.node, Exit: t.exit, Err: t.err,
			Digest: t.output, Start: t.start, End: t.finish})
	}
	st := n.st
	st.read(func() {
		size := 0
		for k := range out.Tasks {
			tr := &out.Tasks[k]
			if tr.State != taskStateNames[tsDone] || tr.Digest == "" {
				continue
			}
			data, err := st.blob(tr.Digest)
			if err != nil {
				tr.Err = err.Error()
				continue
			}
			if size > 0 && size+len(data) > maxResultsBytes {
				out.Next = tr.Index
				out.Tasks = out.Tasks[:k]
				break
			}
			tr.Output = data
			size += len(data)
		}
		for k := range out.Tasks {
			if out.Tasks[k].State == StateStoring {
				out.Storing++
			}
		}
		reply(out)
	})
}

// maxResultsBytes bounds the outputs in one Results answer (one at least).
const maxResultsBytes = 8 << 20

// Client talks to one node as a client (the command line): it needs a
// certificate from the cluster's CA like any node.
type Client struct {
	c *tls.Conn
	r *bufio.Reader
}

// Dial connects to a node.
func Dial(ctx context.Context, addr string, cert tls.Certificate, ca *x509.Certificate) (*Client, error) {
	d := tls.Dialer{Config: tlsWithALPN(pki.MutualClientConfig(cert, ca)), NetDialer: &net.Dialer{Timeout: 10 * time.Second}}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", addr, err)
	}
	c := nc.(*tls.Conn)
	h, _ := encodeControl(&Hello{Version: ProtocolVersion, Client: true})
	if _, err := c.Write(h); err != nil {
		c.Close()
		return nil, fmt.Errorf("node %s: %w", addr, err)
	}
	return &Client{c: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.c.Close() }

func (c *Client) roundTrip(ctx context.Context, req validator) (validator, error) {
	b, err := encodeControl(req)
	if err != nil {
		return nil, err
	}
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(2 * time.Minute)
	}
	c.c.SetDeadline(dl)
	stop := context.AfterFunc(ctx, func() { c.c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := c.c.Write(b); err != nil {
		return nil, err
	}
	ft, payload, err := readFrame(c.r)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	m, err := decodeControl(ft, payload)
	if err != nil {
		return nil, err
	}
	if e, ok := m.(*ErrorMsg); ok {
		return nil, errors.New(e.Err)
	}
	return m, nil
}

// Submit submits a bag and returns its id.
func (c *Client) Submit(ctx context.Context, j *Job) (uint64, error) {
	if err := j.validate(); err != nil {
		return 0, err
	}
	m, err := c.roundTrip(ctx, j)
	if err != nil {
		return 0, err
	}
	s, ok := m.(*Submitted)
	if !ok {
		return 0, fmt.Errorf("unexpected answer %s", frameOf(m))
	}
	return s.Bag, nil
}

// Status returns the node's status.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	m, err := c.roundTrip(ctx, &StatusReq{})
	if err != nil {
		return nil, err
	}
	s, ok := m.(*Status)
	if !ok {
		return nil, fmt.Errorf("unexpected answer %s", frameOf(m))
	}
	return s, nil
}

// Results returns every task result of a bag.
func (c *Client) Results(ctx context.Context, bag uint64) ([]TaskResult, error) {
	var all []TaskResult
	from := 0
	for {
		m, err := c.roundTrip(ctx, &ResultsReq{Bag: bag, From: from})
		if err != nil {
			return nil, err
		}
		r, ok := m.(*Results)
		if !ok {
			return nil, fmt.Errorf("unexpected answer %s", frameOf(m))
		}
		all = append(all, r.Tasks...)
		if r.Next >= r.Total || r.Next <= from {
			return all, nil
		}
		from = r.Next
	}
}

// finite replaces infinities for JSON.
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}
