// Package supervise runs a command of this program in a child process and
// reads what the Go runtime reports when the child dies of a memory fault.
//
// Badger writes through memory-mapped files from its own goroutines; when
// the device fills during a write the kernel answers a page fault with
// SIGBUS and the Go runtime dies with "fatal error: fault", exit 2,
// printing every goroutine. No recover can catch that, so a supervising
// process runs the writing command as a child ([Run]) and turns the crash
// report into an error message.
//
// The child gets stdin and stdout as they are, and the supervisor's stderr
// as file descriptor 3, which [SetUp] makes its os.Stderr: terminals,
// progress bars, colours and messages behave as without a supervisor. Its
// file descriptor 2, where the Go runtime writes crash reports, is a pipe
// to the supervisor, which returns what it read there ([Result.Output]).
// Descriptor 4 is a pipe on which the child says when its write has
// committed ([Child.Committed]). On Linux the child dies with the
// supervisor; elsewhere [Run] starts no child.
package supervise
