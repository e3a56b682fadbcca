// Package ownpolicy is an overlay policy that is not in the paper,
// written outside package overlay in this one file and registered once
// (the variable Policy): a program or a test that imports this package
// runs it by name, "fifo-cap", in the simulator (package oversim), the
// accuracy experiment (package overlay/accuracy) and the daemons
// (package overlay/node), with no change of theirs. docs/extending.md
// ("An overlay policy") walks through it.
//
// The policy: every execution node keeps a first-come first-served queue
// of at most Capacity tasks, run one after the other; its sampled
// function says how many more tasks its nodes can queue (Free) beside
// their memory and disk. The sum of two functions is conservative (the
// smaller memory, disk and free places, the nodes added), so a summary
// never promises more than its nodes accept; forwarding (Fig. 5's frame)
// fills the fitting functions of the children the request did not come
// from, most free places first, and sends the rest to the father.
package ownpolicy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/volsched/volsched/overlay"
)

// Capacity is the most tasks a node's queue holds.
const Capacity = 4

// Policy is the registration: the name and ID (not used by another
// policy; an ID above 15 takes a two-byte tag on the wire), the defaults,
// the rules, the executor and the codec of the summaries.
var Policy = overlay.MustRegisterPolicy(overlay.PolicyDef{
	Name: "fifo-cap", ID: 64, SFMax: 64, Bandwidth: 1000,
	Rules: func(o overlay.Options) (overlay.Rules, error) { return &Rules{o: o}, nil },
	Exec: func(hw overlay.Hardware, _ overlay.Options) overlay.Exec {
		return &Exec{Mem: hw.Mem, Disk: hw.Disk, Power: hw.Power}
	},
	Codec: codec{},
})

// Fn is a sampled function: V nodes, each with at least Mem MB of memory,
// Disk MB of disk and Free places in its queue.
type Fn struct {
	Mem, Disk float32 // rounded down from the node's (overlay.Float32Down)
	Free, V   int32
}

// Summary is a summary of the policy: functions in the order of cmpFn,
// no two with the same memory, disk and free places. A node with a full
// queue reports nil (the empty summary).
type Summary []Fn

func (s Summary) Nodes() int {
	n := 0
	for _, f := range s {
		n += int(f.V)
	}
	return n
}
func (s Summary) Len() int             { return len(s) }
func (s Summary) Bytes() int           { return 16 * len(s) } // float32 M, D; int32 free, v
func (Summary) Policy() overlay.Policy { return Policy }
func (Summary) Attributes() []string   { return []string{"memory", "disk", "free"} }
func (s Summary) V(i int) int          { return int(s[i].V) }
func (s Summary) Attr(i, a int) float64 {
	return [...]float64{float64(s[i].Mem), float64(s[i].Disk), float64(s[i].Free)}[a]
}
func (f *Fn) admits(app overlay.App) int { return int(f.V) * int(f.Free) * b2i(f.fits(app)) }
func (f *Fn) fits(app overlay.App) bool {
	return float64(f.Mem) >= app.Mem && float64(f.Disk) >= app.Disk
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpFn(a, b Fn) int {
	return cmp.Or(cmp.Compare(a.Mem, b.Mem), cmp.Compare(a.Disk, b.Disk), cmp.Compare(a.Free, b.Free), cmp.Compare(a.V, b.V))
}

func as(s overlay.Summary) Summary {
	if s == nil {
		return nil
	}
	return s.(Summary)
}

// Rules are the policy's rules (overlay.Rules and overlay.CentralPlacer).
type Rules struct{ o overlay.Options }

func (r *Rules) Policy() overlay.Policy   { return Policy }
func (r *Rules) Options() overlay.Options { return r.o }
func (r *Rules) MaxQueue(overlay.Summary) float64 {
	return math.Inf(-1) // no bound travels down
}

func (r *Rules) Equal(x, y overlay.Summary) bool { return slices.Equal(as(x), as(y)) }

// Aggregate is the union of x and y, the functions equal but for their v
// merged, then while it exceeds SF_max the pair of neighbours (in the
// summary's order) whose sum loses the fewest free places merged.
func (r *Rules) Aggregate(x, y overlay.Summary) overlay.Summary {
	a, b := as(x), as(y)
	if len(a)+len(b) == 0 {
		return nil
	}
	s := Summary(slices.SortedFunc(slices.Values(slices.Concat(a, b)), cmpFn))
	s = merge(s)
	for len(s) > r.o.SFMax {
		best, loss := 0, math.Inf(1)
		for i := 0; i+1 < len(s); i++ {
			if l := lost(&s[i], &s[i+1]); l < loss {
				best, loss = i, l
			}
		}
		s[best] = sum(&s[best], &s[best+1])
		s = slices.Delete(s, best+1, best+2)
		slices.SortFunc(s, cmpFn)
		s = merge(s)
	}
	return s
}

// sum is the conservative sum of two functions.
func sum(a, b *Fn) Fn {
	return Fn{Mem: min(a.Mem, b.Mem), Disk: min(a.Disk, b.Disk), Free: min(a.Free, b.Free), V: a.V + b.V}
}

// lost is what summing a and b loses: the free places, plus the memory
// and disk in GB as a tie-breaker.
func lost(a, b *Fn) float64 {
	h := sum(a, b)
	l := 0.0
	for _, f := range []*Fn{a, b} {
		l += float64(f.V) * (float64(f.Free-h.Free) + 1e-6*float64(f.Mem-h.Mem+f.Disk-h.Disk))
	}
	return l
}

// merge merges sorted neighbours equal but for their v.
func merge(s Summary) Summary {
	out := s[:0]
	for _, f := range s {
		if k := len(out) - 1; k >= 0 && out[k].Mem == f.Mem && out[k].Disk == f.Disk && out[k].Free == f.Free {
			out[k].V += f.V
			continue
		}
		out = append(out, f)
	}
	return out
}

// candidate is a function that fits a request: where it is and how many
// tasks it takes.
type candidate struct {
	left        bool
	node, admit int
	f           Fn
}

// place gives n tasks to the candidates, most free places first (then
// the least memory and disk: best fit), each up to what it admits.
func place(cand []candidate, n int, give func(c *candidate, k int)) int {
	slices.SortStableFunc(cand, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.f.Free, a.f.Free), cmp.Compare(a.f.Mem, b.f.Mem), cmp.Compare(a.f.Disk, b.f.Disk))
	})
	for i := range cand {
		if n == 0 {
			break
		}
		k := min(cand[i].admit, n)
		give(&cand[i], k)
		n -= k
	}
	return n
}

// Forward fills the fitting functions of the children the request did not
// come from; the rest goes to the father.
func (r *Rules) Forward(f *overlay.Fork, req overlay.Request, _ float64) overlay.Split {
	var cand []candidate
	add := func(s Summary, left bool) {
		for _, fn := range s {
			if k := fn.admits(req.App); k > 0 {
				cand = append(cand, candidate{left: left, admit: k, f: fn})
			}
		}
	}
	if req.Src != f.Left {
		add(as(f.LeftInfo), true)
	}
	if req.Src != f.Right {
		add(as(f.RightInfo), false)
	}
	var s overlay.Split
	s.Father = place(cand, req.N, func(c *candidate, k int) {
		if c.left {
			s.Left += k
		} else {
			s.Right += k
		}
	})
	return s
}

// Central is the centralized reference (overlay.CentralPlacer): the same
// order over every node's exact summary.
func (r *Rules) Central(_ float64, req overlay.Request, nodes []overlay.Summary, out []overlay.Placement) []overlay.Placement {
	var cand []candidate
	for i, s := range nodes {
		for _, fn := range as(s) {
			if k := fn.admits(req.App); k > 0 {
				cand = append(cand, candidate{node: i, admit: k, f: fn})
			}
		}
	}
	place(cand, req.N, func(c *candidate, k int) { out = append(out, overlay.Placement{Node: c.node, N: k}) })
	return out
}

// task is a task in a node's queue.
type task struct {
	app uint64
	sub overlay.Addr
	dur float64 // seconds on this node
}

// Exec is an execution node (overlay.Exec, overlay.SavedExec): a FCFS
// queue of at most Capacity tasks, the first running since start.
type Exec struct {
	Mem, Disk, Power float64
	queue            []task
	start            float64
}

func (e *Exec) Summary(float64) overlay.Summary {
	free := Capacity - len(e.queue)
	if free == 0 {
		return nil
	}
	return Summary{{Mem: overlay.Float32Down(e.Mem), Disk: overlay.Float32Down(e.Disk), Free: int32(free), V: 1}}
}

func (e *Exec) Accept(now float64, app overlay.App, n int, sub overlay.Addr) int {
	if n < 1 || e.Mem < app.Mem || e.Disk < app.Disk {
		return 0
	}
	k := min(n, Capacity-len(e.queue))
	if len(e.queue) == 0 {
		e.start = now
	}
	for range k {
		e.queue = append(e.queue, task{app: app.ID, sub: sub, dur: app.Length / e.Power})
	}
	return k
}

func (e *Exec) Advance(now float64, done []overlay.Request) []overlay.Request {
	for len(e.queue) > 0 && e.start+e.queue[0].dur <= now {
		t := e.queue[0]
		done = append(done, overlay.Request{App: overlay.App{ID: t.app}, Submitter: t.sub, Src: overlay.NoAddr, N: 1})
		e.start += t.dur
		e.queue = e.queue[1:]
	}
	if len(e.queue) == 0 {
		e.queue = nil
	}
	return done
}

func (e *Exec) Wake() float64 {
	if len(e.queue) == 0 {
		return math.Inf(1)
	}
	return e.start + e.queue[0].dur
}

// AppendState writes the queue (overlay.SavedExec).
func (e *Exec) AppendState(w *overlay.Encoder) {
	w.F64(e.start)
	w.Uvarint(uint64(len(e.queue)))
	for _, t := range e.queue {
		w.Uvarint(t.app)
		w.Varint(int64(t.sub))
		w.F64(t.dur)
	}
}

// ReadState reads what AppendState wrote.
func (e *Exec) ReadState(d *overlay.Decoder) {
	e.start = d.F64("start")
	e.queue = nil
	n := d.Count("queue", 10)
	if n > Capacity {
		d.Fail("queue of %d tasks: want at most %d", n, Capacity)
		return
	}
	for range n {
		e.queue = append(e.queue, task{app: d.Uvarint("application", math.MaxUint64),
			sub: overlay.Addr(d.Varint("submitter", int64(overlay.NoAddr), math.MaxInt32)), dur: d.F64("duration")})
	}
}

// codec is the summaries' one encoding (overlay.SummaryCodec): the count,
// then per function mem:f32 disk:f32 free:uvarint v:uvarint. The tag's
// flag is not used.
type codec struct{}

func (codec) Flag(overlay.Summary) bool { return false }

func (codec) Append(e *overlay.Encoder, s overlay.Summary) {
	e.Uvarint(uint64(s.Len()))
	for _, f := range as(s) {
		e.F32(f.Mem)
		e.F32(f.Disk)
		e.Uvarint(uint64(f.Free))
		e.Uvarint(uint64(f.V))
	}
}

func (codec) Read(d *overlay.Decoder, flag bool) overlay.Summary {
	if flag {
		d.Fail("summary flag set: %s uses none", Policy)
		return nil
	}
	s := make(Summary, d.Count("summary functions", 10))
	for i := range s {
		s[i] = Fn{Mem: d.F32("memory"), Disk: d.F32("disk"), Free: int32(d.Uvarint("free places", Capacity)),
			V: int32(d.Uvarint("function nodes", math.MaxInt32))}
	}
	return s
}

func (codec) Validate(x overlay.Summary) error {
	s, ok := x.(Summary)
	if !ok || len(s) < 1 || len(s) > overlay.MaxSFMax {
		return fmt.Errorf("%d functions: want 1 to %d (the empty summary is nil)", x.Len(), overlay.MaxSFMax)
	}
	for i, f := range s {
		switch {
		case !(f.Mem >= 0 && f.Disk >= 0) || math.IsInf(float64(f.Mem), 1) || math.IsInf(float64(f.Disk), 1):
			return fmt.Errorf("function %d: memory %g, disk %g: want finite values >= 0", i, f.Mem, f.Disk)
		case f.Free < 1 || f.Free > Capacity:
			return fmt.Errorf("function %d: %d free places: want 1 to %d", i, f.Free, Capacity)
		case f.V < 1:
			return fmt.Errorf("function %d: %d nodes: want >= 1", i, f.V)
		}
		if i > 0 && cmpFn(s[i-1], f) >= 0 {
			return fmt.Errorf("function %d: not after function %d in the summary's order", i, i-1)
		}
	}
	return nil
}
