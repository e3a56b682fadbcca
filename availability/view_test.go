package availability

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
)

// TestViewWindow: after every slot t, a processor's counts are those of
// its last min(Window, t−1) transitions among the slots seen, and its chain
// is the Estimator's over exactly those — nothing after slot t.
func TestViewWindow(t *testing.T) {
	const p, n = 3, 400
	r := stream.New(31)
	seq := make([][]State, p)
	for q := range seq {
		seq[q] = Take(NewChainSource(RandomIn(r, 0.5, 0.9), StartStationary, stream.New(31, uint64(q))), n)
	}
	for _, window := range []int{0, 1, 7, 50} {
		v, err := NewView(p, ViewConfig{Prior: DefaultPrior(), Window: window})
		if err != nil {
			t.Fatal(err)
		}
		slot := make([]State, p)
		for tt := 0; tt < n; tt++ {
			for q := range slot {
				slot[q] = seq[q][tt]
			}
			v.Observe(slot)
			for q := 0; q < p; q++ {
				lo := 1
				if window > 0 {
					lo = max(1, tt+1-window)
				}
				want := Estimator{Prior: DefaultPrior()}
				for k := lo; k <= tt; k++ {
					want.Observe(seq[q][k-1], seq[q][k])
				}
				if got := v.Estimator(q); got.Counts != want.Counts {
					t.Fatalf("window %d slot %d processor %d: counts %v, want %v", window, tt, q, got.Counts, want.Counts)
				}
				if v.Chains()[q] != want.Chain() {
					t.Fatalf("window %d slot %d processor %d: chain %v, want %v", window, tt, q, v.Chains()[q], want.Chain())
				}
			}
		}
		if v.Slots() != n || v.Epoch() != n {
			t.Errorf("slots %d epoch %d, want %d", v.Slots(), v.Epoch(), n)
		}
	}
}

func TestViewRefreshFixClone(t *testing.T) {
	v, err := NewView(2, ViewConfig{Prior: DefaultPrior(), Refresh: 10})
	if err != nil {
		t.Fatal(err)
	}
	prior := v.Chains()[0]
	known := Chain{P: [3][3]float64{{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0, 0, 1}}}
	v.Fix(1, known)
	r := rand.New(rand.NewPCG(3, 4))
	var last Chain
	var c *View
	for tt := 1; tt <= 35; tt++ {
		v.Observe([]State{State(r.IntN(3)), State(r.IntN(3))})
		if tt < 10 && v.Chains()[0] != prior {
			t.Fatalf("slot %d: chain re-estimated before the first refresh", tt)
		}
		if tt%10 == 0 {
			if v.Chains()[0] == last {
				t.Fatalf("slot %d: not re-estimated", tt)
			}
			e := v.Estimator(0)
			if v.Chains()[0] != e.Chain() {
				t.Fatalf("slot %d: chain is not the estimate", tt)
			}
			last = v.Chains()[0]
		} else if tt > 10 && v.Chains()[0] != last {
			t.Fatalf("slot %d: chain changed between refreshes", tt)
		}
		if v.Chains()[1] != known {
			t.Fatalf("slot %d: fixed chain changed", tt)
		}
		if tt == 20 {
			c = v.Clone()
		}
	}
	if v.Epoch() != 3 {
		t.Errorf("epoch %d, want 3", v.Epoch())
	}
	if c.Slots() != 20 || c.Epoch() != 2 {
		t.Errorf("clone: slots %d epoch %d, want 20 and 2", c.Slots(), c.Epoch())
	}
	c.Observe([]State{Down, Down})
	if v.Slots() != 35 {
		t.Error("observing the clone changed the original")
	}
	for _, tc := range []struct {
		cfg  ViewConfig
		want string
	}{
		{ViewConfig{Prior: DefaultPrior(), Window: -1}, "window = -1"},
		{ViewConfig{Prior: DefaultPrior(), Refresh: -2}, "refresh = -2"},
		{ViewConfig{}, "prior row u sums to 0"},
	} {
		if _, err := NewView(1, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
