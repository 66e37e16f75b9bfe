package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"syscall"

	"github.com/drumql/drumql/store"
)

// The commands that write the store (load, infer, retract, serve) run in
// a child process that a supervising drumql starts. Badger writes through memory-mapped
// files from its own goroutines; when the device fills during a write
// (after the free-space check passed: another process, or a write larger
// than estimated) the kernel answers a page fault with SIGBUS and the Go
// runtime dies with "fatal error: fault", exit 2, printing every
// goroutine. No recover can catch that (debug.SetPanicOnFault covers only
// the goroutine that sets it), so the supervisor reads the crash report
// and turns it into an error message with exit 1. The store's commit
// protocol leaves it as it was before the write, or with the write's
// result when the fault came after the commit point.
//
// The child gets stdin and stdout as they are, and the supervisor's
// stderr as file descriptor 3, which it makes its os.Stderr: terminals,
// progress bars, colours and messages behave as without the supervisor.
// Its file descriptor 2, where the Go runtime writes crash reports (and
// nothing can stop it from doing so; debug.SetCrashOutput only adds a
// second copy), is a pipe to the supervisor, which passes what it reads
// there on to stderr when the child exits, unless it is the report of a
// fault. Descriptor 4 is a pipe on which the child says when its write
// has committed.

// envSupervised marks a child process of the supervisor.
const envSupervised = "DRUMQL_SUPERVISED"

// maxCrashOutput bounds what the supervisor keeps of the child's runtime
// output (crash reports are a few hundred KB at most).
const maxCrashOutput = 4 << 20

// commitMark is what the child writes on descriptor 4 when its write
// committed.
const commitMark = "committed\n"

// commitNote is descriptor 4 of a supervised child, or nil.
var commitNote *os.File

// setUpChild prepares a process that a supervisor started: descriptor 3
// becomes os.Stderr (and the log package's output) and descriptor 4 the
// commit pipe. It reports whether this process is such a child.
func setUpChild() bool {
	if os.Getenv(envSupervised) != "1" {
		return false
	}
	os.Unsetenv(envSupervised)
	os.Stderr = os.NewFile(3, "/dev/stderr")
	log.SetOutput(os.Stderr)
	commitNote = os.NewFile(4, "commit")
	return true
}

// noteCommitted tells the supervisor, if any, that the store write of this
// command committed: a fault after it leaves the store with its result.
func noteCommitted() {
	if commitNote != nil {
		_, _ = commitNote.WriteString(commitMark)
	}
}

// superviseWriter runs the writer command of args (cmd is its name, db the
// store) in a child process and returns its exit code; ok is false when no
// child could be started (os.Executable fails, or exec does), and the
// caller then runs the command itself.
func superviseWriter(cmd string, args []string, db string) (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	defer crashR.Close()
	noteR, noteW, err := os.Pipe()
	if err != nil {
		crashW.Close()
		return 0, false
	}
	defer noteR.Close()

	c := exec.Command(exe, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, crashW
	c.ExtraFiles = []*os.File{os.Stderr, noteW}
	c.Env = append(os.Environ(), envSupervised+"=1")
	// The child dies with the supervisor (kill -9 of drumql stops the
	// write, as it did without a supervisor). The signal is tied to the
	// thread that starts the child: keep this goroutine on it.
	runtime.LockOSThread()
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err = c.Start()
	crashW.Close()
	noteW.Close()
	if err != nil {
		return 0, false
	}
	ctx, stopForwarding := context.WithCancel(context.Background())
	go func() { // Ctrl-C, kill: the child cancels its write
		for {
			select {
			case s := <-sigs:
				_ = c.Process.Signal(s)
			case <-ctx.Done():
				return
			}
		}
	}()
	crash := make(chan []byte, 1)
	go func() { crash <- readBounded(crashR, maxCrashOutput) }()
	committed := make(chan bool, 1)
	go func() {
		b, _ := io.ReadAll(noteR)
		committed <- strings.Contains(string(b), commitMark)
	}()
	_ = c.Wait()
	stopForwarding()
	report, didCommit := <-crash, <-committed

	ws, _ := c.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Exited() && ws.ExitStatus() == 2 && isFault(report) {
		fmt.Fprint(os.Stderr, faultMessage(cmd, db, report, didCommit))
		return exitFailure, true
	}
	os.Stderr.Write(report)
	if ws.Signaled() {
		// Die of the same signal, so that the shell sees what happened.
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal()), true
	}
	return ws.ExitStatus(), true
}

// readBounded reads r to its end and returns its first max bytes, with a
// note of how much more there was.
func readBounded(r io.Reader, max int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, max))
	if n, _ := io.Copy(io.Discard, r); n > 0 {
		b = fmt.Appendf(b, "\n[drumql: %d more bytes of output dropped]\n", n)
	}
	return b
}

// faultRE finds the runtime's report of a memory fault: "fatal error:
// fault" after "unexpected fault address", then the signal line.
var faultRE = regexp.MustCompile(`(?m)^fatal error: fault$`)

// signalRE is the runtime's line naming the signal of a fault.
var signalRE = regexp.MustCompile(`(?m)^\[signal (SIG[A-Z]+)[^\]]*\]$`)

// isFault reports whether report is the Go runtime's report of a memory
// fault (SIGBUS, or SIGSEGV outside Go's heap).
func isFault(report []byte) bool { return faultRE.Match(report) }

// faultMessage is the error message of a writer that died of the fault in
// report while writing the store at db; committed says whether its write
// had committed before.
func faultMessage(cmd, db string, report []byte, committed bool) string {
	state := "the store is unchanged"
	switch {
	case cmd == "serve":
		// a long-running writer: each edit is stored whole or not at all
		state = "the store holds the edits stored before the fault, not the one being written"
	case committed:
		state = fmt.Sprintf("the %s had committed before the fault: the store holds its result", cmd)
	}
	if store.LowOnSpace(db) {
		return fmt.Sprintf("drumql: %s: no space left on the device of %s while writing (the write faulted); %s\n"+
			"hint: free space on that device before using the store again: opening it next replays its log, which takes room too\n", cmd, db, state)
	}
	what := "fault"
	if m := signalRE.FindSubmatch(report); m != nil {
		what = string(m[0])
	}
	msg := fmt.Sprintf("drumql: %s crashed writing the store at %s: %s; %s\n", cmd, db, what, state)
	if path, err := saveReport(report); err == nil {
		return msg + "hint: the crash report is in " + path + "\n"
	}
	return msg + "the crash report:\n" + string(report)
}

// saveReport writes a crash report to a new file in the temporary
// directory and returns its path.
func saveReport(report []byte) (string, error) {
	f, err := os.CreateTemp("", "drumql-crash-*.txt")
	if err != nil {
		return "", err
	}
	_, err = f.Write(report)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
