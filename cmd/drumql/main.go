// Command drumql loads knowledge graphs into an embedded store, mines
// weighted Datalog rules from them with DRUM, reasons with the rules and
// answers queries with explanations. Run `drumql --help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
