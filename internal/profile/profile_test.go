package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStart(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu"), filepath.Join(dir, "mem")
	t.Setenv(CPUVar, "")
	t.Setenv(MemVar, "")
	if Requested() {
		t.Error("Requested with neither variable set")
	}
	stop, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	stop() // nothing asked, nothing written
	t.Setenv(CPUVar, cpu)
	t.Setenv(MemVar, mem)
	if !Requested() {
		t.Error("not Requested with both variables set")
	}
	if stop, err = Start(); err != nil {
		t.Fatal(err)
	}
	stop()
	for _, f := range []string{cpu, mem} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, want a profile", f, err)
		}
	}
	t.Setenv(CPUVar, filepath.Join(dir, "no", "cpu"))
	if _, err := Start(); err == nil || !strings.HasPrefix(err.Error(), CPUVar+": ") {
		t.Errorf("a CPU profile that cannot be created: %v, want an error naming %s", err, CPUVar)
	}
}
