package master

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/volsched/volsched/live/livepb"
)

// plainHeartbeats[s] is the shared, never modified, decoded heart-beat of
// state s: the fast path of decodeWorkerMessage (socket.go) gives a plain
// heart-beat these instead of two allocations (10,000 workers send 10,000
// a second).
var plainHeartbeats = func() [4]*livepb.WorkerMessage_Heartbeat {
	var h [4]*livepb.WorkerMessage_Heartbeat
	for s := range h {
		h[s] = &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State(s)}}
	}
	return h
}()

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
