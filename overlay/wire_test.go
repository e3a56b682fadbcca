package overlay

import (
	"bytes"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// wire float draws: ordinary values and the edges a bit-exact encoding
// must keep (zeros of both signs, subnormals, the largest finite).
func drawF32(t *rapid.T, label string) float32 {
	switch rapid.IntRange(0, 5).Draw(t, label+"-kind") {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.SmallestNonzeroFloat32
	case 3:
		return math.MaxFloat32
	}
	return rapid.Float32Range(0, 1e7).Draw(t, label)
}

func drawF64(t *rapid.T, label string, lo, hi float64) float64 {
	switch rapid.IntRange(0, 5).Draw(t, label+"-kind") {
	case 0:
		return math.Max(lo, 0)
	case 1:
		return math.Nextafter(hi, lo)
	}
	return rapid.Float64Range(lo, hi).Draw(t, label)
}

func drawSpreads(t *rapid.T, n int) []Spread {
	sp := make([]Spread, n)
	for i := range sp {
		sp[i] = Spread{Lin: drawF32(t, "lin"), Sq: drawF32(t, "sq"), Far: drawF32(t, "far")}
	}
	return sp
}

// drawSummary draws any summary the wire carries: nil, or 1 to 12
// functions of policy pol, with spreads or not.
func drawSummary(t *rapid.T, pol Policy) Summary {
	n := rapid.IntRange(0, 12).Draw(t, "functions")
	if n == 0 {
		return nil
	}
	v := func() int32 { return int32(rapid.IntRange(1, math.MaxInt32).Draw(t, "v")) }
	spreads := rapid.Bool().Draw(t, "spreads")
	switch pol {
	case PolicyIBP:
		s := make(IBPSummary, n)
		for i := range s {
			s[i] = IBPCluster{Mem: drawF32(t, "mem"), Disk: drawF32(t, "disk"), V: v()}
		}
		if spreads {
			return &spreadSummary[IBPSummary, IBPCluster]{vals: s, d: 2, sp: drawSpreads(t, 2*n)}
		}
		return s
	case PolicyMMP:
		s := make(MMPSummary, n)
		for i := range s {
			s[i] = MMPCluster{Mem: drawF32(t, "mem"), Disk: drawF32(t, "disk"), Power: drawF32(t, "power"), V: v(),
				Q: drawF64(t, "q", -math.MaxFloat64, math.MaxFloat64)}
		}
		if spreads {
			return &spreadSummary[MMPSummary, MMPCluster]{vals: s, d: 4, sp: drawSpreads(t, 4*n)}
		}
		return s
	}
	s := make(DPSummary, n)
	for i := range s {
		s[i] = DPCluster{Mem: drawF32(t, "mem"), Disk: drawF32(t, "disk"), V: v(), L: LFunc{Slope: drawF64(t, "slope", 0, 1e5)}}
		tm := drawF64(t, "t0", -1e9, 1e9)
		for range rapid.IntRange(0, 12).Draw(t, "samples") {
			tm += drawF64(t, "dt", 0, 1e6)
			s[i].L.P = append(s[i].L.P, LPoint{T: tm, L: drawF64(t, "l", 0, 1e12)})
		}
	}
	if spreads {
		return &spreadSummary[DPSummary, DPCluster]{vals: s, d: 3, sp: drawSpreads(t, 3*n)}
	}
	return s
}

func drawAddr(t *rapid.T, label string) Addr {
	return Addr(rapid.IntRange(int(NoAddr), math.MaxInt32).Draw(t, label))
}

// drawMsg draws a valid message of kind k (and policy pol for updates).
func drawMsg(t *rapid.T, k Kind, pol Policy) Msg {
	m := Msg{Kind: k, From: drawAddr(t, "from"), To: drawAddr(t, "to")}
	switch k {
	case KindRequest, KindReturn, KindDone, KindAccepted:
		lo := 0.0
		if k == KindRequest {
			lo = math.SmallestNonzeroFloat64
		}
		m.Req = Request{App: App{ID: rapid.Uint64().Draw(t, "id"), Length: drawF64(t, "length", lo, 1e15),
			Mem: drawF64(t, "app mem", 0, 1e6), Disk: drawF64(t, "app disk", 0, 1e6),
			Deadline: rapid.SampledFrom([]float64{math.Inf(1), math.Inf(-1), 0, -1e9, 1e9, 12.5}).Draw(t, "deadline")},
			Submitter: Addr(rapid.IntRange(0, math.MaxInt32).Draw(t, "submitter")), Src: drawAddr(t, "src"),
			N: rapid.IntRange(0, MaxTasks).Draw(t, "n")}
		if m.Req.App.Length == 0 && k == KindRequest {
			m.Req.App.Length = 1
		}
	case KindUpdate:
		m.Sum = drawSummary(t, pol)
	case KindBound:
		m.Bound = rapid.SampledFrom([]float64{math.Inf(-1), math.Inf(1), 0, math.Copysign(0, -1), 3600.25, -1e300}).Draw(t, "bound")
	}
	return m
}

// roundTrip encodes m, decodes it and checks that the message comes back
// identical (structure and bits: its encoding is the same bytes).
func roundTrip(t interface {
	Fatalf(string, ...any)
}, m *Msg) []byte {
	b, err := AppendMsg(nil, m)
	if err != nil {
		t.Fatalf("encode %+v: %v", m, err)
	}
	got, err := DecodeMsg(b)
	if err != nil {
		t.Fatalf("decode %x: %v", b, err)
	}
	if !reflect.DeepEqual(got, *m) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, *m)
	}
	again, err := AppendMsg(nil, &got)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("re-encoding differs: %x, want %x (%v)", again, b, err)
	}
	return b
}

// TestWireRoundTrip: every message kind, and updates of every policy with
// and without spreads, come back exactly.
func TestWireRoundTrip(t *testing.T) {
	for k := KindRequest; int(k) < len(kindNames); k++ {
		pols := []Policy{PolicyIBP}
		if k == KindUpdate {
			pols = builtins
		}
		for _, pol := range pols {
			t.Run(k.String()+"/"+pol.String(), func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					m := drawMsg(t, k, pol)
					roundTrip(t, &m)
				})
			})
		}
	}
}

// TestWireRoundTripAggregates: summaries that Aggregate builds (plain
// below SF_max, with spreads above, l functions reduced or not) and the
// messages the roles emit come back exactly.
func TestWireRoundTripAggregates(t *testing.T) {
	for _, pol := range builtins {
		t.Run(pol.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p, _ := newRules(pol, rapid.IntRange(1, 6).Draw(t, "sfmax"))
				_, leaves := drawNodes(t, pol)
				s := randomTreeAggregate(t, p, leaves, func(lo, hi int, s Summary) {
					m := Msg{Kind: KindUpdate, From: 3, To: 1, Sum: s}
					b := roundTrip(t, &m)
					got, _ := DecodeMsg(b)
					if !p.Equal(got.Sum, s) {
						t.Fatalf("decoded summary not Equal to the sent one")
					}
				})
				_ = s
			})
		})
	}
}

// TestWireRoles: what a small overlay's roles emit (updates, bounds,
// requests, returns, acknowledgements, done) is valid on the wire.
func TestWireRoles(t *testing.T) {
	for _, pol := range builtins {
		tr := NewTree(8)
		p, _ := newRules(pol, 2)
		c := &Config{Rules: p}
		execs := make([]Exec, 8)
		for i := range execs {
			m, d, s := float64(100*(i+1)), float64(50*(i+2)), float64(1000+i)
			switch pol {
			case PolicyIBP:
				execs[i] = &IBPExec{Mem: m, Disk: d, Power: s}
			case PolicyMMP:
				execs[i] = &MMPExec{Mem: m, Disk: d, Power: s, Q: float64(i)}
			case PolicyDP:
				execs[i] = &DPExec{Mem: m, Disk: d, Power: s}
			}
		}
		n := newNet(tr, c, execs)
		kinds := map[Kind]int{}
		check := func(ms []Msg) {
			for i := range ms {
				kinds[ms[i].Kind]++
				roundTrip(t, &ms[i])
			}
		}
		var q []Msg
		q = append(q, NewRequest(tr, tr.Leaf(0), App{ID: 1, Length: 5000, Mem: 10, Disk: 10, Deadline: 100}, 20))
		for len(q) > 0 {
			m := q[0]
			q = q[1:]
			check([]Msg{m})
			var out []Msg
			switch {
			case m.Kind == KindReturn || m.Kind == KindDone || m.Kind == KindAccepted:
				continue
			case tr.IsLeaf(m.To):
				out = n.leaves[m.To].Step(c, 0, m, nil)
			default:
				out = n.routers[m.To].Step(c, 0, m, nil)
			}
			q = append(q, out...)
		}
		for i := range execs {
			check(n.leaves[tr.Leaf(i)].Step(c, 1e9, Msg{Kind: KindTick, To: tr.Leaf(i)}, nil))
		}
		if kinds[KindAccepted] == 0 || kinds[KindRequest] == 0 || kinds[KindDone] == 0 {
			t.Errorf("%s: kinds seen %v", pol, kinds)
		}
	}
}

// TestWireRefuses: malformed or invalid input is refused with an error
// that says what is wrong (never a panic), and an encoder refuses what it
// could not decode.
func TestWireRefuses(t *testing.T) {
	good, err := AppendMsg(nil, &Msg{Kind: KindUpdate, From: 2, To: 1, Sum: MMPSummary{{Mem: 1, Disk: 2, Power: 3, V: 4, Q: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "version"},
		{"version", append([]byte{2}, good[1:]...), "wire version 2"},
		{"kind", append([]byte{1, 99}, good[2:]...), "kind 99"},
		{"truncated", good[:len(good)-3], "bytes left"},
		{"trailing", append(append([]byte(nil), good...), 0), "after its end"},
		{"tag", []byte{1, byte(KindUpdate), 4, 2, 0x13}, "summary tag"},
		{"empty with policy", []byte{1, byte(KindUpdate), 4, 2, 1, 0}, "functions"},
		{"huge count", []byte{1, byte(KindUpdate), 4, 2, 3, 0xff, 0xff, 0xff, 0xff, 0x0f}, "claimed"},
		{"long varint", []byte{1, byte(KindBound), 0x84, 0x00, 2, 0, 0, 0, 0, 0, 0, 0, 0}, "shortest form"},
		{"address", []byte{1, byte(KindTick), 3, 2}, "want an address"},
		{"v 0", []byte{1, byte(KindUpdate), 4, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "nodes"},
		{"NaN bound", append([]byte{1, byte(KindBound), 4, 2}, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f), "NaN"},
	} {
		if _, err := DecodeMsg(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	for _, m := range []Msg{
		{Kind: 0},
		{Kind: KindTick, Bound: 1},
		{Kind: KindBound, Sum: IBPSummary{{V: 1}}},
		{Kind: KindUpdate, Sum: IBPSummary{}},
		{Kind: KindUpdate, Sum: IBPSummary{{Mem: -1, V: 1}}},
		{Kind: KindUpdate, Sum: DPSummary{{V: 1, L: LFunc{P: []LPoint{{T: 2}, {T: 1}}}}}},
		{Kind: KindUpdate, Sum: &spreadSummary[IBPSummary, IBPCluster]{vals: IBPSummary{{V: 1}}, d: 2}},
		{Kind: KindRequest, Req: Request{App: App{Length: 0}, N: 1}},
		{Kind: KindRequest, Req: Request{App: App{Length: 1}, N: -1}},
		{Kind: KindDone, From: -2},
	} {
		if b, err := AppendMsg(nil, &m); err == nil {
			t.Errorf("%+v encoded (%x)", m, b)
		}
	}
}

// TestWireAllocationBounded: decoding allocates in proportion to the
// input, whatever counts the input claims.
func TestWireAllocationBounded(t *testing.T) {
	inputs := [][]byte{
		{1, byte(KindUpdate), 4, 2, 3, 0xff, 0xff, 0xff, 0xff, 0x0f},                   // 2^32 DP functions claimed
		{1, byte(KindUpdate), 4, 2, 7, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0x03}, // l samples claimed
	}
	big := make(DPSummary, 300)
	for i := range big {
		big[i] = DPCluster{Mem: 1, Disk: 1, V: 1, L: LFunc{P: make([]LPoint, 8), Slope: 1}}
	}
	b, err := AppendMsg(nil, &Msg{Kind: KindUpdate, Sum: big})
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, b, b[:len(b)/2])
	for _, in := range inputs {
		DecodeMsg(in) // warm up (the error path's first formatting)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		DecodeMsg(in)
		runtime.ReadMemStats(&after)
		// functions and samples are at most as many as the bytes that
		// encode them: 80 bytes of structures per input byte at most
		if got := after.TotalAlloc - before.TotalAlloc; got > 80*uint64(len(in))+1024 {
			t.Errorf("decoding %d bytes allocated %d bytes", len(in), got)
		}
	}
}

// FuzzDecodeMsg: any input decodes or is refused without a panic, and
// what decodes is valid and encodes back to the same bytes. The seeds are
// every kind, updates of the built-in policies and of a policy this test
// binary registers.
func FuzzDecodeMsg(f *testing.F) {
	tr := NewTree(4)
	for _, m := range []Msg{
		NewRequest(tr, tr.Leaf(0), App{ID: 3, Length: 1e6, Mem: 512, Disk: 1024, Deadline: 7200}, 12),
		{Kind: KindReturn, From: 0, To: 3, Req: Request{App: App{ID: 3, Length: 1e6}, Submitter: 3, Src: 0, N: 2}},
		{Kind: KindDone, From: 4, To: 3, Req: Request{App: App{ID: 3}, Submitter: 3, Src: NoAddr, N: 1}},
		{Kind: KindAccepted, From: 4, To: 3, Req: Request{App: App{ID: 3, Length: 1e6}, Submitter: 3, Src: 4, N: 5}},
		{Kind: KindBound, From: 0, To: 1, Bound: 3600},
		{Kind: KindTick, To: 2},
		{Kind: KindRestarted, From: 1, To: 2},
		{Kind: KindUpdate, From: 2, To: 1, Sum: IBPSummary{{Mem: 512, Disk: 1024, V: 3}, {Mem: 2048, Disk: 4096, V: 1}}},
		{Kind: KindUpdate, From: 2, To: 1, Sum: MMPSummary{{Mem: 512, Disk: 1024, Power: 1500, V: 2, Q: 60}}},
		{Kind: KindUpdate, From: 2, To: 1, Sum: DPSummary{{Mem: 512, Disk: 1024, V: 1, L: LFunc{P: []LPoint{{T: 10, L: 0}, {T: 30, L: 2e4}}, Slope: 1000}}}},
		{Kind: KindUpdate, From: 2, To: 1, Sum: &spreadSummary[MMPSummary, MMPCluster]{vals: MMPSummary{{Mem: 1, Disk: 1, Power: 1, V: 2, Q: 1}},
			d: 4, sp: []Spread{{1, 1, 1}, {0, 0, 0}, {2, 4, 2}, {0.5, 0.25, 0.5}}}},
		// a policy registered outside the paper's (register_test.go): a
		// two-byte tag, its codec's flag set and not
		{Kind: KindUpdate, From: 2, To: 1, Sum: wireTestSummary{3}},
		{Kind: KindUpdate, From: 2, To: 1, Sum: wireTestSummary{3, 1}},
	} {
		b, err := AppendMsg(nil, &m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMsg(b)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("decoded an invalid message: %v", err)
		}
		again, err := AppendMsg(nil, &m)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("decoded %x re-encodes to %x (%v)", b, again, err)
		}
	})
}
