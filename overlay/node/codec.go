package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/volsched/volsched/overlay"
)

// MsgCodec is the wire form of an overlay.Msg. The daemons never define
// their own: the overlay package's versioned binary encoding is the one
// (wired in roles.go); the codec is an interface only so that the daemon
// can be built and tested before that encoding exists.
type MsgCodec interface {
	// Append appends m's encoding to dst.
	Append(dst []byte, m *overlay.Msg) ([]byte, error)
	// Decode decodes one message, refusing malformed input with an error.
	Decode(b []byte) (overlay.Msg, error)
}

// handleCodec is an interim stand-in for the overlay's wire form, usable
// only between daemons of one process (the in-process tests): a message is
// registered in a process-wide table and its 8-byte handle travels on the
// socket. It is not a codec of the messages' contents and never crosses a
// process boundary: a daemon started from the command line refuses to run
// with it (see defaultCodec).
type handleCodec struct{}

var handles struct {
	sync.Mutex
	next uint64
	m    map[uint64]overlay.Msg
}

func (handleCodec) Append(dst []byte, m *overlay.Msg) ([]byte, error) {
	handles.Lock()
	defer handles.Unlock()
	if handles.m == nil {
		handles.m = make(map[uint64]overlay.Msg)
	}
	handles.next++
	handles.m[handles.next] = *m
	return binary.BigEndian.AppendUint64(dst, handles.next), nil
}

func (handleCodec) Decode(b []byte) (overlay.Msg, error) {
	if len(b) != 8 {
		return overlay.Msg{}, fmt.Errorf("overlay message of %d bytes: want an 8-byte in-process handle", len(b))
	}
	h := binary.BigEndian.Uint64(b)
	handles.Lock()
	defer handles.Unlock()
	m, ok := handles.m[h]
	if !ok {
		return overlay.Msg{}, errors.New("overlay message: unknown in-process handle")
	}
	delete(handles.m, h)
	return m, nil
}

// overlayFrame is the frame of an overlay message: the submitter's node
// address (requests and returns carry it, so that an execution node can
// claim its tasks and a return reaches its submitter), then the message in
// the codec's form.
func appendOverlayFrame(c MsgCodec, submitter string, m *overlay.Msg) ([]byte, error) {
	b := make([]byte, 5, 64)
	b[4] = byte(fOverlay)
	b = binary.AppendUvarint(b, uint64(len(submitter)))
	b = append(b, submitter...)
	b, err := c.Append(b, m)
	if err != nil {
		return nil, err
	}
	if len(b)-4 > MaxFrame {
		return nil, fmt.Errorf("overlay %s message of %d bytes: over the frame limit", m.Kind, len(b)-4)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b, nil
}

func decodeOverlayFrame(c MsgCodec, payload []byte) (string, overlay.Msg, error) {
	n, k := binary.Uvarint(payload)
	if k <= 0 || n > 255 || uint64(len(payload)-k) < n {
		return "", overlay.Msg{}, errors.New("overlay frame: bad submitter field")
	}
	sub := string(payload[k : k+int(n)])
	if sub != "" {
		if err := validNodeAddr("overlay frame submitter", sub); err != nil {
			return "", overlay.Msg{}, err
		}
	}
	m, err := c.Decode(payload[k+int(n):])
	return sub, m, err
}
