package overlay

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sync"
)

// PolicyIBP is idle/busy (§6.1): one task per idle node.
var PolicyIBP = MustRegisterPolicy(PolicyDef{Name: "ibp", ID: 1, SFMax: 225, Bandwidth: 1000,
	Rules: func(o Options) (Rules, error) { return &IBP{o: o}, nil },
	Exec:  func(hw Hardware, _ Options) Exec { return &IBPExec{Mem: hw.Mem, Disk: hw.Disk, Power: hw.Power} },
	Codec: ibpCodec{}})

// IBPCluster is a sampled function of the IBP policy (§6.1.1): V idle
// nodes, each with at least Mem MB of memory and Disk MB of disk.
type IBPCluster struct {
	Mem, Disk float32 // rounded down from the node's values (f32down)
	V         int32
}

// IBPSummary is an IBP availability summary. A busy node reports nil.
// Summaries whose functions carry spreads (DistMSE, above the level where
// clustering starts) wrap it (spread.go); asIBP reads both.
type IBPSummary []IBPCluster

func (s IBPSummary) Nodes() int {
	n := 0
	for _, c := range s {
		n += int(c.V)
	}
	return n
}
func (s IBPSummary) Len() int       { return len(s) }
func (s IBPSummary) Bytes() int     { return 12 * len(s) } // float32 M, D; uint32 v
func (IBPSummary) Policy() Policy   { return PolicyIBP }
func (s IBPSummary) Plain() Summary { return s }

// ibpCodec is IBP's encoding (wire.go): per function mem:f32 disk:f32
// v:uvarint, then with the flag its 2 spreads.
type ibpCodec struct{}

func (ibpCodec) Flag(s Summary) bool { return spreadFlag[IBPSummary](s) }

func (ibpCodec) Append(e *Encoder, s Summary) {
	v, sp := plainOf[IBPSummary](s)
	b := binary.AppendUvarint(e.b, uint64(len(v)))
	for i := range v {
		b = appendF32(b, v[i].Mem)
		b = appendF32(b, v[i].Disk)
		b = binary.AppendUvarint(b, uint64(v[i].V))
		if sp != nil {
			b = appendSpreads(b, sp[2*i:2*i+2])
		}
	}
	e.b = b
}

func (ibpCodec) Read(d *Decoder, flag bool) Summary {
	return readFns[IBPSummary](d, flag, 2, 9, func(d *Decoder, c *IBPCluster) {
		*c = IBPCluster{Mem: d.F32("memory"), Disk: d.F32("disk"), V: readV(d)}
	})
}

func (ibpCodec) Validate(s Summary) error {
	v, err := validWrap[IBPSummary](s, 2)
	if err != nil {
		return err
	}
	for i := range v {
		if err := errors.Join(validF32("memory", i, v[i].Mem), validF32("disk", i, v[i].Disk), validV(i, v[i].V)); err != nil {
			return err
		}
	}
	return nil
}

// IBP is the idle/busy policy: one task per idle node with enough memory
// and disk; conservative sum (min, min, v1+v2); forwarding of Fig. 5, best
// fit first.
// Build it with NewRules.
type IBP struct {
	o Options
}

func (*IBP) Policy() Policy     { return PolicyIBP }
func (p *IBP) Options() Options { return p.o }

type ibpFn = fn[IBPCluster]

// ibpOps are the comparison and merges of identical IBP functions.
var ibpOps = newFnOps(cmpIBP, addIBP)

var ibpFnPool = sync.Pool{New: func() any { return new(fnWork[IBPCluster]) }}

func asIBP(s Summary) IBPSummary {
	v, _ := plainOf[IBPSummary, IBPCluster](s)
	return v
}

// Sum is the conservative sum of two IBP sampled functions (what
// Aggregate applies, on a normalized copy).
func (*IBP) Sum(a, b *IBPCluster) IBPCluster {
	return IBPCluster{Mem: min(a.Mem, b.Mem), Disk: min(a.Disk, b.Disk), V: a.V + b.V}
}

// ibpVec and vecIBP convert between a function and the clustering's vec,
// in place (v and f are overwritten whole).
func ibpVec(v *vec, f *ibpFn) {
	*v = vec{o: [4]float64{float64(f.c.Mem), float64(f.c.Disk)}, v: float64(f.c.V)}
	v.setSpreads(f.s[:2])
}

func vecIBP(f *ibpFn, v *vec, spread bool) {
	*f = ibpFn{c: IBPCluster{Mem: float32(v.o[0]), Disk: float32(v.o[1]), V: int32(v.v)}}
	if spread {
		v.getSpreads(f.s[:2])
	}
}

func (p *IBP) Aggregate(x, y Summary) Summary {
	if x == nil && y == nil {
		return nil
	}
	if p.o.Clustering != nil {
		return aggregateVecsWith[IBPSummary](&ibpKind, x, y, &p.o)
	}
	return aggregateVecs[IBPSummary](&ibpKind, x, y, p.o.SFMax, gridSpec{none: p.o.NoGrid, cells: p.o.Cells}, p.o.Distance)
}

// ibpKind is what aggregateVecs needs of IBP.
var ibpKind = vecKind[IBPCluster]{d: 2, pool: &ibpFnPool, ops: &ibpOps, cmpVals: cmpIBP, add: addIBP,
	toVec: ibpVec, fromVec: vecIBP}

func (*IBP) Equal(x, y Summary) bool {
	return equalSummaries[IBPSummary, IBPCluster](x, y, func(a, b *IBPCluster) bool { return *a == *b })
}

func (*IBP) MaxQueue(Summary) float64 { return math.Inf(-1) }

// AF is the availability function of a sampled function: the number of
// tasks of app its nodes can take.
func (c *IBPCluster) AF(app App) int {
	if float64(c.Mem) >= app.Mem && float64(c.Disk) >= app.Disk {
		return int(c.V)
	}
	return 0
}

// Admits is the number of tasks of app a summary says its nodes can take.
func (s IBPSummary) Admits(app App) int {
	n := 0
	for i := range s {
		n += s[i].AF(app)
	}
	return n
}

type candidate struct {
	key   float64
	left  bool
	index int
	n     int
}

// Forward is Fig. 5: the sampled functions of the children the request did
// not come from that can run a task, closest to the requirements first
// (Σ (attr − req)/Δ_attr over the candidates), take one task per node; the
// rest goes to the father.
func (p *IBP) Forward(f *Fork, req Request, _ float64) Split {
	var cand []candidate
	lm, hm, ld, hd := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	add := func(s IBPSummary, left bool) {
		for i := range s {
			if k := s[i].AF(req.App); k > 0 {
				cand = append(cand, candidate{left: left, index: i, n: k})
				m, d := float64(s[i].Mem), float64(s[i].Disk)
				lm, hm = min(lm, m), max(hm, m)
				ld, hd = min(ld, d), max(hd, d)
			}
		}
	}
	ls, rs := asIBP(f.LeftInfo), asIBP(f.RightInfo)
	if req.Src != f.Left {
		add(ls, true)
	}
	if req.Src != f.Right {
		add(rs, false)
	}
	im, id := inv(span(lm, hm)), inv(span(ld, hd))
	for i := range cand {
		var c *IBPCluster
		if cand[i].left {
			c = &ls[cand[i].index]
		} else {
			c = &rs[cand[i].index]
		}
		cand[i].key = (float64(c.Mem)-req.App.Mem)*im + (float64(c.Disk)-req.App.Disk)*id
	}
	return distribute(cand, req.N)
}

// Central is the centralized IBP reference (Centralized): one task per
// idle fitting node, closest to the requirements first (Fig. 5's order
// over every node's exact summary).
func (*IBP) Central(_ float64, req Request, nodes []Summary, out []Placement) []Placement {
	var cand []candidate
	lm, hm, ld, hd := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, s := range nodes {
		for _, cl := range asIBP(s) {
			if k := cl.AF(req.App); k > 0 {
				cand = append(cand, candidate{index: i, n: k})
				lm, hm = min(lm, float64(cl.Mem)), max(hm, float64(cl.Mem))
				ld, hd = min(ld, float64(cl.Disk)), max(hd, float64(cl.Disk))
			}
		}
	}
	im, id := inv(span(lm, hm)), inv(span(ld, hd))
	for x := range cand {
		cl := asIBP(nodes[cand[x].index])[0]
		cand[x].key = ibpKey(cl.Mem, cl.Disk, req.App, im, id)
	}
	return placeSorted(cand, req.N, out)
}

// distribute takes tasks from the sorted candidates in order.
func distribute(cand []candidate, n int) Split {
	sortCandidates(cand)
	var s Split
	for _, c := range cand {
		if n == 0 {
			break
		}
		k := min(c.n, n)
		n -= k
		if c.left {
			s.Left += k
		} else {
			s.Right += k
		}
	}
	s.Father = n
	return s
}

func sortCandidates(cand []candidate) {
	slices.SortStableFunc(cand, func(a, b candidate) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
}

// IBPExec is an IBP execution node: idle or running one task.
type IBPExec struct {
	Mem, Disk, Power float64 // MB, MB, MFLOPS
	busy             bool
	end              float64
	app              uint64
	sub              Addr
}

func (e *IBPExec) Summary(float64) Summary {
	if e.busy {
		return nil
	}
	return IBPSummary{{Mem: f32down(e.Mem), Disk: f32down(e.Disk), V: 1}}
}

func (e *IBPExec) Accept(now float64, app App, n int, sub Addr) int {
	if e.busy || n < 1 || e.Mem < app.Mem || e.Disk < app.Disk {
		return 0
	}
	e.busy, e.end, e.app, e.sub = true, now+app.Length/e.Power, app.ID, sub
	return 1
}

func (e *IBPExec) Advance(now float64, done []Request) []Request {
	if e.busy && e.end <= now {
		e.busy = false
		done = append(done, Request{App: App{ID: e.app}, Submitter: e.sub, Src: NoAddr, N: 1})
	}
	return done
}

func (e *IBPExec) Wake() float64 {
	if e.busy {
		return e.end
	}
	return math.Inf(1)
}

// AppendState writes the node's state (SavedExec): busy, the running
// task's end, application and submitter.
func (e *IBPExec) AppendState(w *Encoder) {
	w.Bool(e.busy)
	w.F64(e.end)
	w.Uvarint(e.app)
	w.Varint(int64(e.sub))
}

// ReadState reads what AppendState wrote.
func (e *IBPExec) ReadState(d *Decoder) {
	e.busy, e.end, e.app, e.sub = d.Bool("busy"), d.F64("end"), d.Uvarint("application", math.MaxUint64), d.addr("submitter")
}
