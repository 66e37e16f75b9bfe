// Command drumql loads knowledge graphs into an embedded store, mines
// weighted Datalog rules from them with DRUM, reasons with the rules and
// answers queries with explanations. Run `drumql --help` for the commands.
//
// For profiling, DRUMQL_CPUPROFILE=FILE writes a CPU profile of the run
// and DRUMQL_MEMPROFILE=FILE its allocation profile (internal/profile).
//
// The commands that write the store (load, infer, retract, serve) run in
// a child process that drumql supervises, so that a device filling during
// a write ends in an error message rather than a crash (supervise.go). Profiling
// runs them in the process itself.
//
// default.pgo is a CPU profile of `drumql infer` of the pinned FB15k-237
// file, which `go build` uses for profile-guided optimisation (inlining
// the factorised joins' hot calls); bench/pgo.sh makes it again.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/drumql/drumql/internal/profile"
	"github.com/drumql/drumql/internal/supervise"
)

func main() {
	if child = supervise.SetUp(); child == nil && !profile.Requested() {
		runSupervised = superviseWriter
	}
	stopProfile, err := profile.Start() // DRUMQL_CPUPROFILE, DRUMQL_MEMPROFILE, DRUMQL_HEAPPEAK, DRUMQL_TRACE
	if err != nil {
		fmt.Fprintln(os.Stderr, "drumql:", err)
		os.Exit(exitFailure)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}
