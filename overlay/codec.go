package overlay

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A policy's summaries have one encoding, its SummaryCodec, written with
// an Encoder and read with a Decoder. The wire form of an update message
// (wire.go) is that encoding behind the summary's tag; a checkpoint
// (checkpoint.go) stores the same bytes, except that the l samples that
// summaries share are written once and referred to after (LPoints). An
// executor's state in a checkpoint is written with the same Encoder
// (SavedExec).

// SummaryCodec is the one encoding of a policy's summaries
// (PolicyDef.Codec). Its methods are only given summaries of its policy
// (those whose PolicySummary.Policy is the policy), never nil.
type SummaryCodec interface {
	// Flag is the bit of the summary's tag that the policy gives a
	// meaning: for IBP, MMP and DP, that its sampled functions carry
	// spreads. False for a policy that gives it none.
	Flag(s Summary) bool
	// Append writes s, which Validate accepted (or, in a checkpoint, any
	// summary the policy built).
	Append(e *Encoder, s Summary)
	// Read reads what Append wrote for a summary whose tag had the flag
	// flag. Malformed input is refused through d (Decoder.Fail); Read
	// never panics and allocates no more than d's bytes justify
	// (Decoder.Count). Its values need not be checked: DecodeMsg calls
	// Validate after.
	Read(d *Decoder, flag bool) Summary
	// Validate checks a summary for the wire (Msg.Validate): its values
	// are those a receiver may apply. Errors name the function and the
	// value.
	Validate(s Summary) error
}

// PolicySummary is a summary that says which policy built it: the wire
// form and checkpoints encode it with that policy's codec. The summary
// types of every registered policy implement it; a summary that does not
// (e.g. package overlay/stars' *stars.Summary) has no wire form and
// cannot be saved.
type PolicySummary interface {
	Summary
	Policy() Policy
}

// SavedExec is an executor whose dynamic state checkpoints can save (the
// built-in executors are). Its hardware is not saved: the driver builds
// the executor again (Policy.NewExec) and reads the state over it.
type SavedExec interface {
	Exec
	// AppendState writes the executor's dynamic state.
	AppendState(e *Encoder)
	// ReadState reads what AppendState wrote, over an executor built
	// with the same hardware and options.
	ReadState(d *Decoder)
}

// The summary's tag (docs/overlay.md, "Wire format"): 0 for the empty
// summary; otherwise the policy's ID with the codec's flag as bit 2, the
// ID's two low bits below it and its other bits above it, as a uvarint:
// tag = ID&3 | flag<<2 | ID>>2<<3. IBP, MMP and DP (IDs 1 to 3) keep the
// single byte of the wire form's first version (1 to 7), which had room
// for three policies only; IDs up to 15 fit one byte, larger ones two.
const tagFlag = 4

func summaryTag(id int, flag bool) uint64 {
	t := uint64(id&3) | uint64(id>>2)<<3
	if flag {
		t |= tagFlag
	}
	return t
}

func tagPolicy(tag uint64) (id uint64, flag bool) { return tag&3 | tag>>3<<2, tag&tagFlag != 0 }

// Encoder appends the encoding of summaries and executors' state to a
// byte slice: integers as varints in their shortest form, floats as their
// IEEE 754 bits, little endian (f32: 4 bytes, f64: 8), so that values
// travel bit-exact. A codec writes with its methods only.
type Encoder struct {
	b     []byte
	share *SummaryEncoder // checkpoints: the l samples already written; nil on the wire
}

// Bytes is what was written so far.
func (e *Encoder) Bytes() []byte { return e.b }

// U8 appends a byte.
func (e *Encoder) U8(x uint8) { e.b = append(e.b, x) }

// Bool appends 1 or 0.
func (e *Encoder) Bool(x bool) {
	if x {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// Uvarint appends an unsigned varint.
func (e *Encoder) Uvarint(x uint64) { e.b = binary.AppendUvarint(e.b, x) }

// Varint appends a signed (zigzag) varint.
func (e *Encoder) Varint(x int64) { e.b = binary.AppendVarint(e.b, x) }

// F32 appends x's bits.
func (e *Encoder) F32(x float32) { e.b = appendF32(e.b, x) }

// F64 appends x's bits.
func (e *Encoder) F64(x float64) { e.b = appendF64(e.b, x) }

// Spreads appends spreads: (lin:f32 sq:f32 far:f32) each.
func (e *Encoder) Spreads(sp []Spread) { e.b = appendSpreads(e.b, sp) }

// The built-in codecs append to a local slice with these (an Encoder
// reached through a pointer would store its slice back at every field).
func appendF32(b []byte, x float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
}

func appendF64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

func appendSpreads(b []byte, sp []Spread) []byte {
	for _, x := range sp {
		b = appendF32(b, x.Lin)
		b = appendF32(b, x.Sq)
		b = appendF32(b, x.Far)
	}
	return b
}

// LPoints appends an l function's samples: their count k, then k (t:f64
// l:f64). In a checkpoint the count is preceded by a reference: 0, or
// 1 + the number of a sample list written before (l functions share their
// samples between the summaries of successive levels), which is then all
// that is written.
func (e *Encoder) LPoints(p []LPoint) { e.b = e.appendLPoints(e.b, p) }

func (e *Encoder) appendLPoints(b []byte, p []LPoint) []byte {
	if e.share != nil {
		if len(p) > 0 {
			k := sliceKey(p)
			if id, ok := e.share.pts[k]; ok {
				return binary.AppendUvarint(b, id+1)
			}
			e.share.pts[k] = e.share.nPts
			e.share.nPts++
		}
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(p)))
	for _, x := range p {
		b = appendF64(b, x.T)
		b = appendF64(b, x.L)
	}
	return b
}

// Decoder reads what an Encoder wrote; the first error sticks, and every
// read after it returns zero values. A codec reads with its methods only.
type Decoder struct {
	b     []byte
	err   error
	share *SummaryDecoder // checkpoints: the l samples read so far; nil on the wire
}

// Err is the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records an error (the first one sticks): what is wrong and the
// value, as a codec finds it.
func (d *Decoder) Fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, a...)
	}
}

// Len is the number of bytes left.
func (d *Decoder) Len() int { return len(d.b) }

func (d *Decoder) need(n int, what string) bool {
	if d.err != nil {
		return false
	}
	if len(d.b) < n {
		d.Fail("%s: %d bytes left, want %d", what, len(d.b), n)
		return false
	}
	return true
}

// U8 reads a byte.
func (d *Decoder) U8(what string) uint8 {
	if !d.need(1, what) {
		return 0
	}
	x := d.b[0]
	d.b = d.b[1:]
	return x
}

// Bool reads a byte that must be 0 or 1.
func (d *Decoder) Bool(what string) bool {
	switch d.U8(what) {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail("%s: want 0 or 1", what)
	return false
}

// F32 reads a float32.
func (d *Decoder) F32(what string) float32 {
	if !d.need(4, what) {
		return 0
	}
	x := math.Float32frombits(binary.LittleEndian.Uint32(d.b))
	d.b = d.b[4:]
	return x
}

// F64 reads a float64.
func (d *Decoder) F64(what string) float64 {
	if !d.need(8, what) {
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return x
}

// Uvarint reads an unsigned varint in its shortest form, at most max.
func (d *Decoder) Uvarint(what string, max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	switch {
	case n == 0:
		d.Fail("%s: truncated varint", what)
	case n < 0:
		d.Fail("%s: varint overflows 64 bits", what)
	case n != len(binary.AppendUvarint(nil, x)):
		d.Fail("%s: varint not in its shortest form", what)
	case x > max:
		d.Fail("%s %d: want at most %d", what, x, max)
	}
	if d.err != nil {
		return 0
	}
	d.b = d.b[n:]
	return x
}

// Varint reads a signed varint in its shortest form, from lo to hi.
func (d *Decoder) Varint(what string, lo, hi int64) int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b)
	switch {
	case n == 0:
		d.Fail("%s: truncated varint", what)
	case n < 0:
		d.Fail("%s: varint overflows 64 bits", what)
	case n != len(binary.AppendVarint(nil, x)):
		d.Fail("%s: varint not in its shortest form", what)
	case x < lo || x > hi:
		d.Fail("%s %d: want %d to %d", what, x, lo, hi)
	}
	if d.err != nil {
		return 0
	}
	d.b = d.b[n:]
	return x
}

// Count reads a number of elements of at least minBytes bytes each: no
// more than the bytes left can hold, so that allocations follow the
// input.
func (d *Decoder) Count(what string, minBytes int) int {
	n := d.Uvarint(what, math.MaxUint64)
	if d.err == nil && n > uint64(len(d.b)/minBytes) {
		d.Fail("%s: %d claimed, room for %d in the %d bytes left", what, n, len(d.b)/minBytes, len(d.b))
		return 0
	}
	return int(n)
}

// Spreads reads len(sp) spreads into sp.
func (d *Decoder) Spreads(sp []Spread) {
	for k := range sp {
		sp[k] = Spread{Lin: d.F32("spread"), Sq: d.F32("spread"), Far: d.F32("spread")}
	}
}

// LPoints reads what Encoder.LPoints wrote: nil for no sample.
func (d *Decoder) LPoints(what string) []LPoint {
	if d.share != nil {
		if ref := d.Uvarint(what+" reference", math.MaxUint64); ref > 0 {
			if ref > uint64(len(d.share.pts)) {
				d.Fail("%s reference %d of %d", what, ref-1, len(d.share.pts))
				return nil
			}
			return d.share.pts[ref-1]
		}
	}
	k := d.Count(what, 16)
	if d.err != nil || k == 0 {
		return nil
	}
	p := make([]LPoint, k)
	for j := range p {
		p[j] = LPoint{T: d.F64(what), L: d.F64(what)}
	}
	if d.share != nil && d.err == nil {
		d.share.pts = append(d.share.pts, p)
	}
	return p
}

// policyOf returns the policy of a summary that says it (PolicySummary).
func policyOf(s Summary) (Policy, bool) {
	ps, ok := s.(PolicySummary)
	if !ok {
		return Policy{}, false
	}
	p := ps.Policy()
	return p, p.d != nil
}

// appendSummary writes a summary Validate accepted: its tag, then its
// policy's encoding.
func appendSummary(e *Encoder, s Summary) {
	if s == nil {
		e.U8(0)
		return
	}
	p, _ := policyOf(s)
	c := p.d.Codec
	// The codec gets its own Encoder, so that e (an AppendMsg's) stays on
	// the stack: only updates pay for one.
	ce := &Encoder{b: binary.AppendUvarint(e.b, summaryTag(p.d.ID, c.Flag(s))), share: e.share}
	c.Append(ce, s)
	e.b = ce.b
}

// readSummary reads what appendSummary wrote (the values are not checked:
// see validSummary).
func readSummary(d *Decoder) Summary {
	tag := d.Uvarint("summary tag", math.MaxUint64)
	if d.err != nil || tag == 0 {
		return nil
	}
	id, flag := tagPolicy(tag)
	p := policyByID(id)
	if p.d == nil {
		d.Fail("summary tag %#x: policy %d is not registered (want %s)", tag, id, policyIDs())
		return nil
	}
	// The codec gets its own Decoder (see appendSummary).
	cd := &Decoder{b: d.b, share: d.share}
	s := p.d.Codec.Read(cd, flag)
	d.b, d.err = cd.b, cd.err
	if d.err != nil {
		return nil
	}
	return s
}

// policyIDs lists the registered policies' wire IDs: "ibp 1, mmp 2, dp 3".
func policyIDs() string {
	var b []byte
	for i, p := range current().list {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "%s %d", p.d.Name, p.d.ID)
	}
	return string(b)
}

// validSummary checks a summary for the wire (Msg.Validate): one its
// policy's codec accepts.
func validSummary(s Summary) error {
	if s == nil {
		return nil
	}
	p, ok := policyOf(s)
	if !ok {
		return fmt.Errorf("a summary of type %T has no wire form", s)
	}
	return p.d.Codec.Validate(s)
}

// Helpers of the built-in policies' codecs: a plain summary of functions C,
// or one wrapped with d spreads per function (spread.go). Each function's
// spreads follow it on the wire; the tag's flag says they are there.

// spreadFlag is the built-in codecs' Flag: the summary carries spreads.
func spreadFlag[S plainSummary[C], C any](s Summary) bool {
	_, sp := plainOf[S, C](s)
	return sp != nil
}

// readFns reads a built-in summary: the count, then each function (get)
// and, with the flag, its d spreads. minBytes is a function's least size
// without spreads.
func readFns[S plainSummary[C], C any](d *Decoder, flag bool, dim, minBytes int, get func(d *Decoder, c *C)) Summary {
	if flag {
		minBytes += 12 * dim
	}
	n := d.Count("summary functions", minBytes)
	if d.err != nil {
		return nil
	}
	x := make(S, n)
	var sp []Spread
	if flag {
		sp = make([]Spread, dim*n)
	}
	for i := range x {
		get(d, &x[i])
		if flag {
			d.Spreads(sp[dim*i : dim*i+dim])
		}
		if d.err != nil {
			return nil
		}
	}
	if flag {
		return &spreadSummary[S, C]{vals: x, d: dim, sp: sp}
	}
	return x
}

// validWrap checks the spreads of a built-in summary for the wire (dim
// per function, each >= 0, when it carries any) and returns its
// functions, whose count it checks (1 to MaxSFMax).
func validWrap[S plainSummary[C], C any](s Summary, dim int) (S, error) {
	if w, ok := s.(*spreadSummary[S, C]); ok {
		if w.d != dim || len(w.sp) != dim*len(w.vals) {
			return nil, fmt.Errorf("%d spreads for %d functions of %d attributes", len(w.sp), len(w.vals), dim)
		}
		if err := validSpreads(w.sp); err != nil {
			return nil, err
		}
	}
	v, _ := plainOf[S, C](s)
	return v, validCount(len(v))
}

// readV reads a function's node count (a uvarint up to the largest int32;
// Validate wants >= 1).
func readV(d *Decoder) int32 { return int32(d.Uvarint("function nodes", math.MaxInt32)) }

// readTasks reads a count of tasks of an executor's state: 0 to the
// largest int32.
func readTasks(d *Decoder) int { return int(d.Varint("tasks", 0, math.MaxInt32)) }
