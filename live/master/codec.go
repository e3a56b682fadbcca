package master

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/volsched/volsched/live/livepb"
)

// codec is the master's Connect codec: protobuf's binary format, with a
// fast path for the message the master receives most, a plain heart-beat
// (WorkerMessage{session, heartbeat{state}}, without since_back): its few
// bytes are decoded by hand, and its oneof wrapper and Heartbeat are shared
// read-only values instead of two allocations per heart-beat (10,000
// workers send 10,000 a second). Anything else, or any doubt about the
// bytes, goes to proto.Unmarshal: the decoded message is the same
// (TestCodecSameAsProto).
type codec struct{}

// plainHeartbeats[s] is the shared, never modified, decoded heart-beat of
// state s.
var plainHeartbeats = func() [4]*livepb.WorkerMessage_Heartbeat {
	var h [4]*livepb.WorkerMessage_Heartbeat
	for s := range h {
		h[s] = &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State(s)}}
	}
	return h
}()

func (codec) Name() string   { return "proto" }
func (codec) IsBinary() bool { return true }

func (codec) Marshal(m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", m)
	}
	return proto.Marshal(pm)
}

func (codec) MarshalAppend(dst []byte, m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", m)
	}
	return proto.MarshalOptions{}.MarshalAppend(dst, pm)
}

func (codec) MarshalStable(m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", m)
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(pm)
}

func (codec) Unmarshal(data []byte, m any) error {
	if wm, ok := m.(*livepb.WorkerMessage); ok {
		if session, state, ok := plainHeartbeat(data); ok {
			wm.Reset()
			wm.Session, wm.Msg = session, plainHeartbeats[state]
			return nil
		}
	}
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a protobuf message", m)
	}
	if err := proto.Unmarshal(data, pm); err != nil {
		return fmt.Errorf("unmarshal into %T: %w", m, err)
	}
	return nil
}

// plainHeartbeat decodes a WorkerMessage that is exactly: field 1
// (session, varint) at most once, then field 2 (heartbeat) once, holding
// at most field 1 (state, a known value, varint) — the way protobuf
// encodes a plain heart-beat. ok is false for anything else.
func plainHeartbeat(b []byte) (session uint64, state int, ok bool) {
	if len(b) > 0 && b[0] == 0x08 { // field 1, varint
		v, n := protowire.ConsumeVarint(b[1:])
		if n < 0 {
			return 0, 0, false
		}
		session, b = v, b[1+n:]
	}
	if len(b) < 2 || b[0] != 0x12 { // field 2, bytes
		return 0, 0, false
	}
	inner, n := protowire.ConsumeBytes(b[1:])
	if n < 0 || 1+n != len(b) {
		return 0, 0, false
	}
	switch {
	case len(inner) == 0:
		return session, 0, true
	case len(inner) == 2 && inner[0] == 0x08 && inner[1] < byte(len(plainHeartbeats)):
		return session, int(inner[1]), true
	}
	return 0, 0, false
}
