// Command coupleddiag holds the measurements and inspections of the
// tightly-coupled campaign (Casanova et al., "Mapping Tightly-Coupled
// Applications on Volatile Resources", §VII.A; packages coupled,
// coupled/slotsim, coupled/campaign) that are not tests: they time,
// print and explain single units of the paper's campaign. Run from the
// repository:
//
//	go run ./tools/coupleddiag <command> [flags]
//
// Commands (docs/reproduction-002.md, "Diagnostics"):
//
//	time-unit          CPU time and makespans of one trial of a unit, the 17 heuristics together or one by one
//	trace-unit         where the slots of one trial went, per iteration, for chosen heuristics
//	random-beyond-cap  RANDOM's makespans with a larger cap on chosen units
//
// Every command simulates units of the paper's campaign with seed 1
// (coupled/campaign.PaperCampaign), as `volsched exp coupled` does.
package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/volsched/volsched/tools/subcommand"
)

type command struct {
	name, usage string
	run         func(ctx context.Context, w io.Writer, args []string) error
}

var commands []subcommand.Command

func register(c command) {
	commands = append(commands, subcommand.Command{Name: c.name, Usage: c.usage,
		Run: func(ctx context.Context, args []string) error { return c.run(ctx, os.Stdout, args) }})
}

func main() { subcommand.Main("coupleddiag", commands) }

// flags returns a flag set for command name that exits with usage errors.
func flags(name string) *flag.FlagSet { return subcommand.Flags("coupleddiag", name) }
