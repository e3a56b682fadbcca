package availability

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
)

// Two hosts over [1000, 2200) s, cut into 60-second slots (20 slots).
// Host a's boundaries fall on slot boundaries; host b's do not, and it has
// a gap [1400, 1460).
const twoHosts = `# a hand-made trace
host,start,end,state
a,1000,1180,u
a,1180,1300,r
b,1000,1090,up
b,1090,1100,d
a,1300,1600,DOWN
a,1600,2200,u
b,1100,1400,u
b,1460,2200,Reclaimed
`

func parseStates(s string) []State {
	var out []State
	for _, c := range s {
		st, err := ParseState(string(c))
		if err != nil {
			panic(err)
		}
		out = append(out, st)
	}
	return out
}

// TestReplayExact: the slot states are the intervals' (worst state of the
// slot, gaps DOWN), replayed from any offset, wrapping around at the end.
func TestReplayExact(t *testing.T) {
	st, err := ReadStateCSV(strings.NewReader(twoHosts), "two.csv")
	if err != nil {
		t.Fatal(err)
	}
	if st.Start != 1000 || st.End != 2200 || len(st.Hosts) != 2 {
		t.Fatalf("span [%v, %v), %d hosts", st.Start, st.End, len(st.Hosts))
	}
	sl, err := st.Slots(60, Down)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]State{
		// slots 0-2 u, 3-4 r, 5-9 d, 10-19 u
		parseStates("uuurrddddduuuuuuuuuu"),
		// slot 0 u; slot 1 [1060,1120) is u, d, u: d; slots 2-5 u; slot 6
		// [1360,1420) is u then the gap: d; slot 7 [1420,1480) is the gap
		// then r: d; slots 8-19 r
		parseStates("uduuuuddrrrrrrrrrrrr"),
	}
	if sl.Len != 20 || sl.Hosts() != 2 {
		t.Fatalf("%d slots, %d hosts", sl.Len, sl.Hosts())
	}
	for h := range want {
		if got := Take(sl.Source(h, 0), 20); !slices.Equal(got, want[h]) {
			t.Errorf("host %d from slot 0: %v, want %v", h, got, want[h])
		}
		for _, off := range []int{0, 1, 7, 19} {
			got := Take(sl.Source(h, off), 45)
			for k, s := range got {
				if w := want[h][(off+k)%20]; s != w {
					t.Fatalf("host %d offset %d slot %d: %v, want %v", h, off, k, s, w)
				}
			}
		}
		for k := 0; k < 20; k++ {
			if s := sl.StateAt(h, k); s != want[h][k] {
				t.Errorf("StateAt(%d, %d) = %v, want %v", h, k, s, want[h][k])
			}
		}
	}
	if h, err := sl.Find("b"); err != nil || h != 1 {
		t.Errorf("Find(b) = %d, %v", h, err)
	}
	if _, err := sl.Find("zz"); err == nil || !strings.Contains(err.Error(), `host "zz": not in the trace (2 hosts: a, b)`) {
		t.Errorf("Find(zz): %v", err)
	}
	// With gaps RECLAIMED, slots 6 (u, gap) and 7 (gap, r) are r.
	sl2, err := st.Slots(60, Reclaimed)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := Take(sl2.Source(1, 0), 20), parseStates("uduuuurrrrrrrrrrrrrr"); !slices.Equal(got, w) {
		t.Errorf("gap r: %v, want %v", got, w)
	}
	// Complete sojourns leave the first and last runs out.
	soj := sl.Sojourns(1)
	if !slices.Equal(soj[Up], []int{4}) || !slices.Equal(soj[Down], []int{1, 2}) || len(soj[Reclaimed]) != 0 {
		t.Errorf("sojourns of b: %v", soj)
	}
}

// bruteSlots is the slot rule written the slow way: for every slot, the
// worst state over the intervals that overlap it for a positive time, and
// the gap state if they do not cover it.
func bruteSlots(h HostTrace, start, slot float64, n int, gap State) []State {
	out := make([]State, n)
	for k := range out {
		a, b := start+float64(k)*slot, start+float64(k+1)*slot
		worst, covered := Up, 0.0
		for _, iv := range h.Intervals {
			lo, hi := math.Max(a, iv.Start), math.Min(b, iv.End)
			if hi > lo {
				worst = max(worst, iv.State)
				covered += hi - lo
			}
		}
		if covered < b-a {
			worst = max(worst, gap)
		}
		out[k] = worst
	}
	return out
}

// TestSlotsMatchBruteForce compares Slots with bruteSlots on random traces
// whose times are multiples of 0.5 s and slot lengths of 0.5 to 7 s.
func TestSlotsMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		st := &StateTrace{Start: math.Inf(1), End: math.Inf(-1)}
		for h := 0; h < 3; h++ {
			ht := HostTrace{ID: fmt.Sprint(h)}
			x := float64(r.IntN(20)) / 2
			for k := 0; k < 1+r.IntN(30); k++ {
				x += float64(r.IntN(3)) / 2 // a gap or not
				d := float64(1+r.IntN(20)) / 2
				ht.Intervals = append(ht.Intervals, Interval{Start: x, End: x + d, State: State(r.IntN(3))})
				x += d
			}
			st.Start = math.Min(st.Start, ht.Intervals[0].Start)
			st.End = math.Max(st.End, x)
			st.Hosts = append(st.Hosts, ht)
		}
		slot := []float64{0.5, 1, 1.5, 2.5, 7}[r.IntN(5)]
		gap := State(r.IntN(3))
		sl, err := st.Slots(slot, gap)
		if err != nil {
			if st.End-st.Start < slot {
				continue
			}
			t.Fatal(err)
		}
		for h, ht := range st.Hosts {
			want := bruteSlots(ht, st.Start, slot, sl.Len, gap)
			if got := Take(sl.Source(h, 0), sl.Len); !slices.Equal(got, want) {
				t.Fatalf("trial %d host %d slot %v gap %v:\n got %v\nwant %v\nintervals %v", trial, h, slot, gap, got, want, ht.Intervals)
			}
			// Runs are maximal and cover Len slots.
			n := 0
			for i, run := range sl.Runs(h) {
				if run.N < 1 || (i > 0 && sl.Runs(h)[i-1].State == run.State) {
					t.Fatalf("runs not maximal: %v", sl.Runs(h))
				}
				n += run.N
			}
			if n != sl.Len {
				t.Fatalf("runs cover %d slots of %d", n, sl.Len)
			}
		}
	}
}

func TestReadStateCSVErrors(t *testing.T) {
	for in, want := range map[string]string{
		"a,1,2":                         "f.csv:1: 3 comma-separated fields, want 4 (host,start,end,state)",
		"# c\n,1,2,u":                   "f.csv:2: host is empty",
		"a,x,2,u":                       `f.csv:1: start = "x": not a number`,
		"a,1,NaN,u":                     `f.csv:1: end = "NaN": want a finite time`,
		"a,5,2,u":                       "f.csv:1: end = 2, want a time after start = 5",
		"a,1,1,u":                       "f.csv:1: end = 1, want a time after start = 1",
		"a,1,2,x":                       `f.csv:1: state = "x": want u, r or d`,
		"a,1,5,u\nb,0,1,d\na,4,6,r":     "f.csv:3: host a: interval [4, 6) overlaps the interval of line 1 [1, 5)",
		"host,start,end,state\n":        "f.csv: no intervals",
		"":                              "f.csv: no intervals",
		"a,1,2,u\nhost,start,end,state": "f.csv:2: start = \"start\"",
	} {
		_, err := ReadStateCSV(strings.NewReader(in), "f.csv")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", in, err, want)
		}
	}
	st, _ := ReadStateCSV(strings.NewReader("a,0,10,u"), "f.csv")
	for _, c := range []struct {
		slot float64
		want string
	}{{0, "slot length 0"}, {math.Inf(1), "slot length +Inf"}, {11, "trace spans 10 s, shorter than one slot of 11 s"}} {
		if _, err := st.Slots(c.slot, Down); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("slot %v: %v, want %q", c.slot, err, c.want)
		}
	}
	overlap := &StateTrace{Start: 0, End: 10, Hosts: []HostTrace{{ID: "x", Intervals: []Interval{{0, 5, Up}, {4, 10, Down}}}}}
	if _, err := overlap.Slots(1, Down); err == nil || !strings.Contains(err.Error(), "host x: interval 1 [4, 10) begins before the end of the previous one (5)") {
		t.Errorf("overlapping intervals: %v", err)
	}
}

func FuzzReadStateCSV(f *testing.F) {
	f.Add(twoHosts, 60.0)
	f.Add("a,0,1e9,u\n", 1e3)
	f.Add("x,-5,-1,r\nx,-1,0.5,d\n", 0.25)
	f.Fuzz(func(t *testing.T, in string, slot float64) {
		st, err := ReadStateCSV(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, h := range st.Hosts {
			for k, iv := range h.Intervals {
				if !(iv.End > iv.Start) || iv.Start < st.Start || iv.End > st.End || iv.State > Down {
					t.Fatalf("invalid interval accepted: %+v", iv)
				}
				if k > 0 && iv.Start < h.Intervals[k-1].End {
					t.Fatalf("overlap accepted: %+v", h.Intervals)
				}
			}
		}
		var b bytes.Buffer
		if err := WriteStateCSV(&b, st); err != nil {
			t.Fatal(err)
		}
		st2, err := ReadStateCSV(&b, "round trip")
		if err != nil {
			t.Fatalf("re-reading: %v\n%s", err, b.String())
		}
		if len(st2.Hosts) != len(st.Hosts) || st2.Start != st.Start || st2.End != st.End {
			t.Fatalf("round trip changed the trace")
		}
		// Cutting into slots either fails cleanly or covers every slot.
		if !(slot > 0) || (st.End-st.Start)/slot > 1e6 {
			return
		}
		sl, err := st.Slots(slot, Down)
		if err != nil {
			return
		}
		for h := 0; h < sl.Hosts(); h++ {
			n := 0
			for _, r := range sl.Runs(h) {
				n += r.N
			}
			if n != sl.Len {
				t.Fatalf("host %d: runs cover %d of %d slots", h, n, sl.Len)
			}
		}
	})
}

// chainTrace writes a realization of c as state intervals of a 60-second
// slot (from epoch 1e9) and returns the CSV and the realization.
func chainTrace(c Chain, hosts, slots int, seed uint64) (string, [][]State) {
	var b strings.Builder
	b.WriteString(CSVHeader + "\n")
	var all [][]State
	for h := 0; h < hosts; h++ {
		s := Take(NewChainSource(c, StartStationary, stream.New(seed, uint64(h))), slots)
		all = append(all, s)
		k := 0
		for _, r := range Runs(s) {
			fmt.Fprintf(&b, "h%d,%d,%d,%s\n", h, 1_000_000_000+60*k, 1_000_000_000+60*(k+r.N), r.State)
			k += r.N
		}
	}
	return b.String(), all
}

// TestEstimatorThroughTrace: a chain's realization written as a CSV trace,
// read, cut into slots and fed to the Estimator gives the chain back
// within 5 standard errors (and the slots are the realization exactly).
func TestEstimatorThroughTrace(t *testing.T) {
	truth := Chain{P: [3][3]float64{{0.96, 0.03, 0.01}, {0.08, 0.9, 0.02}, {0.05, 0.05, 0.9}}}
	const hosts, slots = 4, 50000
	csv, real := chainTrace(truth, hosts, slots, 21)
	st, err := ReadStateCSV(strings.NewReader(csv), "chain.csv")
	if err != nil {
		t.Fatal(err)
	}
	sl, err := st.Slots(60, Down)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := NewEstimator(DefaultPrior())
	for h := 0; h < sl.Hosts(); h++ {
		if got := Take(sl.Source(h, 0), slots); !slices.Equal(got, real[h]) {
			t.Fatalf("host %d: slots differ from the realization", h)
		}
		sl.Observe(e, h)
	}
	if e.Transitions() != hosts*(slots-1) {
		t.Fatalf("%v transitions, want %d", e.Transitions(), hosts*(slots-1))
	}
	got := e.Chain()
	pi := truth.Stationary()
	n := float64(hosts * slots)
	for i := range truth.P {
		tol := 5 * math.Sqrt(0.25/(n*pi[i]))
		for j := range truth.P[i] {
			if d := math.Abs(got.P[i][j] - truth.P[i][j]); d > tol {
				t.Errorf("P[%s][%s] = %.4f, want %.4f ± %.4f", State(i), State(j), got.P[i][j], truth.P[i][j], tol)
			}
		}
	}
}

func TestDrawHosts(t *testing.T) {
	r := stream.New(8)
	const n, k, draws = 10, 4, 20000
	var cnt [n]float64
	for d := 0; d < draws; d++ {
		hs, err := DrawHosts(r, n, k)
		if err != nil || len(hs) != k {
			t.Fatal(hs, err)
		}
		seen := map[int]bool{}
		for _, h := range hs {
			if h < 0 || h >= n || seen[h] {
				t.Fatalf("draw %v: out of range or repeated", hs)
			}
			seen[h] = true
			cnt[h]++
		}
	}
	p := float64(k) / n
	se := math.Sqrt(p * (1 - p) / draws)
	for h, c := range cnt {
		if math.Abs(c/draws-p) > 5*se {
			t.Errorf("host %d drawn with frequency %.4f, want %.4f ± %.4f", h, c/draws, p, 5*se)
		}
	}
	if _, err := DrawHosts(r, 3, 4); err == nil || !strings.Contains(err.Error(), "4 hosts wanted from 3") {
		t.Errorf("too many hosts: %v", err)
	}
}
