package overlay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/volsched/volsched/stream"
)

// AccuracyConfig describes one aggregation-accuracy test (§7.1).
type AccuracyConfig struct {
	Policy Policy
	Nodes  int // number of execution nodes (leaves)
	SFMax  int // maximum summary size
	Seed   uint64
	NoGrid bool // no grid (cells) in the distance
	// Distance of the clustering (default DistMSE, the authors').
	Distance Distance
	// Clustering: "" or "exact" is Fig. 3 (what Aggregate does); "stars"
	// is the authors' approximation (knn.go), to measure its effect.
	Clustering string
	// Cells: "" or "clamp" puts an attribute's maximum in the last of the
	// grid's intervals (ours); "stars" gives it a cell of its own, as the
	// authors' floor((x − min)·b/Δ) does, to measure the effect.
	Cells string
}

// AccuracyResult is the fraction of the nodes' availability that the
// root's summary still represents, per attribute (see docs/reproduction-004.md).
type AccuracyResult struct {
	Policy       Policy             `json:"policy"`
	Nodes        int                `json:"nodes"`
	SFMax        int                `json:"sfmax"`
	Seed         uint64             `json:"seed"`
	Grid         bool               `json:"grid"` // grid penalty used
	Distance     string             `json:"distance"`
	Clustering   string             `json:"clustering,omitempty"` // "stars" when the authors' clustering was used
	Cells        string             `json:"cells,omitempty"`      // "stars" when the authors' cells were used
	Accuracy     map[string]float64 `json:"accuracy"`
	Aggregations int                `json:"-"` // calls of Aggregate
	Clusters     int                `json:"-"` // size of the root summary
	// AggregateTime is the wall time of the aggregation alone (not the
	// node generation nor the comparison), for speed reports.
	AggregateTime time.Duration `json:"-"`
}

// Node states of the test: those of the authors' aggregation test (STaRS
// src/performance/AggregationTest.hpp, MMPAvailabilityInfoTest.cpp and
// src/test/scheduling/RandomQueueGenerator.cpp; the paper only says
// "uniform"): memory U{256..4096} MB, disk U{500..5000} MB, power
// U{1000..3000} MFLOPS; MMP queue end U{0..2000} s after now; a DP node's
// EDF queue is randomDPNode's.
const (
	accMemLo, accMemHi   = 256, 4096
	accDiskLo, accDiskHi = 500, 5000
	accPowLo, accPowHi   = 1000, 3000
	accQueueHi           = 2000
	accAppLo, accAppHi   = 600000, 14400000 // DP application length, MFLOP
	accAppTasks          = 10               // DP tasks per application: U{1..10}
	accAppStop           = 8                // DP: another application unless U{1..8} = 1
	accDPSteps           = 1000             // l accuracy: trapezoid over this many steps
	accDPStretch         = 2.2              // ... of [now, 2.2·latest breakpoint]
	accuracyLabel        = 0x0a6c0004
)

func uniformInt(r *rand.Rand, lo, hi int) float64 { return float64(lo + r.IntN(hi-lo+1)) }

// accAttr accumulates, for one attribute, the total over nodes and the
// smallest node value.
type accAttr struct{ total, min float64 }

func (a *accAttr) add(v float64) {
	a.total += v
	a.min = min(a.min, v)
}

// frac is (aggregated − minimum)/(total − minimum), minimum = n·min.
func (a *accAttr) frac(agg float64, n int) float64 {
	lo := float64(n) * a.min
	if a.total-lo <= 0 {
		return 1
	}
	return (agg - lo) / (a.total - lo)
}

// Accuracy runs the test: random node states, aggregated recursively up a
// balanced binary tree (the same halving as NewTree), and the root summary
// compared with the nodes. The same (seed, policy, nodes) gives the same
// nodes whatever SFMax.
func Accuracy(cfg AccuracyConfig) (AccuracyResult, error) {
	if err := ParseTreeSize(cfg.Nodes); err != nil {
		return AccuracyResult{}, err
	}
	o := DefaultOptions(cfg.Policy)
	o.SFMax = cfg.SFMax
	p, err := NewRules(o)
	if err != nil {
		return AccuracyResult{}, err
	}
	if err := CheckDistance(cfg.Policy, cfg.Distance); err != nil {
		return AccuracyResult{}, err
	}
	knn := 0
	switch cfg.Clustering {
	case "", "exact":
	case "stars":
		// the authors' list lengths (ClusteringList K: 10; the DP test: 20)
		knn = 10
		if cfg.Policy == PolicyDP {
			knn = 20
		}
	default:
		return AccuracyResult{}, fmt.Errorf("clustering %q: want exact or stars", cfg.Clustering)
	}
	var starsCells bool
	switch cfg.Cells {
	case "", "clamp":
	case "stars":
		starsCells = true
	default:
		return AccuracyResult{}, fmt.Errorf("cells %q: want clamp or stars", cfg.Cells)
	}
	switch q := p.(type) {
	case *IBP:
		q.o.NoGrid, q.o.Distance, q.knn, q.starsCells = cfg.NoGrid, cfg.Distance, knn, starsCells
	case *MMP:
		q.o.NoGrid, q.o.Distance, q.knn, q.starsCells = cfg.NoGrid, cfg.Distance, knn, starsCells
	case *DP:
		q.o.NoGrid, q.o.Distance, q.knn, q.starsCells = cfg.NoGrid, cfg.Distance, knn, starsCells
	}
	return accuracyWith(cfg, p)
}

// accuracyNoGrid is Accuracy without the grid penalty (for comparison).
func accuracyNoGrid(pol Policy, nodes, sfmax int, seed uint64) (AccuracyResult, error) {
	return Accuracy(AccuracyConfig{Policy: pol, Nodes: nodes, SFMax: sfmax, Seed: seed, NoGrid: true})
}

func accuracyWith(cfg AccuracyConfig, p Rules) (AccuracyResult, error) {
	code := uint64(cfg.Policy) // the stream label of the policy: 1, 2, 3
	r := stream.New(cfg.Seed, accuracyLabel, code, uint64(cfg.Nodes))
	n := cfg.Nodes
	inf := math.Inf(1)
	mem, disk, pow, queue := accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}
	leaves := make([]Summary, n)
	maxQ := math.Inf(-1)
	var qs []float64
	if cfg.Policy == PolicyMMP {
		qs = make([]float64, n)
	}
	var ls []LFunc // DP: the nodes' exact l
	if cfg.Policy == PolicyDP {
		ls = make([]LFunc, n)
	}
	dp, _ := p.(*DP)
	// the leaves' functions, one allocation per policy (leaf i is
	// element i as a one-function summary)
	var ibpLeaves IBPSummary
	var mmpLeaves MMPSummary
	var dpLeaves DPSummary
	switch cfg.Policy {
	case PolicyIBP:
		ibpLeaves = make(IBPSummary, n)
	case PolicyMMP:
		mmpLeaves = make(MMPSummary, n)
	case PolicyDP:
		dpLeaves = make(DPSummary, n)
	}
	for i := range n {
		m := uniformInt(r, accMemLo, accMemHi)
		d := uniformInt(r, accDiskLo, accDiskHi)
		mem.add(m)
		disk.add(d)
		switch cfg.Policy {
		case PolicyIBP:
			ibpLeaves[i] = IBPCluster{Mem: f32down(m), Disk: f32down(d), V: 1}
			leaves[i] = ibpLeaves[i : i+1 : i+1]
		case PolicyMMP:
			s := uniformInt(r, accPowLo, accPowHi)
			q := uniformInt(r, 0, accQueueHi)
			pow.add(s)
			qs[i] = q
			maxQ = max(maxQ, q)
			mmpLeaves[i] = MMPCluster{Mem: f32down(m), Disk: f32down(d), Power: f32down(s), Q: q, V: 1}
			leaves[i] = mmpLeaves[i : i+1 : i+1]
		case PolicyDP:
			s := uniformInt(r, accPowLo, accPowHi)
			ls[i] = randomDPNode(r, s).Function(0)
			f := LFunc{P: slices.Clone(ls[i].P), Slope: ls[i].Slope}
			if dp.o.Distance != DistStars { // the authors did not reduce l
				f.reduce(dp.o.Samples, dp.o.Horizon)
			}
			dpLeaves[i] = DPCluster{Mem: f32down(m), Disk: f32down(d), V: 1, L: f}
			leaves[i] = dpLeaves[i : i+1 : i+1]
		}
	}
	st := time.Now()
	root, aggs := aggregateTree(p, leaves)
	el := time.Since(st)
	res := AccuracyResult{Policy: cfg.Policy, Nodes: n, SFMax: cfg.SFMax, Seed: cfg.Seed,
		Grid: !cfg.NoGrid, Distance: cfg.Distance.String(), Accuracy: map[string]float64{}, Aggregations: aggs, Clusters: root.Len(), AggregateTime: el}
	if cfg.Clustering == "stars" {
		res.Clustering = "stars"
	}
	if cfg.Cells == "stars" {
		res.Cells = "stars"
	}
	if got := root.Nodes(); got != n {
		return res, fmt.Errorf("internal error: root summary covers %d nodes, want %d", got, n)
	}
	switch cfg.Policy {
	case PolicyIBP:
		s := asIBP(root)
		var am, ad float64
		for _, c := range s {
			am += float64(c.V) * float64(c.Mem)
			ad += float64(c.V) * float64(c.Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
	case PolicyMMP:
		s := asMMP(root)
		for _, q := range qs {
			queue.add(maxQ - q)
		}
		var am, ad, ap, aq float64
		for _, c := range s {
			v := float64(c.V)
			am += v * float64(c.Mem)
			ad += v * float64(c.Disk)
			ap += v * float64(c.Power)
			aq += v * (maxQ - c.Q)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
		res.Accuracy["power"], res.Accuracy["queue"] = pow.frac(ap, n), queue.frac(aq, n)
	case PolicyDP:
		s := asDP(root)
		var am, ad float64
		for i := range s {
			am += float64(s[i].V) * float64(s[i].Mem)
			ad += float64(s[i].V) * float64(s[i].Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
		res.Accuracy["l"] = lAccuracy(ls, s)
	}
	return res, nil
}

// aggregateTree aggregates leaves recursively up a balanced binary tree
// (NewTree's halving) and returns the root and the number of aggregations.
func aggregateTree(p Rules, leaves []Summary) (Summary, int) {
	aggs := 0
	var agg func(lo, hi int) Summary
	agg = func(lo, hi int) Summary {
		if hi-lo == 1 {
			return leaves[lo]
		}
		mid := lo + (hi-lo+1)/2
		aggs++
		return p.Aggregate(agg(lo, mid), agg(mid, hi))
	}
	return agg(0, len(leaves)), aggs
}

// lAccuracy is the accuracy of l, as the authors' test computes it
// (DPAvailabilityInfoTest.cpp, computeResults): at each deadline δ,
// (aggregated − minimum)/(total − minimum) with total = Σ_u l_u(δ),
// minimum = N·min_u l_u(δ) and aggregated = Σ_c v_c·l_c(δ) (1 where
// total = minimum), averaged by the trapezoid rule over accDPSteps equal
// steps of [0, T], T = accDPStretch × the latest breakpoint of the nodes'
// and the summary's functions.
func lAccuracy(ls []LFunc, root DPSummary) float64 {
	h := 0.0
	for i := range ls {
		if k := len(ls[i].P); k > 0 {
			h = max(h, ls[i].P[k-1].T)
		}
	}
	for i := range root {
		if k := len(root[i].L.P); k > 0 {
			h = max(h, root[i].L.P[k-1].T)
		}
	}
	if h <= 0 {
		h = 1
	}
	span := accDPStretch * h
	ts := make([]float64, accDPSteps+1)
	for j := range ts {
		ts[j] = span * float64(j) / accDPSteps
	}
	tot, lo, agg, buf := make([]float64, len(ts)), make([]float64, len(ts)), make([]float64, len(ts)), make([]float64, len(ts))
	for j := range lo {
		lo[j] = math.Inf(1)
	}
	for i := range ls {
		ls[i].atSorted(ts, buf)
		for j, v := range buf {
			tot[j] += v
			lo[j] = min(lo[j], v)
		}
	}
	for i := range root {
		root[i].L.atSorted(ts, buf)
		for j, v := range buf {
			agg[j] += float64(root[i].V) * v
		}
	}
	n := float64(len(ls))
	acc := make([]float64, len(ts))
	for j := range ts {
		m := n * lo[j]
		acc[j] = 1
		if tot[j]-m > 1e-9*tot[j] {
			acc[j] = (agg[j] - m) / (tot[j] - m)
		}
	}
	sum := 0.0
	for j := 1; j < len(acc); j++ {
		sum += (acc[j-1] + acc[j]) / 2
	}
	return sum / accDPSteps
}

// randomDPNode is a DP node of the §7.1 test with the authors' random
// queue (STaRS src/test/scheduling/RandomQueueGenerator.cpp,
// createRandomQueue): at time 0 the node holds applications as long as a
// draw U{1..8} is not 1 (7 on average); each has U{1..10} tasks sharing a
// length U{600000..14400000} MFLOP (integer division); the first task is
// running and has already run for U{0..⌊a/s⌋} seconds; the work runs back
// to back, and an application's deadline is the later of the previous
// deadline and its own completion, plus U{600000..14400000}/n/s seconds.
func randomDPNode(r *rand.Rand, s float64) *DPExec {
	// room for the queue's 7 applications on average
	e := &DPExec{Power: s, runs: make([]dpRun, 0, accAppStop)}
	done, last := 0.0, 0.0 // completion of the work so far; previous deadline
	for r.IntN(accAppStop) != 0 {
		n := 1 + r.IntN(accAppTasks)
		a := float64((accAppLo + r.IntN(accAppHi-accAppLo+1)) / n)
		dur := a / s
		if !e.running {
			ran := float64(r.IntN(int(dur) + 1)) // already executed
			done = -ran
			e.running, e.end = true, dur-ran
			e.cur = dpRun{n: 1, dur: dur}
		}
		done += float64(n) * dur
		end := max(last, done)
		last = end + float64((accAppLo+r.IntN(accAppHi-accAppLo+1))/n)/s
		k := n
		if len(e.runs) == 0 && e.cur.deadline == 0 {
			e.cur.deadline = last
			k--
		}
		if k > 0 {
			e.runs = append(e.runs, dpRun{n: k, deadline: last, dur: dur})
		}
	}
	return e
}
