package node

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// sleepRunner runs a task in-process: it sleeps d, then writes its input
// with " ok" appended as the output (the large tests' tasks: their cost is
// the overlay's, not fork and exec's).
type sleepRunner struct {
	d    time.Duration
	runs *atomic.Int64
}

func (r sleepRunner) Run(ctx context.Context, s RunSpec) RunResult {
	select {
	case <-time.After(r.d):
	case <-ctx.Done():
		return RunResult{Exit: -1, Err: "cancelled"}
	}
	in, err := os.ReadFile(s.Input)
	if err != nil {
		return RunResult{Exit: 1, Err: err.Error()}
	}
	if err := os.WriteFile(s.Output, append(in, " ok"...), 0o600); err != nil {
		return RunResult{Exit: 1, Err: err.Error()}
	}
	if r.runs != nil {
		r.runs.Add(1)
	}
	return RunResult{}
}

type submitted struct {
	node  int
	bag   uint64
	tasks int
}

// submitBags submits a bag of k tasks at each of the given nodes.
func (cl *cluster) submitBags(at []int, k int, length float64) []submitted {
	var out []submitted
	for _, i := range at {
		inputs := make([][]byte, k)
		for j := range inputs {
			inputs[j] = []byte(fmt.Sprintf("n%d-t%d", i, j))
		}
		c := cl.client(i)
		id, err := c.Submit(cl.ctx, &Job{Name: fmt.Sprintf("bag-at-%d", i), Tasks: k, Length: length, Program: []byte("#!/bin/sh\n"), Inputs: inputs})
		if err != nil {
			cl.t.Fatal(err)
		}
		out = append(out, submitted{i, id, k})
	}
	return out
}

// waitBags waits until every bag is done and checks each result.
func (cl *cluster) waitBags(bags []submitted, timeout time.Duration) {
	t := cl.t
	for _, b := range bags {
		nd := cl.nodes[b.node]
		waitFor(t, timeout, fmt.Sprintf("bag %d at node %d", b.bag, b.node), func() (bool, string) {
			s, ok := nd.Status()
			if !ok {
				return false, "node stopped"
			}
			for _, x := range s.Bags {
				if x.ID == b.bag {
					return x.Done == x.Tasks, fmt.Sprintf("%+v", x)
				}
			}
			return false, "no such bag"
		})
		res, err := cl.client(b.node).Results(cl.ctx, b.bag)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != b.tasks {
			t.Fatalf("bag %d: %d results for %d tasks", b.bag, len(res), b.tasks)
		}
		for j, r := range res {
			if want := fmt.Sprintf("n%d-t%d ok", b.node, j); r.State != "done" || string(r.Output) != want {
				t.Fatalf("bag %d task %d: %s %q, want done %q", b.bag, j, r.State, r.Output, want)
			}
		}
	}
}

// resubmitted sums the bags' resubmissions.
func (cl *cluster) resubmitted(bags []submitted) int {
	k := 0
	for _, b := range bags {
		s, _ := cl.nodes[b.node].Status()
		for _, x := range s.Bags {
			if x.ID == b.bag {
				k += x.Resubmitted
			}
		}
	}
	return k
}

func TestManyDaemons(t *testing.T) {
	n := 256
	if testing.Short() {
		n = 64
	}
	var runs atomic.Int64
	cl := newCluster(t, n, false, func(i int, c *Config) {
		// Slower heartbeats than the small tests': 256 daemons share the
		// test machine's cores.
		c.Heartbeat, c.DeadAfter, c.Detect, c.StartGrace = 250*time.Millisecond, 2500*time.Millisecond, 5*time.Second, 10*time.Second
		if testing.Short() {
			c.Heartbeat, c.DeadAfter, c.Detect, c.StartGrace = 100*time.Millisecond, time.Second, 3*time.Second, 5*time.Second
		}
		c.Runner = sleepRunner{d: 20 * time.Millisecond, runs: &runs}
	})
	start := time.Now()
	waitFor(t, 30*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	t.Logf("%d daemons: tree in %v", n, time.Since(start).Round(time.Millisecond))

	// Without failures: every task runs exactly once.
	bags := cl.submitBags([]int{1, n / 3, n / 2, n - 2}, 2*n/4+n/8, 20)
	total := 0
	for _, b := range bags {
		total += b.tasks
	}
	cl.waitBags(bags, 60*time.Second)
	// A task runs again only when its submission node resubmitted it (no
	// news within Detect, which an overloaded test machine can cause).
	resub := cl.resubmitted(bags)
	if got := runs.Load(); got < int64(total) || got > int64(total+resub) {
		t.Errorf("no failures: %d task runs for %d tasks, %d resubmitted", got, total, resub)
	}
	t.Logf("%d tasks in %d bags done after %v: %d runs, %d resubmissions; frames dropped %d, invalid %d", total, len(bags),
		time.Since(start).Round(time.Millisecond), runs.Load(), resub, cl.traffic().Dropped, cl.traffic().Invalid)

	// Kill 10% of the nodes mid-run, the root's player and a root child's
	// among them; the submission nodes stay.
	subs := map[int]bool{2: true, n / 4: true, 3 * n / 4: true}
	bags = cl.submitBags([]int{2, n / 4, 3 * n / 4}, n, 20)
	time.Sleep(300 * time.Millisecond)
	victims := map[int]bool{}
	if r := cl.rootPlayer(cl.nodes); r >= 0 && !subs[r] {
		victims[r] = true
	}
	for i := 0; len(victims) < n/10; i++ {
		k := (i*7919 + 13) % n
		if !subs[k] {
			victims[k] = true
		}
	}
	var live []*Node
	for i, nd := range cl.nodes {
		if victims[i] {
			nd.Kill()
		} else {
			live = append(live, nd)
		}
	}
	t.Logf("killed %d of %d nodes", len(victims), n)
	cl.waitBags(bags, 90*time.Second)
	dup := 0
	for _, b := range bags {
		s, _ := cl.nodes[b.node].Status()
		for _, x := range s.Bags {
			if x.ID == b.bag {
				dup += x.Duplicates
			}
		}
	}
	t.Logf("after the failures, %d bags done (%d duplicate results counted once), %v", len(bags), dup, time.Since(start).Round(time.Millisecond))
	waitFor(t, 60*time.Second, "tree recovered", func() (bool, string) {
		d, err := treeCheck(live)
		if err != nil {
			return false, err.Error()
		}
		lo, hi := depthRange(d)
		return len(d) == len(live), fmt.Sprintf("%d leaves of %d, depths %d..%d", len(d), len(live), lo, hi)
	})
	d, _ := treeCheck(live)
	lo, hi := depthRange(d)
	t.Logf("tree of %d live nodes recovered, leaf depths %d..%d, %v", len(live), lo, hi, time.Since(start).Round(time.Millisecond))
}

// traffic sums the live nodes' traffic.
func (cl *cluster) traffic() Traffic {
	var t Traffic
	for _, nd := range cl.nodes {
		s, ok := nd.Status()
		if !ok {
			continue
		}
		x := s.Traffic
		t.MsgsOut += x.MsgsOut
		t.BytesOut += x.BytesOut
		t.MsgsIn += x.MsgsIn
		t.BytesIn += x.BytesIn
		t.Dropped += x.Dropped
		t.Refused += x.Refused
		t.Invalid += x.Invalid
	}
	return t
}
