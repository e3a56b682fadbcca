package cli

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/live/demo"
	"github.com/volsched/volsched/live/master"
)

func init() {
	var o demo.Options
	var minutes float64
	var logLevel string
	cmd := &cobra.Command{
		Use:   "demo [--workers 8] [--minutes 2]",
		Short: "Run an example application on local worker processes with emulated volatility, and compare with the simulator",
		Long: `demo starts a master and --workers local worker processes that follow
availability chains drawn from the papers' generator (UP/RECLAIMED/DOWN on
purpose), runs an example application (jacobi or hashchain), shows the
progress every second, and ends with the measured makespan next to the slot
simulator's prediction for the same chains, heuristic and the measured
T_prog, T_data and w_q. The examples compute in milliseconds, less than a
slot, which the model counts as a whole slot: each task therefore waits
--task-slots slots after computing, so that the two can be compared.
Everything runs on this machine, over TLS on loopback; --dir keeps the
master's state (database, events, FTA trace). Ctrl-C stops it and prints
what it measured so far.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Workers < 1 || o.Workers > 256 {
				return usagef("--workers %d: want 1..256", o.Workers)
			}
			if !(minutes > 0) {
				return usagef("--minutes %v: want > 0", minutes)
			}
			if o.Slot < 10*time.Millisecond {
				return usagef("--slot %v: want ≥ 10ms", o.Slot)
			}
			if o.NCom < 1 {
				return usagef("--ncom %d: want ≥ 1", o.NCom)
			}
			if o.TaskSlots < 0 || o.TaskSlots > 100 {
				return usagef("--task-slots %d: want 0..100", o.TaskSlots)
			}
			log, err := newLogger(logLevel, "text")
			if err != nil {
				return err
			}
			o.Logger = log
			o.Limit = time.Duration(minutes * float64(time.Minute))
			if o.Binary, err = os.Executable(); err != nil {
				return err
			}
			return demo.Run(c.Context(), o, c.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Workers, "workers", 8, "worker processes")
	f.Float64Var(&minutes, "minutes", 2, "stop after this many minutes at most")
	f.StringVar(&o.App, "app", "jacobi", "example application: jacobi or hashchain")
	o.Heuristic = master.DefaultHeuristic
	f.Var(heuristicFlag{&o.Heuristic}, "heuristic", "the iterative model's heuristic: one of the 17 of §6 or a registered one ('volsched simulate --list-heuristics')")
	f.DurationVar(&o.Slot, "slot", 100*time.Millisecond, "the model's time slot (the emulated chains draw once per slot)")
	f.IntVar(&o.NCom, "ncom", 3, "at most this many transfers at once")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the chains and of the emulation")
	f.StringVar(&o.Dir, "dir", "", "keep the demo's files (application, state, caches) here")
	f.IntVar(&o.TaskSlots, "task-slots", 3, "every task waits this many slots after computing (the examples compute in milliseconds, the model counts less than a slot as a slot); 0: none")
	f.StringVar(&logLevel, "log-level", "error", "the master's log level")
	rootCmd.AddCommand(cmd)
}
