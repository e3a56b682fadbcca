package ckpt

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func encode(t *testing.T, f func(w *Writer)) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	f(w)
	n, err := w.Finish()
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("Finish: %d bytes, %v; buffer %d", n, err, b.Len())
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	data := encode(t, func(w *Writer) {
		w.Uvarint(math.MaxUint64)
		w.Varint(math.MinInt64)
		w.Int(-7)
		w.U8(200)
		w.Bool(true)
		w.F64(math.Inf(-1))
		w.F64(math.Copysign(0, -1))
		w.F32(float32(math.NaN()))
		w.Bytes([]byte{1, 2, 3})
		w.String("héllo")
	})
	if err := Check(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(data), int64(len(data)))
	if r.Uvarint() != math.MaxUint64 || r.Varint() != math.MinInt64 || r.Int() != -7 || r.U8() != 200 || !r.Bool() {
		t.Fatal("integers")
	}
	if x := r.F64(); !math.IsInf(x, -1) {
		t.Fatalf("F64 %v", x)
	}
	if x := r.F64(); x != 0 || !math.Signbit(x) {
		t.Fatalf("-0 read as %v", x)
	}
	if x := r.F32(); x == x {
		t.Fatalf("NaN read as %v", x)
	}
	if b := r.Bytes(); !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Fatalf("Bytes %v", b)
	}
	if s := r.String(); s != "héllo" {
		t.Fatalf("String %q", s)
	}
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
}

func TestDamageDetected(t *testing.T) {
	data := encode(t, func(w *Writer) {
		for i := range 1000 {
			w.Uvarint(uint64(i))
		}
	})
	for i := range data {
		b := append([]byte(nil), data...)
		b[i] ^= 1
		if err := Check(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit flipped at %d: %v", i, err)
		}
	}
	for _, n := range []int{0, 3, len(data) / 2, len(data) - 1} {
		if err := Check(bytes.NewReader(data[:n]), int64(n)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
}

// A length larger than the rest of the data is an error before any
// allocation, and errors are sticky.
func TestLenGuardAndStickyErrors(t *testing.T) {
	data := encode(t, func(w *Writer) {
		w.Uvarint(1 << 40) // a length
		w.Uvarint(5)
	})
	r := NewReader(bytes.NewReader(data), int64(len(data)))
	if n := r.Len(1); n != 0 || !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("Len %d, err %v", n, r.Err())
	}
	if r.Uvarint() != 0 || r.Bytes() != nil || r.End() == nil {
		t.Fatal("reads after an error must return zero values and keep the error")
	}
	// Reading past the end.
	r = NewReader(bytes.NewReader(data), int64(len(data)))
	r.Uvarint()
	r.Uvarint()
	if r.F64(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("read past the end: %v", r.Err())
	}
	// A bad boolean.
	data = encode(t, func(w *Writer) { w.U8(2) })
	r = NewReader(bytes.NewReader(data), int64(len(data)))
	if r.Bool(); r.Err() == nil {
		t.Fatal("byte 2 read as a boolean")
	}
}
