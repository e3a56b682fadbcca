package overlay

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestStarsDumpAccuracy aggregates the DP nodes of a run of the authors'
// aggregation test, dumped one line per node in leaf order (memory, disk,
// power, final slope, then (δ, l) pairs; none for a free node), with our DP
// under our default and under the authors' choices (DistStars, their
// clustering and cells), so that the two tools are compared on the same
// nodes. With STARS_ROOT, their root summary (one line per function: v,
// memory, disk, slope, pairs) is read too: its accuracy by our code, and
// whether our root under the authors' choices is the same set of (v,
// memory, disk, slope). A measurement against a file outside the
// repository (STARS_DUMP=file STARS_N=nodes STARS_SF=sfmax; how the dump is
// made: docs/reproduction-004.md, "The authors' tool, built and run").
func TestStarsDumpAccuracy(t *testing.T) {
	path, n, sf := dumpEnv(t, "STARS_DUMP")
	type node struct {
		m, d float64
		l    LFunc
	}
	var nodes []node
	for _, x := range readDump(t, path, n) {
		nodes = append(nodes, node{m: x[0], d: x[1], l: dumpedL(x[3], x[4:])})
	}
	if len(nodes) != n {
		t.Fatalf("%d nodes in %s, want %d", len(nodes), path, n)
	}
	ls := make([]LFunc, n)
	for i := range nodes {
		ls[i] = nodes[i].l
	}
	var theirs DPSummary
	if rp := os.Getenv("STARS_ROOT"); rp != "" {
		for _, x := range readDump(t, rp, math.MaxInt) {
			theirs = append(theirs, DPCluster{V: int32(x[0]), Mem: float32(x[1]), Disk: float32(x[2]), L: dumpedL(x[3], x[4:])})
		}
		t.Logf("their root (%d functions, %d nodes): l accuracy by our code %.4f", len(theirs), theirs.Nodes(), 100*lAccuracy(ls, theirs))
	}
	for _, c := range []struct {
		dist    Distance
		knn     int
		stars   bool
		authors bool
	}{{DistMSE, 0, false, false}, {DistStars, 20, true, true}} {
		pol, _ := newDP(sf, DefaultSamples, DefaultHorizon)
		pol.o.Distance, pol.knn, pol.starsCells = c.dist, c.knn, c.stars
		leaves := make([]Summary, n)
		var tm, td float64
		for i, nd := range nodes {
			l := LFunc{P: append([]LPoint(nil), nd.l.P...), Slope: nd.l.Slope}
			if c.dist != DistStars {
				l.reduce(pol.o.Samples, pol.o.Horizon)
			}
			leaves[i] = DPSummary{{Mem: f32down(nd.m), Disk: f32down(nd.d), V: 1, L: l}}
			tm += nd.m
			td += nd.d
		}
		r, _ := aggregateTree(pol, leaves)
		root := asDP(r)
		var am, ad float64
		for i := range root {
			am += float64(root[i].V) * float64(root[i].Mem)
			ad += float64(root[i].V) * float64(root[i].Disk)
		}
		// the authors' minimum: N × the generator's lower bound
		lo := func(b float64) float64 { return float64(n) * b }
		t.Logf("%s, authors' clustering and cells %v, n=%d sf=%d: memory %.4f disk %.4f l %.4f (%d functions)", c.dist, c.authors, n, sf,
			100*(am-lo(accMemLo))/(tm-lo(accMemLo)), 100*(ad-lo(accDiskLo))/(td-lo(accDiskLo)), 100*lAccuracy(ls, root), len(root))
		if c.authors && theirs != nil {
			key := func(s DPSummary) map[[4]float64]int {
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
			t.Logf("  root the same (v, memory, disk, slope) as theirs: %v", same)
		}
	}
}

// readDump reads up to max lines of numbers from a dump file.
func readDump(t *testing.T, path string, max int) [][]float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() && len(out) < max {
		fs := strings.Fields(sc.Text())
		x := make([]float64, len(fs))
		for i := range fs {
			if x[i], err = strconv.ParseFloat(fs[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, x)
	}
	return out
}

// dumpedL is a dumped l function: (δ, l) pairs, none for a free node
// (theirs: free from now on at the slope; ours: a single sample (now, 0)).
func dumpedL(slope float64, pts []float64) LFunc {
	l := LFunc{Slope: slope}
	for i := 0; i+1 < len(pts); i += 2 {
		l.P = append(l.P, LPoint{T: pts[i], L: pts[i+1]})
	}
	if len(l.P) == 0 {
		l.P = []LPoint{{starsNow, 0}}
	}
	return l
}

// TestStarsDumpVec is TestStarsDumpAccuracy for IBP and MMP: nodes dumped
// by the authors' IBP test (memory, disk) or MMP test (memory, disk,
// power, queue end), aggregated with our default and with the authors'
// clustering and cells; with STARS_ROOT, whether our root under their
// choices is theirs (v, memory, disk[, power, queue end]).
// STARS_VEC_DUMP=file STARS_N=nodes STARS_SF=sfmax.
func TestStarsDumpVec(t *testing.T) {
	path, n, sf := dumpEnv(t, "STARS_VEC_DUMP")
	nodes := readDump(t, path, n)
	if len(nodes) != n {
		t.Fatalf("%d nodes in %s, want %d", len(nodes), path, n)
	}
	mmp := len(nodes[0]) == 4
	var theirs [][]float64
	if rp := os.Getenv("STARS_ROOT"); rp != "" {
		theirs = readDump(t, rp, math.MaxInt)
	}
	for _, authors := range []bool{false, true} {
		var pol Rules
		leaves := make([]Summary, n)
		if mmp {
			p, _ := newMMP(sf, DefaultBeta)
			if authors {
				p.knn, p.starsCells = 10, true
			}
			pol = p
		} else {
			p, _ := newIBP(sf)
			if authors {
				p.knn, p.starsCells = 10, true
			}
			pol = p
		}
		var tot [4]float64
		maxQ := 0.0
		for i, x := range nodes {
			if mmp {
				leaves[i] = MMPSummary{{Mem: f32down(x[0]), Disk: f32down(x[1]), Power: f32down(x[2]), Q: x[3], V: 1}}
				maxQ = max(maxQ, x[3])
			} else {
				leaves[i] = IBPSummary{{Mem: f32down(x[0]), Disk: f32down(x[1]), V: 1}}
			}
			for k := range x {
				tot[k] += x[k]
			}
		}
		r, _ := aggregateTree(pol, leaves)
		// our root as rows like theirs: v, memory, disk[, power, queue end]
		var rows [][]float64
		if mmp {
			for _, c := range asMMP(r) {
				rows = append(rows, []float64{float64(c.V), float64(c.Mem), float64(c.Disk), float64(c.Power), c.Q})
			}
		} else {
			for _, c := range asIBP(r) {
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
		line := fmt.Sprintf("memory %.4f disk %.4f", acc(0, accMemLo), acc(1, accDiskLo))
		if mmp {
			line += fmt.Sprintf(" power %.4f queue %.4f", acc(2, accPowLo), 100*agg[3]/(N*maxQ-tot[3]))
		}
		t.Logf("authors' clustering and cells %v, n=%d sf=%d: %s (%d functions)", authors, n, sf, line, len(rows))
		if authors && theirs != nil {
			key := map[[5]float64]int{}
			for _, c := range rows {
				key[[5]float64(append(c, 0, 0)[:5])]++
			}
			same := len(theirs) == len(rows)
			for _, x := range theirs {
				k := [5]float64(append(x, 0, 0)[:5])
				same = same && key[k] > 0
				key[k]--
			}
			t.Logf("  root the same as theirs: %v", same)
		}
	}
}

// dumpEnv reads the dump's path from the variable key (skipping the test
// without it), the number of nodes (STARS_N) and SF_max (STARS_SF).
func dumpEnv(t *testing.T, key string) (path string, n, sf int) {
	path = os.Getenv(key)
	if path == "" {
		t.Skip("set " + key)
	}
	n, err := strconv.Atoi(os.Getenv("STARS_N"))
	if err != nil || n < 1 {
		t.Fatalf("STARS_N %q: want a number of nodes", os.Getenv("STARS_N"))
	}
	sf, err = strconv.Atoi(os.Getenv("STARS_SF"))
	if err != nil || sf < 1 {
		t.Fatalf("STARS_SF %q: want SF_max", os.Getenv("STARS_SF"))
	}
	return path, n, sf
}
