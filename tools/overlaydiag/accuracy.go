package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/accuracy"
	"github.com/volsched/volsched/overlay/stars"
)

func init() {
	register(command{"scale", "accuracy and time of Table 3's sizes (--policy, --sizes)", scale})
	register(command{"seeds", "Table 2: mean ± sd over --seeds for each distance, clustering and cells; and without the grid", seeds})
	register(command{"cpu", "CPU time per aggregation of the Table 2 tests (--reps)", cpu})
	register(command{"stars-dump", "DP nodes dumped by the authors' tool (--dump, --nodes, --sfmax, --root) aggregated by ours", starsDump})
	register(command{"stars-vec-dump", "IBP or MMP nodes dumped by the authors' tool (--dump, --nodes, --sfmax, --root)", starsVecDump})
}

// policies parses a comma-separated list of policies ("" is all).
func policies(s string) ([]overlay.Policy, error) {
	if s == "" {
		return overlay.Policies(), nil
	}
	var out []overlay.Policy
	for _, f := range strings.Split(s, ",") {
		p, err := overlay.ParsePolicy(f)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func fmtAcc(r accuracy.Result) string {
	s := ""
	for _, a := range accuracy.Attributes(r.Policy) {
		s += fmt.Sprintf(" %s %.1f", a, 100*r.Accuracy[a])
	}
	return s
}

// scale runs Table 3's sizes at the policies' SF_max and prints the
// accuracies and times (a measurement).
func scale(ctx context.Context, args []string) error {
	fs := flags("scale")
	pol := fs.String("policy", "", "policies, comma-separated (default all)")
	sizes := fs.String("sizes", "512,2048,8192,32768,131072", "network sizes")
	fs.Parse(args)
	ps, err := policies(*pol)
	if err != nil {
		return err
	}
	ns, err := ints(*sizes)
	if err != nil {
		return fmt.Errorf("--sizes: %v", err)
	}
	for _, p := range ps {
		for _, n := range ns {
			st := time.Now()
			r, err := accuracy.Run(ctx, accuracy.Config{Policy: p, Nodes: n, SFMax: accuracy.PaperTable3SFMax[p], Seed: 1})
			if err != nil {
				return err
			}
			fmt.Printf("%s n=%d:%s  %v\n", p, n, fmtAcc(r), time.Since(st).Round(time.Millisecond))
		}
	}
	return nil
}

// seeds prints the mean and standard deviation of Table 2's cells over
// seeds for each distance (stars: DP only), clustering and cells, and the
// effect of the grid (a measurement).
func seeds(ctx context.Context, args []string) error {
	fs := flags("seeds")
	n := fs.Int("seeds", 10, "seeds 1..n")
	fs.Parse(args)
	type variant struct {
		d  accuracy.Distance
		cl accuracy.Clustering
		c  accuracy.Cells
	}
	for _, v := range []variant{{accuracy.DistMSE, accuracy.ClusteringExact, accuracy.CellsClamp}, {accuracy.DistLoss, accuracy.ClusteringExact, accuracy.CellsClamp},
		{accuracy.DistMSE, accuracy.ClusteringStars, accuracy.CellsClamp}, {accuracy.DistStars, accuracy.ClusteringExact, accuracy.CellsClamp},
		{accuracy.DistStars, accuracy.ClusteringStars, accuracy.CellsClamp}, {accuracy.DistMSE, accuracy.ClusteringExact, accuracy.CellsStars},
		{accuracy.DistMSE, accuracy.ClusteringStars, accuracy.CellsStars}, {accuracy.DistStars, accuracy.ClusteringStars, accuracy.CellsStars}} {
		for _, p := range overlay.Policies() {
			if v.d == accuracy.DistStars && p != overlay.PolicyDP {
				continue
			}
			for _, k := range accuracy.PaperSFMax[p] {
				sum, sq := map[string]float64{}, map[string]float64{}
				for s := 1; s <= *n; s++ {
					r, err := accuracy.Run(ctx, accuracy.Config{Policy: p, Nodes: 1024, SFMax: k, Seed: uint64(s), Distance: v.d, Clustering: v.cl, Cells: v.c})
					if err != nil {
						return err
					}
					for a, x := range r.Accuracy {
						sum[a] += x
						sq[a] += x * x
					}
				}
				line := ""
				for _, a := range accuracy.Attributes(p) {
					m := sum[a] / float64(*n)
					sd := math.Sqrt(max(0, sq[a]/float64(*n)-m*m))
					line += fmt.Sprintf(" %s %.1f±%.1f (paper %.1f)", a, 100*m, 100*sd, 100*accuracy.PaperTable2[p][k][a])
				}
				fmt.Printf("%s %s cells=%s %s sfmax=%d, %d seeds:%s\n", v.d, v.cl, v.c, p, k, *n, line)
			}
		}
	}
	for _, p := range overlay.Policies() {
		for _, k := range accuracy.PaperSFMax[p] {
			st := time.Now()
			r, err := accuracy.Run(ctx, accuracy.Config{Policy: p, Nodes: 1024, SFMax: k, Seed: 1, NoGrid: true})
			if err != nil {
				return err
			}
			fmt.Printf("no grid: %s sfmax=%d:%s (%v)\n", p, k, fmtAcc(r), time.Since(st).Round(time.Millisecond))
		}
	}
	return nil
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpu prints CPU time (less sensitive than wall time to a loaded machine)
// per aggregation of the Table 2 tests.
func cpu(ctx context.Context, args []string) error {
	fs := flags("cpu")
	reps := fs.Int("reps", 30, "seeds per configuration")
	fs.Parse(args)
	for _, p := range overlay.Policies() {
		for _, sf := range accuracy.PaperSFMax[p] {
			c0 := cpuTime()
			aggs := 0
			var wall time.Duration
			for s := 1; s <= *reps; s++ {
				r, err := accuracy.Run(ctx, accuracy.Config{Policy: p, Nodes: 1024, SFMax: sf, Seed: uint64(s)})
				if err != nil {
					return err
				}
				aggs += r.Aggregations
				wall += r.AggregateTime
			}
			fmt.Printf("%s sfmax=%d: %.2f µs CPU per aggregation (whole test incl. node generation, %d runs); aggregation alone %.2f µs wall\n",
				p, sf, float64((cpuTime()-c0).Nanoseconds())/1e3/float64(aggs), *reps, float64(wall.Nanoseconds())/1e3/float64(aggs))
		}
	}
	return nil
}

// readDump reads up to max lines of numbers from a dump file.
func readDump(path string, max int) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan() && len(out) < max; line++ {
		fs := strings.Fields(sc.Text())
		x := make([]float64, len(fs))
		for i := range fs {
			if x[i], err = strconv.ParseFloat(fs[i], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
		}
		out = append(out, x)
	}
	return out, sc.Err()
}

// dumpedL is a dumped l function: (δ, l) pairs, none for a free node
// (theirs: free from now on at the slope; ours: a single sample (now, 0)).
func dumpedL(slope float64, pts []float64) overlay.LFunc {
	l := overlay.LFunc{Slope: slope}
	for i := 0; i+1 < len(pts); i += 2 {
		l.P = append(l.P, overlay.LPoint{T: pts[i], L: pts[i+1]})
	}
	if len(l.P) == 0 {
		l.P = []overlay.LPoint{{T: 0, L: 0}}
	}
	return l
}

// dumpFlags are the flags of the dump commands.
func dumpFlags(name string, args []string) (path, root string, n, sf int, err error) {
	fs := flags(name)
	fs.StringVar(&path, "dump", "", "the nodes dumped by the authors' aggregation test, one line per node in leaf order")
	fs.StringVar(&root, "root", "", "their root summary, one line per function (optional)")
	fs.IntVar(&n, "nodes", 0, "number of nodes")
	fs.IntVar(&sf, "sfmax", 0, "SF_max")
	fs.Parse(args)
	switch {
	case path == "":
		err = fmt.Errorf("--dump: want the dump file (how it is made: docs/reproduction-004.md, \"The authors' tool, built and run\")")
	case n < 1:
		err = fmt.Errorf("--nodes %d: want the number of nodes of the dump", n)
	case sf < 1:
		err = fmt.Errorf("--sfmax %d: want SF_max", sf)
	}
	return
}

// starsDump aggregates the DP nodes of a run of the authors' aggregation
// test, dumped one line per node in leaf order (memory, disk, power, final
// slope, then (δ, l) pairs; none for a free node), with our DP under our
// default and under the authors' choices (their distance, clustering and
// cells), so that the two tools are compared on the same nodes. With
// --root, their root summary (one line per function: v, memory, disk,
// slope, pairs) is read too: its accuracy by our code, and whether our
// root under the authors' choices is the same set of (v, memory, disk,
// slope).
func starsDump(ctx context.Context, args []string) error {
	path, rootPath, n, sf, err := dumpFlags("stars-dump", args)
	if err != nil {
		return err
	}
	type node struct {
		m, d float64
		l    overlay.LFunc
	}
	rows, err := readDump(path, n)
	if err != nil {
		return err
	}
	var nodes []node
	for _, x := range rows {
		if len(x) < 4 {
			return fmt.Errorf("%s: a node of %d numbers, want memory, disk, power, slope, pairs", path, len(x))
		}
		nodes = append(nodes, node{m: x[0], d: x[1], l: dumpedL(x[3], x[4:])})
	}
	if len(nodes) != n {
		return fmt.Errorf("%d nodes in %s, want %d", len(nodes), path, n)
	}
	ls := make([]overlay.LFunc, n)
	for i := range nodes {
		ls[i] = nodes[i].l
	}
	var theirs overlay.DPSummary
	if rootPath != "" {
		rs, err := readDump(rootPath, math.MaxInt)
		if err != nil {
			return err
		}
		for _, x := range rs {
			if len(x) < 4 {
				return fmt.Errorf("%s: a function of %d numbers, want v, memory, disk, slope, pairs", rootPath, len(x))
			}
			theirs = append(theirs, overlay.DPCluster{V: int32(x[0]), Mem: float32(x[1]), Disk: float32(x[2]), L: dumpedL(x[3], x[4:])})
		}
		la, err := accuracy.LAccuracy(ctx, ls, theirs)
		if err != nil {
			return err
		}
		fmt.Printf("their root (%d functions, %d nodes): l accuracy by our code %.4f\n", len(theirs), theirs.Nodes(), 100*la)
	}
	for _, authors := range []bool{false, true} {
		o := overlay.DefaultOptions(overlay.PolicyDP)
		o.SFMax = sf
		var pol overlay.Rules
		if authors {
			o.Clustering, o.Cells = stars.NewKNN(overlay.PolicyDP), stars.Cells{}
			pol, err = stars.NewDP(o)
		} else {
			pol, err = overlay.NewRules(o)
		}
		if err != nil {
			return err
		}
		leaves := make([]overlay.Summary, n)
		var tm, td float64
		for i, nd := range nodes {
			l := overlay.LFunc{P: append([]overlay.LPoint(nil), nd.l.P...), Slope: nd.l.Slope}
			if !authors {
				l.Reduce(o.Samples, o.Horizon)
			}
			leaves[i] = overlay.DPSummary{{Mem: overlay.Float32Down(nd.m), Disk: overlay.Float32Down(nd.d), V: 1, L: l}}
			tm += nd.m
			td += nd.d
		}
		r, _ := accuracy.AggregateTree(pol, leaves)
		root, _ := overlay.Plain(r).(overlay.DPSummary)
		var am, ad float64
		for i := range root {
			am += float64(root[i].V) * float64(root[i].Mem)
			ad += float64(root[i].V) * float64(root[i].Disk)
		}
		la, err := accuracy.LAccuracy(ctx, ls, root)
		if err != nil {
			return err
		}
		// the authors' minimum: N × the generator's lower bound
		lo := func(b float64) float64 { return float64(n) * b }
		fmt.Printf("authors' distance, clustering and cells %v, n=%d sf=%d: memory %.4f disk %.4f l %.4f (%d functions)\n", authors, n, sf,
			100*(am-lo(accuracy.MemLo))/(tm-lo(accuracy.MemLo)), 100*(ad-lo(accuracy.DiskLo))/(td-lo(accuracy.DiskLo)), 100*la, len(root))
		if authors && theirs != nil {
			key := func(s overlay.DPSummary) map[[4]float64]int {
				k := map[[4]float64]int{}
				for i := range s {
					k[[4]float64{float64(s[i].V), float64(s[i].Mem), float64(s[i].Disk), s[i].L.Slope}]++
				}
				return k
			}
			a, b := key(root), key(theirs)
			same := len(a) == len(b)
			for k, v := range a {
				same = same && b[k] == v
			}
			fmt.Printf("  root the same (v, memory, disk, slope) as theirs: %v\n", same)
		}
	}
	return nil
}

// starsVecDump is starsDump for IBP and MMP: nodes dumped by the authors'
// IBP test (memory, disk) or MMP test (memory, disk, power, queue end),
// aggregated with our default and with the authors' clustering and
// cells; with --root, whether our root under their choices is theirs (v,
// memory, disk[, power, queue end]).
func starsVecDump(ctx context.Context, args []string) error {
	path, rootPath, n, sf, err := dumpFlags("stars-vec-dump", args)
	if err != nil {
		return err
	}
	nodes, err := readDump(path, n)
	if err != nil {
		return err
	}
	if len(nodes) != n {
		return fmt.Errorf("%d nodes in %s, want %d", len(nodes), path, n)
	}
	mmp := len(nodes[0]) == 4
	pol := overlay.PolicyIBP
	if mmp {
		pol = overlay.PolicyMMP
	}
	for i, x := range nodes {
		if len(x) != len(nodes[0]) || len(x) != 2 && len(x) != 4 {
			return fmt.Errorf("%s: node %d has %d numbers, want 2 (IBP) or 4 (MMP) like the first", path, i+1, len(x))
		}
	}
	var theirs [][]float64
	if rootPath != "" {
		if theirs, err = readDump(rootPath, math.MaxInt); err != nil {
			return err
		}
	}
	for _, authors := range []bool{false, true} {
		o := overlay.DefaultOptions(pol)
		o.SFMax = sf
		if authors {
			o.Clustering, o.Cells = stars.NewKNN(pol), stars.Cells{}
		}
		p, err := overlay.NewRules(o)
		if err != nil {
			return err
		}
		leaves := make([]overlay.Summary, n)
		var tot [4]float64
		maxQ := 0.0
		f32 := overlay.Float32Down
		for i, x := range nodes {
			if mmp {
				leaves[i] = overlay.MMPSummary{{Mem: f32(x[0]), Disk: f32(x[1]), Power: f32(x[2]), Q: x[3], V: 1}}
				maxQ = max(maxQ, x[3])
			} else {
				leaves[i] = overlay.IBPSummary{{Mem: f32(x[0]), Disk: f32(x[1]), V: 1}}
			}
			for k := range x {
				tot[k] += x[k]
			}
		}
		r, _ := accuracy.AggregateTree(p, leaves)
		// our root as rows like theirs: v, memory, disk[, power, queue end]
		var rows [][]float64
		switch s := overlay.Plain(r).(type) {
		case overlay.MMPSummary:
			for _, c := range s {
				rows = append(rows, []float64{float64(c.V), float64(c.Mem), float64(c.Disk), float64(c.Power), c.Q})
			}
		case overlay.IBPSummary:
			for _, c := range s {
				rows = append(rows, []float64{float64(c.V), float64(c.Mem), float64(c.Disk)})
			}
		}
		var agg [4]float64
		for _, c := range rows {
			for k := 1; k < len(c); k++ {
				if k == 4 {
					agg[3] += c[0] * (maxQ - c[4])
				} else {
					agg[k-1] += c[0] * c[k]
				}
			}
		}
		N := float64(n)
		acc := func(k int, lo float64) float64 { return 100 * (agg[k] - N*lo) / (tot[k] - N*lo) }
		line := fmt.Sprintf("memory %.4f disk %.4f", acc(0, accuracy.MemLo), acc(1, accuracy.DiskLo))
		if mmp {
			line += fmt.Sprintf(" power %.4f queue %.4f", acc(2, accuracy.PowLo), 100*agg[3]/(N*maxQ-tot[3]))
		}
		fmt.Printf("authors' clustering and cells %v, n=%d sf=%d: %s (%d functions)\n", authors, n, sf, line, len(rows))
		if authors && theirs != nil {
			key := map[[5]float64]int{}
			for _, c := range rows {
				key[[5]float64(append(c, 0, 0)[:5])]++
			}
			same := len(theirs) == len(rows)
			for _, x := range theirs {
				k := [5]float64(append(x, 0, 0, 0, 0, 0)[:5])
				same = same && key[k] > 0
				key[k]--
			}
			fmt.Printf("  root the same as theirs: %v\n", same)
		}
	}
	return nil
}
