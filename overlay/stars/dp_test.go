package stars

import (
	"math"
	"testing"

	"github.com/volsched/volsched/overlay"
)

// Hand-built l functions for DP (integrals computed by hand in the
// comments).
var (
	// a(t) = t: a free node of power 1 from 0
	starsA = overlay.LFunc{P: []overlay.LPoint{{T: 0, L: 0}}, Slope: 1}
	// b(t) = 0 on [0, 2], t − 2 after (a sample at 4 sets the window)
	starsB = overlay.LFunc{P: []overlay.LPoint{{T: 0, L: 0}, {T: 2, L: 0}, {T: 4, L: 2}}, Slope: 1}
	// c(t) = 2t on [0, 1], 2 on [1, 3], t − 1 after: crosses a at t = 2
	starsC = overlay.LFunc{P: []overlay.LPoint{{T: 0, L: 0}, {T: 1, L: 2}, {T: 3, L: 2}}, Slope: 1}
)

func near(x, want float64) bool { return math.Abs(x-want) <= 1e-12*math.Max(1, math.Abs(want)) }

func TestStarsLossByHand(t *testing.T) {
	var buf []float64
	// a over b on [0, 4]: D = a − b = t on [0, 2], 2 on [2, 4]; M_a = a.
	// ∫D² = 8/3 + 8 = 32/3; ∫D·M_a = ∫t² (0..2) + ∫2t (2..4) = 8/3 + 12 = 44/3.
	if got := sqdiffLFunc(&starsA, &starsB, 0, 4, &buf); !near(got, 32.0/3) {
		t.Errorf("∫(a − b)² = %v, want 32/3", got)
	}
	if got := starsLoss(&starsA, &starsB, 1, 1, &starsA, &starsB, 0, 4, &buf); !near(got, 76.0/3) {
		t.Errorf("loss(a, b) = %v, want 32/3 + 44/3", got)
	}
	// v_I multiplies the squared term only: 3·32/3 + 44/3
	if got := starsLoss(&starsA, &starsB, 3, 5, &starsA, &starsB, 0, 4, &buf); !near(got, 32+44.0/3) {
		t.Errorf("loss(a ×3, b ×5) = %v, want 32 + 44/3", got)
	}
	// symmetric in the order of the arguments
	if got := starsLoss(&starsB, &starsA, 5, 3, &starsB, &starsA, 0, 4, &buf); !near(got, 32+44.0/3) {
		t.Errorf("loss(b ×5, a ×3) = %v, want 32 + 44/3", got)
	}
	// a and c cross at 2 (inside the piece [1, 3]): higher c on [0, 2],
	// D = t then 2 − t, M_c = c; higher a on [2, 4], D = t − 2 then 1, M_a = t.
	// ∫D² = 1/3 + 1/3 + 1/3 + 1 = 2; ∫D·M = 2/3 + 1 + 4/3 + 7/2 = 13/2.
	if got := starsLoss(&starsA, &starsC, 1, 1, &starsA, &starsC, 0, 4, &buf); !near(got, 2+6.5) {
		t.Errorf("loss(a, c) = %v, want 2 + 13/2", got)
	}
	// ∫(a − c)² alone: 2
	if got := sqdiffLFunc(&starsA, &starsC, 0, 4, &buf); !near(got, 2) {
		t.Errorf("∫(a − c)² = %v, want 2", got)
	}
}

func TestStarsDistanceByHand(t *testing.T) {
	// memory 10 and 20 (range 10, Sq 10² → 1), equal disk (no range), l as
	// above over the window [0, 4]: R = ∫(max − min)² = ∫(a − b)² = 32/3,
	// A/R = (76/3)/(32/3) = 19/8; distance (1 + 0 + 19/8)/2 = 27/16.
	p := newDP(t, 1)
	x := overlay.DPSummary{{Mem: 10, Disk: 5, V: 1, L: starsA}, {Mem: 20, Disk: 5, V: 1, L: starsB}}
	z := starsItems(nil, x)
	lo, hi, hz, _ := starsRange(x)
	m := p.prepare(z, lo, hi, hz)
	if m.t0 != 0 || m.h != 4 {
		t.Fatalf("window [%v, %v], want [0, 4]", m.t0, m.h)
	}
	if got := m.dist(&z[0], &z[1]); !near(got, 27.0/16) {
		t.Errorf("distance %v, want 27/16", got)
	}
	s := m.sum(&z[0], &z[1])
	if s.c.Mem != 10 || s.c.Disk != 5 || s.c.V != 2 || !near(s.e.asq, 76.0/3) || !near(float64(s.e.sm.Sq), 100) {
		t.Errorf("sum %+v", s)
	}
	for _, x := range []float64{0, 1, 2.5, 4, 9} {
		if s.c.L.At(x) != starsB.At(x) || s.e.max.At(x) != starsA.At(x) {
			t.Errorf("sum at %v: l %v max %v, want b %v, a %v", x, s.c.L.At(x), s.e.max.At(x), starsB.At(x), starsA.At(x))
		}
	}
	// With SF_max 8 (2 intervals per axis): a is a free node's ramp and b
	// not, and their l cells differ (∫(a − b)²·2/R = 2 → the last cell; b: 0).
	p = newDP(t, 8)
	m = p.prepare(z, lo, hi, hz)
	if z[0].cell == z[1].cell || z[0].cell>>16&0xff != 1 || z[1].cell>>16&0xff != 0 || z[0].cell>>24 != 1 || z[1].cell>>24 != 0 {
		t.Errorf("cells %x %x", z[0].cell, z[1].cell)
	}
	if d := m.dist(&z[0], &z[1]); !near(d, 27.0/16+msePenalty) {
		t.Errorf("far pair: distance %v, want 27/16 + penalty", d)
	}
}

// TestSummaryEqualAndPlain: DP's summaries are equal when built the same,
// differ from a plain summary, and give their plain functions (what
// forwarding reads).
func TestSummaryEqualAndPlain(t *testing.T) {
	p := newDP(t, 1)
	x := p.Aggregate(overlay.DPSummary{{Mem: 10, Disk: 5, V: 1, L: starsA}}, overlay.DPSummary{{Mem: 20, Disk: 5, V: 1, L: starsC}})
	y := p.Aggregate(overlay.DPSummary{{Mem: 10, Disk: 5, V: 1, L: starsA}}, overlay.DPSummary{{Mem: 20, Disk: 5, V: 1, L: starsC}})
	if !p.Equal(x, y) || p.Equal(x, overlay.DPSummary{{Mem: 10, Disk: 5, V: 2, L: starsA}}) {
		t.Errorf("Equal")
	}
	s, _ := overlay.Plain(x).(overlay.DPSummary)
	if len(s) != 1 || s[0].V != 2 || s.Admits(overlay.App{Length: 1, Deadline: 2}) != 2*2 {
		t.Errorf("Plain %+v", s)
	}
	// forwarding reads the plain functions: both tasks on the left child
	f := overlay.Fork{Self: 0, Father: overlay.NoAddr, Left: 1, Right: 2, LeftInfo: x}
	if sp := p.Forward(&f, overlay.Request{App: overlay.App{Length: 1, Deadline: 2}, Src: overlay.NoAddr, N: 3}, 0); sp != (overlay.Split{Left: 3}) {
		t.Errorf("Forward: %+v, want 3 tasks left", sp)
	}
}

// newDP is DP with SF_max sfmax and the defaults.
func newDP(t testing.TB, sfmax int) *DP {
	o := overlay.DefaultOptions(overlay.PolicyDP)
	o.SFMax = sfmax
	p, err := NewDP(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTruncEnvelope: the authors' summary minimum and maximum stop being
// exact after the first function's last sample.
func TestTruncEnvelope(t *testing.T) {
	d := overlay.LFunc{P: []overlay.LPoint{{T: 0, L: 0}, {T: 6, L: 0}}, Slope: 2} // busy until 6, then power 2
	lo, hi := truncEnvelope(&starsB, &d, false), truncEnvelope(&starsB, &d, true)
	// exact up to 4 (b's last sample): min 0, max b; after 4 from (4, 0)
	// with slope 1, and from (4, 2) with slope 2.
	for _, c := range []struct{ x, lo, hi float64 }{{1, 0, 0}, {3, 0, 1}, {4, 0, 2}, {6, 2, 6}, {10, 6, 14}} {
		if !near(lo.At(c.x), c.lo) || !near(hi.At(c.x), c.hi) {
			t.Errorf("at %v: min %v max %v, want %v %v", c.x, lo.At(c.x), hi.At(c.x), c.lo, c.hi)
		}
	}
	// a free node's ramp first: cut at the other's last sample (6)
	if e := truncEnvelope(&starsA, &d, false); !near(e.At(6), 0) || !near(e.At(8), 2*1) {
		t.Errorf("min(a, d) at 6, 8: %v %v, want 0 2", e.At(6), e.At(8))
	}
}

// TestStarsLossCrossingTail checks DP's loss against a numerical
// integral on two nodes of the authors' test (seed 1, nodes 19 and 30)
// whose functions cross after both last samples: the piece after the
// crossing starts with the two equal up to rounding, and the higher one
// over it must be told by its midpoint (telling it by the start dropped
// the cross term, 1.1e21 instead of 7.0e21).
func TestStarsLossCrossingTail(t *testing.T) {
	a := overlay.LFunc{P: []overlay.LPoint{{T: 777.117704, L: 0}, {T: 4718.24718, L: 8035963.001564}, {T: 10733.74252, L: 8035963.001564}}, Slope: 2039}
	b := overlay.LFunc{P: []overlay.LPoint{{T: 264.192949, L: 0}, {T: 375.10724, L: 298914.014245}, {T: 2134.264934, L: 298914.014245}, {T: 2417.831918, L: 1063127.036125},
		{T: 6847.507606, L: 1063127.036125}, {T: 7031.271615, L: 1558371.04038}, {T: 11968.058256, L: 1558371.04038}, {T: 12044.332842, L: 1763931.04965},
		{T: 20646.609646, L: 1763931.04965}, {T: 22619.616326, L: 7081184.05225}, {T: 24181.065676, L: 7081184.05225}}, Slope: 2695}
	var buf []float64
	for _, h := range []float64{24181.065676, 67000, 261696.281492} {
		got := starsLoss(&a, &b, 1, 1, &a, &b, 0, h, &buf)
		const steps = 400000
		dt, want := h/steps, 0.0
		for k := range steps {
			x := (float64(k) + 0.5) * dt
			lo, hi := min(a.At(x), b.At(x)), max(a.At(x), b.At(x))
			want += ((hi-lo)*(hi-lo) + (hi-lo)*hi) * dt
		}
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("h = %v: loss %g, numerical integral %g", h, got, want)
		}
	}
}

// TestStarsFreeAndEnvelopeHorizon: a node whose only task runs has one
// sample, at the task's end, and is not free; the authors' upper envelope
// of a busy node and a free one keeps the busy node's horizon as its last
// sample (their LDeltaFunction::max ends with it), so it is not taken for a
// free node's ramp at the next join.
func TestStarsFreeAndEnvelopeHorizon(t *testing.T) {
	free := overlay.LFunc{P: []overlay.LPoint{{T: starsNow, L: 0}}, Slope: 2500}
	running := overlay.LFunc{P: []overlay.LPoint{{T: 600, L: 0}}, Slope: 1000}
	busy := overlay.LFunc{P: []overlay.LPoint{{T: 100, L: 0}, {T: 200, L: 100000}, {T: 5000, L: 100000}}, Slope: 1000}
	if !starsFree(&free) || starsFree(&running) || starsFree(&busy) {
		t.Fatalf("starsFree: free %v, running %v, busy %v; want true, false, false", starsFree(&free), starsFree(&running), starsFree(&busy))
	}
	for _, upper := range []bool{true, false} {
		e := truncEnvelope(&busy, &free, upper)
		if starsFree(&e) || e.P[len(e.P)-1].T != 5000 {
			t.Errorf("upper %v: envelope %v: want a last sample at the busy node's horizon 5000", upper, e)
		}
		if got, want := e.At(3000), map[bool]float64{true: free.At(3000), false: busy.At(3000)}[upper]; math.Abs(got-want) > 1e-6 {
			t.Errorf("upper %v: envelope at 3000 = %v, want %v", upper, got, want)
		}
	}
	if h := starsHorizon(&busy); h != 5000 {
		t.Errorf("horizon of a busy node %v, want 5000", h)
	}
	if h := starsHorizon(&free); h != starsNow+1 {
		t.Errorf("horizon of a free node %v, want now + 1 s", h)
	}
}
