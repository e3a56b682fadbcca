// Command volsched schedules work on volatile resources: it analyzes
// availability models, runs the simulators and experiment campaigns that
// reproduce the papers' tables, and drives the live runtime and the
// overlay daemons. The whole command is the importable package cli; a
// program that links its own heuristics does the same as this main, with
// one more import (examples/own-heuristic, docs/extending.md).
package main

import "github.com/volsched/volsched/cli"

func main() { cli.Main() }
