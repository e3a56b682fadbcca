// Package ckpt is the binary codec of volsched's checkpoints: a stream of
// unsigned and signed varints, fixed-size floats and length-prefixed
// bytes, written through a buffer and followed by a CRC-32C of everything
// before it. Errors are sticky: after the first one every write is skipped
// and every read returns a zero value, and Err reports it, so encoders and
// decoders need not check each call. A Reader never allocates more than the
// rest of its input can describe (a corrupt length is an error, not an
// out-of-memory crash) and never panics on any input.
package ckpt

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcWriter passes writes through and accumulates their CRC-32C.
type crcWriter struct {
	w   io.Writer
	crc uint32
	n   int64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Writer encodes values. Build it with NewWriter and end it with Finish.
type Writer struct {
	cw  crcWriter
	b   *bufio.Writer
	err error
	tmp [binary.MaxVarintLen64]byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	x := &Writer{cw: crcWriter{w: w}}
	x.b = bufio.NewWriterSize(&x.cw, 1<<20)
	return x
}

// Err is the first error met, if any.
func (w *Writer) Err() error { return w.err }

// Fail records err (the first error wins); encoders use it for values they
// cannot encode.
func (w *Writer) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.b.Write(p); err != nil {
		w.err = err
	}
}

// Uvarint writes x.
func (w *Writer) Uvarint(x uint64) { w.write(binary.AppendUvarint(w.tmp[:0], x)) }

// Varint writes x.
func (w *Writer) Varint(x int64) { w.write(binary.AppendVarint(w.tmp[:0], x)) }

// Int writes x (a varint).
func (w *Writer) Int(x int) { w.Varint(int64(x)) }

// U8 writes one byte.
func (w *Writer) U8(x uint8) {
	if w.err == nil {
		if err := w.b.WriteByte(x); err != nil {
			w.err = err
		}
	}
}

// Bool writes b as one byte.
func (w *Writer) Bool(b bool) {
	if b {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// F64 writes x's bits (8 bytes: exact, NaN and infinities included).
func (w *Writer) F64(x float64) {
	w.write(binary.LittleEndian.AppendUint64(w.tmp[:0], math.Float64bits(x)))
}

// F32 writes x's bits (4 bytes).
func (w *Writer) F32(x float32) {
	w.write(binary.LittleEndian.AppendUint32(w.tmp[:0], math.Float32bits(x)))
}

// Bytes writes len(p) then p.
func (w *Writer) Bytes(p []byte) {
	w.Uvarint(uint64(len(p)))
	w.write(p)
}

// String writes len(s) then s.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	if w.err == nil {
		if _, err := w.b.WriteString(s); err != nil {
			w.err = err
		}
	}
}

// Finish flushes the buffer and appends the CRC-32C of everything written;
// it returns the first error met and the total size written.
func (w *Writer) Finish() (int64, error) {
	if w.err == nil {
		w.err = w.b.Flush()
	}
	if w.err != nil {
		return w.cw.n, w.err
	}
	var t [4]byte
	binary.LittleEndian.PutUint32(t[:], w.cw.crc)
	n, err := w.cw.w.Write(t[:])
	w.err = err
	return w.cw.n + int64(n), err
}

// ErrCorrupt marks a checkpoint that is truncated or damaged.
var ErrCorrupt = errors.New("corrupt or truncated checkpoint")

// Check verifies the trailing CRC-32C of the size bytes of r: nil if they
// are intact, an error wrapping ErrCorrupt otherwise.
func Check(r io.ReaderAt, size int64) error {
	if size < 4 {
		return fmt.Errorf("%w: %d bytes", ErrCorrupt, size)
	}
	var t [4]byte
	if _, err := r.ReadAt(t[:], size-4); err != nil {
		return fmt.Errorf("%w: reading its checksum: %v", ErrCorrupt, err)
	}
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size-4)); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if got, want := h.Sum32(), binary.LittleEndian.Uint32(t[:]); got != want {
		return fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	return nil
}

// Reader decodes what a Writer encoded.
type Reader struct {
	b      *bufio.Reader
	remain int64 // bytes left before the checksum
	err    error
}

// NewReader returns a Reader of the size bytes of r (checksum included,
// which it does not verify: see Check).
func NewReader(r io.ReaderAt, size int64) *Reader {
	n := max(size-4, 0)
	// A buffer of 1 MiB, or of the whole input when it is smaller (a
	// megabyte cleared per small checkpoint dominated the fuzzer's time).
	buf := int(min(n, 1<<20))
	return &Reader{b: bufio.NewReaderSize(io.NewSectionReader(r, 0, n), buf), remain: n}
}

// Err is the first error met, if any (wrapping ErrCorrupt for malformed
// input).
func (r *Reader) Err() error { return r.err }

// Failf records a decoding error (the first error wins); decoders use it
// for values out of range.
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

// Remaining is the number of bytes not yet read (checksum excluded).
func (r *Reader) Remaining() int64 { return r.remain }

func (r *Reader) readByte() byte {
	if r.err != nil {
		return 0
	}
	c, err := r.b.ReadByte()
	if err != nil {
		r.Failf("unexpected end of data")
		return 0
	}
	r.remain--
	return c
}

// ReadByte implements io.ByteReader (for binary.ReadUvarint).
func (r *Reader) ReadByte() (byte, error) {
	c := r.readByte()
	return c, r.err
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(r)
	if err != nil {
		r.Failf("bad varint")
		return 0
	}
	return x
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(r)
	if err != nil {
		r.Failf("bad varint")
		return 0
	}
	return x
}

// Int reads a varint that must fit an int32 (every count and index of a
// simulation does).
func (r *Reader) Int() int {
	x := r.Varint()
	if x < math.MinInt32 || x > math.MaxInt32 {
		r.Failf("integer %d out of range", x)
		return 0
	}
	return int(x)
}

// Len reads a length of a sequence whose elements take at least minBytes
// each in the input (>= 1): a length the rest of the input cannot hold is
// an error, so a corrupt length never makes the caller allocate.
func (r *Reader) Len(minBytes int) int {
	n := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if n > uint64(r.remain)/uint64(max(minBytes, 1)) {
		r.Failf("length %d exceeds the rest of the data (%d bytes)", n, r.remain)
		return 0
	}
	return int(n)
}

// U8 reads one byte.
func (r *Reader) U8() uint8 { return r.readByte() }

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	switch r.readByte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Failf("bad boolean")
	return false
}

func (r *Reader) fixed(n int) []byte {
	if r.err != nil {
		return nil
	}
	var buf [8]byte
	if _, err := io.ReadFull(r.b, buf[:n]); err != nil {
		r.Failf("unexpected end of data")
		return nil
	}
	r.remain -= int64(n)
	return buf[:n]
}

// F64 reads a float64.
func (r *Reader) F64() float64 {
	b := r.fixed(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// F32 reads a float32.
func (r *Reader) F32() float32 {
	b := r.fixed(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// Bytes reads a length-prefixed byte string.
func (r *Reader) Bytes() []byte {
	n := r.Len(1)
	if r.err != nil {
		return nil
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r.b, p); err != nil {
		r.Failf("unexpected end of data")
		return nil
	}
	r.remain -= int64(n)
	return p
}

// String reads a length-prefixed string.
func (r *Reader) String() string { return string(r.Bytes()) }

// End reports an error unless every byte before the checksum was read.
func (r *Reader) End() error {
	if r.err == nil && r.remain != 0 {
		r.Failf("%d bytes left after the end of the data", r.remain)
	}
	return r.err
}
