package overlay

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/volsched/volsched/internal/ckpt"
)

// Checkpoint hooks: a driver (package oversim) saves and restores the
// dynamic state of routers, leaves, execution nodes, messages and
// summaries with these. What a role's constructor derives from the tree or
// the node's hardware (addresses, leafL/leafR, Mem/Disk/Power) is not
// stored: the driver rebuilds it (Tree.Router, its own Exec constructor)
// before loading the state over it.

// A summary in a checkpoint is one of: sumNil; sumRef and the number of a
// summary written before (summaries are immutable and shared: a router's
// last sent summary is the one its father holds for it, so two references
// to the same storage are written once and restored as one); sumNew and
// the summary's wire form (its tag, then its policy's encoding) as a
// length-prefixed byte string, in which l samples written before are
// references (Encoder.LPoints).
const (
	sumNil = iota
	sumRef
	sumNew
)

// sumKey identifies a summary (or an l function's samples) by its storage.
type sumKey struct {
	p unsafe.Pointer
	n int
	t reflect.Type
}

func sliceKey[T any](s []T) sumKey {
	return sumKey{p: unsafe.Pointer(unsafe.SliceData(s)), n: len(s)}
}

// summaryKey identifies a summary by its storage: a slice by its array and
// length, a pointer by its target (with the type, so that a value and the
// first field of a struct at the same address differ). ok is false for
// other kinds (never shared: written each time).
func summaryKey(s Summary) (k sumKey, ok bool) {
	v := reflect.ValueOf(s)
	switch v.Kind() {
	case reflect.Slice:
		return sumKey{p: v.UnsafePointer(), n: v.Len(), t: v.Type()}, true
	case reflect.Pointer, reflect.Map:
		return sumKey{p: v.UnsafePointer(), t: v.Type()}, true
	}
	return sumKey{}, false
}

// SummaryEncoder writes summaries, each distinct one once.
type SummaryEncoder struct {
	ids  map[sumKey]uint64
	pts  map[sumKey]uint64
	nSum uint64
	nPts uint64
	buf  []byte
}

// NewSummaryEncoder returns an encoder with an empty identity table.
func NewSummaryEncoder() *SummaryEncoder {
	return &SummaryEncoder{ids: map[sumKey]uint64{}, pts: map[sumKey]uint64{}}
}

// Distinct is the number of distinct summaries written so far.
func (e *SummaryEncoder) Distinct() uint64 { return e.nSum }

// Write encodes s. A summary without a wire form (PolicySummary) cannot be
// saved: the error is w's.
func (e *SummaryEncoder) Write(w *ckpt.Writer, s Summary) {
	if s == nil || s.Len() == 0 {
		w.U8(sumNil)
		return
	}
	if _, ok := policyOf(s); !ok {
		w.Fail(fmt.Errorf("checkpoint: a summary of type %T cannot be saved", s))
		return
	}
	k, shared := summaryKey(s)
	if shared {
		if id, ok := e.ids[k]; ok {
			w.U8(sumRef)
			w.Uvarint(id)
			return
		}
		e.ids[k] = e.nSum
	}
	e.nSum++
	w.U8(sumNew)
	enc := Encoder{b: e.buf[:0], share: e}
	appendSummary(&enc, s)
	e.buf = enc.b
	w.Bytes(enc.b)
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
	case sumNew:
	default:
		r.Failf("summary tag %d", tag)
		return nil
	}
	b := r.Bytes()
	if r.Err() != nil {
		return nil
	}
	dec := Decoder{b: b, share: d}
	s := readSummary(&dec)
	if dec.err == nil && len(dec.b) != 0 {
		dec.Fail("%d bytes after its end", len(dec.b))
	}
	if dec.err == nil && s == nil {
		dec.Fail("an empty summary")
	}
	if dec.err != nil {
		r.Failf("summary %d: %v", len(d.sums), dec.err)
		return nil
	}
	d.sums = append(d.sums, s)
	return s
}

func readI32(r *ckpt.Reader) int32 { return int32(r.Int()) }

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
// addresses and its Exec's hardware are rebuilt by the driver). An Exec
// that is not a SavedExec cannot be saved: the error is w's.
func (l *Leaf) SaveState(w *ckpt.Writer, e *SummaryEncoder) {
	e.Write(w, l.sent)
	w.Bool(l.started)
	x, ok := l.Exec.(SavedExec)
	if !ok {
		w.Fail(fmt.Errorf("checkpoint: an execution node of type %T cannot be saved (it is not an overlay.SavedExec)", l.Exec))
		return
	}
	enc := Encoder{b: e.buf[:0]}
	x.AppendState(&enc)
	e.buf = enc.b
	w.Bytes(enc.b)
}

// LoadState reads what SaveState wrote over a leaf whose Exec the driver
// built (of the same policy, with the node's hardware).
func (l *Leaf) LoadState(r *ckpt.Reader, d *SummaryDecoder) {
	l.sent = d.Read(r)
	l.started = r.Bool()
	b := r.Bytes()
	if r.Err() != nil {
		return
	}
	x, ok := l.Exec.(SavedExec)
	if !ok {
		r.Failf("an execution node of type %T cannot be restored", l.Exec)
		return
	}
	dec := Decoder{b: b}
	x.ReadState(&dec)
	if dec.err == nil && len(dec.b) != 0 {
		dec.Fail("%d bytes after its end", len(dec.b))
	}
	if dec.err != nil {
		r.Failf("execution node %d: %v", l.Self, dec.err)
	}
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

// WriteRequest writes a request: its wire form (AppendMsg's).
func WriteRequest(w *ckpt.Writer, q *Request) {
	var buf [64]byte
	e := Encoder{b: buf[:0]}
	e.request(q)
	w.Bytes(e.b)
}

// ReadRequest reads what WriteRequest wrote.
func ReadRequest(r *ckpt.Reader) Request {
	b := r.Bytes()
	if r.Err() != nil {
		return Request{}
	}
	d := Decoder{b: b}
	q := d.request()
	if d.err == nil && len(d.b) != 0 {
		d.Fail("%d bytes after its end", len(d.b))
	}
	if d.err != nil {
		r.Failf("request: %v", d.err)
		return Request{}
	}
	return q
}
