// Command overlaydiag holds the measurements and diagnostics of the
// overlay (package overlay, its §7.1 accuracy experiment and the overlay
// simulator) that are not tests: they measure, print and compare with
// files outside the repository. Run from the repository:
//
//	go run ./internal/tools/overlaydiag <command> [flags]
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
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

type command struct {
	name, usage string
	run         func(ctx context.Context, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run ./internal/tools/overlaydiag <command> [flags]; commands:")
	sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-15s %s\n", c.name, c.usage)
	}
}

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, c := range commands {
		if c.name == os.Args[1] {
			if err := c.run(ctx, os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "overlaydiag %s: %v\n", c.name, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "overlaydiag: unknown command %q\n", os.Args[1])
	usage()
	os.Exit(2)
}

// flags returns a flag set for command name that exits with usage errors.
func flags(name string) *flag.FlagSet { return flag.NewFlagSet("overlaydiag "+name, flag.ExitOnError) }
