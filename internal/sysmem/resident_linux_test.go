//go:build linux

package sysmem

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMapped: the pages of a file mapped into the process and touched
// count in Mapped.
func TestMapped(t *testing.T) {
	before, ok := Mapped()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	const size = 32 << 20
	f, err := os.Create(filepath.Join(t.TempDir(), "m"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	for i := 0; i < size; i += 4096 {
		m[i] = 1
	}
	after, _ := Mapped()
	if after-before < size*3/4 {
		t.Errorf("Mapped grew by %d bytes after touching a %d-byte mapping of a file", after-before, size)
	}
}
