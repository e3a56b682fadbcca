package master

import (
	"io"
	"sync"
)

// batchedBody reads a Session stream's request body a frame at a time: one
// Read of the HTTP/2 body takes all the bytes that arrived (a message's
// 5-byte envelope prefix and the message, or several messages), where
// Connect's envelope reader makes two or three (the prefix, then the
// message). Each Read of an HTTP/2 request body wakes the connection's
// serving goroutine (flow-control accounting), which made it one of the
// largest costs of a heart-beat. The buffer comes from a pool and goes
// back as soon as it is empty: an idle stream holds none (thousands of
// workers).
type batchedBody struct {
	r   io.ReadCloser
	buf *[]byte
	p   []byte // unread bytes of *buf
	err error  // the error of the Read that filled buf, returned once p is empty
}

const batchedBodySize = 512

var bodyBufs = sync.Pool{New: func() any { b := make([]byte, batchedBodySize); return &b }}

func (b *batchedBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(b.p) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if len(p) >= batchedBodySize {
			return b.r.Read(p)
		}
		buf := bodyBufs.Get().(*[]byte)
		n, err := b.r.Read(*buf)
		if n == 0 {
			bodyBufs.Put(buf)
			return 0, err
		}
		b.buf, b.p, b.err = buf, (*buf)[:n], err
	}
	n := copy(p, b.p)
	b.p = b.p[n:]
	if len(b.p) == 0 {
		bodyBufs.Put(b.buf)
		b.buf, b.p = nil, nil
	}
	return n, nil
}

func (b *batchedBody) Close() error { return b.r.Close() }
