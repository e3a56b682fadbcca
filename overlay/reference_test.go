package overlay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// placeMMPScan is the centralized MMP reference as first written, kept as
// the oracle of placeMMP: Makespan over every node's summary, then each node
// filled up to q with Admits in node order.
func placeMMPScan(now float64, req Request, nodes []Summary, out []Placement) []Placement {
	ss := make([]MMPSummary, 0, len(nodes))
	for _, s := range nodes {
		ss = append(ss, asMMP(s))
	}
	q := Makespan(req.App, req.N, now, ss...)
	if math.IsInf(q, 1) {
		return out
	}
	n := req.N
	for i, s := range ss {
		if n == 0 {
			break
		}
		if k := min(s.Admits(req.App, q, now), n); k > 0 {
			out = append(out, Placement{Node: i, N: k})
			n -= k
		}
	}
	return out
}

// TestCentralizedMMPMatchesMakespan is placeMMP's exactness: over random
// nodes (summaries of one or several clusters, v > 1, queue ends before and
// after now, zero power, hardware that does not fit, empty summaries) and
// random requests, the centralized MMP reference places exactly what the
// scan over Makespan and Admits places.
func TestCentralizedMMPMatchesMakespan(t *testing.T) {
	mmp, err := newMMP(16, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	ref := Centralized{Rules: mmp}
	hw := []float32{0, 1, 2, 3, 4, 1024}
	rapid.Check(t, func(t *rapid.T) {
		now := rapid.SampledFrom([]float64{0, 1, 1e3, 1e5}).Draw(t, "now")
		nodes := make([]Summary, rapid.IntRange(0, 60).Draw(t, "nodes"))
		for i := range nodes {
			k := rapid.IntRange(0, 3).Draw(t, "clusters")
			if k == 0 {
				continue
			}
			s := make(MMPSummary, k)
			for j := range s {
				s[j] = MMPCluster{
					Mem:   rapid.SampledFrom(hw).Draw(t, "mem"),
					Disk:  rapid.SampledFrom(hw).Draw(t, "disk"),
					Power: rapid.SampledFrom([]float32{0, 0.5, 1, 3, 1000}).Draw(t, "power"),
					V:     int32(rapid.IntRange(1, 4).Draw(t, "v")),
					Q:     now + rapid.Float64Range(-10, 500).Draw(t, "q"),
				}
			}
			nodes[i] = s
		}
		for range rapid.IntRange(1, 5).Draw(t, "requests") {
			req := Request{N: rapid.IntRange(0, 400).Draw(t, "n"), App: App{
				Length: rapid.SampledFrom([]float64{0.5, 1, 7, 100, 1e4}).Draw(t, "length"),
				Mem:    float64(rapid.SampledFrom(hw[:5]).Draw(t, "rmem")),
				Disk:   float64(rapid.SampledFrom(hw[:5]).Draw(t, "rdisk")),
			}}
			got := ref.Place(now, req, nodes, nil)
			want := placeMMPScan(now, req, nodes, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("request %+v at %g: placed %v, the scan places %v", req, now, got, want)
			}
		}
	})
}

// TestPlaceSortedMatchesStableSort: placeSorted's heap selection places what
// a stable sort of every candidate by key, then taking them in order, places
// — over keys drawn from few values (ties in every position), NaN keys and
// requests smaller and larger than the candidates' total.
func TestPlaceSortedMatchesStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := []float64{-1, 0, 0.5, 1, 2, math.Inf(1)}
		if rapid.IntRange(0, 9).Draw(t, "nan") == 0 {
			keys = append(keys, math.NaN())
		}
		cand := make([]candidate, rapid.IntRange(0, 80).Draw(t, "candidates"))
		for i := range cand {
			cand[i] = candidate{key: rapid.SampledFrom(keys).Draw(t, "key"), index: rapid.IntRange(0, 30).Draw(t, "index"),
				n: rapid.IntRange(1, 5).Draw(t, "n")}
		}
		n := rapid.IntRange(0, 300).Draw(t, "request")
		ref := slices.Clone(cand)
		sortCandidates(ref)
		var want []Placement
		for i, left := 0, n; i < len(ref) && left > 0; i++ {
			k := min(ref[i].n, left)
			left -= k
			want = append(want, Placement{Node: ref[i].index, N: k})
		}
		if got := placeSorted(cand, n, nil); !slices.Equal(got, want) {
			t.Fatalf("placeSorted(%v, %d) = %v, the stable sort gives %v", cand, n, got, want)
		}
	})
}

// TestMMPFlatAFMatchesAF: the flat arrays' AF is MMPCluster.AF bit for bit,
// over 200,000 random queue ends, powers, lengths and makespans spread over
// many magnitudes (ratios that are not exact, so that another order of the
// operations rounds differently somewhere), half of them within a few ulps of
// a makespan at which the node takes a whole number of tasks (where the floor
// depends on the rounding), including values past the 2^40 cap and queue ends
// after the makespan.
func TestMMPFlatAFMatchesAF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	logU := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	for i := range 200000 {
		now := rng.Float64() * 1e6
		c := MMPCluster{Mem: 1, Disk: 1, V: int32(1 + rng.IntN(1000)), Power: float32(logU(1e-3, 1e6)), Q: now + logU(1e-3, 1e7) - 1e3}
		length := logU(1e-9, 1e9)
		q := now + logU(1e-3, 1e12)
		if i%2 == 1 {
			// A makespan at which the node takes exactly k tasks, give or
			// take a few ulps: where the floor depends on the rounding.
			k := float64(1 + rng.IntN(50))
			q = max(c.Q, now) + k*length/float64(c.Power)
			for range rng.IntN(4) {
				q = math.Nextafter(q, math.Inf(2*rng.IntN(2)-1))
			}
		}
		var f mmpFlat
		f.q, f.power, f.v = []float64{max(c.Q, now)}, []float64{float64(c.Power)}, []int{int(c.V)}
		if got, want := f.af(0, q, length), c.AF(App{Length: length}, q, now); got != want {
			t.Fatalf("draw %d: flat AF %d, MMPCluster.AF %d (cluster %+v, q %g, now %g, length %g)", i, got, want, c, q, now, length)
		}
	}
}

// TestMakespanNeverAdmitted: a request no node can ever take (every queue
// end at +Inf, or a task of infinite length) has no makespan, and the
// centralized reference places nothing, instead of searching forever.
func TestMakespanNeverAdmitted(t *testing.T) {
	busy := MMPSummary{{Mem: 4, Disk: 4, Power: 1, V: 1, Q: math.Inf(1)}}
	idle := MMPSummary{{Mem: 4, Disk: 4, Power: 1, V: 1, Q: 0}}
	for _, c := range []struct {
		s   MMPSummary
		app App
	}{{busy, App{Length: 1}}, {idle, App{Length: math.Inf(1)}}} {
		if q := Makespan(c.app, 3, 0, c.s); !math.IsInf(q, 1) {
			t.Errorf("Makespan(%+v, %+v) = %g, want +Inf", c.app, c.s, q)
		}
		if p := placeMMP(0, Request{N: 3, App: c.app}, []Summary{c.s}, nil); len(p) != 0 {
			t.Errorf("placeMMP(%+v, %+v) = %v, want nothing", c.app, c.s, p)
		}
	}
}
