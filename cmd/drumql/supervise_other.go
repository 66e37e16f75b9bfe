//go:build !linux

package main

// Outside Linux the writer commands run in the drumql process itself: a
// device that fills during a write kills it with the runtime's report of a
// fault (see supervise_linux.go).

// setUpChild reports that this process is no supervised child.
func setUpChild() bool { return false }

// noteCommitted does nothing without a supervisor.
func noteCommitted() {}

// superviseWriter starts no child: the caller runs the command itself.
func superviseWriter(string, []string, string) (int, bool) { return 0, false }
