package master

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestBatchedBody: the batched reader gives the bytes of the body it wraps,
// whatever the sizes of the underlying reads (one byte, half, data with
// the error) and of the reads asked of it, then the body's error.
func TestBatchedBody(t *testing.T) {
	content := make([]byte, 5000)
	for i := range content {
		content[i] = byte(i * 7)
	}
	under := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+err": iotest.DataErrReader,
	}
	for name, wrap := range under {
		for _, n := range []int{0, 1, 5, 20, 511, 512, 513, 5000} {
			b := &batchedBody{r: io.NopCloser(wrap(bytes.NewReader(content[:n])))}
			if err := iotest.TestReader(b, content[:n]); err != nil {
				t.Errorf("%s, %d bytes: %v", name, n, err)
			}
		}
	}
	// An error other than EOF comes after the bytes read with it.
	boom := errors.New("stream reset")
	b := &batchedBody{r: io.NopCloser(iotest.DataErrReader(io.MultiReader(bytes.NewReader(content[:30]), iotest.ErrReader(boom))))}
	got, err := io.ReadAll(b)
	if !bytes.Equal(got, content[:30]) || !errors.Is(err, boom) {
		t.Fatalf("got %d bytes, %v; want 30, %v", len(got), err, boom)
	}
}
