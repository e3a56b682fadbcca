// Package cli is the volsched command: it analyzes availability models,
// runs the simulators and experiment campaigns that reproduce the papers'
// tables, and drives the live runtime and the overlay daemons.
//
// It is a package, not a main, so that a program can link its own
// heuristics, policies or availability models into a complete volsched
// binary, as Go programs link a database/sql driver: a main that imports
// the package that registers them (for its init) and calls Main.
// cmd/volsched/main.go is exactly that, with only the built-in ones.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// usageError marks errors caused by how the command was called (bad flag
// values, missing arguments); they exit with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// rootCmd is the volsched command; subcommands add themselves in init
// functions of their own files.
var rootCmd = &cobra.Command{
	Use:   "volsched",
	Short: "Scheduling on volatile resources: analysis, simulation and reproduction of the papers",
	Long: `volsched schedules work on volatile resources: desktop grids, volunteer
computing, clusters whose machines fail, get reclaimed by their owners and
come back.

It implements five research papers (docs/papers.md): the Markov analysis and
on-line heuristics for iterative master-worker applications with independent
or tightly-coupled tasks, redundant task allocation, and decentralized
scheduling on a tree overlay. Every reproduced table is printed next to the
published numbers, with its seed and parameters.

Machine-readable output (JSON, CSV) goes to standard output or files; logs
and progress go to standard error.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// signalsReady is called once SIGINT and SIGTERM are caught (tests wait
// for it before interrupting a subprocess).
var signalsReady = func() {}

// secondSignalNote, when set by the running command, is printed when a
// second interruption stops the process at once (e.g. how to resume).
var secondSignalNote atomic.Value // string

// Main runs the volsched command with os.Args and exits the process: 0 on
// success, 2 on a usage error (bad flag or argument), 1 on any other error.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	grace := time.Duration(0)
	if c, _, err := rootCmd.Find(os.Args[1:]); err == nil && c.Annotations[onInterrupt] == exitAfterGrace {
		grace = interruptGrace
	}
	go exitOnSecondSignal(sig, grace)
	signalsReady()
	refuseUnknownSubcommands(rootCmd)
	c, err := rootCmd.ExecuteContextC(ctx)
	if err == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "volsched: %s\n", errorMessage(c, err))
	var ue usageError
	if errors.As(err, &ue) || isFlagError(err) {
		os.Exit(2)
	}
	os.Exit(1)
}

// refuseUnknownSubcommands makes every group of commands under root
// ("volsched exp", "volsched overlay", ...) refuse an unknown subcommand
// with an error, instead of printing its help and exiting 0.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c == rootCmd || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("%s: unknown command %q (see '%s --help')", subcommandPath(cmd), args[0], cmd.CommandPath())
		}
		return cmd.Help()
	}
}

// errorMessage is err as main prints it after "volsched: ": cobra's own
// argument errors ("accepts 1 arg(s), received 0") get the subcommand that
// refused them and where to look.
func errorMessage(c *cobra.Command, err error) string {
	var ue usageError
	if c == nil || c == rootCmd || errors.As(err, &ue) || !isFlagError(err) || strings.HasPrefix(err.Error(), "unknown command") {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v (see '%s --help')", subcommandPath(c), err, c.CommandPath())
}

// subcommandPath is c's path without the program's name ("exp merge").
func subcommandPath(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), rootCmd.Name()+" ")
}

// onInterrupt is the annotation of commands that have nothing to keep when
// interrupted (their result is printed at the end): with the value
// exitAfterGrace, the process exits interruptGrace after the first SIGINT
// or SIGTERM if the command has not returned by then (a computation that
// does not watch its context, such as a fit inside a numerical library).
const (
	onInterrupt    = "volsched/on-interrupt"
	exitAfterGrace = "exit-after-grace"
	interruptGrace = time.Second
)

// stopsAtOnce marks c as a command with nothing to keep when interrupted.
func stopsAtOnce(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[onInterrupt] = exitAfterGrace
	return c
}

// exitOnSecondSignal lets the first SIGINT or SIGTERM pass (it cancels
// the commands' context: long commands stop and keep what they finished)
// and exits at once, with status 130, on a second one, or grace after the
// first when grace > 0.
func exitOnSecondSignal(sig <-chan os.Signal, grace time.Duration) {
	<-sig
	if grace > 0 {
		select {
		case <-sig:
		case <-time.After(grace):
			fmt.Fprintln(os.Stderr, "volsched: interrupted")
			os.Exit(130)
		}
	} else {
		<-sig
	}
	note, _ := secondSignalNote.Load().(string)
	if note != "" {
		note = "; " + note
	}
	fmt.Fprintf(os.Stderr, "volsched: stopped at once by a second interruption%s\n", note)
	os.Exit(130)
}

func init() {
	// main prints "volsched: " before every error: the message names the
	// subcommand without the program's name again.
	rootCmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == rootCmd {
			return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
		}
		return usageError{fmt.Errorf("%s: %w (see '%s --help')", subcommandPath(c), err, c.CommandPath())}
	})
}

// isFlagError recognizes cobra's own argument errors (unknown command,
// wrong number of arguments), which are not wrapped.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "accepts ", "requires at least", "requires at most"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
