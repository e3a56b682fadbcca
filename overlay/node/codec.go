package node

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/volsched/volsched/overlay"
)

// MsgCodec is the wire form of an overlay.Msg. The daemons never define
// their own: package overlay's versioned binary encoding (AppendMsg,
// DecodeMsg) is the one (roles.go); tests may wrap it.
type MsgCodec interface {
	// Append appends m's encoding to dst.
	Append(dst []byte, m *overlay.Msg) ([]byte, error)
	// Decode decodes one message, refusing malformed input with an error.
	Decode(b []byte) (overlay.Msg, error)
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
