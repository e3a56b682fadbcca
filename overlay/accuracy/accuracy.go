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
// the same nodes whatever SFMax. The node states of IBP, MMP and DP are
// those of the authors' test (authorsTests); any other registered policy
// gets the generic test (genericTest). It stops with ctx's error soon
// after ctx is cancelled.
func Run(ctx context.Context, cfg Config) (Result, error) {
	p, err := cfg.rules()
	if err != nil {
		return Result{}, err
	}
	opts := p.Options()
	r := stream.New(cfg.Seed, label, uint64(cfg.Policy.ID()), uint64(cfg.Nodes))
	n := cfg.Nodes
	inf := math.Inf(1)
	mem, disk := accAttr{min: inf}, accAttr{min: inf}
	leaves := make([]overlay.Summary, n)
	test := newNodeTest(&cfg, opts)
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
		leaves[i] = test.node(r, i, m, d)
	}
	st := time.Now()
	root, aggs, err := aggregateTree(ctx, p, leaves, cfg.Progress)
	if err != nil {
		return Result{}, err
	}
	el := time.Since(st)
	res := Result{Policy: cfg.Policy, Nodes: n, SFMax: cfg.SFMax, Seed: cfg.Seed,
		Grid: !cfg.NoGrid, Distance: cfg.Distance.String(), Accuracy: map[string]float64{}, Aggregations: aggs, Clusters: lenOf(root), AggregateTime: el}
	if cfg.Clustering == ClusteringStars {
		res.Clustering = "stars"
	}
	if cfg.Cells == CellsStars {
		res.Cells = "stars"
	}
	if got, want := nodesOf(root), test.nodes(n); got != want {
		return res, fmt.Errorf("internal error: root summary covers %d nodes, want %d", got, want)
	}
	if err := test.measure(ctx, overlay.Plain(root), &mem, &disk, res.Accuracy); err != nil {
		return Result{}, err
	}
	return res, nil
}

func lenOf(s overlay.Summary) int {
	if s == nil {
		return 0
	}
	return s.Len()
}

func nodesOf(s overlay.Summary) int {
	if s == nil {
		return 0
	}
	return s.Nodes()
}

// nodeTest is how the experiment draws one policy's node states and
// measures the root's summary against them.
type nodeTest interface {
	// node draws node i's state from r, its memory m and disk d drawn
	// already, and returns its summary.
	node(r *rand.Rand, i int, m, d float64) overlay.Summary
	// nodes is the number of nodes the root must cover, of n drawn.
	nodes(n int) int
	// measure sets acc's attributes from the root's plain summary; mem
	// and disk hold the nodes' memory and disk.
	measure(ctx context.Context, root overlay.Summary, mem, disk *accAttr, acc map[string]float64) error
}

// authorsTest is the node states of the authors' aggregation test for one
// of the paper's policies, and its attributes in table order.
type authorsTest struct {
	attrs []string
	make  func(cfg *Config, opts overlay.Options) nodeTest
}

// authorsTests are the authors' tests, by the policy's name: their tool
// has one per policy of the paper (AggregationTest.hpp and the policies'
// availability tests), which this experiment reproduces; a policy they did
// not test gets genericTest.
var authorsTests = map[string]authorsTest{
	"ibp": {[]string{"memory", "disk"}, func(cfg *Config, _ overlay.Options) nodeTest {
		return &ibpTest{leaves: make(overlay.IBPSummary, cfg.Nodes)}
	}},
	"mmp": {[]string{"memory", "disk", "power", "queue"}, func(cfg *Config, _ overlay.Options) nodeTest {
		return &mmpTest{leaves: make(overlay.MMPSummary, cfg.Nodes), qs: make([]float64, cfg.Nodes), pow: accAttr{min: math.Inf(1)},
			maxQ: math.Inf(-1)}
	}},
	"dp": {[]string{"memory", "disk", "l"}, func(cfg *Config, opts overlay.Options) nodeTest {
		return &dpTest{leaves: make(overlay.DPSummary, cfg.Nodes), ls: make([]overlay.LFunc, cfg.Nodes), opts: opts,
			reduce: cfg.Distance != DistStars} // the authors did not reduce l
	}},
}

// newNodeTest is the test of cfg's policy: the authors' or the generic one.
func newNodeTest(cfg *Config, opts overlay.Options) nodeTest {
	if t, ok := authorsTests[cfg.Policy.String()]; ok {
		return t.make(cfg, opts)
	}
	return &genericTest{policy: cfg.Policy, opts: opts}
}

// The leaves' functions of the authors' tests are one allocation per test
// (leaf i is element i as a one-function summary); memory, disk and power
// are integers, exact in float32.
var f32 = overlay.Float32Down

// ibpTest: memory and disk.
type ibpTest struct{ leaves overlay.IBPSummary }

func (t *ibpTest) node(_ *rand.Rand, i int, m, d float64) overlay.Summary {
	t.leaves[i] = overlay.IBPCluster{Mem: f32(m), Disk: f32(d), V: 1}
	return t.leaves[i : i+1 : i+1]
}

func (t *ibpTest) nodes(n int) int { return n }

func (t *ibpTest) measure(_ context.Context, root overlay.Summary, mem, disk *accAttr, acc map[string]float64) error {
	s := root.(overlay.IBPSummary)
	n := len(t.leaves)
	var am, ad float64
	for _, c := range s {
		am += float64(c.V) * float64(c.Mem)
		ad += float64(c.V) * float64(c.Disk)
	}
	acc["memory"], acc["disk"] = mem.frac(am, n), disk.frac(ad, n)
	return nil
}

// mmpTest: power U{1000..3000} MFLOPS and a queue end U{0..2000} s after
// now; the queue's accuracy is measured on the time before the latest
// queue end (smaller queue ends are more available).
type mmpTest struct {
	leaves overlay.MMPSummary
	qs     []float64
	pow    accAttr
	maxQ   float64
}

func (t *mmpTest) node(r *rand.Rand, i int, m, d float64) overlay.Summary {
	s := UniformInt(r, PowLo, PowHi)
	q := UniformInt(r, 0, QueueHi)
	t.pow.add(s)
	t.qs[i] = q
	t.maxQ = max(t.maxQ, q)
	t.leaves[i] = overlay.MMPCluster{Mem: f32(m), Disk: f32(d), Power: f32(s), Q: q, V: 1}
	return t.leaves[i : i+1 : i+1]
}

func (t *mmpTest) nodes(n int) int { return n }

func (t *mmpTest) measure(_ context.Context, root overlay.Summary, mem, disk *accAttr, acc map[string]float64) error {
	s := root.(overlay.MMPSummary)
	n := len(t.leaves)
	queue := accAttr{min: math.Inf(1)}
	for _, q := range t.qs {
		queue.add(t.maxQ - q)
	}
	var am, ad, ap, aq float64
	for _, c := range s {
		v := float64(c.V)
		am += v * float64(c.Mem)
		ad += v * float64(c.Disk)
		ap += v * float64(c.Power)
		aq += v * (t.maxQ - c.Q)
	}
	acc["memory"], acc["disk"] = mem.frac(am, n), disk.frac(ad, n)
	acc["power"], acc["queue"] = t.pow.frac(ap, n), queue.frac(aq, n)
	return nil
}

// dpTest: power U{1000..3000} MFLOPS and the authors' random EDF queue
// (RandomDPNode); l is measured over time (LAccuracy).
type dpTest struct {
	leaves overlay.DPSummary
	ls     []overlay.LFunc // the nodes' exact l
	opts   overlay.Options
	reduce bool
}

func (t *dpTest) node(r *rand.Rand, i int, m, d float64) overlay.Summary {
	s := UniformInt(r, PowLo, PowHi)
	t.ls[i] = RandomDPNode(r, s).Function(0)
	f := overlay.LFunc{P: slices.Clone(t.ls[i].P), Slope: t.ls[i].Slope}
	if t.reduce {
		f.Reduce(t.opts.Samples, t.opts.Horizon)
	}
	t.leaves[i] = overlay.DPCluster{Mem: f32(m), Disk: f32(d), V: 1, L: f}
	return t.leaves[i : i+1 : i+1]
}

func (t *dpTest) nodes(n int) int { return n }

func (t *dpTest) measure(ctx context.Context, root overlay.Summary, mem, disk *accAttr, acc map[string]float64) error {
	s := root.(overlay.DPSummary)
	n := len(t.leaves)
	var am, ad float64
	for i := range s {
		am += float64(s[i].V) * float64(s[i].Mem)
		ad += float64(s[i].V) * float64(s[i].Disk)
	}
	acc["memory"], acc["disk"] = mem.frac(am, n), disk.frac(ad, n)
	var err error
	acc["l"], err = LAccuracy(ctx, t.ls, s)
	return err
}

// Attributed is what the generic test reads of the summaries of a policy
// the authors did not test: the policy's plain summaries (overlay.Plain)
// implement it, in the policy's own file. An attribute is a number such
// that more is more available, of which the policy's sum of two functions
// keeps at most the smaller (the conservative sum); its accuracy is then
// (aggregated − minimum)/(total − minimum), as for the paper's memory and
// disk.
type Attributed interface {
	overlay.Summary
	// Attributes names the attributes, in table order; it does not depend
	// on the summary's value.
	Attributes() []string
	// Attr is attribute a of function i.
	Attr(i, a int) float64
	// V is the number of nodes function i covers.
	V(i int) int
}

// Generic test: the node states of a policy the authors did not test.
const (
	genericTasks = 8 // tasks offered to a node: U{0..8}
)

// genericTest draws for node i, after its memory and disk, a power
// U{1000..3000} MFLOPS, builds its policy's executor (Policy.NewExec) and
// offers it U{0..8} tasks of one application of length
// U{600000..14400000} MFLOP due U{1..3} times their work's duration after
// now (0), which the executor accepts or not as its policy says. A node's
// summary is its executor's at time 0; a node without availability (an
// empty summary) is not covered by the root. Every attribute of the
// policy's summaries (Attributed) is measured over the nodes' summaries.
type genericTest struct {
	policy overlay.Policy
	opts   overlay.Options
	leaves []overlay.Summary
}

func (t *genericTest) node(r *rand.Rand, i int, m, d float64) overlay.Summary {
	s := UniformInt(r, PowLo, PowHi)
	e := t.policy.NewExec(overlay.Hardware{Mem: m, Disk: d, Power: s}, t.opts)
	if k := r.IntN(genericTasks + 1); k > 0 {
		a := UniformInt(r, appLo, appHi)
		due := float64(k) * a / s * UniformInt(r, 1, 3)
		e.Accept(0, overlay.App{ID: uint64(i), Length: a, Deadline: due}, k, 0)
	}
	sum := e.Summary(0)
	t.leaves = append(t.leaves, sum)
	return sum
}

func (t *genericTest) nodes(int) int {
	n := 0
	for _, s := range t.leaves {
		n += nodesOf(s)
	}
	return n
}

func (t *genericTest) measure(_ context.Context, root overlay.Summary, _, _ *accAttr, acc map[string]float64) error {
	rs, ok := root.(Attributed)
	if root != nil && !ok {
		return fmt.Errorf("policy %s: its summaries (%T) do not say their attributes (accuracy.Attributed): nothing to measure", t.policy, root)
	}
	var attrs []string
	for _, s := range t.leaves {
		if a, ok := overlay.Plain(s).(Attributed); ok {
			attrs = a.Attributes()
			break
		}
	}
	n := t.nodes(0)
	for a, name := range attrs {
		x := accAttr{min: math.Inf(1)}
		for _, s := range t.leaves {
			if s, ok := overlay.Plain(s).(Attributed); ok {
				for i := range s.Len() {
					for range s.V(i) {
						x.add(s.Attr(i, a))
					}
				}
			}
		}
		agg := 0.0
		if rs != nil {
			for i := range rs.Len() {
				agg += float64(rs.V(i)) * rs.Attr(i, a)
			}
		}
		acc[name] = x.frac(agg, n)
	}
	return nil
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
