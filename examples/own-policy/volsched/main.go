// Command volsched is the whole volsched command with the fifo-cap policy
// linked in, as a program links a database/sql driver: it imports the
// policy's package for its registration and runs the command
// (cmd/volsched/main.go with one more import). For example
//
//	go run ./examples/own-policy/volsched overlay sim --policy fifo-cap --nodes 200 --out RUN
package main

import (
	"github.com/volsched/volsched/cli"
	_ "github.com/volsched/volsched/examples/own-policy" // registers fifo-cap
)

func main() { cli.Main() }
