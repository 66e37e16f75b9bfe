package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStart(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu"), filepath.Join(dir, "mem"), filepath.Join(dir, "trace")
	t.Setenv(CPUVar, "")
	t.Setenv(MemVar, "")
	t.Setenv(TraceVar, "")
	if Requested() {
		t.Error("Requested with neither variable set")
	}
	stop, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	stop() // nothing asked, nothing written
	t.Setenv(TraceVar, tr)
	if !Requested() {
		t.Error("not Requested with the trace's variable set")
	}
	t.Setenv(CPUVar, cpu)
	t.Setenv(MemVar, mem)
	if stop, err = Start(); err != nil {
		t.Fatal(err)
	}
	stop()
	for _, f := range []string{cpu, mem, tr} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, want a profile", f, err)
		}
	}
	t.Setenv(CPUVar, filepath.Join(dir, "no", "cpu"))
	if _, err := Start(); err == nil || !strings.HasPrefix(err.Error(), CPUVar+": ") {
		t.Errorf("a CPU profile that cannot be created: %v, want an error naming %s", err, CPUVar)
	}
	// the trace started before the CPU profile failed was stopped: a
	// trace can start again
	t.Setenv(CPUVar, "")
	t.Setenv(TraceVar, filepath.Join(dir, "no", "trace"))
	if _, err := Start(); err == nil || !strings.HasPrefix(err.Error(), TraceVar+": ") {
		t.Errorf("a trace that cannot be created: %v, want an error naming %s", err, TraceVar)
	}
	t.Setenv(TraceVar, tr)
	if stop, err = Start(); err != nil {
		t.Errorf("a trace after a failed start: %v", err)
	} else {
		stop()
	}
}
