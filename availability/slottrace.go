package availability

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// SlotTrace is a StateTrace cut into slots: per host, the run-length
// encoded state of every slot k = 0 … Len−1, slot k covering
// [Start + k·Slot, Start + (k+1)·Slot).
//
// The rule: a slot takes the worst state the host was in at any instant of
// it, UP < RECLAIMED < DOWN. A slot is UP only if the host was UP
// throughout (the model counts whole UP slots of computation), and a DOWN
// instant, however short, makes the slot DOWN (the host lost its program
// and data, whatever the slot length). Time a host's intervals do not
// cover (gaps) is in the gap state given to Slots. The last partial slot
// of the span is dropped; zero-length intervals are ignored. Boundaries
// within 1e-9 slot of a slot boundary count as on it.
type SlotTrace struct {
	Slot  float64 // seconds (the trace's time unit) per slot
	Start float64 // time of the beginning of slot 0
	Len   int     // slots
	hosts []slotHost
}

type slotHost struct {
	id, name string
	runs     []Run
	starts   []int // starts[i] = first slot of runs[i]
}

// Slots cuts t into slots of the given length; gap is the state of time
// not covered by a host's intervals (DOWN: the host was not seen).
func (t *StateTrace) Slots(slot float64, gap State) (*SlotTrace, error) {
	if !(slot > 0) || math.IsInf(slot, 0) {
		return nil, fmt.Errorf("slot length %v: want a finite number of seconds > 0", slot)
	}
	if gap > Down {
		return nil, fmt.Errorf("gap state %v: want u, r or d", gap)
	}
	if len(t.Hosts) == 0 {
		return nil, fmt.Errorf("trace has no hosts")
	}
	span := t.End - t.Start
	n := math.Floor(snap(span / slot))
	if !(n >= 1) {
		return nil, fmt.Errorf("trace spans %v s, shorter than one slot of %v s", span, slot)
	}
	if n > 1<<40 {
		return nil, fmt.Errorf("trace spans %v s = %.3g slots of %v s, want at most 2^40 slots", span, n, slot)
	}
	st := &SlotTrace{Slot: slot, Start: t.Start, Len: int(n)}
	end := t.Start + n*slot
	for _, h := range t.Hosts {
		b := runBuilder{st: st}
		cur := t.Start
		for i, iv := range h.Intervals {
			if i > 0 && iv.Start < h.Intervals[i-1].End {
				return nil, fmt.Errorf("host %s: interval %d [%v, %v) begins before the end of the previous one (%v), want sorted, non-overlapping intervals", h.ID, i, iv.Start, iv.End, h.Intervals[i-1].End)
			}
			if !(iv.End > iv.Start) || iv.End <= t.Start || iv.Start >= end {
				continue
			}
			if iv.Start > cur {
				b.put(cur, iv.Start, gap)
			}
			b.put(math.Max(iv.Start, t.Start), math.Min(iv.End, end), iv.State)
			cur = math.Max(cur, iv.End)
		}
		if cur < end {
			b.put(cur, end, gap)
		}
		if b.next != st.Len {
			return nil, fmt.Errorf("host %s: %d slots cut of %d (internal error)", h.ID, b.next, st.Len)
		}
		sh := slotHost{id: h.ID, name: h.Name, runs: b.runs, starts: make([]int, len(b.runs))}
		k := 0
		for i, r := range b.runs {
			sh.starts[i] = k
			k += r.N
		}
		st.hosts = append(st.hosts, sh)
	}
	return st, nil
}

// snap rounds x to the nearest integer when it is within 1e-9 of it
// (relative for large x), absorbing the rounding of t/slot.
func snap(x float64) float64 {
	r := math.Round(x)
	if math.Abs(x-r) <= 1e-9*math.Max(1, math.Abs(x)) {
		return r
	}
	return x
}

type runBuilder struct {
	st   *SlotTrace
	runs []Run
	next int // first slot not yet assigned
}

func (b *runBuilder) add(s State, n int) {
	if n <= 0 {
		return
	}
	if k := len(b.runs); k > 0 && b.runs[k-1].State == s {
		b.runs[k-1].N += n
	} else {
		b.runs = append(b.runs, Run{State: s, N: n})
	}
	b.next += n
}

// put assigns state s to the slots [a, e) touches. Calls come in time
// order, so only the first slot can have been assigned already (by the
// previous interval, which ended inside it); it keeps the worse state.
func (b *runBuilder) put(a, e float64, s State) {
	k0 := int(math.Floor(snap((a - b.st.Start) / b.st.Slot)))
	k1 := int(math.Ceil(snap((e-b.st.Start)/b.st.Slot))) - 1
	k0 = max(k0, 0)
	k1 = min(k1, b.st.Len-1)
	if k0 > k1 {
		return
	}
	if k0 < b.next { // k0 == b.next−1: the shared boundary slot
		last := &b.runs[len(b.runs)-1]
		if s > last.State {
			last.N--
			b.next--
			if last.N == 0 {
				b.runs = b.runs[:len(b.runs)-1]
			}
			b.add(s, 1)
		}
		k0 = b.next
	}
	b.add(s, k1-k0+1)
}

// Hosts is the number of hosts.
func (s *SlotTrace) Hosts() int { return len(s.hosts) }

// Host returns host h's ID and name.
func (s *SlotTrace) Host(h int) (id, name string) { return s.hosts[h].id, s.hosts[h].name }

// Find returns the index of the host whose ID is name, or else whose name
// is name.
func (s *SlotTrace) Find(name string) (int, error) {
	for h := range s.hosts {
		if s.hosts[h].id == name {
			return h, nil
		}
	}
	for h := range s.hosts {
		if s.hosts[h].name == name {
			return h, nil
		}
	}
	var ex []string
	for h := 0; h < len(s.hosts) && h < 5; h++ {
		ex = append(ex, s.hosts[h].id)
	}
	more := ""
	if len(s.hosts) > 5 {
		more = ", …"
	}
	return 0, fmt.Errorf("host %q: not in the trace (%d hosts: %s%s)", name, len(s.hosts), strings.Join(ex, ", "), more)
}

// Runs returns host h's runs (all Len slots, in order). The slice must not
// be modified.
func (s *SlotTrace) Runs(h int) []Run { return s.hosts[h].runs }

// StateAt returns host h's state at slot k (0 ≤ k < Len).
func (s *SlotTrace) StateAt(h, k int) State {
	return s.hosts[h].runs[s.runAt(h, k)].State
}

func (s *SlotTrace) runAt(h, k int) int {
	st := s.hosts[h].starts
	return sort.Search(len(st), func(i int) bool { return st[i] > k }) - 1
}

// Observe feeds host h's transitions, slot after slot over the whole
// trace (no wrap-around), to e.
func (s *SlotTrace) Observe(e *Estimator, h int) {
	runs := s.hosts[h].runs
	for i, r := range runs {
		if i > 0 {
			e.Observe(runs[i-1].State, r.State)
		}
		e.ObserveStay(r.State, r.N-1)
	}
}

// Sojourns returns host h's complete sojourns per state (the first and
// last runs, cut by the ends of the trace, are left out).
func (s *SlotTrace) Sojourns(h int) [3][]int { return Sojourns(s.hosts[h].runs) }

// Source replays host h from slot offset (0 ≤ offset < Len): its first
// state is the host's at slot offset. The trace wraps around: after slot
// Len−1 comes slot 0 again (which adds one transition per pass, from the
// last slot's state to the first's, that the trace does not have).
func (s *SlotTrace) Source(h, offset int) *Replay {
	i := s.runAt(h, offset)
	hs := &s.hosts[h]
	return &Replay{runs: hs.runs, i: i, rem: hs.starts[i] + hs.runs[i].N - offset}
}

// Offset draws a replay offset uniformly in [0, Len).
func (s *SlotTrace) Offset(r *rand.Rand) int { return r.IntN(s.Len) }

// Replay is a Source replaying one host of a SlotTrace (see
// SlotTrace.Source); a slot costs a decrement.
type Replay struct {
	runs []Run
	i    int
	rem  int // slots left in runs[i], the current one included
}

// Next implements Source.
func (r *Replay) Next() State {
	if r.rem == 0 {
		r.i++
		if r.i == len(r.runs) {
			r.i = 0
		}
		r.rem = r.runs[r.i].N
	}
	r.rem--
	return r.runs[r.i].State
}

// DrawHosts draws k distinct host indices among n, uniformly (a partial
// Fisher–Yates shuffle: k draws from r).
func DrawHosts(r *rand.Rand, n, k int) ([]int, error) {
	if k < 0 || k > n {
		return nil, fmt.Errorf("%d hosts wanted from %d, want at most %d", k, n, n)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm[:k:k], nil
}
