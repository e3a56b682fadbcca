package des

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/volsched/volsched/stream"
)

func TestQueueOrderMatchesStableSort(t *testing.T) {
	rng := stream.New(1, 1)
	for trial := 0; trial < 200; trial++ {
		var q Queue[int]
		type rec struct {
			at Time
			id int
		}
		var want []rec
		n := 1 + rng.IntN(300)
		id := 0
		var got []rec
		for i := 0; i < n; i++ {
			// interleave pushes and pops
			if q.Len() > 0 && rng.IntN(3) == 0 {
				at, ev, ok := q.Pop()
				if !ok {
					t.Fatal("Pop on non-empty queue returned !ok")
				}
				got = append(got, rec{at, ev})
				continue
			}
			at := Time(rng.IntN(20)) // many ties
			if len(got) > 0 && at < got[len(got)-1].at {
				at = got[len(got)-1].at // keep it a valid simulation (no past events)
			}
			q.Push(at, id)
			want = append(want, rec{at, id})
			id++
		}
		for q.Len() > 0 {
			at, ev, _ := q.Pop()
			got = append(got, rec{at, ev})
		}
		slices.SortStableFunc(want, func(a, b rec) int {
			switch {
			case a.at < b.at:
				return -1
			case a.at > b.at:
				return 1
			}
			return 0
		})
		// With interleaved pops the delivery order must still be (time, insertion).
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: delivery order %v, want %v", trial, got, want)
		}
	}
}

func TestQueueEmpty(t *testing.T) {
	var q Queue[string]
	if q.Peek() != Never {
		t.Fatalf("Peek on empty = %v, want Never", q.Peek())
	}
	if _, _, ok := q.Pop(); ok {
		t.Fatal("Pop on empty queue returned ok")
	}
}

func TestSimRunUntilAndChaining(t *testing.T) {
	var s Sim[int]
	var seen []Time
	s.At(5*Second, 3)
	handle := func(t Time, n int) {
		seen = append(seen, t)
		if n > 0 {
			s.After(Second, n-1)
		}
	}
	if got := s.Run(6*Second, handle); got != 2 {
		t.Fatalf("Run(6s) handled %d events, want 2", got)
	}
	if s.Now() != 6*Second {
		t.Fatalf("Now after Run(6s) = %v, want 6s", s.Now())
	}
	s.Run(Never, handle)
	want := []Time{5 * Second, 6 * Second, 7 * Second, 8 * Second}
	if !slices.Equal(seen, want) {
		t.Fatalf("event times %v, want %v", seen, want)
	}
	if s.Processed() != 4 || s.Pending() != 0 {
		t.Fatalf("processed %d pending %d, want 4 and 0", s.Processed(), s.Pending())
	}
	if s.Step(Never, handle) {
		t.Fatal("Step on empty simulation returned true")
	}
}

func TestSimPanicsOnPast(t *testing.T) {
	var s Sim[int]
	s.At(Second, 0)
	s.Run(Never, func(Time, int) {})
	defer func() {
		if recover() == nil {
			t.Fatal("scheduling in the past did not panic")
		}
	}()
	s.At(0, 1)
}

func TestSeconds(t *testing.T) {
	cases := []struct {
		s    float64
		want Time
	}{{1.5, 1500 * Millisecond}, {0, 0}, {1e300, Never}, {math.NaN(), Never}, {-1e300, -Never}}
	for _, c := range cases {
		if got := Seconds(c.s); got != c.want {
			t.Errorf("Seconds(%g) = %d, want %d", c.s, got, c.want)
		}
	}
	if got, err := ExecTime(3000, 1500); err != nil || got != 2*Second {
		t.Errorf("ExecTime(3000 MI, 1500 MIPS) = %v, %v; want 2s", got, err)
	}
	if _, err := ExecTime(1, 0); err == nil {
		t.Error("ExecTime with power 0: no error")
	}
	if _, err := ExecTime(math.NaN(), 1); err == nil {
		t.Error("ExecTime with NaN length: no error")
	}
}

func TestLinkDelayDistribution(t *testing.T) {
	for _, l := range []Link{SlowLink, FastLink} {
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		if l.DelayQuantile(0) != l.DelayMin {
			t.Errorf("%s: quantile(0) = %v, want %v", l.Name, l.DelayQuantile(0), l.DelayMin)
		}
		if q := l.DelayQuantile(math.Nextafter(1, 0)); q != l.DelayMax {
			t.Errorf("%s: quantile(1-) = %v, want %v", l.Name, q, l.DelayMax)
		}
		prev := Time(0)
		for u := 0.0; u < 1; u += 0.01 {
			q := l.DelayQuantile(u)
			if q < prev || q < l.DelayMin || q > l.DelayMax {
				t.Fatalf("%s: quantile(%g) = %v out of order or range", l.Name, u, q)
			}
			prev = q
		}
	}
	// Bounded Pareto, shape 1, on [50, 300] ms: median 50/(1-0.5·5/6) ms.
	want := 50.0 / (1 - 0.5*(1-50.0/300))
	if got := SlowLink.DelayQuantile(0.5).Seconds() * 1e3; math.Abs(got-want) > 1e-6 {
		t.Errorf("slow median %g ms, want %g", got, want)
	}
	// The empirical median of pair delays matches.
	nw, err := NewNetwork(2000, SlowLink, DefaultProcessing, 7)
	if err != nil {
		t.Fatal(err)
	}
	var d []float64
	for a := int32(0); a < 400; a++ {
		d = append(d, nw.Delay(a, a+1000).Seconds()*1e3)
		if nw.Delay(a, a+1000) != nw.Delay(a+1000, a) {
			t.Fatal("pair delay not symmetric")
		}
	}
	slices.Sort(d)
	if med := d[len(d)/2]; math.Abs(med-want) > 12 {
		t.Errorf("empirical median pair delay %g ms, want about %g", med, want)
	}
	if SlowLink.TransmitTime(1250) != Millisecond {
		t.Errorf("10 Mbit/s, 1250 bytes: %v, want 1ms", SlowLink.TransmitTime(1250))
	}
}

func TestLinkValidate(t *testing.T) {
	bad := []Link{
		{Name: "a", BandwidthBps: 0, DelayMin: 1, DelayMax: 2, ParetoShape: 1},
		{Name: "b", BandwidthBps: 1, DelayMin: 0, DelayMax: 2, ParetoShape: 1},
		{Name: "c", BandwidthBps: 1, DelayMin: 3, DelayMax: 2, ParetoShape: 1},
		{Name: "d", BandwidthBps: 1, DelayMin: 1, DelayMax: 2, ParetoShape: math.NaN()},
	}
	for _, l := range bad {
		if l.Validate() == nil {
			t.Errorf("link %+v validated", l)
		}
	}
	if _, err := LinkByName("medium"); err == nil {
		t.Error("LinkByName(medium): no error")
	}
	if _, err := NewNetwork(0, FastLink, DefaultProcessing, 1); err == nil {
		t.Error("NewNetwork(0): no error")
	}
	if _, err := NewNetwork(4, FastLink, DefaultProcessing, 1, 0); err == nil {
		t.Error("NewNetwork with window 0: no error")
	}
}

func TestSendSerializesAndAccounts(t *testing.T) {
	nw, err := NewNetwork(3, SlowLink, Processing{PerMessage: Millisecond}, 3, Second, 10*Second)
	if err != nil {
		t.Fatal(err)
	}
	// Two 12500-byte messages (10 ms each on 10 Mbit/s) sent at once leave one after the other.
	a1 := nw.Send(0, 0, 1, 12500)
	a2 := nw.Send(0, 0, 2, 12500)
	if want := 10*Millisecond + nw.Delay(0, 1); a1 != want {
		t.Errorf("first arrival %v, want %v", a1, want)
	}
	if want := 20*Millisecond + nw.Delay(0, 2); a2 != want {
		t.Errorf("second arrival %v, want %v", a2, want)
	}
	// FIFO per pair: a later small message does not overtake.
	a3 := nw.Send(0, 0, 1, 1)
	if a3 <= a1 {
		t.Errorf("later message arrives at %v, before the earlier one at %v", a3, a1)
	}
	// Processing is sequential per node.
	if d := nw.Process(5*Millisecond, 1, Millisecond); d != 6*Millisecond {
		t.Errorf("first processing ends at %v, want 6ms", d)
	}
	if d := nw.Process(5*Millisecond, 1, Millisecond); d != 7*Millisecond {
		t.Errorf("second processing ends at %v, want 7ms", d)
	}
	if nw.Messages() != 3 || nw.Bytes() != 25001 {
		t.Errorf("counted %d messages / %d bytes, want 3 / 25001", nw.Messages(), nw.Bytes())
	}
	peaks := nw.PeakUse(10 * Second)
	if len(peaks) != 3 {
		t.Fatalf("%d peaks, want 3", len(peaks))
	}
	if peaks[0].Bytes != 25001 || peaks[0].Node != 0 {
		t.Errorf("1 s peak %+v, want 25001 bytes at node 0", peaks[0])
	}
	if want := 25001 * 8 / 10e6; math.Abs(peaks[0].Fraction-want) > 1e-12 {
		t.Errorf("1 s peak fraction %g, want %g", peaks[0].Fraction, want)
	}
	if want := 25001 * 8 / 10e6 / 10; math.Abs(peaks[2].Fraction-want) > 1e-12 {
		t.Errorf("whole-run fraction %g, want %g", peaks[2].Fraction, want)
	}
	// A message in the next second starts a new window.
	nw.Send(2*Second, 0, 1, 100)
	if p := nw.PeakUse(10 * Second); p[0].Bytes != 25001 || p[1].Bytes != 25101 {
		t.Errorf("peaks after a second window: %+v", p)
	}
	nw.Fail(0, 3*Second)
	if a := nw.Send(3*Second, 0, 1, 0); a != 3*Second+nw.Delay(0, 1) {
		t.Errorf("after Fail, arrival %v", a)
	}
}

func TestDelayDeterministic(t *testing.T) {
	a, _ := NewNetwork(100, FastLink, DefaultProcessing, 42)
	b, _ := NewNetwork(100, FastLink, DefaultProcessing, 42)
	c, _ := NewNetwork(100, FastLink, DefaultProcessing, 43)
	same := true
	for i := int32(0); i < 99; i++ {
		if a.Delay(i, i+1) != b.Delay(i, i+1) {
			t.Fatal("same seed, different delay")
		}
		same = same && a.Delay(i, i+1) == c.Delay(i, i+1)
	}
	if same {
		t.Fatal("different seeds give identical delays")
	}
}

// A queue listed with Each and rebuilt with Restore and Append pops the
// same events in the same order; Valid rejects a storage order that is not
// a heap.
func TestQueueRestore(t *testing.T) {
	var q Queue[int]
	for i := range 200 {
		q.Push(Time((i*7919)%113), i)
	}
	for range 50 {
		q.Pop()
	}
	var r Queue[int]
	type ent struct {
		at  Time
		seq uint64
		ev  int
	}
	var es []ent
	next := q.Each(func(at Time, seq uint64, ev int) { es = append(es, ent{at, seq, ev}) })
	r.Restore(next, len(es))
	for _, e := range es {
		r.Append(e.at, e.seq, e.ev)
	}
	if !r.Valid() {
		t.Fatal("restored queue not valid")
	}
	q.Push(50, -1)
	r.Push(50, -1)
	for q.Len() > 0 {
		a1, e1, _ := q.Pop()
		a2, e2, ok := r.Pop()
		if !ok || a1 != a2 || e1 != e2 {
			t.Fatalf("popped (%v, %d), restored queue (%v, %d)", a1, e1, a2, e2)
		}
	}
	if r.Len() != 0 {
		t.Fatal("restored queue longer")
	}
	var bad Queue[int]
	bad.Restore(10, 2)
	bad.Append(5, 1, 0)
	bad.Append(3, 2, 0) // child before its parent
	if bad.Valid() {
		t.Fatal("a non-heap order passed Valid")
	}
	bad.Restore(2, 1)
	bad.Append(1, 2, 0) // sequence number not below the next one
	if bad.Valid() {
		t.Fatal("a sequence number >= next passed Valid")
	}
}

// A model whose handler keeps scheduling at the current instant (a time
// that cannot advance) gets ErrStalled after the stall limit, and the loop
// returns by itself; an event at Never (a saturated time) never runs, and
// After saturates instead of wrapping into the past.
func TestSimGuaranteesProgress(t *testing.T) {
	var s Sim[int]
	s.SetStallLimit(1000)
	s.At(5, 0)
	n := s.Run(Never, func(at Time, ev int) { s.At(at, ev+1) })
	if !errors.Is(s.Err(), ErrStalled) || n != 1000 {
		t.Fatalf("looping model: %d events, err %v; want 1000 events and ErrStalled", n, s.Err())
	}
	if s.Step(Never, func(Time, int) { t.Fatal("handled an event after stalling") }) {
		t.Fatal("Step after the stall returned true")
	}

	// Many events at one instant, then time advances: not a stall.
	var ok Sim[int]
	ok.SetStallLimit(1000)
	for i := 0; i < 999; i++ {
		ok.At(7, i)
	}
	ok.At(8, -1)
	if n := ok.Run(Never, func(Time, int) {}); n != 1000 || ok.Err() != nil {
		t.Fatalf("999 events at one instant then one later: %d events, err %v", n, ok.Err())
	}

	var nv Sim[int]
	nv.At(Never, 1)
	nv.At(3, 2)
	nv.Run(Never, func(at Time, ev int) {
		switch ev {
		case 2:
			nv.After(Never-1, 3) // 3 + Never-1 saturates: never
			nv.After(4e18, 4)    // at 4e18+3
		case 4:
			nv.After(6e18, 5) // 4e18+3 + 6e18 would wrap into the past: never
		}
	})
	if nv.Now() != 4e18+3 || nv.Processed() != 2 || nv.Pending() != 0 {
		t.Fatalf("events at Never: now %v, %d handled, %d pending; want the events at 3 and 4e18+3 handled, nothing at Never", nv.Now(), nv.Processed(), nv.Pending())
	}
	for _, c := range []struct {
		s    float64
		want Time
	}{{1e-9, 1}, {1.5e-9, 2}, {1e10, Never}, {math.Inf(1), Never}, {math.NaN(), Never}, {-1e300, -Never}, {9.2e9, 9_200_000_000_000_000_000}} {
		if got := CeilSeconds(c.s); got != c.want {
			t.Errorf("CeilSeconds(%g) = %d, want %d", c.s, got, c.want)
		}
	}
	if Add(Never-5, 10) != Never || Add(-Never+5, -10) != -Never || Add(3, 4) != 7 {
		t.Error("Add does not saturate")
	}
}
