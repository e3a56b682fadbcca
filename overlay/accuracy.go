package overlay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/volsched/volsched/stream"
)

// AccuracyConfig describes one aggregation-accuracy test (§7.1).
type AccuracyConfig struct {
	Policy string // "ibp", "mmp" or "dp"
	Nodes  int    // number of execution nodes (leaves)
	SFMax  int    // maximum summary size
	Seed   uint64
	NoGrid bool // plain loss distance, without the grid penalty
}

// AccuracyResult is the fraction of the nodes' availability that the
// root's summary still represents, per attribute (see docs/reproduction-004.md).
type AccuracyResult struct {
	Policy       string             `json:"policy"`
	Nodes        int                `json:"nodes"`
	SFMax        int                `json:"sfmax"`
	Seed         uint64             `json:"seed"`
	Grid         bool               `json:"grid"` // grid penalty used
	Accuracy     map[string]float64 `json:"accuracy"`
	Aggregations int                `json:"-"` // calls of Aggregate
	Clusters     int                `json:"-"` // size of the root summary
	// AggregateTime is the wall time of the aggregation alone (not the
	// node generation nor the comparison), for speed reports.
	AggregateTime time.Duration `json:"-"`
}

// Node state ranges of the test (those of the authors' aggregation test):
// memory U{1..4096} MB, disk U{1..5000} MB, power U{1..3000} MFLOPS, MMP
// queue end U{0..2000} s after now; DP schedules alternate busy intervals
// and holes of U[300, 3600] s each, the number of tasks geometric (another
// one with probability 2/3), free after the last one.
const (
	accMemLo, accMemHi   = 1, 4096
	accDiskLo, accDiskHi = 1, 5000
	accPowLo, accPowHi   = 1, 3000
	accQueueHi           = 2000
	accDurLo, accDurHi   = 300.0, 3600.0
	accDPHorizon         = 100000.0
	accDPDeadlines       = 100
	accuracyLabel        = 0x0a6c0004
	accDPSamples         = 10
	accDefaultBeta       = 0.5
)

func uniformInt(r *rand.Rand, lo, hi int) float64 { return float64(lo + r.IntN(hi-lo+1)) }

// NewPolicy builds a policy by name with the paper's defaults (β = 0.5 for
// MMP; 10 samples and a 100000 s horizon for DP).
func NewPolicy(name string, sfmax int) (Policy, error) {
	switch name {
	case "ibp":
		return NewIBP(sfmax)
	case "mmp":
		return NewMMP(sfmax, accDefaultBeta)
	case "dp":
		return NewDP(sfmax, accDPSamples, accDPHorizon)
	}
	return nil, fmt.Errorf("policy %q: want ibp, mmp or dp", name)
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

// Accuracy runs the test: random node states, aggregated recursively up a
// balanced binary tree (the same halving as NewTree), and the root summary
// compared with the nodes. The same (seed, policy, nodes) gives the same
// nodes whatever SFMax.
func Accuracy(cfg AccuracyConfig) (AccuracyResult, error) {
	if err := ParseTreeSize(cfg.Nodes); err != nil {
		return AccuracyResult{}, err
	}
	p, err := NewPolicy(cfg.Policy, cfg.SFMax)
	if err != nil {
		return AccuracyResult{}, err
	}
	if cfg.NoGrid {
		switch q := p.(type) {
		case *IBP:
			q.NoGrid = true
		case *MMP:
			q.NoGrid = true
		case *DP:
			q.NoGrid = true
		}
	}
	return accuracyWith(cfg, p)
}

// accuracyNoGrid is Accuracy without the grid penalty (for comparison).
func accuracyNoGrid(pol string, nodes, sfmax int, seed uint64) (AccuracyResult, error) {
	return Accuracy(AccuracyConfig{Policy: pol, Nodes: nodes, SFMax: sfmax, Seed: seed, NoGrid: true})
}

func accuracyWith(cfg AccuracyConfig, p Policy) (AccuracyResult, error) {
	code := map[string]uint64{"ibp": 1, "mmp": 2, "dp": 3}[cfg.Policy]
	r := stream.New(cfg.Seed, accuracyLabel, code, uint64(cfg.Nodes))
	n := cfg.Nodes
	inf := math.Inf(1)
	mem, disk, pow, queue := accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}, accAttr{min: inf}
	leaves := make([]Summary, n)
	var lTot, lMin []float64
	var deadlines []float64
	maxQ := math.Inf(-1)
	var qs []float64
	if cfg.Policy == "dp" {
		lTot, lMin = make([]float64, accDPDeadlines), make([]float64, accDPDeadlines)
		deadlines = make([]float64, accDPDeadlines)
		for k := range deadlines {
			deadlines[k] = accDPHorizon * float64(k+1) / accDPDeadlines
			lMin[k] = inf
		}
	}
	if cfg.Policy == "mmp" {
		qs = make([]float64, n)
	}
	dp, _ := p.(*DP)
	for i := range n {
		m := uniformInt(r, accMemLo, accMemHi)
		d := uniformInt(r, accDiskLo, accDiskHi)
		mem.add(m)
		disk.add(d)
		switch cfg.Policy {
		case "ibp":
			leaves[i] = IBPSummary{{Mem: f32down(m), Disk: f32down(d), V: 1}}
		case "mmp":
			s := uniformInt(r, accPowLo, accPowHi)
			q := uniformInt(r, 0, accQueueHi)
			pow.add(s)
			qs[i] = q
			maxQ = max(maxQ, q)
			leaves[i] = MMPSummary{{Mem: f32down(m), Disk: f32down(d), Power: f32down(s), Q: q, V: 1}}
		case "dp":
			s := uniformInt(r, accPowLo, accPowHi)
			f := randomSchedule(r, s)
			for k, dl := range deadlines {
				v := f.At(dl)
				lTot[k] += v
				lMin[k] = min(lMin[k], v)
			}
			f.reduce(dp.Samples, dp.Horizon)
			leaves[i] = DPSummary{{Mem: f32down(m), Disk: f32down(d), V: 1, L: f}}
		}
	}
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
	st := time.Now()
	root := agg(0, n)
	el := time.Since(st)
	res := AccuracyResult{Policy: cfg.Policy, Nodes: n, SFMax: cfg.SFMax, Seed: cfg.Seed,
		Grid: !cfg.NoGrid, Accuracy: map[string]float64{}, Aggregations: aggs, Clusters: root.Len(), AggregateTime: el}
	if got := root.Nodes(); got != n {
		return res, fmt.Errorf("internal error: root summary covers %d nodes, want %d", got, n)
	}
	switch s := root.(type) {
	case IBPSummary:
		var am, ad float64
		for _, c := range s {
			am += float64(c.V) * float64(c.Mem)
			ad += float64(c.V) * float64(c.Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
	case MMPSummary:
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
	case DPSummary:
		var am, ad float64
		for i := range s {
			am += float64(s[i].V) * float64(s[i].Mem)
			ad += float64(s[i].V) * float64(s[i].Disk)
		}
		res.Accuracy["memory"], res.Accuracy["disk"] = mem.frac(am, n), disk.frac(ad, n)
		sum, cnt := 0.0, 0
		for k, dl := range deadlines {
			var a float64
			for i := range s {
				a += float64(s[i].V) * s[i].L.At(dl)
			}
			lo := float64(n) * lMin[k]
			if lTot[k]-lo > 1e-9*lTot[k] {
				sum += (a - lo) / (lTot[k] - lo)
				cnt++
			}
		}
		res.Accuracy["l"] = 1
		if cnt > 0 {
			res.Accuracy["l"] = sum / float64(cnt)
		}
	}
	return res, nil
}

// randomSchedule is l(δ) of a node of power s whose time from 0 alternates
// busy intervals and holes (see the constants above), free after the last
// task: s times the free time before δ.
func randomSchedule(r *rand.Rand, s float64) LFunc {
	pts := []LPoint{{0, 0}}
	t, l := 0.0, 0.0
	for r.IntN(3) != 0 {
		t += accDurLo + r.Float64()*(accDurHi-accDurLo) // busy
		pts = append(pts, LPoint{t, l})
		h := accDurLo + r.Float64()*(accDurHi-accDurLo) // hole
		t += h
		l += s * h
		pts = append(pts, LPoint{t, l})
	}
	f := LFunc{P: pts, Slope: s}
	f.compact()
	return f
}
