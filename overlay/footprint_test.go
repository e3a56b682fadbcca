package overlay

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/volsched/volsched/stream"
)

// buildOverlay builds n leaves with random execution nodes of the policy
// and delivers every update bottom-up, returning what a simulator would
// keep: the tree, routers, leaves and the execs they point to.
func buildOverlay(pol Policy, n, sfmax int) (*Tree, []Router, []Leaf) {
	p, _ := newRules(pol, sfmax)
	c := &Config{Rules: p}
	t := NewTree(n)
	routers := make([]Router, t.Vertices())
	leaves := make([]Leaf, n)
	r := stream.New(3, 0xf007)
	pending := make([][]Msg, t.Vertices())
	for i := range leaves {
		m, d, s := uniformTest(r, 1, 4096), uniformTest(r, 1, 5000), uniformTest(r, 1, 3000)
		var e Exec
		switch pol {
		case PolicyIBP:
			e = &IBPExec{Mem: m, Disk: d, Power: s}
		case PolicyMMP:
			e = &MMPExec{Mem: m, Disk: d, Power: s, Q: uniformTest(r, 0, 2000)}
		case PolicyDP:
			de := &DPExec{Mem: m, Disk: d, Power: s}
			de.Accept(0, App{Length: s * uniformTest(r, 300, 3600), Deadline: 5000}, 1, 0)
			e = de
		}
		v := t.Leaf(i)
		leaves[i] = Leaf{Self: v, Father: t.Father(v), Exec: e}
		for _, m := range leaves[i].Step(c, 0, Msg{Kind: KindTick}, nil) {
			pending[m.To] = append(pending[m.To], m)
		}
	}
	for v := t.Vertices() - 1; v >= 0; v-- { // children before fathers (pre-order numbering)
		if t.IsLeaf(Addr(v)) {
			continue
		}
		routers[v] = t.Router(Addr(v))
		// Only the last update of each child: delivering every one would
		// make each level send twice as many updates as the level below
		// (the cascade §4.3 warns about), O(n log n) aggregations.
		last := map[Addr]Msg{}
		for _, m := range pending[v] {
			last[m.From] = m
		}
		for _, from := range []Addr{routers[v].Left, routers[v].Right} {
			m, ok := last[from]
			if !ok {
				continue
			}
			for _, o := range routers[v].Step(c, 0, m, nil) {
				if o.Kind == KindUpdate {
					pending[o.To] = append(pending[o.To], o)
				}
			}
		}
		pending[v] = nil
	}
	return t, routers, leaves
}

// TestFootprint measures the heap per simulated node (OVERLAY_FOOTPRINT=n).
func TestFootprint(t *testing.T) {
	s := os.Getenv("OVERLAY_FOOTPRINT")
	if s == "" {
		t.Skip("set OVERLAY_FOOTPRINT=<nodes>")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pol Policy
		k   int
	}{{PolicyIBP, 225}, {PolicyMMP, 256}, {PolicyDP, 216}} {
		if p := os.Getenv("OVERLAY_FOOTPRINT_POLICY"); p != "" && p != c.pol.String() {
			continue
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st := time.Now()
		tr, routers, leaves := buildOverlay(c.pol, n, c.k)
		el := time.Since(st)
		runtime.GC()
		runtime.ReadMemStats(&after)
		root := routers[0].Summary()
		t.Logf("%s n=%d sfmax=%d: %.0f bytes per node (heap %d MB), root covers %d, built in %v",
			c.pol, n, c.k, float64(after.HeapAlloc-before.HeapAlloc)/float64(n), (after.HeapAlloc-before.HeapAlloc)>>20, root.Nodes(), el)
		runtime.KeepAlive(tr)
		runtime.KeepAlive(leaves)
	}
}
