package overlay_test

import (
	"fmt"
	"testing"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/stream"
)

// fullSummaries returns two summaries of sfmax sampled functions each, as
// aggregated from random nodes (what a router at a high level aggregates).
func fullSummaries(b testing.TB, pol overlay.Policy, sfmax int) (overlay.Rules, overlay.Summary, overlay.Summary) {
	o := overlay.DefaultOptions(pol)
	o.SFMax = sfmax
	p, err := overlay.NewRules(o)
	if err != nil {
		b.Fatal(err)
	}
	r := stream.New(7, 0xbe7c)
	u := accuracy.UniformInt
	var s [2]overlay.Summary
	for h := range s {
		for range 4 * sfmax {
			var leaf overlay.Summary
			m, d := u(r, 1, 4096), u(r, 1, 5000)
			switch pol {
			case overlay.PolicyIBP:
				leaf = overlay.IBPSummary{{Mem: float32(m), Disk: float32(d), V: 1}}
			case overlay.PolicyMMP:
				leaf = overlay.MMPSummary{{Mem: float32(m), Disk: float32(d), Power: float32(u(r, 1, 3000)), Q: u(r, 0, 2000), V: 1}}
			case overlay.PolicyDP:
				f := accuracy.RandomDPNode(r, u(r, accuracy.PowLo, accuracy.PowHi)).Function(0)
				f.Reduce(o.Samples, o.Horizon)
				leaf = overlay.DPSummary{{Mem: float32(m), Disk: float32(d), V: 1, L: f}}
			}
			s[h] = p.Aggregate(s[h], leaf)
		}
	}
	return p, s[0], s[1]
}

// BenchmarkAggregateFull: one aggregation of two full summaries (2·SF_max
// sampled functions clustered down to SF_max), the worst case of Fig. 3.
func BenchmarkAggregateFull(b *testing.B) {
	for _, c := range []struct {
		pol overlay.Policy
		k   int
	}{{overlay.PolicyIBP, 9}, {overlay.PolicyIBP, 64}, {overlay.PolicyIBP, 225}, {overlay.PolicyMMP, 16}, {overlay.PolicyMMP, 81},
		{overlay.PolicyMMP, 256}, {overlay.PolicyDP, 8}, {overlay.PolicyDP, 64}, {overlay.PolicyDP, 216}} {
		b.Run(fmt.Sprintf("%s/sfmax=%d", c.pol, c.k), func(b *testing.B) {
			p, x, y := fullSummaries(b, c.pol, c.k)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Aggregate(x, y)
			}
		})
	}
}

// BenchmarkWire: the wire form of an update carrying a full summary (the
// aggregate of two full summaries at the policy's default SF_max), the
// largest message a daemon sends per link: AppendMsg into a reused
// buffer, and DecodeMsg of its bytes.
func BenchmarkWire(b *testing.B) {
	for _, pol := range []overlay.Policy{overlay.PolicyIBP, overlay.PolicyMMP, overlay.PolicyDP} {
		p, x, y := fullSummaries(b, pol, overlay.DefaultOptions(pol).SFMax)
		m := overlay.Msg{Kind: overlay.KindUpdate, From: 2, To: 1, Sum: p.Aggregate(x, y)}
		enc, err := overlay.AppendMsg(nil, &m)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("append/%s", pol), func(b *testing.B) {
			buf := make([]byte, 0, len(enc))
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = overlay.AppendMsg(buf[:0], &m)
			}
		})
		b.Run(fmt.Sprintf("decode/%s", pol), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := overlay.DecodeMsg(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
