//go:build !linux

package supervise

import "syscall"

// Run starts no child outside Linux: the caller runs the command itself,
// and a device that fills during a write kills it with the runtime's
// report of a fault.
func Run(args []string) (Result, bool) { return Result{}, false }

// Reraise returns 128 + the number of the signal that killed the child
// (never called outside Linux, where no child is started).
func (r *Result) Reraise() int {
	sig, _ := r.Signal.(syscall.Signal)
	return 128 + int(sig)
}
