package master

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/volsched/volsched/live/livepb"
)

func genWorkerMessage(t *rapid.T) *livepb.WorkerMessage {
	m := &livepb.WorkerMessage{Session: rapid.OneOf(rapid.Just(uint64(0)), rapid.Uint64()).Draw(t, "session")}
	switch rapid.IntRange(0, 4).Draw(t, "kind") {
	case 0, 1:
		hb := &livepb.Heartbeat{State: livepb.State(rapid.IntRange(0, 5).Draw(t, "state"))}
		for i := rapid.IntRange(0, 2).Draw(t, "back"); i > 0; i-- {
			hb.SinceBack = append(hb.SinceBack, &livepb.StateSince{State: livepb.State(rapid.IntRange(0, 3).Draw(t, "bstate")), AgoNs: rapid.Int64().Draw(t, "ago")})
		}
		m.Msg = &livepb.WorkerMessage_Heartbeat{Heartbeat: hb}
	case 2:
		m.Msg = &livepb.WorkerMessage_TransferDone{TransferDone: &livepb.TransferDone{Digest: rapid.String().Draw(t, "digest"), ActiveNs: rapid.Int64().Draw(t, "active")}}
	case 3:
		m.Msg = &livepb.WorkerMessage_TaskFailed{TaskFailed: &livepb.TaskFailed{Iteration: rapid.Int32().Draw(t, "iter"), Error: rapid.String().Draw(t, "err")}}
	}
	return m
}

// TestDecodeSameAsProto: decodeWorkerMessage decodes every WorkerMessage
// as proto.Unmarshal does (the plain heart-beats by its fast path, the rest
// by protobuf), and any bytes (valid or not) the same way too.
func TestDecodeSameAsProto(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		want := genWorkerMessage(t)
		b, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeWorkerMessage(b)
		if err != nil {
			t.Fatalf("%v: %v", want, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("decoded %v, want %v", got, want)
		}
		hb := want.GetHeartbeat()
		plain := hb != nil && len(hb.SinceBack) == 0 && hb.State <= 3
		if fast := got.Msg == plainHeartbeats[int(max(0, min(3, hb.GetState())))]; fast != plain {
			t.Fatalf("%v: fast path %v, want %v", want, fast, plain)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "bytes")
		if rapid.Bool().Draw(t, "heartbeat-like") && len(b) > 0 {
			b = append([]byte{0x08, b[0], 0x12, 2, 0x08}, b[1:]...)
		}
		want := &livepb.WorkerMessage{}
		got, gerr := decodeWorkerMessage(b)
		werr := proto.Unmarshal(b, want)
		if (gerr == nil) != (werr == nil) || (werr == nil && !proto.Equal(got, want)) {
			t.Fatalf("% x: decoded %v (%v), proto %v (%v)", b, got, gerr, want, werr)
		}
	})
}

func BenchmarkDecodeHeartbeat(b *testing.B) {
	data, _ := proto.Marshal(&livepb.WorkerMessage{Session: 123456789, Msg: &livepb.WorkerMessage_Heartbeat{Heartbeat: &livepb.Heartbeat{State: livepb.State_STATE_UP}}})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeWorkerMessage(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := proto.Unmarshal(data, new(livepb.WorkerMessage)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
