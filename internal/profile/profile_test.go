package profile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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

// TestHeapPeak: with PeakVar set, a live heap that grows is profiled, and
// the file is a whole profile (gzip, as pprof writes it).
func TestHeapPeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peak")
	t.Setenv(CPUVar, "")
	t.Setenv(MemVar, "")
	t.Setenv(TraceVar, "")
	t.Setenv(PeakVar, path)
	if !Requested() {
		t.Error("not Requested with the peak's variable set")
	}
	stop, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	held := make([][]byte, 0, 64)
	// The watch reads the live heap every peakEvery; the loop ends when
	// the file is there or after a minute on a machine too busy to run it.
	for i := 0; i < 300; i++ {
		held = append(held, make([]byte, 1<<20))
		runtime.GC()
		if _, err := os.Stat(path); err == nil {
			break
		}
		time.Sleep(peakEvery)
	}
	stop()
	runtime.KeepAlive(held)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no heap profile at the peak: %v", err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the heap profile is not gzip: % x", b[:min(len(b), 8)])
	}
	if ents, err := os.ReadDir(filepath.Dir(path)); err != nil || len(ents) != 1 {
		t.Errorf("the directory holds %d files (%v), want the profile only: a temporary file is left", len(ents), err)
	}
}
