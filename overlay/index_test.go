package overlay

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestHbits checks the hierarchical bitset against a plain set over random
// sizes (up to three levels) and operations.
func TestHbits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b hbits
		var ref []bool
		size := 0
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				size += rapid.IntRange(1, 70000).Draw(t, "grow")
				b.grow(size)
				ref = append(ref, make([]bool, size-len(ref))...)
			case 1, 2:
				if size == 0 {
					continue
				}
				i := rapid.IntRange(0, size-1).Draw(t, "i")
				if rapid.Bool().Draw(t, "set") {
					b.set(i)
					ref[i] = true
				} else {
					b.clear(i)
					ref[i] = false
				}
			case 3:
				i := rapid.IntRange(0, size+64).Draw(t, "from")
				want := -1
				for j := i; j < len(ref); j++ {
					if ref[j] {
						want = j
						break
					}
				}
				if got := b.next(i); got != want {
					t.Fatalf("next(%d) = %d, want %d (size %d)", i, got, want, size)
				}
			}
		}
		// Every element, in order.
		var got, want []int
		for i := b.next(0); i >= 0; i = b.next(i + 1) {
			got = append(got, i)
		}
		for i, v := range ref {
			if v {
				want = append(want, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("elements %v, want %v", got, want)
		}
	})
}

// TestIBPIndexMatchesScan is the index's exactness: over random node
// hardware (few values, so that classes and keys collide and ties between
// classes are broken by node index), random sequences of updates (idle,
// busy, a node changing class, summaries IBPExec never sends) and random
// requests (including infinite requirements), PlaceIndexed gives exactly
// Centralized.Place over the same summaries, and an index rebuilt from the
// current summaries gives the same placements.
func TestIBPIndexMatchesScan(t *testing.T) {
	ibp, _ := newIBP(9)
	ref := Centralized{Rules: ibp}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 150).Draw(t, "nodes")
		vals := []float32{0, 1, 2, 3, 4, 6, 1024}
		drawHW := func(label string) (float32, float32) {
			return rapid.SampledFrom(vals).Draw(t, label+"mem"), rapid.SampledFrom(vals).Draw(t, label+"disk")
		}
		hw := make([][2]float32, n)
		for i := range hw {
			hw[i][0], hw[i][1] = drawHW("hw")
		}
		sums := make([]Summary, n)
		x := ref.Index(n)
		// Start-up in node order or in a random order (members inserted
		// in the middle of their class).
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		if rapid.Bool().Draw(t, "shuffled") {
			for i := n - 1; i > 0; i-- {
				j := rapid.IntRange(0, i).Draw(t, "swap")
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, i := range order {
			sums[i] = IBPSummary{{Mem: hw[i][0], Disk: hw[i][1], V: 1}}
			x.Update(i, sums[i])
		}
		reqVals := []float64{0, 0.5, 1, 2, 3, 4, 5, 1024, 2000}
		var a, b []Placement
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2, 3: // a node's state changes
				i := rapid.IntRange(0, n-1).Draw(t, "node")
				switch rapid.IntRange(0, 19).Draw(t, "kind") {
				case 0: // new hardware (a class change)
					hw[i][0], hw[i][1] = drawHW("new")
					sums[i] = IBPSummary{{Mem: hw[i][0], Disk: hw[i][1], V: 1}}
				case 1: // shapes IBPExec never sends
					sums[i] = rapid.SampledFrom([]Summary{
						IBPSummary{{Mem: hw[i][0], Disk: hw[i][1], V: 2}},
						IBPSummary{{Mem: 1, Disk: 1, V: 1}, {Mem: 3, Disk: 2, V: 1}},
						IBPSummary{{Mem: float32(math.Inf(1)), Disk: 1, V: 1}},
						IBPSummary{},
					}).Draw(t, "odd")
				default:
					if rapid.Bool().Draw(t, "idle") {
						sums[i] = IBPSummary{{Mem: hw[i][0], Disk: hw[i][1], V: 1}}
					} else {
						sums[i] = nil
					}
				}
				x.Update(i, sums[i])
			default:
				req := Request{App: App{Length: 1, Mem: rapid.SampledFrom(reqVals).Draw(t, "rmem"),
					Disk: rapid.SampledFrom(reqVals).Draw(t, "rdisk")}, N: rapid.IntRange(0, n+3).Draw(t, "n")}
				if rapid.IntRange(0, 15).Draw(t, "inf") == 0 {
					req.App.Mem = math.Inf(-1)
				}
				a = ref.Place(0, req, sums, a[:0])
				b = x.PlaceIndexed(0, req, b[:0])
				if !slices.Equal(a, b) {
					t.Fatalf("request %+v:\nscan  %v\nindex %v", req, a, b)
				}
				y := ref.Index(n)
				for i := range sums {
					y.Update(i, sums[i])
				}
				if c := y.PlaceIndexed(0, req, nil); !slices.Equal(a, c) {
					t.Fatalf("request %+v:\nscan    %v\nrebuilt %v", req, a, c)
				}
			}
		}
	})
}

// TestIBPIndexTies: two classes whose keys are equal are merged by node
// index, as the scan's stable sort does.
func TestIBPIndexTies(t *testing.T) {
	ibp, _ := newIBP(9)
	ref := Centralized{Rules: ibp}
	// Classes (2, 4) and (4, 2) against a request (0, 0): spans 2 and 2,
	// keys 2/2 + 4/2 = 3 for both.
	sums := []Summary{
		IBPSummary{{Mem: 4, Disk: 2, V: 1}},
		IBPSummary{{Mem: 2, Disk: 4, V: 1}},
		IBPSummary{{Mem: 4, Disk: 2, V: 1}},
		IBPSummary{{Mem: 2, Disk: 4, V: 1}},
	}
	x := ref.Index(len(sums))
	for i, s := range sums {
		x.Update(i, s)
	}
	req := Request{App: App{Length: 1}, N: 3}
	want := []Placement{{0, 1}, {1, 1}, {2, 1}}
	if got := ref.Place(0, req, sums, nil); !slices.Equal(got, want) {
		t.Fatalf("scan %v, want %v", got, want)
	}
	if got := x.PlaceIndexed(0, req, nil); !slices.Equal(got, want) {
		t.Fatalf("index %v, want %v", got, want)
	}
}

func TestIndexOnlyForIBP(t *testing.T) {
	mmp, _ := newMMP(4, 0.5)
	dp, _ := newDP(8, 10, 1000)
	for _, p := range []Rules{mmp, dp} {
		if x := (Centralized{Rules: p}).Index(4); x != nil {
			t.Fatalf("%s: an index %T, want none", p.Policy(), x)
		}
	}
}
