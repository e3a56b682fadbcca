// Command volsched is the whole volsched command with the heuristics of
// package guard linked in (GUARD* and IE+IP), as a program links a
// database/sql driver: the blank import registers them, cli.Main runs the
// command. `go build ./examples/own-heuristic/volsched` builds it.
package main

import (
	"github.com/volsched/volsched/cli"
	_ "github.com/volsched/volsched/examples/own-heuristic/guard"
)

func main() { cli.Main() }
