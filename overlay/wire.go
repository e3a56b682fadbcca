package overlay

import (
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
//	summary  = tag:uvarint [body]
//	           tag 0: the empty summary, nothing follows; otherwise
//	           tag = id&3 | flag<<2 | id>>2<<3 (codec.go), id the policy's
//	           registered ID (1 IBP, 2 MMP, 3 DP), and the body is its
//	           SummaryCodec's; for IBP, MMP and DP, flag = spreads and
//	body     = count:uvarint function{count}
//	function = IBP: mem:f32 disk:f32 v:uvarint
//	           MMP: mem:f32 disk:f32 power:f32 v:uvarint q:f64
//	           DP:  mem:f32 disk:f32 v:uvarint slope:f64 k:uvarint (t:f64 l:f64){k}
//	           then, with spreads, d of (lin:f32 sq:f32 far:f32), d = 2, 4, 3
//
// A message decodes only if it is exactly one well-formed message that
// Msg.Validate accepts; the encoding is canonical (one byte string per
// message), so AppendMsg(DecodeMsg(b)) gives b back.
//
// The policy's ID in the tag left version 1 as it was for IBP, MMP and DP
// (tags 1 to 7, the ID's two low bits and the spreads flag of the first
// layout): messages of the built-in policies are the same bytes, and a
// daemon of either build reads the other's; a policy registered with
// another ID has a tag that the first layout refused.

// WireVersion is the version of the wire form AppendMsg writes and
// DecodeMsg reads.
const WireVersion = 1

// MaxTasks bounds the task count of a request on the wire.
const MaxTasks = math.MaxInt32

// AppendMsg appends the wire form of m to dst. It refuses a message that
// Validate refuses (dst is then returned unchanged).
func AppendMsg(dst []byte, m *Msg) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return dst, err
	}
	e := Encoder{b: append(dst, WireVersion, byte(m.Kind))}
	e.Varint(int64(m.From))
	e.Varint(int64(m.To))
	switch m.Kind {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		e.request(&m.Req)
	case KindUpdate:
		appendSummary(&e, m.Sum)
	case KindBound:
		e.F64(m.Bound)
	}
	return e.b, nil
}

// Validate checks what a message may carry on the wire (and what a
// receiver applies): a known kind; addresses >= NoAddr; for a request,
// return, done or accepted message an application of finite length,
// memory and disk >= 0 (length > 0 for a request), a deadline that is not
// NaN, a submitter >= 0 and 0 to MaxTasks tasks; for an update a summary
// of a registered policy (PolicySummary) that its codec's Validate
// accepts — for IBP, MMP and DP 1 to MaxSFMax functions of v >= 1 nodes,
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

// request appends a request's wire form (the messages' and the
// checkpoints').
func (e *Encoder) request(q *Request) {
	e.Uvarint(q.App.ID)
	e.F64(q.App.Length)
	e.F64(q.App.Mem)
	e.F64(q.App.Disk)
	e.F64(q.App.Deadline)
	e.Varint(int64(q.Submitter))
	e.Varint(int64(q.Src))
	e.Uvarint(uint64(q.N))
}

// request reads what Encoder.request wrote.
func (d *Decoder) request() Request {
	q := Request{App: App{ID: d.Uvarint("application", math.MaxUint64), Length: d.F64("length"), Mem: d.F64("memory"),
		Disk: d.F64("disk"), Deadline: d.F64("deadline")}}
	q.Submitter, q.Src = d.addr("submitter"), d.addr("source")
	q.N = int(d.Uvarint("tasks", MaxTasks))
	return q
}

// addr reads an address: a varint from NoAddr to the largest int32.
func (d *Decoder) addr(what string) Addr {
	x := d.Varint(what, math.MinInt64, math.MaxInt64)
	if d.err == nil && (x < int64(NoAddr) || x > math.MaxInt32) {
		d.Fail("%s %d: want an address %d to %d", what, x, NoAddr, math.MaxInt32)
		return 0
	}
	return Addr(x)
}

// DecodeMsg decodes one message, the whole of b, and validates it
// (Validate). Malformed input is refused with an error naming what is
// wrong; it never panics, and allocates no more than b's length justifies.
func DecodeMsg(b []byte) (Msg, error) {
	r := &Decoder{b: b}
	if v := r.U8("version"); r.err == nil && v != WireVersion {
		return Msg{}, fmt.Errorf("wire version %d: want %d", v, WireVersion)
	}
	m := Msg{Kind: Kind(r.U8("kind"))}
	if r.err == nil && !m.Kind.valid() {
		return Msg{}, fmt.Errorf("message kind %d: want 1 to %d", uint8(m.Kind), len(kindNames)-1)
	}
	m.From, m.To = r.addr("from"), r.addr("to")
	switch m.Kind {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		m.Req = r.request()
	case KindUpdate:
		m.Sum = readSummary(r)
	case KindBound:
		m.Bound = r.F64("bound")
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
