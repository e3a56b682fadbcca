package worker

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"
)

func envelope(msg []byte) []byte {
	b := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// TestWholeMessages: written as Connect writes them (the prefix, then the
// message, on a pipe), each message comes out of one Read; the bytes are
// the same whatever the reads' sizes.
func TestWholeMessages(t *testing.T) {
	msgs := [][]byte{[]byte("heart-beat"), {}, bytes.Repeat([]byte{7}, 3000), []byte("x")}
	pr, pw := io.Pipe()
	go func() {
		for _, m := range msgs {
			e := envelope(m)
			pw.Write(e[:5])
			if len(m) > 0 {
				pw.Write(e[5:])
			}
		}
		pw.Close()
	}()
	w := &wholeMessages{r: pr}
	buf := make([]byte, 16<<10)
	for i, m := range msgs {
		n, err := w.Read(buf)
		if err != nil || !bytes.Equal(buf[:n], envelope(m)) {
			t.Fatalf("message %d: read %d bytes (%v), want its %d in one read", i, n, err, 5+len(m))
		}
	}
	if n, err := w.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the last message: %d, %v", n, err)
	}
	var all []byte
	for _, m := range msgs {
		all = append(all, envelope(m)...)
	}
	for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader} {
		// Small reads asked of it, and small reads from what it wraps.
		if err := iotest.TestReader(&wholeMessages{r: io.NopCloser(wrap(bytes.NewReader(all)))}, all); err != nil {
			t.Error(err)
		}
		if got, err := io.ReadAll(wrap(&wholeMessages{r: io.NopCloser(bytes.NewReader(all))})); err != nil || !bytes.Equal(got, all) {
			t.Errorf("read in small pieces: %d bytes, %v", len(got), err)
		}
	}
	// A stream cut inside a message: its bytes, then ErrUnexpectedEOF.
	cut := all[:30]
	got, err := io.ReadAll(&wholeMessages{r: io.NopCloser(bytes.NewReader(cut))})
	if !bytes.Equal(got, cut) || err != io.ErrUnexpectedEOF {
		t.Fatalf("cut stream: %d bytes, %v", len(got), err)
	}
}
