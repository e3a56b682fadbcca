// Command overlaydiag holds the measurements and diagnostics of the
// overlay (package overlay, its §7.1 accuracy experiment and the overlay
// simulator) that are not tests: they measure, print and compare with
// files outside the repository. Run from the repository:
//
//	go run ./tools/overlaydiag <command> [flags]
//
// Commands (docs/overlay.md, "Diagnostics"):
//
//	scale           accuracy and time of Table 3's sizes
//	seeds           Table 2 over seeds for each variant, and without the grid
//	cpu             CPU time per aggregation of the Table 2 tests
//	stars-dump      DP nodes dumped by the authors' tool, aggregated by ours
//	stars-vec-dump  IBP or MMP nodes dumped by the authors' tool
//	footprint       heap per node of a built overlay
//	dp              DP with the overlay and the references, by task length
//	ckpt-scale      checkpoint size and time of a large simulation
package main

import (
	"context"
	"flag"

	"github.com/volsched/volsched/tools/subcommand"
)

type command struct {
	name, usage string
	run         func(ctx context.Context, args []string) error
}

var commands []subcommand.Command

func register(c command) {
	commands = append(commands, subcommand.Command{Name: c.name, Usage: c.usage, Run: c.run})
}

func main() { subcommand.Main("overlaydiag", commands) }

// flags returns a flag set for command name that exits with usage errors.
func flags(name string) *flag.FlagSet { return subcommand.Flags("overlaydiag", name) }
