package oversim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/workload"
)

type evKind uint8

const (
	evMsg         evKind = iota // deliver msgs[ref] to vertex v
	evTick                      // wake vertex v (Router.Wake / Leaf.Wake)
	evSubmit                    // user v submits its pending job
	evTrace                     // trace job ref is submitted
	evChurn                     // node v's session ends
	evCatastrophe               // the catastrophic failure
	evResubmit                  // the submitter of job v detects ref aborted tasks
	evSample                    // write a timeline row
	evProbe                     // probe request number v (Fig. 10)
	evServer                    // request msgs[ref] reaches the reference scheduler
)

// event is what the queue holds: 12 bytes, 32 with the queue's time and
// sequence number.
type event struct {
	kind evKind
	v    int32
	ref  int32
}

// Message sizes on the wire (ours; the paper gives none): a 16-byte header
// plus the payload. A request carries the application (id, length, memory,
// disk, deadline: 32 bytes) and the submitter, source and task count (12).
const (
	headerBytes  = 16
	requestBytes = headerBytes + 44
	boundBytes   = headerBytes + 8
	reportBytes  = headerBytes + 16 // KindDone / KindReturn: app id, submitter, n
)

func msgBytes(m *overlay.Msg) int {
	switch m.Kind {
	case overlay.KindRequest:
		return requestBytes
	case overlay.KindUpdate:
		if m.Sum == nil {
			return headerBytes
		}
		return headerBytes + m.Sum.Bytes()
	case overlay.KindBound:
		return boundBytes
	case overlay.KindDone, overlay.KindReturn:
		return reportBytes
	}
	return headerBytes
}

// jobState is what a submission node keeps of one application (saved to
// its database in the paper's model, so it survives the node's failures).
type jobState struct {
	submit    des.Time
	deadline  float64 // absolute, seconds (+Inf: none)
	length    float64 // MI per task
	mem, disk float32
	node      int32 // submitter (leaf index)
	tasks     int32
	unplaced  int32 // tasks in requests still travelling
	open      int32 // tasks not finished nor reported unallocated
	allocated bool  // allocation time recorded
	probe     bool  // a Fig. 10 probe request
}

// taskRun is a group of tasks of one job accepted by a leaf.
type taskRun struct{ job, n int32 }

// Sample is one row of the timeline.
type Sample struct {
	Time                  des.Time
	JobsSubmitted         uint64
	TasksSubmitted        uint64
	TasksFinished         uint64
	TasksFinishedInTime   uint64
	ComputationFinishedMI float64
	TasksUnallocated      uint64
	TasksAborted          uint64
	Events                uint64
	Pending               int
	// JobsCompleted and MakespanMax are Result's, so far; RowMakespanMax
	// is the largest makespan of the jobs completed since the previous row
	// (0 if none): Fig. 15's "maximum makespan obtained at each moment".
	JobsCompleted  uint64
	MakespanMax    float64
	RowMakespanMax float64
}

// Sim is one simulation run.
type Sim struct {
	cfg  *Config
	oc   overlay.Config
	tree *overlay.Tree
	eng  des.Sim[event]
	net  *des.Network
	end  des.Time

	routers  []overlay.Router // by router rank (internal vertices in pre-order)
	leaves   []overlay.Leaf   // by leaf index
	leafOf   []int32          // vertex -> leaf index, or -1
	rankOf   []int32          // vertex -> router rank, or -1
	leafV    []int32          // leaf index -> vertex
	routerV  []int32          // router rank -> vertex
	wake     []des.Time       // vertex -> scheduled tick
	runs     [][]taskRun      // leaf index -> accepted, unfinished tasks
	churnK   []uint32         // node -> sessions ended
	users    []*workload.User // lazily generated workload
	nextJob  []workload.Job   // user -> its next job
	msgs     []overlay.Msg    // requests in flight (96 B each)
	freeMsg  []int32
	small    []smallMsg // updates and bounds in flight (32 B each): refs < 0
	freeSml  []int32
	jobs     []jobState
	freeJob  []int32
	out      []overlay.Msg
	victims  []int32
	onSample func(Sample)
	progress func(now des.Time, events uint64)
	onTasks  func(TaskEvent) // OnTasks

	st Result
	// allocation time accumulators
	allocSum    float64
	allocMax    float64
	probeSum    float64
	makespanSum float64
	rowMakespan float64 // largest makespan since the last timeline row
	lastJob     int32
	cpuStart    time.Duration

	// checkpoints (checkpoint.go)
	started  bool // the time-0 summaries were sent (Run's first steps)
	rows     uint64
	stopAt   uint64
	ckptDue  func() bool
	ckptSave func() error
	resumes  int
	prevCPU  float64 // CPU and wall seconds of the run before its last resume
	prevWall float64
	runStart time.Time

	// reference schedulers
	placer  overlay.Placer
	randSrc *rand.PCG             // Random's source (saved in checkpoints)
	index   overlay.IndexedPlacer // the centralized reference's index (IBP), or nil
	// sumCache keeps, for the centralized reference without an index (MMP,
	// DP), the summaries that hold until their node next changes
	// (overlay.StableSummary), cleared at each step of the node; derived
	// state, empty after a restore. nil with fullScan.
	sumCache     []overlay.Summary
	sumCacheHits uint64 // summaries read from sumCache (for tests)
	server       int32  // host of the reference scheduler (index n of the network)
	sums         []overlay.Summary
	placed_      []overlay.Placement
}

// New builds the simulation: the tree, every node's roles, the network and
// the workload sources.
func New(cfg *Config) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Nodes < 2 {
		return nil, fmt.Errorf("nodes %d: want >= 2 (a tree with at least one routing node)", cfg.Nodes)
	}
	pol, err := cfg.policy()
	if err != nil {
		return nil, err
	}
	opts := pol.Options() // with the defaults
	hosts := cfg.Nodes
	if cfg.reference() {
		hosts++ // the reference scheduler's server
	}
	nw, err := des.NewNetwork(hosts, cfg.Link, cfg.Proc, cfg.Seed, des.Second, 10*des.Second)
	if err != nil {
		return nil, err
	}
	n := cfg.Nodes
	t := overlay.NewTree(n)
	s := &Sim{cfg: cfg, oc: overlay.Config{Rules: pol, Bandwidth: cfg.UpdateBandwidth}, tree: t, net: nw, end: cfg.Length}
	nv := t.Vertices()
	s.leafOf = make([]int32, nv)
	s.rankOf = make([]int32, nv)
	s.leafV = make([]int32, n)
	s.routerV = make([]int32, 0, n-1)
	s.wake = make([]des.Time, nv)
	for v := 0; v < nv; v++ {
		s.wake[v] = des.Never
		s.leafOf[v], s.rankOf[v] = -1, -1
		if !t.IsLeaf(overlay.Addr(v)) {
			s.rankOf[v] = int32(len(s.routerV))
			s.routerV = append(s.routerV, int32(v))
		}
	}
	for i := 0; i < n; i++ {
		v := t.Leaf(i)
		s.leafOf[v], s.leafV[i] = int32(i), int32(v)
	}
	s.routers = make([]overlay.Router, len(s.routerV))
	for r, v := range s.routerV {
		if s.routers[r], err = overlay.NewRouter(t.Links(overlay.Addr(v))); err != nil {
			return nil, err
		}
	}
	s.leaves = make([]overlay.Leaf, n)
	s.runs = make([][]taskRun, n)
	for i := range s.leaves {
		if s.leaves[i], err = t.NewLeaf(i, s.newExec(i)); err != nil {
			return nil, err
		}
	}
	s.st = Result{Policy: opts.Policy, Link: cfg.Link.Name, Nodes: n, SFMax: opts.SFMax,
		Hours: cfg.Length.Seconds() / 3600, Seed: cfg.Seed, UpdateBandwidth: cfg.UpdateBandwidth,
		ChurnMedianMinutes: cfg.Churn.Median.Seconds() / 60}
	if len(cfg.Params.NodeMemMB) > 0 && !reflect.DeepEqual(cfg.Params, workload.DefaultParams()) {
		p := cfg.Params
		s.st.WorkloadParams = &p
	}
	if cfg.Jobs == nil && cfg.Dists != nil && cfg.Dists.Model != "" {
		s.st.Workload = "embedded model " + cfg.Dists.Model
	}
	if cfg.Catastrophe.Enabled() {
		s.st.CatastropheFraction = cfg.Catastrophe.Fraction
		s.st.CatastropheHours = cfg.Catastrophe.At.Seconds() / 3600
	}
	s.eng.Grow(2 * n)
	switch cfg.Scheduler {
	case "centralized":
		if _, ok := pol.(overlay.CentralPlacer); !ok {
			return nil, fmt.Errorf("scheduler centralized: policy %s has no centralized reference (its rules are not an overlay.CentralPlacer)", cfg.Policy)
		}
		c := overlay.Centralized{Rules: pol}
		s.placer = c
		if !cfg.fullScan {
			s.index = c.Index(n)
		}
	case "random":
		s.randSrc = stream.NewPCG(cfg.Seed, 0x72616e646f6d) // "random"
		s.placer = overlay.Random{Rand: rand.New(s.randSrc)}
	}
	if s.placer != nil {
		s.server = int32(n)
		if s.index == nil {
			s.sums = make([]overlay.Summary, n)
			if cfg.Scheduler == "centralized" && !cfg.fullScan {
				s.sumCache = make([]overlay.Summary, n)
			}
		}
		s.st.Scheduler = cfg.Scheduler
	}
	s.rebuildIndex(0)
	// Workload.
	if cfg.Jobs != nil {
		if len(cfg.Jobs) > 0 && cfg.Jobs[0].Submit < s.end {
			s.eng.At(cfg.Jobs[0].Submit, event{kind: evTrace, ref: 0})
		}
	} else {
		s.users = make([]*workload.User, n)
		s.nextJob = make([]workload.Job, n)
		for i := 0; i < n; i++ {
			s.users[i] = workload.NewUser(&cfg.Params, cfg.Dists, cfg.Seed, int32(i), cfg.Params.NodeOf(cfg.Seed, i).PowerMIPS)
			s.nextJob[i] = s.users[i].Next()
			if s.nextJob[i].Submit < s.end {
				s.eng.At(s.nextJob[i].Submit, event{kind: evSubmit, v: int32(i)})
			}
		}
	}
	// Failures.
	if cfg.Churn.Enabled() {
		s.churnK = make([]uint32, n)
		for i := 0; i < n; i++ {
			if at := cfg.Churn.Session(cfg.Seed, int32(i), 0); at < s.end {
				s.eng.At(at, event{kind: evChurn, v: int32(i)})
			}
		}
	}
	if cfg.Catastrophe.Enabled() && cfg.Catastrophe.At < s.end {
		s.victims = cfg.Catastrophe.Victims(cfg.Seed, n)
		s.eng.At(cfg.Catastrophe.At, event{kind: evCatastrophe})
	}
	if cfg.Sample > 0 {
		s.eng.At(cfg.Sample, event{kind: evSample})
	}
	if cfg.ProbeEvery > 0 && cfg.ProbeEvery < s.end {
		s.eng.At(cfg.ProbeEvery, event{kind: evProbe, v: 1})
	}
	return s, nil
}

// newExec builds node i's local scheduler: its policy's (Policy.NewExec)
// with the node's hardware.
func (s *Sim) newExec(i int) overlay.Exec {
	hw := s.cfg.nodeParams().NodeOf(s.cfg.Seed, i)
	return s.cfg.Policy.NewExec(overlay.Hardware{Mem: hw.MemMB, Disk: hw.DiskMB, Power: hw.PowerMIPS}, s.oc.Rules.Options())
}

// OnSample sets a function called with each timeline row (every
// Config.Sample of simulated time, and once at the end).
func (s *Sim) OnSample(f func(Sample)) { s.onSample = f }

// OnProgress sets a function called every 65,536 events.
func (s *Sim) OnProgress(f func(now des.Time, events uint64)) { s.progress = f }

// host is the physical node of vertex v.
func (s *Sim) host(v int32) int32 {
	if l := s.leafOf[v]; l >= 0 {
		return l
	}
	return s.rankOf[v]
}

// smallMsg is an update or bound in flight: the fields of overlay.Msg
// those kinds use, less the destination (the event's vertex). The start-up
// wave has one update per leaf in flight at once, so the pool's size is
// about N slots for the whole run.
type smallMsg struct {
	sum   overlay.Summary
	bound float64
	from  overlay.Addr
	kind  overlay.Kind
}

// allocMsg stores m until its delivery; the ref is >= 0 for a full message,
// < 0 for a small one.
func (s *Sim) allocMsg(m overlay.Msg) int32 {
	if m.Kind == overlay.KindUpdate || m.Kind == overlay.KindBound {
		sm := smallMsg{sum: m.Sum, bound: m.Bound, from: m.From, kind: m.Kind}
		if k := len(s.freeSml); k > 0 {
			i := s.freeSml[k-1]
			s.freeSml = s.freeSml[:k-1]
			s.small[i] = sm
			return -i - 1
		}
		s.small = append(s.small, sm)
		return -int32(len(s.small))
	}
	if k := len(s.freeMsg); k > 0 {
		i := s.freeMsg[k-1]
		s.freeMsg = s.freeMsg[:k-1]
		s.msgs[i] = m
		return i
	}
	s.msgs = append(s.msgs, m)
	return int32(len(s.msgs) - 1)
}

// takeMsg returns the message of ref, to vertex to, and frees its slot.
func (s *Sim) takeMsg(ref, to int32) overlay.Msg {
	if ref < 0 {
		i := -ref - 1
		sm := s.small[i]
		s.small[i] = smallMsg{}
		s.freeSml = append(s.freeSml, i)
		return overlay.Msg{Kind: sm.kind, From: sm.from, To: overlay.Addr(to), Sum: sm.sum, Bound: sm.bound}
	}
	m := s.msgs[ref]
	s.msgs[ref] = overlay.Msg{}
	s.freeMsg = append(s.freeMsg, ref)
	return m
}

// send transmits a message that leaves vertex from no earlier than depart.
// Reports to the submitter are only accounted (their effect was counted
// when the leaf or router emitted them); the others become events. The
// acknowledgement of accepted tasks is not charged to the network (ours:
// the paper's model has none, and the submitter's database, which
// survives its failures, is where the placement is recorded).
func (s *Sim) send(depart des.Time, from int32, m overlay.Msg) {
	if m.Kind == overlay.KindAccepted {
		return
	}
	if s.placer != nil && (m.Kind == overlay.KindUpdate || m.Kind == overlay.KindBound) {
		return // the reference scheduler knows every node's state without messages
	}
	to := int32(m.To)
	hs, hd := s.host(from), s.host(to)
	arrive := depart
	if hs != hd {
		arrive = s.net.Send(depart, hs, hd, msgBytes(&m))
	}
	if m.Kind == overlay.KindDone || m.Kind == overlay.KindReturn {
		return
	}
	s.eng.At(arrive, event{kind: evMsg, v: to, ref: s.allocMsg(m)})
}

func (s *Sim) schedWake(v int32, w float64, now des.Time) {
	if math.IsInf(w, 1) || math.IsNaN(w) {
		return
	}
	wt := des.CeilSeconds(w) // saturates: a wake beyond the representable range never comes
	if wt <= now {
		wt = now + 1
	}
	if wt < s.wake[v] {
		s.wake[v] = wt
		s.eng.At(wt, event{kind: evTick, v: v})
	}
}

// step runs vertex v's state machine on m at time t and sends its
// reactions once the node's processor has handled m.
func (s *Sim) step(t des.Time, v int32, m overlay.Msg) {
	done := s.net.Process(t, s.host(v), s.cfg.Proc.Cost(msgBytes(&m)))
	now := t.Seconds()
	out := s.out[:0]
	if li := s.leafOf[v]; li >= 0 {
		l := &s.leaves[li]
		out = l.Step(&s.oc, now, m, out)
		var acc *overlay.Msg
		for i := range out {
			o := &out[i]
			switch o.Kind {
			case overlay.KindDone:
				s.finished(t, li, int32(o.Req.App.ID), int32(o.Req.N))
			case overlay.KindReturn:
				s.unallocated(t, int32(o.Req.App.ID), int32(o.Req.N))
			case overlay.KindAccepted:
				acc = o
			}
		}
		// The submitter records where its accepted tasks are (after the
		// refused ones are accounted).
		if acc != nil {
			job, n := int32(acc.Req.App.ID), int32(acc.Req.N)
			s.runs[li] = append(s.runs[li], taskRun{job: job, n: n})
			s.tasks(TasksPlaced, t, li, job, n)
			s.placed(t, job, n)
		}
		if s.index != nil {
			// Leaf.Step has just computed the node's summary: what it
			// last sent equals it (it is replaced whenever it differs).
			s.index.Update(int(li), l.Summary())
		}
		if s.sumCache != nil {
			s.sumCache[li] = nil // the node may have changed
		}
		s.schedWake(v, l.Wake(), t)
	} else {
		r := &s.routers[s.rankOf[v]]
		out = r.Step(&s.oc, now, m, out)
		for i := range out {
			if o := &out[i]; o.Kind == overlay.KindReturn {
				s.unallocated(t, int32(o.Req.App.ID), int32(o.Req.N))
			}
		}
		s.schedWake(v, r.Wake(), t)
	}
	for i := range out {
		s.send(done, v, out[i])
		out[i] = overlay.Msg{} // drop summary references
	}
	s.out = out
}

func (s *Sim) placed(t des.Time, job, n int32) {
	j := &s.jobs[job]
	j.unplaced -= n
	s.checkAllocated(t, j)
}

func (s *Sim) unallocated(t des.Time, job, n int32) {
	j := &s.jobs[job]
	s.tasks(TasksUnallocated, t, -1, job, n)
	j.unplaced -= n
	j.open -= n
	s.st.TasksUnallocated += uint64(n)
	if j.probe {
		s.st.ProbeTasksUnallocated += uint64(n)
	}
	s.checkAllocated(t, j)
	s.maybeFree(job)
}

func (s *Sim) checkAllocated(t des.Time, j *jobState) {
	if j.unplaced == 0 && !j.allocated {
		j.allocated = true
		a := (t - j.submit).Seconds()
		s.allocSum += a
		s.allocMax = max(s.allocMax, a)
		s.st.AllocatedRequests++
		if j.probe {
			s.probeSum += a
			s.st.ProbeAllocTimeMax = max(s.st.ProbeAllocTimeMax, a)
			s.st.ProbesAllocated++
		}
	}
}

func (s *Sim) finished(t des.Time, li, job, n int32) {
	now := t.Seconds()
	runs := s.runs[li]
	left := n
	for k := 0; k < len(runs) && left > 0; k++ {
		if runs[k].job == job {
			d := min(left, runs[k].n)
			runs[k].n -= d
			left -= d
		}
	}
	k := 0
	for _, r := range runs {
		if r.n > 0 {
			runs[k] = r
			k++
		}
	}
	s.runs[li] = runs[:k]
	j := &s.jobs[job]
	s.tasks(TasksFinished, t, li, job, n)
	j.open -= n
	s.st.TasksFinished += uint64(n)
	s.st.ComputationFinishedMI += float64(n) * j.length
	if now <= j.deadline+1e-6 {
		s.st.TasksFinishedInTime += uint64(n)
	}
	if j.open == 0 && j.unplaced == 0 {
		// The application is complete: its makespan (MMP's metric, §7.4.2)
		// runs from submission to the end of its last task.
		m := now - j.submit.Seconds()
		s.makespanSum += m
		s.st.JobsCompleted++
		s.st.MakespanMax = max(s.st.MakespanMax, m)
		s.rowMakespan = max(s.rowMakespan, m)
	}
	s.maybeFree(job)
}

func (s *Sim) maybeFree(job int32) {
	if j := &s.jobs[job]; j.open == 0 && j.unplaced == 0 {
		*j = jobState{}
		s.freeJob = append(s.freeJob, job)
	}
}

func (s *Sim) submit(t des.Time, wj *workload.Job) {
	var id int32
	if k := len(s.freeJob); k > 0 {
		id = s.freeJob[k-1]
		s.freeJob = s.freeJob[:k-1]
	} else {
		s.jobs = append(s.jobs, jobState{})
		id = int32(len(s.jobs) - 1)
	}
	dl := math.Inf(1)
	if wj.Deadline > 0 {
		dl = wj.Deadline.Seconds()
	} else if s.cfg.Policy.Deadlines() {
		slack := s.cfg.NoDeadlineSlack
		if slack <= 0 {
			slack = 7 * des.Day
		}
		dl = (t + slack).Seconds()
	}
	s.jobs[id] = jobState{submit: t, deadline: dl, length: wj.LengthMI, mem: wj.MemMB, disk: wj.DiskMB,
		node: wj.Node, tasks: wj.Tasks, unplaced: wj.Tasks, open: wj.Tasks}
	s.lastJob = id
	s.st.JobsSubmitted++
	s.st.TasksSubmitted += uint64(wj.Tasks)
	s.request(t, id, wj.Tasks)
}

func (s *Sim) request(t des.Time, id, n int32) {
	j := &s.jobs[id]
	app := overlay.App{ID: uint64(id), Length: j.length, Mem: float64(j.mem), Disk: float64(j.disk), Deadline: j.deadline}
	sub := overlay.Addr(s.leafV[j.node])
	m := overlay.NewRequest(s.tree, sub, app, int(n))
	done := s.net.Process(t, j.node, s.cfg.Proc.Cost(requestBytes))
	if s.placer != nil {
		arrive := s.net.Send(done, j.node, s.server, requestBytes)
		s.eng.At(arrive, event{kind: evServer, ref: s.allocMsg(m)})
		return
	}
	s.send(done, int32(sub), m)
}

// serve is the reference scheduler deciding a request at time t.
func (s *Sim) serve(t des.Time, m overlay.Msg) {
	now := t.Seconds()
	n := len(s.leaves)
	per := s.cfg.CentralPerNode
	if s.cfg.Scheduler != "centralized" {
		per = 0 // random looks at no node
	}
	// The modelled cost: a real centralized server examines every node
	// (whether the simulator does, or uses its index).
	cost := s.cfg.Proc.Cost(requestBytes) + per*des.Time(n)
	done := s.net.Process(t, s.server, cost)
	switch {
	case s.index != nil:
		s.placed_ = s.index.PlaceIndexed(now, m.Req, s.placed_[:0])
	case s.cfg.Scheduler == "centralized":
		for i := range s.leaves {
			if s.sumCache != nil && s.sumCache[i] != nil {
				s.sums[i] = s.sumCache[i]
				s.sumCacheHits++
				continue
			}
			e := s.leaves[i].Exec
			s.sums[i] = e.Summary(now)
			if st, ok := e.(overlay.StableSummary); ok && s.sumCache != nil && st.SummaryStable(now) {
				s.sumCache[i] = s.sums[i]
			}
		}
		s.placed_ = s.placer.Place(now, m.Req, s.sums, s.placed_[:0])
		clear(s.sums) // no summary kept alive between requests
	default:
		// Random reads only how many nodes there are: s.sums keeps nil
		// entries, and clearing it per request (O(nodes)) is not needed.
		s.placed_ = s.placer.Place(now, m.Req, s.sums, s.placed_[:0])
	}
	left := int32(m.Req.N)
	req := m.Req
	req.Src = overlay.NoAddr
	for _, p := range s.placed_ {
		req.N = p.N
		left -= int32(p.N)
		to := s.leafV[p.Node]
		arrive := s.net.Send(done, s.server, int32(p.Node), requestBytes)
		s.eng.At(arrive, event{kind: evMsg, v: to, ref: s.allocMsg(overlay.Msg{Kind: overlay.KindRequest, From: overlay.NoAddr, To: overlay.Addr(to), Req: req})})
	}
	if left > 0 {
		s.net.Send(done, s.server, s.leafOf[m.Req.Submitter], reportBytes)
		s.unallocated(t, int32(m.Req.App.ID), left)
	}
}

// rebuildIndex recomputes the centralized reference's index from every
// execution node's summary at time now (it is derived state: after
// restoring the leaves, this is all it needs).
func (s *Sim) rebuildIndex(now des.Time) {
	if s.index == nil {
		return
	}
	s.index.Reset(len(s.leaves))
	for i := range s.leaves {
		s.index.Update(i, s.leaves[i].Exec.Summary(now.Seconds()))
	}
}

// fail replaces physical node h at time t: its tasks are aborted (their
// submitters notice after DetectTimeout and resubmit them), its execution
// node restarts idle and reports its summary, and its routing node (if it
// has one) restarts without information, which its children send again
// (and its father, the MMP bound).
func (s *Sim) fail(t des.Time, h int32) {
	s.st.Failures++
	v := s.leafV[h]
	for _, r := range s.runs[h] {
		s.tasks(TasksAborted, t, h, r.job, r.n)
		s.st.TasksAborted += uint64(r.n)
		s.eng.At(t+s.cfg.DetectTimeout, event{kind: evResubmit, v: r.job, ref: r.n})
	}
	s.runs[h] = s.runs[h][:0]
	s.net.Fail(h, t)
	s.leaves[h], _ = s.tree.NewLeaf(int(h), s.newExec(int(h))) // valid: built once by New
	if s.sumCache != nil {
		s.sumCache[h] = nil
	}
	s.wake[v] = des.Never
	s.step(t, v, overlay.Msg{Kind: overlay.KindTick, To: overlay.Addr(v)})
	if int(h) < len(s.routerV) {
		rv := overlay.Addr(s.routerV[h])
		s.routers[h], _ = overlay.NewRouter(s.tree.Links(rv)) // valid: built once by New
		s.wake[rv] = des.Never
		// The fresh router tells its neighbours it restarted: its children
		// send their summaries again, its father the bound it had sent it
		// (MMP; nothing for the other policies).
		restarted := overlay.Msg{Kind: overlay.KindRestarted, From: rv}
		for _, c := range []overlay.Addr{s.tree.Left(rv), s.tree.Right(rv), s.tree.Father(rv)} {
			if c != overlay.NoAddr {
				restarted.To = c
				s.deliverNow(t, int32(c), restarted)
			}
		}
	}
}

// deliverNow runs vertex v's state machine on a recovery message at time
// t and sends its reactions at t. The announcement of a replaced node
// (KindRestarted) is modelled as known to its neighbours at once, without
// network transfer or processing time (the paper's overlay detects and
// replaces failed nodes without modelling either, §3.5).
func (s *Sim) deliverNow(t des.Time, v int32, m overlay.Msg) {
	now := t.Seconds()
	out := s.out[:0]
	if li := s.leafOf[v]; li >= 0 {
		out = s.leaves[li].Step(&s.oc, now, m, out)
	} else {
		out = s.routers[s.rankOf[v]].Step(&s.oc, now, m, out)
	}
	for i := range out {
		s.send(t, v, out[i])
		out[i] = overlay.Msg{}
	}
	s.out = out
}

func (s *Sim) handle(t des.Time, ev event) {
	switch ev.kind {
	case evMsg:
		m := s.takeMsg(ev.ref, ev.v)
		s.st.MessagesDelivered++
		s.step(t, ev.v, m)
	case evTick:
		if s.wake[ev.v] != t {
			return // superseded
		}
		s.wake[ev.v] = des.Never
		s.step(t, ev.v, overlay.Msg{Kind: overlay.KindTick, To: overlay.Addr(ev.v)})
	case evSubmit:
		u := ev.v
		s.submit(t, &s.nextJob[u])
		s.nextJob[u] = s.users[u].Next()
		if at := s.nextJob[u].Submit; at < s.end {
			s.eng.At(max(at, t), event{kind: evSubmit, v: u})
		}
	case evTrace:
		s.submit(t, &s.cfg.Jobs[ev.ref])
		if k := int(ev.ref) + 1; k < len(s.cfg.Jobs) && s.cfg.Jobs[k].Submit < s.end {
			s.eng.At(max(s.cfg.Jobs[k].Submit, t), event{kind: evTrace, ref: int32(k)})
		}
	case evChurn:
		s.fail(t, ev.v)
		s.churnK[ev.v]++
		if at := t + s.cfg.Churn.Session(s.cfg.Seed, ev.v, s.churnK[ev.v]); at < s.end {
			s.eng.At(at, event{kind: evChurn, v: ev.v})
		}
	case evCatastrophe:
		for _, h := range s.victims {
			s.fail(t, h)
		}
	case evResubmit:
		s.st.TasksResubmitted += uint64(ev.ref)
		s.jobs[ev.v].unplaced += ev.ref
		s.request(t, ev.v, ev.ref)
	case evServer:
		s.serve(t, s.takeMsg(ev.ref, -1))
	case evProbe:
		rng := stream.New(s.cfg.Seed, 0x70726f6265, uint64(ev.v)) // "probe"
		node := int32(rng.IntN(s.cfg.Nodes))
		s.submit(t, &workload.Job{Submit: t, Node: node, Tasks: s.cfg.ProbeTasks, LengthMI: s.cfg.ProbeLengthMI})
		s.st.ProbesSubmitted++
		s.jobs[s.lastJob].probe = true
		if next := t + s.cfg.ProbeEvery; next < s.end {
			s.eng.At(next, event{kind: evProbe, v: ev.v + 1})
		}
	case evSample:
		s.rows++
		if s.onSample != nil {
			s.onSample(s.sample(t))
		}
		s.rowMakespan = 0
		if next := t + s.cfg.Sample; next < s.end {
			s.eng.At(next, event{kind: evSample})
		}
	}
}

func (s *Sim) sample(t des.Time) Sample {
	return Sample{Time: t, JobsSubmitted: s.st.JobsSubmitted, TasksSubmitted: s.st.TasksSubmitted,
		TasksFinished: s.st.TasksFinished, TasksFinishedInTime: s.st.TasksFinishedInTime,
		ComputationFinishedMI: s.st.ComputationFinishedMI, TasksUnallocated: s.st.TasksUnallocated,
		TasksAborted: s.st.TasksAborted, Events: s.eng.Processed(), Pending: s.eng.Pending(),
		JobsCompleted: s.st.JobsCompleted, MakespanMax: s.st.MakespanMax, RowMakespanMax: s.rowMakespan}
}

// Run simulates Config.Length and returns the results. It stops early,
// with ctx's error, if ctx is cancelled.
//
// A panic inside a node state machine (a bug of package overlay, never of
// the input) is turned into an error naming the simulated time, so a
// campaign or the CLI reports it instead of crashing.
func (s *Sim) Run(ctx context.Context) (res *Result, err error) {
	start := time.Now()
	s.runStart, s.cpuStart = start, cpuTime()
	defer func() {
		if p := recover(); p != nil {
			res = s.result(s.eng.Now(), time.Since(start))
			err = fmt.Errorf("%s node state machine failed at %v simulated after %d events: %v", s.cfg.Policy, s.eng.Now(), s.eng.Processed(), p)
		}
	}()
	// Every execution node reports its first summary at time 0 (not
	// again when the run resumes from a checkpoint).
	if !s.started {
		s.started = true
		for i := range s.leaves {
			v := s.leafV[i]
			s.step(0, v, overlay.Msg{Kind: overlay.KindTick, To: overlay.Addr(v)})
		}
	}
	for {
		if !s.eng.Step(s.end, s.handle) {
			err = s.eng.Err() // nil, or the clock could not advance
			break
		}
		k := s.eng.Processed()
		if k == s.stopAt {
			err = ErrStopped
			break
		}
		// Events cost from under a microsecond (IBP at small SF_max) to
		// milliseconds (aggregations of large summaries): look at the
		// context often, report progress less often.
		if k&(1<<12-1) == 0 {
			if e := ctx.Err(); e != nil {
				err = e
				break
			}
			if s.ckptDue != nil && s.ckptDue() {
				if e := s.ckptSave(); e != nil {
					err = e
					break
				}
			}
			if s.progress != nil && k&(1<<16-1) == 0 {
				s.progress(s.eng.Now(), k)
			}
		}
	}
	t := s.end
	if err != nil {
		t = s.eng.Now()
	}
	if s.onSample != nil {
		s.onSample(s.sample(t))
	}
	return s.result(t, time.Since(start)), err
}
