// Command coupleddiag holds the measurements and inspections of the
// tightly-coupled campaign (Casanova et al., "Mapping Tightly-Coupled
// Applications on Volatile Resources", §VII.A; packages coupled,
// coupled/slotsim, coupled/campaign) that are not tests: they time,
// print and explain single units of the paper's campaign. Run from the
// repository:
//
//	go run ./internal/tools/coupleddiag <command> [flags]
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
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

type command struct {
	name, usage string
	run         func(ctx context.Context, w io.Writer, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run ./internal/tools/coupleddiag <command> [flags]; commands:")
	sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-18s %s\n", c.name, c.usage)
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
			if err := c.run(ctx, os.Stdout, os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "coupleddiag %s: %v\n", c.name, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "coupleddiag: unknown command %q\n", os.Args[1])
	usage()
	os.Exit(2)
}

// flags returns a flag set for command name that exits with usage errors.
func flags(name string) *flag.FlagSet {
	return flag.NewFlagSet("coupleddiag "+name, flag.ExitOnError)
}
