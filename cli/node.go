package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/overlay/node"
)

// volsched node: the overlay daemon (docs/overlay-node.md) and its
// client commands. Flags and wiring only: everything is in overlay/node.

func init() {
	c := node.DefaultConfig()
	var creds, peersArg, metrics, policy string
	var joins []string
	cmd := &cobra.Command{
		Use:   "node --listen ADDR --state DIR --creds DIR [--join ADDR | --peers FILE]",
		Short: "Run an overlay node: the tree of seed 004 over the network, running bags of tasks",
		Long: `node runs one daemon of the decentralized scheduler of seed 004 (Celaya and
Arronategui): the execution role (tasks run here as processes, program INPUT
OUTPUT), the submission role (bags submitted here with 'volsched node
submit') and the routing roles the tree gives it, on a balanced binary tree
that the daemons build and repair between themselves.

--join ADDR joins the tree through a member; --peers FILE (one address a
line, or a comma-separated list) places every node of a known membership in
the same tree as the simulator (oversim) builds over the sorted addresses;
neither starts a tree of one node, or, started again with the state of an
earlier run, rejoins through the members it remembers (a new tree if none
answers).

Nodes authenticate each other with certificates from the cluster's CA:
'volsched node ca init --dir CA' then 'volsched node ca issue --dir CA
--name ADDR --out DIR' for each node (and one for the operator's client
commands). The state (bags submitted here, results, programs) is in --state.
See docs/overlay-node.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if creds == "" {
				return usagef("node: --creds is required (the directory 'volsched node ca issue' wrote)")
			}
			p, err := overlay.ParsePolicy(policy)
			if err != nil {
				return usagef("--%v", err)
			}
			c.Policy = p
			cert, ca, err := node.LoadCredentials(creds)
			if err != nil {
				return usagef("--creds: %v", err)
			}
			c.Cert, c.CA = cert, ca
			c.Join = joins
			if peersArg != "" {
				p, err := node.ReadPeers(peersArg)
				if err != nil {
					return usagef("--peers: %v", err)
				}
				c.Peers = p
			}
			if err := c.Validate(); err != nil {
				return usagef("%v", err)
			}
			if metrics != "" {
				if _, _, err := net.SplitHostPort(metrics); err != nil {
					return usagef("--metrics %q: want host:port", metrics)
				}
			}
			lg := log.New(os.Stderr, "volsched node: ", log.LstdFlags|log.Lmicroseconds)
			c.Logf = lg.Printf
			// The metrics listener first: a node made must be started
			// before it can be closed.
			var mln net.Listener
			if metrics != "" {
				ln, err := net.Listen("tcp", metrics)
				if err != nil {
					return fmt.Errorf("node: --metrics: %w", err)
				}
				mln = ln
			}
			n, err := node.New(c)
			if err != nil {
				if mln != nil {
					mln.Close()
				}
				// A configuration node.New refuses is a usage error; what
				// the machine refuses (an address in use, a state
				// directory that cannot be opened) is not.
				if _, ok := errors.AsType[*node.ConfigError](err); ok {
					return usagef("%v", err)
				}
				return fmt.Errorf("node: %w", err)
			}
			ctx := cmd.Context()
			if mln != nil {
				srv := &http.Server{Handler: n.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second}
				go srv.Serve(mln)
				defer srv.Close()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "volsched node: %s (policy %s), state in %s\n", n.Addr(), c.Policy, c.State)
			n.Start(ctx)
			select {
			case <-ctx.Done():
				n.Close()
				fmt.Fprintln(cmd.ErrOrStderr(), "volsched node: stopped; the state is kept, the same command rejoins")
			case <-n.Done():
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Listen, "listen", "", "address to listen on (host:port)")
	f.StringVar(&c.Advertise, "advertise", "", "address the other nodes reach this one at, also its identity (default: the listener's)")
	f.StringSliceVar(&joins, "join", nil, "member(s) to join the tree through (repeatable)")
	f.StringVar(&peersArg, "peers", "", "the whole initial membership: a file of addresses (one a line) or a comma-separated list; every node builds the simulator's tree over them")
	f.StringVar(&policy, "policy", "ibp", "scheduling policy: "+overlay.PolicyNames()+" (the same on every node)")
	f.IntVar(&c.SFMax, "sfmax", 0, "maximum summary size SF_max (0: the policy's default, for ibp, mmp, dp the paper's 225, 256, 216)")
	f.Float64Var(&c.Beta, "beta", 0.5, "MMP's β (Fig. 6)")
	f.Float64Var(&c.Bandwidth, "bandwidth", 0, "update limit per link, bytes/s (0: the policy's default, the paper's 1000, 10000 for MMP; < 0: none)")
	f.StringVar(&c.State, "state", "", "state directory (database, programs, task files)")
	f.StringVar(&creds, "creds", "", "credentials directory (node.pem, node-key.pem, ca.pem from 'volsched node ca issue')")
	f.Float64Var(&c.Mem, "mem", c.Mem, "memory offered to tasks, MB")
	f.Float64Var(&c.Disk, "disk", c.Disk, "disk offered to tasks, MB")
	f.Float64Var(&c.Power, "power", c.Power, "computing power per slot, MFLOPS (MI/s): a task of length L is expected to take L/power seconds")
	f.IntVar(&c.Slots, "slots", c.Slots, "tasks run at once")
	f.DurationVar(&c.Heartbeat, "heartbeat", c.Heartbeat, "heartbeat interval between fathers and children")
	f.DurationVar(&c.DeadAfter, "dead-after", c.DeadAfter, "a neighbour silent this long is taken for failed (0: 4 heartbeats)")
	f.DurationVar(&c.Detect, "detect", c.Detect, "a submission node resubmits tasks it has had no news of for this long (§3.5)")
	f.DurationVar(&c.StartGrace, "start-grace", c.StartGrace, "with --peers: how long to wait for a neighbour never heard from")
	f.DurationVar(&c.Retry, "retry", c.Retry, "first wait before requesting again tasks the overlay could not place (doubles up to 32 times)")
	f.StringVar(&metrics, "metrics", "", "serve Prometheus metrics on this address (plain HTTP, /metrics; e.g. 127.0.0.1:9474)")
	rootCmd.AddCommand(cmd)

	ca := &cobra.Command{Use: "ca", Short: "Make the cluster's certificate authority and the nodes' credentials"}
	var caDir, name, out string
	var hosts []string
	var validity time.Duration
	caInit := &cobra.Command{
		Use:   "init --dir DIR",
		Short: "Create the cluster's CA in DIR (or print the fingerprint of the one there)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if caDir == "" {
				return usagef("ca init: --dir is required")
			}
			fp, err := node.InitCA(caDir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "CA in %s, fingerprint %s\n", caDir, fp)
			return nil
		},
	}
	caInit.Flags().StringVar(&caDir, "dir", "", "CA directory (ca.pem, ca-key.pem; keep the key private)")
	caIssue := &cobra.Command{
		Use:   "issue --dir DIR --name NAME --out DIR",
		Short: "Issue credentials for a node (NAME: its address) or a client",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if caDir == "" || name == "" || out == "" {
				return usagef("ca issue: --dir, --name and --out are required")
			}
			if len(hosts) == 0 {
				if h, _, err := net.SplitHostPort(name); err == nil {
					hosts = []string{h}
				}
			}
			if err := node.Issue(caDir, name, hosts, validity, out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "credentials for %s in %s\n", name, out)
			return nil
		},
	}
	caIssue.Flags().StringVar(&caDir, "dir", "", "CA directory")
	caIssue.Flags().StringVar(&name, "name", "", "the node's advertised address (or a client's name)")
	caIssue.Flags().StringSliceVar(&hosts, "host", nil, "host names or addresses the certificate covers (default: NAME's host)")
	caIssue.Flags().StringVar(&out, "out", "", "directory for node.pem, node-key.pem and ca.pem")
	caIssue.Flags().DurationVar(&validity, "validity", 2*365*24*time.Hour, "validity")
	ca.AddCommand(caInit, caIssue)
	cmd.AddCommand(ca)

	cmd.AddCommand(nodeSubmitCmd(), nodeStatusCmd(), nodeResultsCmd())
}

// clientFlags are the flags of the client commands.
type clientFlags struct {
	addr, creds string
	timeout     time.Duration
}

func (cf *clientFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&cf.addr, "node", "", "the node's address (host:port)")
	cmd.Flags().StringVar(&cf.creds, "creds", "", "credentials directory (a client's, from 'volsched node ca issue')")
	cmd.Flags().DurationVar(&cf.timeout, "timeout", time.Minute, "give up a request after this long")
}

func (cf *clientFlags) dial(ctx context.Context) (*node.Client, error) {
	if cf.addr == "" || cf.creds == "" {
		return nil, usagef("--node and --creds are required")
	}
	cert, ca, err := node.LoadCredentials(cf.creds)
	if err != nil {
		return nil, usagef("--creds: %v", err)
	}
	return node.Dial(ctx, cf.addr, cert, ca)
}

// connect dials the node within --timeout; done closes the client and
// releases the context (ctx is bounded by --timeout too).
func (cf *clientFlags) connect(parent context.Context) (ctx context.Context, cl *node.Client, done func(), err error) {
	ctx, cancel := context.WithTimeout(parent, cf.timeout)
	cl, err = cf.dial(ctx)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return ctx, cl, func() { cl.Close(); cancel() }, nil
}

func nodeSubmitCmd() *cobra.Command {
	var cf clientFlags
	var spec node.JobSpec
	var jobFile, out string
	var deadline time.Duration
	var wait bool
	cmd := &cobra.Command{
		Use:   "submit --node ADDR --creds DIR (--job FILE | --tasks N --length MI --program FILE [--inputs DIR])",
		Short: "Submit a bag of tasks at a node (its submission node)",
		Long: `submit sends a bag of tasks to a node, which becomes its submission node: the
bag is stored there, requested through the overlay, and its tasks run on the
execution nodes the tree finds, as 'program INPUT OUTPUT' (INPUT is the
task's input file, empty without --inputs). Their outputs come back to the
submission node; --wait waits for the bag to finish and --out writes them
(one file per task, named by its index).

--job FILE gives the same as a JSON object: {"name", "tasks", "length" (MI),
"memory" and "disk" (MB), "deadline" (seconds), "program", "inputs"}, paths
relative to the file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if jobFile != "" {
				if cmd.Flags().Changed("tasks") || cmd.Flags().Changed("length") || cmd.Flags().Changed("program") || cmd.Flags().Changed("inputs") {
					return usagef("--job and --tasks/--length/--program/--inputs both given: want one")
				}
				s, err := node.LoadJobSpec(jobFile)
				if err != nil {
					return usagef("--job: %v", err)
				}
				spec = s
			} else {
				if deadline < 0 {
					return usagef("--deadline %v: want >= 0", deadline)
				}
				spec.Deadline = deadline.Seconds()
			}
			job, err := spec.Job()
			if err != nil {
				return usagef("%v", err)
			}
			ctx, cl, done, err := cf.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			id, err := cl.Submit(ctx, job)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d\n", id)
			if !wait && out == "" {
				return nil
			}
			for {
				st, err := cl.Status(cmd.Context())
				if err != nil {
					return err
				}
				var b *node.BagStatus
				for i := range st.Bags {
					if st.Bags[i].ID == id {
						b = &st.Bags[i]
					}
				}
				if b == nil {
					return fmt.Errorf("bag %d: not in the node's status", id)
				}
				if b.Done+b.Failed == b.Tasks { // durably stored
					fmt.Fprintf(cmd.ErrOrStderr(), "bag %d: %d done, %d failed\n", id, b.Done, b.Failed)
					break
				}
				select {
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				case <-time.After(500 * time.Millisecond):
				}
			}
			if out != "" {
				return writeResults(cmd.Context(), cl, id, out)
			}
			return nil
		},
	}
	cf.add(cmd)
	f := cmd.Flags()
	f.StringVar(&jobFile, "job", "", "JSON job description")
	f.StringVar(&spec.Name, "name", "", "the bag's name (default: the program's file name)")
	f.IntVar(&spec.Tasks, "tasks", 0, "number of tasks (default with --inputs: one per file)")
	f.Float64Var(&spec.Length, "length", 0, "length of a task, MI (what the overlay schedules with)")
	f.Float64Var(&spec.Mem, "memory", 0, "memory a task needs, MB")
	f.Float64Var(&spec.Disk, "disk", 0, "disk a task needs, MB")
	f.DurationVar(&deadline, "deadline", 0, "deadline after submission (DP; 0: none)")
	f.StringVar(&spec.Program, "program", "", "the executable each task runs (program INPUT OUTPUT)")
	f.StringVar(&spec.Inputs, "inputs", "", "directory of input files, one per task in name order")
	f.BoolVar(&wait, "wait", false, "wait until every task is done or failed")
	f.StringVar(&out, "out", "", "with --wait: write the outputs to this directory")
	return cmd
}

func writeResults(ctx context.Context, cl *node.Client, id uint64, out string) error {
	res, err := cl.Results(ctx, id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	failed, storing, unfinished := 0, 0, 0
	for _, r := range res {
		switch r.State {
		case "done":
		case "failed":
			failed++
			continue
		case node.StateStoring:
			storing++
			continue
		default:
			unfinished++
			continue
		}
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("%06d", r.Index)), r.Output, 0o644); err != nil {
			return err
		}
	}
	if failed+storing+unfinished > 0 {
		return fmt.Errorf("bag %d: outputs of %d task(s) written; %d failed, %d finished and still being stored, %d not finished (see 'volsched node results')",
			id, len(res)-failed-storing-unfinished, failed, storing, unfinished)
	}
	return nil
}

func nodeStatusCmd() *cobra.Command {
	var cf clientFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status --node ADDR --creds DIR [--json]",
		Short: "Show a node's bags (done/total, where their tasks are) and its view of the tree",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cl, done, err := cf.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			s, err := cl.Status(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				e := json.NewEncoder(cmd.OutOrStdout())
				e.SetIndent("", "  ")
				return e.Encode(s)
			}
			printNodeStatus(cmd, s)
			return nil
		},
	}
	cf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func printNodeStatus(cmd *cobra.Command, s *node.Status) {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "node %s  policy %s  up %.0fs\n", s.Node, s.Policy, s.Uptime)
	fmt.Fprintf(w, "leaf %v  father %v  root %v", s.Leaf, s.Father, s.Root)
	if s.Joining {
		fmt.Fprint(w, "  (joining)")
	}
	fmt.Fprintln(w)
	for _, r := range s.Routers {
		fmt.Fprintf(w, "router %v\tfather %v\tleft %v\tright %v\n", r.View.Self, r.View.Father, r.View.Left, r.View.Right)
		fmt.Fprintf(w, "  subtree: %d leaves, heights %d..%d; summary covers %d nodes in %d functions", r.Subtree.Leaves, r.Subtree.MinH, r.Subtree.MaxH, r.Available, r.Functions)
		if len(r.Lost) > 0 {
			fmt.Fprintf(w, "; silent: %s", strings.Join(r.Lost, ", "))
		}
		fmt.Fprintln(w)
	}
	e := s.Exec
	fmt.Fprintf(w, "exec: %d slots, %d running, %d waiting, %d claimed, %d results unacknowledged, %d tasks run\n", e.Slots, e.Running, e.Waiting, e.Claimed, e.Held, e.TasksRun)
	fmt.Fprintf(w, "traffic: %d messages (%d B) out, %d (%d B) in, %d dropped, %d invalid, %d stale\n", s.Traffic.MsgsOut, s.Traffic.BytesOut, s.Traffic.MsgsIn, s.Traffic.BytesIn, s.Traffic.Dropped, s.Traffic.Invalid, s.Traffic.Stale)
	if len(s.Bags) > 0 {
		fmt.Fprintln(w, "bag\tname\tdone/total\tfailed\tstoring\tpending\trequested\tassigned\tresubmitted\twhere")
	}
	for _, b := range s.Bags {
		var where []string
		for k, v := range b.Where {
			where = append(where, fmt.Sprintf("%s:%d", k, v))
		}
		sort.Strings(where)
		fmt.Fprintf(w, "%d\t%s\t%d/%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", b.ID, b.Name, b.Done, b.Tasks, b.Failed, b.Storing, b.Pending, b.Requested, b.Assigned, b.Resubmitted, strings.Join(where, " "))
	}
	w.Flush()
}

func nodeResultsCmd() *cobra.Command {
	var cf clientFlags
	var bag uint64
	var out string
	cmd := &cobra.Command{
		Use:   "results --node ADDR --creds DIR --bag ID [--out DIR]",
		Short: "List a bag's task results at its submission node, or write its outputs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bag == 0 {
				return usagef("results: --bag is required")
			}
			ctx, cl, done, err := cf.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			if out != "" {
				return writeResults(ctx, cl, bag, out)
			}
			res, err := cl.Results(ctx, bag)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "task\tstate\tnode\texit\tbytes\terror")
			storing := 0
			for _, r := range res {
				if r.State == node.StateStoring {
					storing++
					fmt.Fprintf(w, "%d\t%s\t%s\t\t\t\n", r.Index, r.State, r.Node)
					continue
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%s\n", r.Index, r.State, r.Node, r.Exit, len(r.Output), r.ErrLine())
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if storing > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%d task(s) finished, their results still being stored at the node: ask again to see them\n", storing)
			}
			return nil
		},
	}
	cf.add(cmd)
	cmd.Flags().Uint64Var(&bag, "bag", 0, "the bag's id (printed by submit)")
	cmd.Flags().StringVar(&out, "out", "", "write the outputs to this directory (one file per task)")
	return cmd
}
