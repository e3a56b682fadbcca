package overlay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// PolicyMMP is makespan minimization (§6.2): FCFS queues.
var PolicyMMP = MustRegisterPolicy(PolicyDef{Name: "mmp", ID: 2, SFMax: 256, Bandwidth: 10000,
	Rules: func(o Options) (Rules, error) { return &MMP{o: o}, nil },
	Exec:  func(hw Hardware, _ Options) Exec { return &MMPExec{Mem: hw.Mem, Disk: hw.Disk, Power: hw.Power} },
	Codec: mmpCodec{}})

// MMPCluster is a sampled function of the MMP policy (§6.2.1): V nodes with
// at least Mem MB, Disk MB and Power MFLOPS, whose queues all end by Q.
type MMPCluster struct {
	Mem, Disk, Power float32 // rounded down from the node's values (f32down)
	V                int32
	Q                float64
}

// MMPSummary is an MMP availability summary (wrapped with spreads above the
// level where clustering starts, see spread.go; asMMP reads both).
type MMPSummary []MMPCluster

func (s MMPSummary) Nodes() int {
	n := 0
	for _, c := range s {
		n += int(c.V)
	}
	return n
}
func (s MMPSummary) Len() int       { return len(s) }
func (s MMPSummary) Bytes() int     { return 24 * len(s) } // float32 M, D, s; float64 Q; uint32 v
func (MMPSummary) Policy() Policy   { return PolicyMMP }
func (s MMPSummary) Plain() Summary { return s }

// mmpCodec is MMP's encoding (wire.go): per function mem:f32 disk:f32
// power:f32 v:uvarint q:f64, then with the flag its 4 spreads.
type mmpCodec struct{}

func (mmpCodec) Flag(s Summary) bool { return spreadFlag[MMPSummary](s) }

func (mmpCodec) Append(e *Encoder, s Summary) {
	v, sp := plainOf[MMPSummary](s)
	b := binary.AppendUvarint(e.b, uint64(len(v)))
	for i := range v {
		b = appendF32(b, v[i].Mem)
		b = appendF32(b, v[i].Disk)
		b = appendF32(b, v[i].Power)
		b = binary.AppendUvarint(b, uint64(v[i].V))
		b = appendF64(b, v[i].Q)
		if sp != nil {
			b = appendSpreads(b, sp[4*i:4*i+4])
		}
	}
	e.b = b
}

func (mmpCodec) Read(d *Decoder, flag bool) Summary {
	return readFns[MMPSummary](d, flag, 4, 21, func(d *Decoder, c *MMPCluster) {
		*c = MMPCluster{Mem: d.F32("memory"), Disk: d.F32("disk"), Power: d.F32("power"), V: readV(d), Q: d.F64("queue end")}
	})
}

func (mmpCodec) Validate(s Summary) error {
	v, err := validWrap[MMPSummary](s, 4)
	if err != nil {
		return err
	}
	for i := range v {
		if err := errors.Join(validF32("memory", i, v[i].Mem), validF32("disk", i, v[i].Disk), validF32("power", i, v[i].Power),
			validV(i, v[i].V)); err != nil {
			return err
		}
		if math.IsNaN(v[i].Q) {
			return fmt.Errorf("function %d: queue end NaN", i)
		}
	}
	return nil
}

// MMP is the makespan minimization policy: FCFS queues, AF = ⌊(q −
// Q)·s/a⌋ under the memory and disk constraints, conservative sum (min,
// min, min, max Q), forwarding by the binary search of Fig. 6.
// Build it with NewRules.
type MMP struct {
	o Options
}

func (*MMP) Policy() Policy     { return PolicyMMP }
func (p *MMP) Options() Options { return p.o }

type mmpFn = fn[MMPCluster]

// mmpOps are the comparison and merges of identical MMP functions.
var mmpOps = newFnOps(cmpMMP, addMMP)

var mmpFnPool = sync.Pool{New: func() any { return new(fnWork[MMPCluster]) }}

func asMMP(s Summary) MMPSummary {
	v, _ := plainOf[MMPSummary, MMPCluster](s)
	return v
}

// Sum is the conservative sum of two MMP sampled functions (what
// Aggregate applies, on a normalized copy).
func (*MMP) Sum(a, b *MMPCluster) MMPCluster {
	return MMPCluster{Mem: min(a.Mem, b.Mem), Disk: min(a.Disk, b.Disk), Power: min(a.Power, b.Power),
		Q: max(a.Q, b.Q), V: a.V + b.V}
}

// mmpIsMax marks the queue end, summed by a maximum.
var mmpIsMax = [4]bool{3: true}

// mmpVec and vecMMP convert between a function and the clustering's vec,
// in place (v and f are overwritten whole).
func mmpVec(v *vec, f *mmpFn) {
	*v = vec{o: [4]float64{float64(f.c.Mem), float64(f.c.Disk), float64(f.c.Power), f.c.Q}, v: float64(f.c.V)}
	v.setSpreads(f.s[:])
}

func vecMMP(f *mmpFn, v *vec, spread bool) {
	o := v.o
	*f = mmpFn{c: MMPCluster{Mem: float32(o[0]), Disk: float32(o[1]), Power: float32(o[2]), Q: o[3], V: int32(v.v)}}
	if spread {
		v.getSpreads(f.s[:])
	}
}

func (p *MMP) Aggregate(x, y Summary) Summary {
	if x == nil && y == nil {
		return nil
	}
	if p.o.Clustering != nil {
		return aggregateVecsWith[MMPSummary](&mmpKind, x, y, &p.o)
	}
	return aggregateVecs[MMPSummary](&mmpKind, x, y, p.o.SFMax, gridSpec{none: p.o.NoGrid, cells: p.o.Cells}, p.o.Distance)
}

// mmpKind is what aggregateVecs needs of MMP.
var mmpKind = vecKind[MMPCluster]{d: 4, isMax: mmpIsMax, pool: &mmpFnPool, ops: &mmpOps, cmpVals: cmpMMP,
	add: addMMP, toVec: mmpVec, fromVec: vecMMP}

func (*MMP) Equal(x, y Summary) bool {
	return equalSummaries[MMPSummary, MMPCluster](x, y, func(a, b *MMPCluster) bool { return *a == *b })
}

func (*MMP) MaxQueue(s Summary) float64 {
	q := math.Inf(-1)
	for _, c := range asMMP(s) {
		q = max(q, c.Q)
	}
	return q
}

// Central is the centralized MMP reference (Centralized, placeMMP).
func (*MMP) Central(now float64, req Request, nodes []Summary, out []Placement) []Placement {
	return placeMMP(now, req, nodes, out)
}

// AF is the number of tasks of app the nodes of c can queue so that they
// finish by q, at time now (a queue end in the past means an empty queue).
func (c *MMPCluster) AF(app App, q, now float64) int {
	if float64(c.Mem) < app.Mem || float64(c.Disk) < app.Disk {
		return 0
	}
	t := (q - max(c.Q, now)) * float64(c.Power) / app.Length
	if !(t >= 1) {
		return 0
	}
	if t > 1<<40 {
		t = 1 << 40
	}
	return int(c.V) * int(math.Floor(t))
}

// Admits is the number of tasks of app that s can finish by q.
func (s MMPSummary) Admits(app App, q, now float64) int {
	n := 0
	for i := range s {
		n += s[i].AF(app, q, now)
		if n > 1<<50 {
			break
		}
	}
	return n
}

// Makespan is the binary search of Fig. 6: the earliest queue end q at
// which the union of the summaries admits n tasks of app, or +Inf if no
// node can run them.
func Makespan(app App, n int, now float64, ss ...MMPSummary) float64 {
	fits := false
	for _, s := range ss {
		for i := range s {
			fits = fits || (float64(s[i].Mem) >= app.Mem && float64(s[i].Disk) >= app.Disk && s[i].Power > 0)
		}
	}
	if n <= 0 {
		return now
	}
	if !fits {
		return math.Inf(1)
	}
	return makespanSearch(now, func(q float64) bool {
		k := 0
		for _, s := range ss {
			k += s.Admits(app, q, now)
		}
		return k >= n
	})
}

// makespanSearch is Fig. 6's search for the earliest q at which admits(q)
// holds (admits: "the nodes admit the request's n tasks by q", monotone in
// q), given that some node can run the tasks: doubling from now + 1, then
// bisection to a relative precision of 1e-9 of the makespan (q is an
// estimate; admits(hi) holds throughout); +Inf if the doubling reaches
// +Inf without admits holding. Makespan and the centralized
// reference share it, so that both search the same way.
func makespanSearch(now float64, admits func(q float64) bool) float64 {
	lo, hi := now, now+1
	for !admits(hi) {
		if math.IsInf(hi, 0) || math.IsNaN(hi) {
			// The nodes never admit the tasks (queue ends at +Inf, v = 0,
			// a task of infinite or NaN length): no makespan.
			return math.Inf(1)
		}
		lo, hi = hi, now+2*(hi-now)
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi || hi-lo <= 1e-9*(hi-now) {
			break
		}
		if admits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Forward is Fig. 6: find the makespan q of the request on this branch; if
// this is not the root, the request did not come from the father and
// q − now exceeds β times the longest makespan of the tree, send it up;
// otherwise the left child takes what it can finish by q and the right
// child the rest.
func (p *MMP) Forward(f *Fork, req Request, now float64) Split {
	ls, rs := asMMP(f.LeftInfo), asMMP(f.RightInfo)
	q := Makespan(req.App, req.N, now, ls, rs)
	if math.IsInf(q, 1) {
		return Split{Father: req.N}
	}
	maxQ := max(f.Bound, p.MaxQueue(ls), p.MaxQueue(rs), now)
	if f.Father != NoAddr && req.Src != f.Father && q-now > p.o.Beta*(maxQ-now) {
		return Split{Father: req.N}
	}
	nl := min(ls.Admits(req.App, q, now), req.N)
	return Split{Left: nl, Right: req.N - nl}
}

// mmpRun is a run of consecutive tasks of one application in a FCFS queue.
type mmpRun struct {
	app        uint64
	sub        Addr
	n, done    int
	start, dur float64
}

// MMPExec is an MMP execution node: a FCFS queue that accepts every task
// whose memory and disk requirements it meets.
type MMPExec struct {
	Mem, Disk, Power float64
	Q                float64 // queue end time
	runs             []mmpRun
}

// SummaryStable: an MMP summary does not depend on the instant (its queue
// end is absolute; AF takes max(Q, now)).
func (e *MMPExec) SummaryStable(float64) bool { return true }

func (e *MMPExec) Summary(float64) Summary {
	return MMPSummary{{Mem: f32down(e.Mem), Disk: f32down(e.Disk), Power: f32down(e.Power), Q: e.Q, V: 1}}
}

func (e *MMPExec) Accept(now float64, app App, n int, sub Addr) int {
	if n < 1 || e.Mem < app.Mem || e.Disk < app.Disk {
		return 0
	}
	start := max(e.Q, now)
	dur := app.Length / e.Power
	e.runs = append(e.runs, mmpRun{app: app.ID, sub: sub, n: n, start: start, dur: dur})
	e.Q = start + float64(n)*dur
	return n
}

func (e *MMPExec) Advance(now float64, done []Request) []Request {
	k := 0
	for i := range e.runs {
		r := &e.runs[i]
		fin := min(r.n, int(math.Floor((now-r.start)/r.dur+1e-9)))
		if fin > r.done {
			done = append(done, Request{App: App{ID: r.app}, Submitter: r.sub, Src: NoAddr, N: fin - r.done})
			r.done = fin
		}
		if r.done < r.n {
			e.runs[k] = *r
			k++
		}
	}
	clear(e.runs[k:])
	e.runs = e.runs[:k]
	if k == 0 {
		e.runs = nil // an idle node keeps no queue storage
	}
	return done
}

func (e *MMPExec) Wake() float64 {
	if len(e.runs) == 0 {
		return math.Inf(1)
	}
	r := e.runs[0]
	return r.start + float64(r.done+1)*r.dur
}

// AppendState writes the node's state (SavedExec): its queue end and its
// runs.
func (e *MMPExec) AppendState(w *Encoder) {
	w.F64(e.Q)
	w.Uvarint(uint64(len(e.runs)))
	for i := range e.runs {
		r := &e.runs[i]
		w.Uvarint(r.app)
		w.Varint(int64(r.sub))
		w.Varint(int64(r.n))
		w.Varint(int64(r.done))
		w.F64(r.start)
		w.F64(r.dur)
	}
}

// ReadState reads what AppendState wrote.
func (e *MMPExec) ReadState(d *Decoder) {
	e.Q = d.F64("queue end")
	e.runs = nil
	if n := d.Count("runs", 20); n > 0 {
		e.runs = make([]mmpRun, n)
		for i := range e.runs {
			r := &e.runs[i]
			r.app, r.sub, r.n, r.done = d.Uvarint("application", math.MaxUint64), d.addr("submitter"), readTasks(d), readTasks(d)
			r.start, r.dur = d.F64("start"), d.F64("duration")
		}
	}
}
