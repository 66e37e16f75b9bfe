package main

import (
	"os"

	"github.com/drumql/drumql/internal/supervise"
	"github.com/drumql/drumql/store"
)

// The commands that write the store (load, infer, retract, serve) run in
// a child process that a supervising drumql starts (internal/supervise):
// when the device fills during a write, the Go runtime dies of the fault,
// and the supervisor turns its crash report into an error message with
// exit 1. The store's commit protocol leaves it as it was before the
// write, or with the write's result when the fault came after the commit
// point. Outside Linux the writers run in the drumql process itself.

// child is this process's side of its supervisor, or nil (set by main).
var child *supervise.Child

// noteCommitted tells the supervisor, if any, that the store write of this
// command committed: a fault after it leaves the store with its result.
func noteCommitted() { child.Committed() }

// superviseWriter runs the writer command of args (cmd is its name, db the
// store) in a child process and returns its exit code; ok is false when no
// child could be started, and the caller then runs the command itself.
func superviseWriter(cmd string, args []string, db string) (code int, ok bool) {
	res, ok := supervise.Run(args)
	if !ok {
		return 0, false
	}
	return res.Report(os.Stderr, cmd, db, store.LowOnSpace), true // exitFailure after a fault
}
