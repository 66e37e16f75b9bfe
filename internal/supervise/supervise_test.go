package supervise

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// report is the start of the Go runtime's report of a SIGBUS fault.
const report = `unexpected fault address 0x7f0000000000
fatal error: fault
[signal SIGBUS: bus error code=0x2 addr=0x7f0000000000 pc=0x4a1b2c]

goroutine 17 [running]:
`

func TestFault(t *testing.T) {
	for _, c := range []struct {
		name string
		res  Result
		want bool
		line string
	}{
		{"fault", Result{Exited: true, Code: 2, Output: []byte(report)}, true, "[signal SIGBUS: bus error code=0x2 addr=0x7f0000000000 pc=0x4a1b2c]"},
		{"exit 1", Result{Exited: true, Code: 1, Output: []byte(report)}, false, "[signal SIGBUS: bus error code=0x2 addr=0x7f0000000000 pc=0x4a1b2c]"},
		{"a panic", Result{Exited: true, Code: 2, Output: []byte("panic: boom\n\ngoroutine 1 [running]:\n")}, false, "fault"},
		{"no fault line", Result{Exited: true, Code: 2, Output: []byte("[signal SIGSEGV: segmentation violation]\n")}, false, "[signal SIGSEGV: segmentation violation]"},
	} {
		if got := c.res.Fault(); got != c.want {
			t.Errorf("%s: Fault() = %v, want %v", c.name, got, c.want)
		}
		if got := c.res.SignalLine(); got != c.line {
			t.Errorf("%s: SignalLine() = %q, want %q", c.name, got, c.line)
		}
	}
}

func TestReadBounded(t *testing.T) {
	if got := readBounded(strings.NewReader("abc"), 10); string(got) != "abc" {
		t.Errorf("readBounded under the bound = %q", got)
	}
	got := readBounded(bytes.NewReader(make([]byte, 15)), 10)
	if !bytes.HasPrefix(got, make([]byte, 10)) || !strings.HasSuffix(string(got), "\n[drumql: 5 more bytes of output dropped]\n") {
		t.Errorf("readBounded over the bound = %q", got)
	}
}

// TestNoChild: a process that no supervisor started is no child, and
// Committed on it does nothing.
func TestNoChild(t *testing.T) {
	t.Setenv(envChild, "")
	c := SetUp()
	if c != nil {
		t.Fatal("SetUp without the supervisor's variable returned a child")
	}
	c.Committed()
}

// TestFaultMessage: what the store holds after the fault (unchanged,
// committed, serve's edits), the device filled or the signal and the saved
// crash report.
func TestFaultMessage(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	res := Result{Exited: true, Code: 2, Output: []byte(report)}
	full := res.FaultMessage("load", "kg.db", true)
	want := "drumql: load: no space left on the device of kg.db while writing (the write faulted); the store is unchanged\n" +
		"hint: free space on that device before using the store again: opening it next replays its log, which takes room too\n"
	if full != want {
		t.Errorf("low on space:\n%q\nwant\n%q", full, want)
	}
	res.Committed = true
	if got := res.FaultMessage("infer", "kg.db", true); !strings.Contains(got, "; the infer had committed before the fault: the store holds its result\n") {
		t.Errorf("committed: %q", got)
	}
	if got := res.FaultMessage("serve", "kg.db", true); !strings.Contains(got, "; the store holds the edits stored before the fault, not the one being written\n") {
		t.Errorf("serve: %q", got)
	}
	got := res.FaultMessage("retract", "kg.db", false)
	head := "drumql: retract crashed writing the store at kg.db: [signal SIGBUS: bus error code=0x2 addr=0x7f0000000000 pc=0x4a1b2c]; the retract had committed before the fault: the store holds its result\nhint: the crash report is in "
	path, ok := strings.CutPrefix(got, head)
	if !ok {
		t.Fatalf("crash:\n%q\nwant it to start\n%q", got, head)
	}
	if saved, err := os.ReadFile(strings.TrimSuffix(path, "\n")); err != nil || !bytes.Equal(saved, res.Output) {
		t.Errorf("the crash report saved at %q: %v, %q", path, err, saved)
	}
}

// TestReport: a child's output passed on with its exit code, or the fault
// message and exit 1 (the device asked about only then).
func TestReport(t *testing.T) {
	asked := 0
	low := func(db string) bool { asked++; return db == "full.db" }
	var b bytes.Buffer
	if code := (&Result{Exited: true, Code: 2, Output: []byte("drumql: bad flag\n")}).Report(&b, "load", "kg.db", low); code != 2 || b.String() != "drumql: bad flag\n" || asked != 0 {
		t.Errorf("exit 2: code %d, wrote %q, device asked %d times", code, b.String(), asked)
	}
	b.Reset()
	fault := &Result{Exited: true, Code: 2, Output: []byte(report)}
	if code := fault.Report(&b, "load", "full.db", low); code != 1 || asked != 1 || !strings.HasPrefix(b.String(), "drumql: load: no space left on the device of full.db") {
		t.Errorf("fault: code %d, wrote %q, device asked %d times", code, b.String(), asked)
	}
}
