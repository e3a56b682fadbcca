package overlay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The wire form of a message (docs/overlay.md, "Wire format"), version 1.
// Integers are varints (binary.AppendUvarint; addresses and other signed
// values zigzag, binary.AppendVarint) in their shortest form; floats are
// their IEEE 754 bits, little endian (f32: 4 bytes, f64: 8), so values
// travel bit-exact.
//
//	message  = version:u8 kind:u8 from:addr to:addr payload
//	payload  = request            (request, return, done, accepted)
//	         | summary            (update)
//	         | bound:f64          (bound)
//	         | nothing            (tick, restarted)
//	request  = app:uvarint length:f64 mem:f64 disk:f64 deadline:f64
//	           submitter:addr src:addr n:uvarint
//	summary  = tag:u8 [count:uvarint function{count}]
//	           tag 0: the empty summary, nothing follows; otherwise
//	           tag & 3 = policy (1 IBP, 2 MMP, 3 DP), tag & 4 = spreads
//	function = IBP: mem:f32 disk:f32 v:uvarint
//	           MMP: mem:f32 disk:f32 power:f32 v:uvarint q:f64
//	           DP:  mem:f32 disk:f32 v:uvarint slope:f64 k:uvarint (t:f64 l:f64){k}
//	           then, with spreads, d of (lin:f32 sq:f32 far:f32), d = 2, 4, 3
//
// A message decodes only if it is exactly one well-formed message that
// Msg.Validate accepts; the encoding is canonical (one byte string per
// message), so AppendMsg(DecodeMsg(b)) gives b back.

// WireVersion is the version of the wire form AppendMsg writes and
// DecodeMsg reads.
const WireVersion = 1

// MaxTasks bounds the task count of a request on the wire.
const MaxTasks = math.MaxInt32

// Summary tags.
const (
	tagEmpty   = 0
	tagSpreads = 4
)

// AppendMsg appends the wire form of m to dst. It refuses a message that
// Validate refuses (dst is then returned unchanged).
func AppendMsg(dst []byte, m *Msg) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return dst, err
	}
	b := append(dst, WireVersion, byte(m.Kind))
	b = appendAddr(b, m.From)
	b = appendAddr(b, m.To)
	switch m.Kind {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		q := &m.Req
		b = binary.AppendUvarint(b, q.App.ID)
		b = appendF64(b, q.App.Length)
		b = appendF64(b, q.App.Mem)
		b = appendF64(b, q.App.Disk)
		b = appendF64(b, q.App.Deadline)
		b = appendAddr(b, q.Submitter)
		b = appendAddr(b, q.Src)
		b = binary.AppendUvarint(b, uint64(q.N))
	case KindUpdate:
		b = appendSummary(b, m.Sum)
	case KindBound:
		b = appendF64(b, m.Bound)
	}
	return b, nil
}

func appendAddr(b []byte, a Addr) []byte { return binary.AppendVarint(b, int64(a)) }
func appendF64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}
func appendF32(b []byte, x float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
}

func appendSpreads(b []byte, sp []Spread) []byte {
	for _, x := range sp {
		b = appendF32(b, x.Lin)
		b = appendF32(b, x.Sq)
		b = appendF32(b, x.Far)
	}
	return b
}

// appendSummary appends a summary Validate accepted.
func appendSummary(b []byte, s Summary) []byte {
	var sp []Spread
	switch v := s.(type) {
	case nil:
		return append(b, tagEmpty)
	case *spreadSummary[IBPSummary, IBPCluster]:
		s, sp = v.vals, v.sp
	case *spreadSummary[MMPSummary, MMPCluster]:
		s, sp = v.vals, v.sp
	case *spreadSummary[DPSummary, DPCluster]:
		s, sp = v.vals, v.sp
	}
	tag := byte(0)
	if sp != nil {
		tag |= tagSpreads
	}
	switch v := s.(type) {
	case IBPSummary:
		b = append(b, tag|byte(PolicyIBP))
		b = binary.AppendUvarint(b, uint64(len(v)))
		for i := range v {
			b = appendF32(b, v[i].Mem)
			b = appendF32(b, v[i].Disk)
			b = binary.AppendUvarint(b, uint64(v[i].V))
			if sp != nil {
				b = appendSpreads(b, sp[2*i:2*i+2])
			}
		}
	case MMPSummary:
		b = append(b, tag|byte(PolicyMMP))
		b = binary.AppendUvarint(b, uint64(len(v)))
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
	case DPSummary:
		b = append(b, tag|byte(PolicyDP))
		b = binary.AppendUvarint(b, uint64(len(v)))
		for i := range v {
			b = appendF32(b, v[i].Mem)
			b = appendF32(b, v[i].Disk)
			b = binary.AppendUvarint(b, uint64(v[i].V))
			b = appendF64(b, v[i].L.Slope)
			b = binary.AppendUvarint(b, uint64(len(v[i].L.P)))
			for _, p := range v[i].L.P {
				b = appendF64(b, p.T)
				b = appendF64(b, p.L)
			}
			if sp != nil {
				b = appendSpreads(b, sp[3*i:3*i+3])
			}
		}
	}
	return b
}

// Validate checks what a message may carry on the wire (and what a
// receiver applies): a known kind; addresses >= NoAddr; for a request,
// return, done or accepted message an application of finite length,
// memory and disk >= 0 (length > 0 for a request), a deadline that is not
// NaN, a submitter >= 0 and 0 to MaxTasks tasks; for an update a summary
// of package overlay's types with 1 to MaxSFMax functions of v >= 1 nodes,
// finite memory, disk and power >= 0, a queue end that is not NaN, l
// functions with a finite slope >= 0 and samples of finite, nondecreasing
// times and finite values >= 0, spreads >= 0; for a bound, not NaN. The
// fields a kind does not carry must be zero.
func (m *Msg) Validate() error {
	if !m.Kind.valid() {
		return fmt.Errorf("message kind %d: want 1 to %d", uint8(m.Kind), len(kindNames)-1)
	}
	if m.From < NoAddr || m.To < NoAddr {
		return fmt.Errorf("%s message from %d to %d: want addresses >= %d", m.Kind, m.From, m.To, NoAddr)
	}
	carriesReq, carriesSum, carriesBound := false, false, false
	switch m.Kind {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		carriesReq = true
		if err := validRequest(m.Kind, &m.Req); err != nil {
			return err
		}
	case KindUpdate:
		carriesSum = true
		if err := validSummary(m.Sum); err != nil {
			return fmt.Errorf("update from %d: %w", m.From, err)
		}
	case KindBound:
		carriesBound = true
		if math.IsNaN(m.Bound) {
			return fmt.Errorf("bound from %d: NaN", m.From)
		}
	}
	switch {
	case !carriesReq && m.Req != (Request{}):
		return fmt.Errorf("%s message: carries a request", m.Kind)
	case !carriesSum && m.Sum != nil:
		return fmt.Errorf("%s message: carries a summary", m.Kind)
	case !carriesBound && math.Float64bits(m.Bound) != 0:
		return fmt.Errorf("%s message: carries a bound", m.Kind)
	}
	return nil
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

func validRequest(k Kind, q *Request) error {
	a := &q.App
	switch {
	case !finiteNonNeg(a.Length) || k == KindRequest && a.Length == 0:
		return fmt.Errorf("%s of application %d: length %g: want a finite value > 0 MFLOP", k, a.ID, a.Length)
	case !finiteNonNeg(a.Mem):
		return fmt.Errorf("%s of application %d: memory %g: want a finite value >= 0 MB", k, a.ID, a.Mem)
	case !finiteNonNeg(a.Disk):
		return fmt.Errorf("%s of application %d: disk %g: want a finite value >= 0 MB", k, a.ID, a.Disk)
	case math.IsNaN(a.Deadline):
		return fmt.Errorf("%s of application %d: deadline NaN", k, a.ID)
	case q.Submitter < 0 || q.Src < NoAddr:
		return fmt.Errorf("%s of application %d: submitter %d, source %d: want >= 0 and >= %d", k, a.ID, q.Submitter, q.Src, NoAddr)
	case q.N < 0 || q.N > MaxTasks:
		return fmt.Errorf("%s of application %d: %d tasks: want 0 to %d", k, a.ID, q.N, MaxTasks)
	}
	return nil
}

func validSpreads(sp []Spread) error {
	for _, x := range sp {
		if !(x.Lin >= 0 && x.Sq >= 0 && x.Far >= 0) {
			return fmt.Errorf("spread %+v: want values >= 0", x)
		}
	}
	return nil
}

func validF32(what string, i int, x float32) error {
	if !finiteNonNeg(float64(x)) {
		return fmt.Errorf("function %d: %s %g: want a finite value >= 0", i, what, x)
	}
	return nil
}

func validV(i int, v int32) error {
	if v < 1 {
		return fmt.Errorf("function %d: %d nodes: want >= 1", i, v)
	}
	return nil
}

func validCount(n int) error {
	if n < 1 || n > MaxSFMax {
		return fmt.Errorf("%d functions: want 1 to %d (the empty summary is nil)", n, MaxSFMax)
	}
	return nil
}

func validL(i int, f *LFunc) error {
	if !finiteNonNeg(f.Slope) {
		return fmt.Errorf("function %d: l slope %g: want a finite value >= 0", i, f.Slope)
	}
	for k, p := range f.P {
		if math.IsInf(p.T, 0) || math.IsNaN(p.T) || !finiteNonNeg(p.L) || k > 0 && p.T < f.P[k-1].T {
			return fmt.Errorf("function %d: l sample %d (%g, %g): want finite times in order and values >= 0", i, k, p.T, p.L)
		}
	}
	return nil
}

// validSummary checks a summary for the wire (see Validate).
func validSummary(s Summary) error {
	var sp []Spread
	d, wrapped := 0, false
	switch v := s.(type) {
	case nil:
		return nil
	case *spreadSummary[IBPSummary, IBPCluster]:
		s, sp, d, wrapped = v.vals, v.sp, 2, v.d == 2
	case *spreadSummary[MMPSummary, MMPCluster]:
		s, sp, d, wrapped = v.vals, v.sp, 4, v.d == 4
	case *spreadSummary[DPSummary, DPCluster]:
		s, sp, d, wrapped = v.vals, v.sp, 3, v.d == 3
	}
	if d > 0 {
		if !wrapped || len(sp) != d*s.Len() {
			return fmt.Errorf("%d spreads for %d functions of %d attributes", len(sp), s.Len(), d)
		}
		if err := validSpreads(sp); err != nil {
			return err
		}
	}
	switch v := s.(type) {
	case IBPSummary:
		if err := validCount(len(v)); err != nil {
			return err
		}
		for i := range v {
			if err := errors.Join(validF32("memory", i, v[i].Mem), validF32("disk", i, v[i].Disk), validV(i, v[i].V)); err != nil {
				return err
			}
		}
	case MMPSummary:
		if err := validCount(len(v)); err != nil {
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
	case DPSummary:
		if err := validCount(len(v)); err != nil {
			return err
		}
		for i := range v {
			if err := errors.Join(validF32("memory", i, v[i].Mem), validF32("disk", i, v[i].Disk), validV(i, v[i].V),
				validL(i, &v[i].L)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a summary of type %T has no wire form", s)
	}
	return nil
}

// wireReader reads the wire form; the first error sticks.
type wireReader struct {
	b   []byte
	err error
}

func (r *wireReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, a...)
	}
}

func (r *wireReader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if len(r.b) < n {
		r.fail("%s: %d bytes left, want %d", what, len(r.b), n)
		return false
	}
	return true
}

func (r *wireReader) u8(what string) byte {
	if !r.need(1, what) {
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x
}

func (r *wireReader) f32(what string) float32 {
	if !r.need(4, what) {
		return 0
	}
	x := math.Float32frombits(binary.LittleEndian.Uint32(r.b))
	r.b = r.b[4:]
	return x
}

func (r *wireReader) f64(what string) float64 {
	if !r.need(8, what) {
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return x
}

// uvarint reads a varint in its shortest form, at most max.
func (r *wireReader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	switch {
	case n == 0:
		r.fail("%s: truncated varint", what)
	case n < 0:
		r.fail("%s: varint overflows 64 bits", what)
	case n != len(binary.AppendUvarint(nil, x)):
		r.fail("%s: varint not in its shortest form", what)
	case x > max:
		r.fail("%s %d: want at most %d", what, x, max)
	}
	if r.err != nil {
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *wireReader) addr(what string) Addr {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b)
	switch {
	case n == 0:
		r.fail("%s: truncated varint", what)
	case n < 0:
		r.fail("%s: varint overflows 64 bits", what)
	case n != len(binary.AppendVarint(nil, x)):
		r.fail("%s: varint not in its shortest form", what)
	case x < int64(NoAddr) || x > math.MaxInt32:
		r.fail("%s %d: want an address %d to %d", what, x, NoAddr, math.MaxInt32)
	}
	if r.err != nil {
		return 0
	}
	r.b = r.b[n:]
	return Addr(x)
}

// count reads a number of elements of at least min bytes each: no more
// than the bytes left can hold, so that allocations follow the input.
func (r *wireReader) count(what string, minBytes int) int {
	n := r.uvarint(what, math.MaxUint64)
	if r.err == nil && n > uint64(len(r.b)/minBytes) {
		r.fail("%s: %d claimed, room for %d in the %d bytes left", what, n, len(r.b)/minBytes, len(r.b))
		return 0
	}
	return int(n)
}

func (r *wireReader) spreads(sp []Spread) {
	for k := range sp {
		sp[k] = Spread{Lin: r.f32("spread"), Sq: r.f32("spread"), Far: r.f32("spread")}
	}
}

// summary reads a summary (its values are checked by Validate).
func (r *wireReader) summary() Summary {
	tag := r.u8("summary tag")
	if r.err != nil || tag == tagEmpty {
		return nil
	}
	pol, spreads := Policy(tag&3), tag&tagSpreads != 0
	if tag&^7 != 0 || !pol.Valid() {
		r.fail("summary tag %#x: want 0, or a policy 1 to 3 with the spreads flag 4", tag)
		return nil
	}
	var d, minBytes int
	switch pol {
	case PolicyIBP:
		d, minBytes = 2, 9
	case PolicyMMP:
		d, minBytes = 4, 21
	case PolicyDP:
		d, minBytes = 3, 18
	}
	if spreads {
		minBytes += 12 * d
	}
	n := r.count("summary functions", minBytes)
	if r.err != nil {
		return nil
	}
	var sp []Spread
	if spreads {
		sp = make([]Spread, d*n)
	}
	v := func() int32 { return int32(r.uvarint("function nodes", math.MaxInt32)) }
	var s Summary
	switch pol {
	case PolicyIBP:
		x := make(IBPSummary, n)
		for i := range x {
			x[i] = IBPCluster{Mem: r.f32("memory"), Disk: r.f32("disk"), V: v()}
			if spreads {
				r.spreads(sp[2*i : 2*i+2])
			}
		}
		s = x
		if spreads {
			s = &spreadSummary[IBPSummary, IBPCluster]{vals: x, d: 2, sp: sp}
		}
	case PolicyMMP:
		x := make(MMPSummary, n)
		for i := range x {
			x[i] = MMPCluster{Mem: r.f32("memory"), Disk: r.f32("disk"), Power: r.f32("power"), V: v(), Q: r.f64("queue end")}
			if spreads {
				r.spreads(sp[4*i : 4*i+4])
			}
		}
		s = x
		if spreads {
			s = &spreadSummary[MMPSummary, MMPCluster]{vals: x, d: 4, sp: sp}
		}
	case PolicyDP:
		x := make(DPSummary, n)
		for i := range x {
			x[i] = DPCluster{Mem: r.f32("memory"), Disk: r.f32("disk"), V: v()}
			x[i].L.Slope = r.f64("l slope")
			k := r.count("l samples", 16)
			if r.err != nil {
				return nil
			}
			if k > 0 {
				x[i].L.P = make([]LPoint, k)
				for j := range x[i].L.P {
					x[i].L.P[j] = LPoint{T: r.f64("l sample"), L: r.f64("l sample")}
				}
			}
			if spreads {
				r.spreads(sp[3*i : 3*i+3])
			}
			if r.err != nil {
				return nil
			}
		}
		s = x
		if spreads {
			s = &spreadSummary[DPSummary, DPCluster]{vals: x, d: 3, sp: sp}
		}
	}
	if r.err != nil {
		return nil
	}
	return s
}

// DecodeMsg decodes one message, the whole of b, and validates it
// (Validate). Malformed input is refused with an error naming what is
// wrong; it never panics, and allocates no more than b's length justifies.
func DecodeMsg(b []byte) (Msg, error) {
	r := &wireReader{b: b}
	if v := r.u8("version"); r.err == nil && v != WireVersion {
		return Msg{}, fmt.Errorf("wire version %d: want %d", v, WireVersion)
	}
	m := Msg{Kind: Kind(r.u8("kind"))}
	if r.err == nil && !m.Kind.valid() {
		return Msg{}, fmt.Errorf("message kind %d: want 1 to %d", uint8(m.Kind), len(kindNames)-1)
	}
	m.From, m.To = r.addr("from"), r.addr("to")
	switch m.Kind {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		q := &m.Req
		q.App = App{ID: r.uvarint("application", math.MaxUint64), Length: r.f64("length"), Mem: r.f64("memory"),
			Disk: r.f64("disk"), Deadline: r.f64("deadline")}
		q.Submitter, q.Src = r.addr("submitter"), r.addr("source")
		q.N = int(r.uvarint("tasks", MaxTasks))
	case KindUpdate:
		m.Sum = r.summary()
	case KindBound:
		m.Bound = r.f64("bound")
	}
	if r.err != nil {
		return Msg{}, fmt.Errorf("%s message: %w", m.Kind, r.err)
	}
	if len(r.b) != 0 {
		return Msg{}, fmt.Errorf("%s message: %d bytes after its end", m.Kind, len(r.b))
	}
	if err := m.Validate(); err != nil {
		return Msg{}, err
	}
	return m, nil
}
