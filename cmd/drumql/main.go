// Command drumql loads knowledge graphs into an embedded store, mines
// weighted Datalog rules from them with DRUM, reasons with the rules and
// answers queries with explanations. Run `drumql --help` for the commands.
//
// For profiling, DRUMQL_CPUPROFILE=FILE writes a CPU profile of the run.
//
// The commands that write the store (load, infer, retract, serve) run in
// a child process that drumql supervises, so that a device filling during
// a write ends in an error message rather than a crash (supervise.go). Profiling
// runs them in the process itself.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/drumql/drumql/internal/supervise"
)

func main() {
	profiling := os.Getenv("DRUMQL_CPUPROFILE") != "" || os.Getenv("DRUMQL_MEMPROFILE") != ""
	if child = supervise.SetUp(); child == nil && !profiling {
		runSupervised = superviseWriter
	}
	if path := os.Getenv("DRUMQL_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "drumql: DRUMQL_CPUPROFILE:", err)
			os.Exit(exitFailure)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "drumql: DRUMQL_CPUPROFILE:", err)
			os.Exit(exitFailure)
		}
		defer f.Close()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
	if path := os.Getenv("DRUMQL_MEMPROFILE"); path != "" {
		// Allocation profile of the whole run (go tool pprof -sample_index=alloc_space).
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	os.Exit(code)
}
