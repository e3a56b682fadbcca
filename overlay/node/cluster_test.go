package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/volsched/volsched/overlay"
)

// testCreds are one CA and one certificate shared by the test's nodes
// and clients (issuing one per node is what an operator does; the tests
// only need the CA to be the same).
type testCreds struct {
	cert tls.Certificate
	ca   *x509.Certificate
}

var (
	credsOnce sync.Once
	creds     testCreds
	credsErr  error
)

func sharedCreds(t testing.TB) testCreds {
	credsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "volsched-node-creds")
		if err != nil {
			credsErr = err
			return
		}
		defer os.RemoveAll(dir)
		if _, err := InitCA(filepath.Join(dir, "ca")); err != nil {
			credsErr = err
			return
		}
		if err := Issue(filepath.Join(dir, "ca"), "test-node", []string{"127.0.0.1", "localhost"}, time.Hour, filepath.Join(dir, "node")); err != nil {
			credsErr = err
			return
		}
		creds.cert, creds.ca, credsErr = LoadCredentials(filepath.Join(dir, "node"))
	})
	if credsErr != nil {
		t.Fatal(credsErr)
	}
	return creds
}

// cluster is a set of daemons in this test process.
type cluster struct {
	t     testing.TB
	nodes []*Node
	cfg   func(i int, c *Config)
	dir   string
	ctx   context.Context
	stop  context.CancelFunc
	mu    sync.Mutex
	logs  []string
	quiet bool
}

// listeners opens n loopback listeners and returns them with their
// addresses.
func listeners(t testing.TB, n int) ([]net.Listener, []string) {
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i], addrs[i] = ln, ln.Addr().String()
	}
	return lns, addrs
}

// newCluster starts n daemons bootstrapped from their common membership
// (peers), or joining one after the other when join is set.
func newCluster(t testing.TB, n int, join bool, cfg func(i int, c *Config)) *cluster {
	cr := sharedCreds(t)
	ctx, cancel := context.WithCancel(context.Background())
	cl := &cluster{t: t, cfg: cfg, dir: t.TempDir(), ctx: ctx, stop: cancel, quiet: true}
	lns, addrs := listeners(t, n)
	t.Cleanup(func() {
		cl.closeAll()
		if t.Failed() || os.Getenv("VOLSCHED_NODE_LOG") != "" {
			cl.dumpLogs()
		}
	})
	cfgs := make([]Config, n)
	for i := range cfgs {
		c := Config{Listener: lns[i], Options: overlay.Options{Policy: overlay.PolicyIBP}, State: filepath.Join(cl.dir, fmt.Sprint(i)), Cert: cr.cert, CA: cr.ca,
			Heartbeat: 50 * time.Millisecond, DeadAfter: time.Second, StartGrace: 2 * time.Second, Detect: 3 * time.Second, Retry: 50 * time.Millisecond, Bandwidth: 100e3, Seed: uint64(i + 1)}
		if join {
			if i > 0 {
				c.Join = []string{addrs[0]}
			}
		} else {
			c.Peers = addrs
		}
		addr := addrs[i]
		c.Logf = func(format string, args ...any) {
			cl.mu.Lock()
			cl.logs = append(cl.logs, time.Now().Format("15:04:05.000")+" "+addr+": "+fmt.Sprintf(format, args...))
			cl.mu.Unlock()
		}
		if cfg != nil {
			cfg(i, &c)
		}
		cfgs[i] = c
	}
	if join {
		// One after the other, each started as soon as it is made.
		for i := range cfgs {
			nd, err := New(cfgs[i])
			if err != nil {
				t.Fatal(err)
			}
			cl.nodes = append(cl.nodes, nd)
			nd.Start(ctx)
		}
		return cl
	}
	// Made a few at a time (each creates its state database, waiting on
	// the disk's syncs: 256 one after the other take seconds), then all
	// started.
	nodes := make([]*Node, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range cfgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			nodes[i], errs[i] = New(cfgs[i])
		}()
	}
	wg.Wait()
	for i, nd := range nodes {
		if nd != nil {
			cl.nodes = append(cl.nodes, nd)
		} else {
			lns[i].Close()
		}
	}
	for _, nd := range cl.nodes {
		nd.Start(ctx)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return cl
}

func (cl *cluster) closeAll() {
	var wg sync.WaitGroup
	for _, n := range cl.nodes {
		wg.Add(1)
		go func() { defer wg.Done(); n.Kill() }()
	}
	wg.Wait()
	cl.stop()
}

func (cl *cluster) dumpLogs() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if p := os.Getenv("VOLSCHED_NODE_LOG"); p != "" {
		// All of it, for debugging.
		os.WriteFile(p, []byte(strings.Join(cl.logs, "\n")), 0o644)
	}
	if !cl.t.Failed() {
		return
	}
	k := len(cl.logs)
	from := max(0, k-300)
	for _, l := range cl.logs[from:] {
		cl.t.Log(l)
	}
}

// client dials node i.
func (cl *cluster) client(i int) *Client {
	cr := sharedCreds(cl.t)
	c, err := Dial(cl.ctx, cl.nodes[i].Addr(), cr.cert, cr.ca)
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.t.Cleanup(func() { c.Close() })
	return c
}

// waitSlack multiplies every waitFor timeout. The timeouts only bound a
// failing test (nothing asserts a time): they are what each step takes on
// a loaded machine, times waitSlack for a CI machine running every
// package's tests at once on two cores (a step of TestManyDaemons, the
// longest, gives up after 1 to 3 minutes).
const waitSlack = 2

// waitFor polls cond until it holds or the timeout (times waitSlack)
// passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	timeout *= waitSlack
	end := time.Now().Add(timeout)
	var last string
	for time.Now().Before(end) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not after %v (%s)", what, timeout, last)
}

// treeCheck walks the tree from the nodes' own views and checks that it
// is one tree covering every live node's leaf exactly once, each edge
// seen the same way from both ends. It returns the leaves' depths.
func treeCheck(nodes []*Node) (map[string]int, error) {
	type vkey struct {
		id   int32
		node string
	}
	views := map[vkey]View{}
	leaves := map[vkey]bool{}
	var roots []vkey
	for _, n := range nodes {
		s, ok := n.Status()
		if !ok {
			continue
		}
		if s.Leaf.None() {
			return nil, fmt.Errorf("%s has no leaf", n.Addr())
		}
		lk := vkey{int32(s.Leaf.ID), s.Leaf.Node}
		views[lk] = View{Self: s.Leaf, Father: s.Father}
		leaves[lk] = true
		if s.Father.None() {
			roots = append(roots, lk)
		}
		for _, r := range s.Routers {
			if r.Detached {
				return nil, fmt.Errorf("%s: router %v detached", n.Addr(), r.View.Self)
			}
			k := vkey{int32(r.View.Self.ID), r.View.Self.Node}
			if _, dup := views[k]; dup {
				return nil, fmt.Errorf("vertex %v played twice", r.View.Self)
			}
			views[k] = r.View
			if r.View.Father.None() {
				roots = append(roots, k)
			}
		}
	}
	if len(roots) != 1 {
		return nil, fmt.Errorf("%d roots: %v", len(roots), roots)
	}
	depth := map[string]int{}
	seen := map[vkey]bool{}
	var walk func(k vkey, d int) error
	walk = func(k vkey, d int) error {
		if seen[k] {
			return fmt.Errorf("vertex %v reached twice", k)
		}
		seen[k] = true
		v, ok := views[k]
		if !ok {
			return fmt.Errorf("vertex %v: no live node plays it", k)
		}
		if leaves[k] {
			depth[k.node] = d
			return nil
		}
		for _, c := range []Ref{v.Left, v.Right} {
			ck := vkey{int32(c.ID), c.Node}
			cv, ok := views[ck]
			if !ok {
				return fmt.Errorf("child %v of %v: not played", c, v.Self)
			}
			if cv.Father.ID != v.Self.ID || cv.Father.Node != v.Self.Node {
				return fmt.Errorf("child %v of %v thinks its father is %v", c, v.Self, cv.Father)
			}
			if err := walk(ck, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(roots[0], 0); err != nil {
		return nil, err
	}
	if len(seen) != len(views) {
		return nil, fmt.Errorf("%d vertices reachable of %d played", len(seen), len(views))
	}
	return depth, nil
}

const catProgram = "#!/bin/sh\n{ cat \"$1\"; echo \" done\"; } > \"$2\"\n"

func TestSmallClusterRunsBag(t *testing.T) {
	cl := newCluster(t, 5, false, nil)
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	c := cl.client(2)
	inputs := make([][]byte, 12)
	for i := range inputs {
		inputs[i] = []byte(fmt.Sprintf("task %d", i))
	}
	id, err := c.Submit(cl.ctx, &Job{Name: "cat", Tasks: 12, Length: 10, Program: []byte(catProgram), Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "bag done", func() (bool, string) {
		s, err := c.Status(cl.ctx)
		if err != nil || len(s.Bags) != 1 {
			return false, fmt.Sprint(err)
		}
		b := s.Bags[0]
		return b.Done == b.Tasks, fmt.Sprintf("%+v", b)
	})
	res, err := c.Results(cl.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 12 {
		t.Fatalf("%d results, want 12", len(res))
	}
	nodes := map[string]bool{}
	for i, r := range res {
		if want := fmt.Sprintf("task %d done\n", i); string(r.Output) != want || r.State != "done" {
			t.Errorf("task %d: %q (%s), want %q", i, r.Output, r.State, want)
		}
		nodes[r.Node] = true
	}
	keys := make([]string, 0, len(nodes))
	for k := range nodes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("ran on %v", keys)
	if len(nodes) < 2 {
		t.Errorf("12 IBP tasks on 5 one-slot nodes ran on %d node(s)", len(nodes))
	}
}
