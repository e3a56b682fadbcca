package overlay_test

import (
	"fmt"

	"github.com/volsched/volsched/overlay"
)

// Example builds a small overlay by hand — a root router 0 over the
// execution node 1 and router 2, router 2 over the execution nodes 3 and
// 4 — lets the nodes report their availability, then submits 3 tasks of
// 1000 MB from node 1 (512 MB: it cannot run them) and prints where they
// went: one to each idle node that fits, the third back to the submitter
// from the root. Messages are delivered
// in order at one instant (a driver would add network delays, and encode
// them with AppendMsg to send them).
func Example() {
	rules, err := overlay.NewRules(overlay.DefaultOptions(overlay.PolicyIBP))
	if err != nil {
		panic(err)
	}
	cfg := &overlay.Config{Rules: rules}
	routers := map[overlay.Addr]*overlay.Router{}
	for _, l := range []overlay.Links{
		{Self: 0, Father: overlay.NoAddr, Left: 1, Right: 2, LeftLeaf: true},
		{Self: 2, Father: 0, Left: 3, Right: 4, LeftLeaf: true, RightLeaf: true},
	} {
		r, err := overlay.NewRouter(l)
		if err != nil {
			panic(err)
		}
		routers[l.Self] = &r
	}
	leaves := map[overlay.Addr]*overlay.Leaf{}
	for _, n := range []struct {
		self, father overlay.Addr
		mem          float64
	}{{1, 0, 512}, {3, 2, 2048}, {4, 2, 4096}} {
		l, err := overlay.NewLeaf(n.self, n.father, &overlay.IBPExec{Mem: n.mem, Disk: 10000, Power: 1000})
		if err != nil {
			panic(err)
		}
		leaves[n.self] = &l
	}
	deliver := func(q []overlay.Msg) {
		for len(q) > 0 {
			m := q[0]
			q = q[1:]
			switch m.Kind {
			case overlay.KindAccepted:
				fmt.Printf("node %d accepted %d task(s) of application %d\n", m.From, m.Req.N, m.Req.App.ID)
				continue
			case overlay.KindReturn:
				fmt.Printf("%d task(s) of application %d could not be placed\n", m.Req.N, m.Req.App.ID)
				continue
			}
			if l, ok := leaves[m.To]; ok {
				q = l.Step(cfg, 0, m, q)
			} else {
				q = routers[m.To].Step(cfg, 0, m, q)
			}
		}
	}
	// every execution node reports its first summary
	deliver([]overlay.Msg{{Kind: overlay.KindTick, To: 1}, {Kind: overlay.KindTick, To: 3}, {Kind: overlay.KindTick, To: 4}})
	fmt.Printf("the root knows %d idle nodes\n", routers[0].Summary().Nodes())
	// node 1 submits: the request goes to its father, the root
	app := overlay.App{ID: 7, Length: 60000, Mem: 1000, Disk: 100}
	deliver([]overlay.Msg{{Kind: overlay.KindRequest, From: 1, To: 0,
		Req: overlay.Request{App: app, Submitter: 1, Src: overlay.NoAddr, N: 3}}})
	// Output:
	// the root knows 3 idle nodes
	// 1 task(s) of application 7 could not be placed
	// node 3 accepted 1 task(s) of application 7
	// node 4 accepted 1 task(s) of application 7
}
