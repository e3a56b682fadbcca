package overlay

import (
	"fmt"
	"unsafe"

	"github.com/volsched/volsched/internal/ckpt"
)

// Checkpoint hooks: a driver (package oversim) saves and restores the
// dynamic state of routers, leaves, execution nodes, messages and
// summaries with these. What a role's constructor derives from the tree or
// the node's hardware (addresses, leafL/leafR, Mem/Disk/Power) is not
// stored: the driver rebuilds it (Tree.Router, its own Exec constructor)
// before loading the state over it.

// Summary encoding tags.
const (
	sumNil = iota
	sumRef // a summary already written: its id follows
	sumIBP
	sumMMP
	sumDP
	sumSpreadIBP
	sumSpreadMMP
	sumSpreadDP
	sumStars // retired: DistStars summaries (package stars) are never saved
	sumTags
)

// sumKey identifies a summary (or an l function's samples) by its storage:
// summaries are immutable and shared (a router's last sent summary is the
// one its father holds for it), so two references to the same storage are
// written once and restored as one.
type sumKey struct {
	p    unsafe.Pointer
	n    int
	kind uint8
}

// SummaryEncoder writes summaries, each distinct one once.
type SummaryEncoder struct {
	ids  map[sumKey]uint64
	pts  map[sumKey]uint64
	nSum uint64
	nPts uint64
}

// NewSummaryEncoder returns an encoder with an empty identity table.
func NewSummaryEncoder() *SummaryEncoder {
	return &SummaryEncoder{ids: map[sumKey]uint64{}, pts: map[sumKey]uint64{}}
}

// Distinct is the number of distinct summaries written so far.
func (e *SummaryEncoder) Distinct() uint64 { return e.nSum }

func sliceKey[T any](s []T, kind uint8) sumKey {
	return sumKey{p: unsafe.Pointer(unsafe.SliceData(s)), n: len(s), kind: kind}
}

// seen writes a back-reference and returns true if k was written before;
// otherwise it registers k and writes tag.
func (e *SummaryEncoder) seen(w *ckpt.Writer, k sumKey, tag uint8) bool {
	if id, ok := e.ids[k]; ok {
		w.U8(sumRef)
		w.Uvarint(id)
		return true
	}
	e.ids[k] = e.nSum
	e.nSum++
	w.U8(tag)
	return false
}

// Write encodes s.
func (e *SummaryEncoder) Write(w *ckpt.Writer, s Summary) {
	switch v := s.(type) {
	case nil:
		w.U8(sumNil)
	case IBPSummary:
		if !e.seen(w, sliceKey(v, sumIBP), sumIBP) {
			writeSlice(w, v, func(c *IBPCluster) {
				w.F32(c.Mem)
				w.F32(c.Disk)
				w.Varint(int64(c.V))
			})
		}
	case MMPSummary:
		if !e.seen(w, sliceKey(v, sumMMP), sumMMP) {
			writeSlice(w, v, func(c *MMPCluster) {
				w.F32(c.Mem)
				w.F32(c.Disk)
				w.F32(c.Power)
				w.Varint(int64(c.V))
				w.F64(c.Q)
			})
		}
	case DPSummary:
		if !e.seen(w, sliceKey(v, sumDP), sumDP) {
			writeSlice(w, v, func(c *DPCluster) {
				w.F32(c.Mem)
				w.F32(c.Disk)
				w.Varint(int64(c.V))
				e.writeL(w, &c.L)
			})
		}
	case *spreadSummary[IBPSummary, IBPCluster]:
		writeSpread(e, w, v, sumSpreadIBP)
	case *spreadSummary[MMPSummary, MMPCluster]:
		writeSpread(e, w, v, sumSpreadMMP)
	case *spreadSummary[DPSummary, DPCluster]:
		writeSpread(e, w, v, sumSpreadDP)
	default:
		w.Fail(fmt.Errorf("checkpoint: a summary of type %T cannot be saved", s))
	}
}

func writeSpread[S plainSummary[C], C any](e *SummaryEncoder, w *ckpt.Writer, v *spreadSummary[S, C], tag uint8) {
	if e.seen(w, sumKey{p: unsafe.Pointer(v), kind: tag}, tag) {
		return
	}
	e.Write(w, v.vals)
	w.Uvarint(uint64(v.d))
	w.Bool(v.sp == nil)
	writeSpreads(w, v.sp)
}

func writeSpreads(w *ckpt.Writer, sp []Spread) {
	w.Uvarint(uint64(len(sp)))
	for _, x := range sp {
		w.F32(x.Lin)
		w.F32(x.Sq)
		w.F32(x.Far)
	}
}

// writeSlice writes nil-ness, length and elements.
func writeSlice[T any](w *ckpt.Writer, s []T, f func(*T)) {
	w.Bool(s == nil)
	w.Uvarint(uint64(len(s)))
	for i := range s {
		f(&s[i])
	}
}

// writeL writes an l function; its samples, often shared between a leaf's
// summary and its ancestors' below SF_max, are written once.
func (e *SummaryEncoder) writeL(w *ckpt.Writer, f *LFunc) {
	w.F64(f.Slope)
	k := sliceKey(f.P, 0)
	if f.P == nil {
		w.U8(0)
		return
	}
	if id, ok := e.pts[k]; ok {
		w.U8(1)
		w.Uvarint(id)
		return
	}
	e.pts[k] = e.nPts
	e.nPts++
	w.U8(2)
	w.Uvarint(uint64(len(f.P)))
	for _, p := range f.P {
		w.F64(p.T)
		w.F64(p.L)
	}
}

// SummaryDecoder reads what a SummaryEncoder wrote, restoring the sharing.
type SummaryDecoder struct {
	sums []Summary
	pts  [][]LPoint
}

// Read decodes a summary.
func (d *SummaryDecoder) Read(r *ckpt.Reader) Summary {
	tag := r.U8()
	if r.Err() != nil {
		return nil
	}
	switch tag {
	case sumNil:
		return nil
	case sumRef:
		id := r.Uvarint()
		if id >= uint64(len(d.sums)) {
			r.Failf("summary reference %d of %d", id, len(d.sums))
			return nil
		}
		return d.sums[id]
	}
	if tag >= sumTags {
		r.Failf("summary tag %d", tag)
		return nil
	}
	// Register before reading the contents (the encoder numbers a summary
	// before its nested values).
	id := len(d.sums)
	d.sums = append(d.sums, nil)
	var s Summary
	switch tag {
	case sumIBP:
		s = readSlice[IBPSummary](r, 9, func(c *IBPCluster) {
			c.Mem, c.Disk, c.V = r.F32(), r.F32(), readI32(r)
		})
	case sumMMP:
		s = readSlice[MMPSummary](r, 21, func(c *MMPCluster) {
			c.Mem, c.Disk, c.Power, c.V, c.Q = r.F32(), r.F32(), r.F32(), readI32(r), r.F64()
		})
	case sumDP:
		s = readSlice[DPSummary](r, 18, func(c *DPCluster) {
			c.Mem, c.Disk, c.V = r.F32(), r.F32(), readI32(r)
			c.L = d.readL(r)
		})
	case sumSpreadIBP:
		s = readSpread[IBPSummary](d, r)
	case sumSpreadMMP:
		s = readSpread[MMPSummary](d, r)
	case sumSpreadDP:
		s = readSpread[DPSummary](d, r)
	case sumStars:
		r.Failf("summary tag %d: the authors' DP summaries (package stars) are not saved", tag)
		return nil
	}
	if r.Err() != nil {
		return nil
	}
	d.sums[id] = s
	return s
}

func readSpread[S plainSummary[C], C any](d *SummaryDecoder, r *ckpt.Reader) Summary {
	vals, ok := d.Read(r).(S)
	if !ok {
		r.Failf("spread summary of another policy")
		return nil
	}
	v := &spreadSummary[S, C]{vals: vals, d: int(r.Uvarint())}
	isNil := r.Bool()
	v.sp = readSpreads(r)
	if isNil {
		v.sp = nil
	}
	if v.d < 1 || v.d > 4 || (v.sp != nil && len(v.sp) != v.d*len(vals)) {
		r.Failf("spread summary: %d spreads for %d functions of dimension %d", len(v.sp), len(vals), v.d)
		return nil
	}
	return v
}

func readSpreads(r *ckpt.Reader) []Spread {
	n := r.Len(12)
	if r.Err() != nil {
		return nil
	}
	sp := make([]Spread, n)
	for i := range sp {
		sp[i] = Spread{Lin: r.F32(), Sq: r.F32(), Far: r.F32()}
	}
	return sp
}

func readSlice[S ~[]T, T any](r *ckpt.Reader, minBytes int, f func(*T)) S {
	isNil := r.Bool()
	n := r.Len(minBytes)
	if r.Err() != nil || isNil {
		return nil
	}
	s := make(S, n)
	for i := range s {
		f(&s[i])
		if r.Err() != nil {
			return nil
		}
	}
	return s
}

func readI32(r *ckpt.Reader) int32 { return int32(r.Int()) }

func (d *SummaryDecoder) readL(r *ckpt.Reader) LFunc {
	f := LFunc{Slope: r.F64()}
	switch r.U8() {
	case 0:
	case 1:
		id := r.Uvarint()
		if id >= uint64(len(d.pts)) {
			r.Failf("l samples reference %d of %d", id, len(d.pts))
			return LFunc{}
		}
		f.P = d.pts[id]
	case 2:
		n := r.Len(16)
		if r.Err() != nil {
			return LFunc{}
		}
		f.P = make([]LPoint, n)
		for i := range f.P {
			f.P[i] = LPoint{T: r.F64(), L: r.F64()}
		}
		d.pts = append(d.pts, f.P)
	default:
		r.Failf("bad l samples tag")
	}
	return f
}

// SaveState writes the router's dynamic state: its children's summaries,
// the MMP bounds, its last aggregate, the bandwidth schedule and its flags
// (its addresses come from the tree).
func (r *Router) SaveState(w *ckpt.Writer, e *SummaryEncoder) {
	e.Write(w, r.LeftInfo)
	e.Write(w, r.RightInfo)
	e.Write(w, r.sent)
	w.F64(r.Bound)
	w.F64(r.nextSend)
	w.F64(r.boundL)
	w.F64(r.boundR)
	w.Bool(r.dirty)
	w.Bool(r.started)
}

// LoadState reads what SaveState wrote over a router built by Tree.Router.
func (r *Router) LoadState(rd *ckpt.Reader, d *SummaryDecoder) {
	r.LeftInfo, r.RightInfo, r.sent = d.Read(rd), d.Read(rd), d.Read(rd)
	r.Bound, r.nextSend, r.boundL, r.boundR = rd.F64(), rd.F64(), rd.F64(), rd.F64()
	r.dirty, r.started = rd.Bool(), rd.Bool()
}

// SaveState writes the leaf's dynamic state and its execution node's (its
// addresses and its Exec's hardware are rebuilt by the driver).
func (l *Leaf) SaveState(w *ckpt.Writer, e *SummaryEncoder) {
	e.Write(w, l.sent)
	w.Bool(l.started)
	switch x := l.Exec.(type) {
	case *IBPExec:
		w.U8(1)
		w.Bool(x.busy)
		w.F64(x.end)
		w.Uvarint(x.app)
		w.Varint(int64(x.sub))
	case *MMPExec:
		w.U8(2)
		w.F64(x.Q)
		writeSlice(w, x.runs, func(r *mmpRun) {
			w.Uvarint(r.app)
			w.Varint(int64(r.sub))
			w.Int(r.n)
			w.Int(r.done)
			w.F64(r.start)
			w.F64(r.dur)
		})
	case *DPExec:
		w.U8(3)
		writeSlice(w, x.runs, func(r *dpRun) { writeDPRun(w, r) })
		w.Bool(x.running)
		writeDPRun(w, &x.cur)
		w.F64(x.end)
	default:
		w.Fail(fmt.Errorf("checkpoint: an execution node of type %T cannot be saved", l.Exec))
	}
}

func writeDPRun(w *ckpt.Writer, r *dpRun) {
	w.Uvarint(r.app)
	w.Varint(int64(r.sub))
	w.Int(r.n)
	w.F64(r.deadline)
	w.F64(r.dur)
}

func readDPRun(r *ckpt.Reader, x *dpRun) {
	x.app, x.sub, x.n, x.deadline, x.dur = r.Uvarint(), Addr(readI32(r)), r.Int(), r.F64(), r.F64()
}

// LoadState reads what SaveState wrote over a leaf whose Exec the driver
// built (of the same policy, with the node's hardware).
func (l *Leaf) LoadState(r *ckpt.Reader, d *SummaryDecoder) {
	l.sent = d.Read(r)
	l.started = r.Bool()
	kind := r.U8()
	if r.Err() != nil {
		return
	}
	switch x := l.Exec.(type) {
	case *IBPExec:
		if kind != 1 {
			break
		}
		x.busy, x.end, x.app, x.sub = r.Bool(), r.F64(), r.Uvarint(), Addr(readI32(r))
		return
	case *MMPExec:
		if kind != 2 {
			break
		}
		x.Q = r.F64()
		x.runs = readSlice[[]mmpRun](r, 20, func(m *mmpRun) {
			m.app, m.sub, m.n, m.done, m.start, m.dur = r.Uvarint(), Addr(readI32(r)), r.Int(), r.Int(), r.F64(), r.F64()
		})
		return
	case *DPExec:
		if kind != 3 {
			break
		}
		x.runs = readSlice[[]dpRun](r, 19, func(m *dpRun) { readDPRun(r, m) })
		x.running = r.Bool()
		readDPRun(r, &x.cur)
		x.end = r.F64()
		return
	}
	r.Failf("execution node of kind %d for a %T", kind, l.Exec)
}

// WriteMsg writes a message (a request, update or bound in flight).
func (e *SummaryEncoder) WriteMsg(w *ckpt.Writer, m *Msg) {
	w.U8(uint8(m.Kind))
	w.Varint(int64(m.From))
	w.Varint(int64(m.To))
	WriteRequest(w, &m.Req)
	e.Write(w, m.Sum)
	w.F64(m.Bound)
}

// ReadMsg reads what WriteMsg wrote.
func (d *SummaryDecoder) ReadMsg(r *ckpt.Reader) Msg {
	m := Msg{Kind: Kind(r.U8()), From: Addr(readI32(r)), To: Addr(readI32(r))}
	m.Req = ReadRequest(r)
	m.Sum = d.Read(r)
	m.Bound = r.F64()
	return m
}

// WriteRequest writes a request.
func WriteRequest(w *ckpt.Writer, q *Request) {
	w.Uvarint(q.App.ID)
	w.F64(q.App.Length)
	w.F64(q.App.Mem)
	w.F64(q.App.Disk)
	w.F64(q.App.Deadline)
	w.Varint(int64(q.Submitter))
	w.Varint(int64(q.Src))
	w.Int(q.N)
}

// ReadRequest reads what WriteRequest wrote.
func ReadRequest(r *ckpt.Reader) Request {
	var q Request
	q.App = App{ID: r.Uvarint(), Length: r.F64(), Mem: r.F64(), Disk: r.F64(), Deadline: r.F64()}
	q.Submitter, q.Src, q.N = Addr(readI32(r)), Addr(readI32(r)), r.Int()
	return q
}
