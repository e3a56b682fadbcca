package cli

import (
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/live/demo"
)

func init() {
	o := demo.DefaultOptions()
	minutes := o.Limit.Minutes()
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
			log, err := newLogger(logLevel, "text")
			if err != nil {
				return err
			}
			o.Logger, o.Predictor = log, slotPredictor()
			// (A flag's value that is no duration: NaN, infinite, or past
			// time.Duration's range.)
			if !(math.Abs(minutes) < float64(math.MaxInt64)/float64(time.Minute)) {
				return usagef("--minutes %v: want a number of minutes > 0", minutes)
			}
			o.Limit = time.Duration(minutes * float64(time.Minute))
			if o.Binary, err = os.Executable(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return usagef("%v", err)
			}
			return demo.Run(c.Context(), o, c.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Workers, "workers", o.Workers, "worker processes")
	f.Float64Var(&minutes, "minutes", minutes, "stop after this many minutes at most")
	f.StringVar(&o.App, "app", o.App, "example application: jacobi or hashchain")
	f.Var(heuristicFlag{&o.Heuristic}, "heuristic", "the iterative model's heuristic: one of the 17 of §6 or a registered one ('volsched simulate --list-heuristics')")
	f.DurationVar(&o.Slot, "slot", o.Slot, "the model's time slot (the emulated chains draw once per slot)")
	f.IntVar(&o.NCom, "ncom", o.NCom, "at most this many transfers at once")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the chains and of the emulation")
	f.StringVar(&o.Dir, "dir", "", "keep the demo's files (application, state, caches) here")
	f.IntVar(&o.TaskSlots, "task-slots", o.TaskSlots, "every task waits this many slots after computing (the examples compute in milliseconds, the model counts less than a slot as a slot); 0: none")
	f.StringVar(&logLevel, "log-level", "error", "the master's log level")
	rootCmd.AddCommand(cmd)
}
