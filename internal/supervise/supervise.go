package supervise

import (
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
)

// envChild marks a child process of the supervisor.
const envChild = "DRUMQL_SUPERVISED"

// maxOutput bounds what the supervisor keeps of the child's runtime output
// (crash reports are a few hundred KB at most).
const maxOutput = 4 << 20

// commitMark is what the child writes on descriptor 4 when its write
// committed.
const commitMark = "committed\n"

// Child is the side of a supervised child process.
type Child struct {
	note *os.File // descriptor 4: the commit pipe
}

// SetUp prepares a process that a supervisor started: descriptor 3 becomes
// os.Stderr (and the log package's output) and descriptor 4 the commit
// pipe. It returns nil when this process is not such a child.
func SetUp() *Child {
	if os.Getenv(envChild) != "1" {
		return nil
	}
	os.Unsetenv(envChild)
	os.Stderr = os.NewFile(3, "/dev/stderr")
	log.SetOutput(os.Stderr)
	return &Child{note: os.NewFile(4, "commit")}
}

// Committed tells the supervisor that the store write of this process
// committed: a fault after it leaves the store with its result. It does
// nothing on a nil Child (no supervisor).
func (c *Child) Committed() {
	if c != nil {
		_, _ = c.note.WriteString(commitMark)
	}
}

// Result is how a supervised child ended.
type Result struct {
	// Exited and Code are its exit status; Signal, when not nil, the
	// signal that killed it.
	Exited bool
	Code   int
	Signal os.Signal
	// Output is what it wrote on its descriptor 2 (the runtime's crash
	// report, if any), at most 4 MiB and a note of how much more there was.
	Output []byte
	// Committed reports whether it said its write had committed.
	Committed bool
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

// Fault reports whether the child died of a memory fault (SIGBUS, or
// SIGSEGV outside Go's heap): it exited with code 2 after the Go runtime's
// report of one.
func (r *Result) Fault() bool { return r.Exited && r.Code == 2 && faultRE.Match(r.Output) }

// SignalLine is the runtime's line naming the signal of the fault in the
// output ("[signal SIGBUS: bus error ...]"), or "fault" when there is none.
func (r *Result) SignalLine() string {
	if m := signalRE.FindSubmatch(r.Output); m != nil {
		return string(m[0])
	}
	return "fault"
}

// SaveOutput writes the child's output to a new file in the temporary
// directory and returns its path.
func (r *Result) SaveOutput() (string, error) {
	f, err := os.CreateTemp("", "drumql-crash-*.txt")
	if err != nil {
		return "", err
	}
	_, err = f.Write(r.Output)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// FaultMessage is the error message, ending in a newline, of the writer
// command cmd (load, infer, retract, serve) that died of a fault while
// writing the store at db: what the store holds after it (unchanged, the
// command's result once it had committed, or, for serve, the edits stored
// before), and either, when lowOnSpace (the store's device is nearly
// full), that the device filled, or the signal and where the crash report
// was saved (the report itself when it could not be).
func (r *Result) FaultMessage(cmd, db string, lowOnSpace bool) string {
	state := "the store is unchanged"
	switch {
	case cmd == "serve":
		// a long-running writer: each edit is stored whole or not at all
		state = "the store holds the edits stored before the fault, not the one being written"
	case r.Committed:
		state = fmt.Sprintf("the %s had committed before the fault: the store holds its result", cmd)
	}
	if lowOnSpace {
		return fmt.Sprintf("drumql: %s: no space left on the device of %s while writing (the write faulted); %s\n"+
			"hint: free space on that device before using the store again: opening it next replays its log, which takes room too\n", cmd, db, state)
	}
	msg := fmt.Sprintf("drumql: %s crashed writing the store at %s: %s; %s\n", cmd, db, r.SignalLine(), state)
	if path, err := r.SaveOutput(); err == nil {
		return msg + "hint: the crash report is in " + path + "\n"
	}
	return msg + "the crash report:\n" + string(r.Output)
}

// Report ends the supervision of the writer command cmd over the store at
// db: it writes on w what the child wrote, or, when the child died of a
// fault, FaultMessage instead (lowOnSpace, asked only then, tells whether
// db's device is nearly full), and returns the supervisor's exit code: 1
// after a fault, the signal that killed the child raised again (Reraise),
// else the child's own code.
func (r *Result) Report(w io.Writer, cmd, db string, lowOnSpace func(string) bool) int {
	if r.Fault() {
		fmt.Fprint(w, r.FaultMessage(cmd, db, lowOnSpace(db)))
		return 1
	}
	w.Write(r.Output)
	if r.Signal != nil {
		return r.Reraise()
	}
	return r.Code
}
