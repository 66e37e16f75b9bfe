// Command runfloor is `drumql run` without the rest of drumql: the same
// flags and evaluation (package souffle) in a binary that links neither
// the store's engine, nor the server, the miner or the cluster. It exists
// to measure how much of a small program's peak RSS is the drumql binary
// itself rather than the evaluation (docs/BENCHMARKS.md, "drumql run":
// the floor); drumql run is the command to use.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/alecthomas/kong"

	"github.com/drumql/drumql/souffle"
)

func main() {
	var c souffle.Command
	kong.Parse(&c, kong.Name("runfloor"), kong.Description("drumql run alone, to measure its memory floor."))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := c.Run(ctx, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "runfloor:", err)
		os.Exit(1)
	}
}
