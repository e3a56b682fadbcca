// Package accuracy is the aggregation-accuracy experiment of the
// decentralized-scheduling paper (Celaya & Arronategui, §7.1): random node
// states aggregated recursively up a balanced binary tree with package
// overlay's policies, and the fraction of the nodes' availability the root
// summary still represents, per attribute; with the paper's Tables 2 and
// 3 for comparison (paper.go). The authors' implementation choices
// (package overlay/stars) are options, to measure what they change.
package accuracy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/stars"
	"github.com/volsched/volsched/stream"
)

// Distance is the clustering distance of a test: one of overlay's, or the
// authors' DP l clustering (stars.DP).
type Distance uint8

const (
	// DistMSE is overlay.DistMSE (the default, the authors' measure).
	DistMSE Distance = iota
	// DistLoss is overlay.DistLoss (this project's first reading).
	DistLoss
	// DistStars is stars.DP: the authors' DP l clustering (DP only).
	DistStars
)

var distanceNames = [...]string{DistMSE: "mse", DistLoss: "loss", DistStars: "stars"}

func (d Distance) String() string {
	if int(d) < len(distanceNames) {
		return distanceNames[d]
	}
	return fmt.Sprintf("distance(%d)", uint8(d))
}

// ParseDistance parses "mse", "loss" or "stars".
func ParseDistance(s string) (Distance, error) {
	for d, name := range distanceNames {
		if s == name {
			return Distance(d), nil
		}
	}
	return 0, fmt.Errorf("distance %q: want mse, loss or stars", s)
}

// Clustering is the clustering algorithm of a test.
type Clustering uint8

const (
	// ClusteringExact is Fig. 3, what the overlay runs.
	ClusteringExact Clustering = iota
	// ClusteringStars is the authors' approximation (stars.KNN).
	ClusteringStars
)

func (c Clustering) String() string {
	switch c {
	case ClusteringExact:
		return "exact"
	case ClusteringStars:
		return "stars"
	}
	return fmt.Sprintf("clustering(%d)", uint8(c))
}

// ParseClustering parses "exact" or "stars".
func ParseClustering(s string) (Clustering, error) {
	switch s {
	case "exact":
		return ClusteringExact, nil
	case "stars":
		return ClusteringStars, nil
	}
	return 0, fmt.Errorf("clustering %q: want exact or stars", s)
}

// Cells is the grid's cell rule of a test.
type Cells uint8

const (
	// CellsClamp is overlay's: an attribute's maximum in the last of the
	// grid's intervals.
	CellsClamp Cells = iota
	// CellsStars is the authors' floor((x − min)·b/Δ) (stars.Cells), which
	// gives the maximum a cell of its own.
	CellsStars
)

func (c Cells) String() string {
	switch c {
	case CellsClamp:
		return "clamp"
	case CellsStars:
		return "stars"
	}
	return fmt.Sprintf("cells(%d)", uint8(c))
}

// ParseCells parses "clamp" or "stars".
func ParseCells(s string) (Cells, error) {
	switch s {
	case "clamp":
		return CellsClamp, nil
	case "stars":
		return CellsStars, nil
	}
	return 0, fmt.Errorf("cells %q: want clamp or stars", s)
}

// Config describes one aggregation-accuracy test (§7.1).
type Config struct {
	Policy overlay.Policy
	Nodes  int // number of execution nodes (leaves)
	SFMax  int // maximum summary size
	Seed   uint64
	NoGrid bool // no grid (cells) in the distance
	// Distance, Clustering and Cells: overlay's (the zero values) or the
	// authors' choices, to measure their effect.
	Distance   Distance
	Clustering Clustering
	Cells      Cells
	// Progress, when not nil, is called from time to time during the
	// aggregation with the aggregations done and their total (Nodes − 1).
	Progress func(done, total int)
}

// Result is the fraction of the nodes' availability that the root's
// summary still represents, per attribute (see docs/reproduction-004.md).
type Result struct {
	Policy       overlay.Policy     `json:"policy"`
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
// EDF queue is RandomDPNode's.
const (
	MemLo, MemHi   = 256, 4096
	DiskLo, DiskHi = 500, 5000
	PowLo, PowHi   = 1000, 3000
	QueueHi        = 2000
	appLo, appHi   = 600000, 14400000 // DP application length, MFLOP
	appTasks       = 10               // DP tasks per application: U{1..10}
	appStop        = 8                // DP: another application unless U{1..8} = 1
	dpSteps        = 1000             // l accuracy: trapezoid over this many steps
	dpStretch      = 2.2              // ... of [now, 2.2·latest breakpoint]
	label          = 0x0a6c0004
)

// UniformInt draws U{lo..hi} as a float64.
func UniformInt(r *rand.Rand, lo, hi int) float64 { return float64(lo + r.IntN(hi-lo+1)) }

// Validate checks the configuration; errors name the field.
func (c *Config) Validate() error {
	_, err := c.rules()
	return err
}

// rules builds the policy of the test.
func (c *Config) rules() (overlay.Rules, error) {
	if err := overlay.ValidateTreeSize(c.Nodes); err != nil {
		return nil, err
	}
	o := overlay.DefaultOptions(c.Policy)
	o.SFMax, o.NoGrid = c.SFMax, c.NoGrid
	switch c.Distance {
	case DistMSE, DistStars:
	case DistLoss:
		o.Distance = overlay.DistLoss
	default:
		return nil, fmt.Errorf("distance %v: want mse, loss or stars", c.Distance)
	}
	switch c.Clustering {
	case ClusteringExact:
	case ClusteringStars:
		o.Clustering = stars.NewKNN(c.Policy)
	default:
		return nil, fmt.Errorf("clustering %v: want exact or stars", c.Clustering)
	}
	switch c.Cells {
	case CellsClamp:
	case CellsStars:
		o.Cells = stars.Cells{}
	default:
		return nil, fmt.Errorf("cells %v: want clamp or stars", c.Cells)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if c.Distance == DistStars {
		return stars.NewDP(o)
	}
	return overlay.NewRules(o)
}

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

// checkEvery is how many nodes or aggregations pass between two looks at
// the context: well under a millisecond of work.
const checkEvery = 1 << 8

// Run runs the test: random node states, aggregated recursively up a
// balanced binary tree (the same halving as overlay.NewTree), and the root
// summary compared with the nodes. The same (seed, policy, nodes) gives
// the same nodes whatever SFMax. It stops with ctx's error soon after ctx
// is cancelled.
func Run(ctx context.Context, cfg Config) (Result, error) {
	p, err := cfg.rules()
	if err != nil {
		return Result{}, err
	}
	opts := p.Options()
	r := stream.New(cfg.Seed, label, uint64(cfg.Policy.ID()), uint64(cfg.Nodes))
	n := cfg.Nodes
	inf := math.Inf(1)
	mem, disk, pow, queue := accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}
	leaves := make([]overlay.Summary, n)
	maxQ := math.Inf(-1)
	var qs []float64
	if cfg.Policy == overlay.PolicyMMP {
		qs = make([]float64, n)
	}
	var ls []overlay.LFunc // DP: the nodes' exact l
	if cfg.Policy == overlay.PolicyDP {
		ls = make([]overlay.LFunc, n)
	}
	// the leaves' functions, one allocation per policy (leaf i is
	// element i as a one-function summary); memory, disk and power are
	// integers, exact in float32
	var ibpLeaves overlay.IBPSummary
	var mmpLeaves overlay.MMPSummary
	var dpLeaves overlay.DPSummary
	switch cfg.Policy {
	case overlay.PolicyIBP:
		ibpLeaves = make(overlay.IBPSummary, n)
	case overlay.PolicyMMP:
		mmpLeaves = make(overlay.MMPSummary, n)
	case overlay.PolicyDP:
		dpLeaves = make(overlay.DPSummary, n)
	}
	f32 := overlay.Float32Down
	for i := range n {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		m := UniformInt(r, MemLo, MemHi)
		d := UniformInt(r, DiskLo, DiskHi)
		mem.add(m)
		disk.add(d)
		switch cfg.Policy {
		case overlay.PolicyIBP:
			ibpLeaves[i] = overlay.IBPCluster{Mem: f32(m), Disk: f32(d), V: 1}
			leaves[i] = ibpLeaves[i : i+1 : i+1]
		case overlay.PolicyMMP:
			s := UniformInt(r, PowLo, PowHi)
			q := UniformInt(r, 0, QueueHi)
			pow.add(s)
			qs[i] = q
			maxQ = max(maxQ, q)
			mmpLeaves[i] = overlay.MMPCluster{Mem: f32(m), Disk: f32(d), Power: f32(s), Q: q, V: 1}
			leaves[i] = mmpLeaves[i : i+1 : i+1]
		case overlay.PolicyDP:
			s := UniformInt(r, PowLo, PowHi)
			ls[i] = RandomDPNode(r, s).Function(0)
			f := overlay.LFunc{P: slices.Clone(ls[i].P), Slope: ls[i].Slope}
			if cfg.Distance != DistStars { // the authors did not reduce l
				f.Reduce(opts.Samples, opts.Horizon)
			}
			dpLeaves[i] = overlay.DPCluster{Mem: f32(m), Disk: f32(d), V: 1, L: f}
			leaves[i] = dpLeaves[i : i+1 : i+1]
		}
	}
	st := time.Now()
	root, aggs, err := aggregateTree(ctx, p, leaves, cfg.Progress)
	if err != nil {
		return Result{}, err
	}
	el := time.Since(st)
	res := Result{Policy: cfg.Policy, Nodes: n, SFMax: cfg.SFMax, Seed: cfg.Seed,
		Grid: !cfg.NoGrid, Distance: cfg.Distance.String(), Accuracy: map[string]float64{}, Aggregations: aggs, Clusters: root.Len(), AggregateTime: el}
	if cfg.Clustering == ClusteringStars {
		res.Clustering = "stars"
	}
	if cfg.Cells == CellsStars {
		res.Cells = "stars"
	}
	if got := root.Nodes(); got != n {
		return res, fmt.Errorf("internal error: root summary covers %d nodes, want %d", got, n)
	}
	switch s := overlay.Plain(root).(type) {
	case overlay.IBPSummary:
		var am, ad float64
		for _, c := range s {
			am += float64(c.V) * float64(c.Mem)
			ad += float64(c.V) * float64(c.Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
	case overlay.MMPSummary:
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
	case overlay.DPSummary:
		var am, ad float64
		for i := range s {
			am += float64(s[i].V) * float64(s[i].Mem)
			ad += float64(s[i].V) * float64(s[i].Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
		if res.Accuracy["l"], err = LAccuracy(ctx, ls, s); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// AggregateTree aggregates leaves recursively up a balanced binary tree
// (overlay.NewTree's halving) and returns the root and the number of
// aggregations.
func AggregateTree(p overlay.Rules, leaves []overlay.Summary) (overlay.Summary, int) {
	root, aggs, _ := aggregateTree(context.Background(), p, leaves, nil)
	return root, aggs
}

// aggregateTree is AggregateTree that stops, with ctx's error, soon after
// ctx is cancelled, and reports progress.
func aggregateTree(ctx context.Context, p overlay.Rules, leaves []overlay.Summary, progress func(done, total int)) (overlay.Summary, int, error) {
	aggs := 0
	total := len(leaves) - 1
	var err error
	var agg func(lo, hi int) overlay.Summary
	agg = func(lo, hi int) overlay.Summary {
		if err != nil {
			return nil
		}
		if hi-lo == 1 {
			return leaves[lo]
		}
		mid := lo + (hi-lo+1)/2
		x := agg(lo, mid)
		y := agg(mid, hi)
		if err != nil {
			return nil
		}
		if aggs%checkEvery == 0 {
			if err = ctx.Err(); err != nil {
				return nil
			}
			if progress != nil {
				progress(aggs, total)
			}
		}
		aggs++
		return p.Aggregate(x, y)
	}
	root := agg(0, len(leaves))
	return root, aggs, err
}

// LAccuracy is the accuracy of l, as the authors' test computes it
// (DPAvailabilityInfoTest.cpp, computeResults): at each deadline δ,
// (aggregated − minimum)/(total − minimum) with total = Σ_u l_u(δ),
// minimum = N·min_u l_u(δ) and aggregated = Σ_c v_c·l_c(δ) (1 where
// total = minimum), averaged by the trapezoid rule over 1000 equal steps
// of [0, T], T = 2.2 × the latest breakpoint of the nodes' and the
// summary's functions.
func LAccuracy(ctx context.Context, ls []overlay.LFunc, root overlay.DPSummary) (float64, error) {
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
	span := dpStretch * h
	ts := make([]float64, dpSteps+1)
	for j := range ts {
		ts[j] = span * float64(j) / dpSteps
	}
	tot, lo, agg, buf := make([]float64, len(ts)), make([]float64, len(ts)), make([]float64, len(ts)), make([]float64, len(ts))
	for j := range lo {
		lo[j] = math.Inf(1)
	}
	for i := range ls {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		ls[i].AtSorted(ts, buf)
		for j, v := range buf {
			tot[j] += v
			lo[j] = min(lo[j], v)
		}
	}
	for i := range root {
		root[i].L.AtSorted(ts, buf)
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
	return sum / dpSteps, nil
}

// RandomDPNode is a DP node of the §7.1 test with the authors' random
// queue (STaRS src/test/scheduling/RandomQueueGenerator.cpp,
// createRandomQueue) and power s: at time 0 the node holds applications
// as long as a draw U{1..8} is not 1 (7 on average); each has U{1..10}
// tasks sharing a length U{600000..14400000} MFLOP (integer division); the
// first task is running and has already run for U{0..⌊a/s⌋} seconds; the
// work runs back to back, and an application's deadline is the later of
// the previous deadline and its own completion, plus
// U{600000..14400000}/n/s seconds.
func RandomDPNode(r *rand.Rand, s float64) *overlay.DPExec {
	var running *overlay.DPTasks
	var end float64
	waiting := make([]overlay.DPTasks, 0, appStop)
	done, last := 0.0, 0.0 // completion of the work so far; previous deadline
	for r.IntN(appStop) != 0 {
		n := 1 + r.IntN(appTasks)
		a := float64((appLo + r.IntN(appHi-appLo+1)) / n)
		dur := a / s
		first := running == nil
		if first {
			ran := float64(r.IntN(int(dur) + 1)) // already executed
			done = -ran
			running, end = &overlay.DPTasks{N: 1, Duration: dur}, dur-ran
		}
		done += float64(n) * dur
		at := max(last, done)
		last = at + float64((appLo+r.IntN(appHi-appLo+1))/n)/s
		k := n
		if first {
			running.Deadline = last
			k--
		}
		if k > 0 {
			waiting = append(waiting, overlay.DPTasks{N: k, Deadline: last, Duration: dur})
		}
	}
	e := &overlay.DPExec{Power: s}
	if err := e.Restore(running, end, waiting); err != nil {
		panic(err) // the queue above is valid by construction
	}
	return e
}
