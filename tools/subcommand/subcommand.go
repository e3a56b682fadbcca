// Package subcommand runs the commands of the diagnostic tools under
// tools (coupleddiag, overlaydiag): `go run ./tools/TOOL
// <command> [flags]`, with the usage listing the commands, Ctrl-C or
// SIGTERM cancelling the command's context, and exit status 1 on a
// command's error, 2 on a usage error.
package subcommand

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

// Command is one command of a tool.
type Command struct {
	Name, Usage string
	Run         func(ctx context.Context, args []string) error
}

func usage(tool string, cmds []Command) {
	fmt.Fprintf(os.Stderr, "usage: go run ./tools/%s <command> [flags]; commands:\n", tool)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name)+1)
	}
	for _, c := range cmds {
		fmt.Fprintf(os.Stderr, "  %-*s %s\n", width, c.Name, c.Usage)
	}
}

// Main runs the command of tool named by os.Args[1] with the arguments
// after it, and exits on an error.
func Main(tool string, cmds []Command) {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		usage(tool, cmds)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, c := range cmds {
		if c.Name == os.Args[1] {
			if err := c.Run(ctx, os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "%s %s: %v\n", tool, c.Name, err)
				stop()
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "%s: unknown command %q\n", tool, os.Args[1])
	usage(tool, cmds)
	os.Exit(2)
}

// Flags returns a flag set for command name of tool that exits with usage
// errors.
func Flags(tool, name string) *flag.FlagSet {
	return flag.NewFlagSet(tool+" "+name, flag.ExitOnError)
}
