//go:build linux

package store

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mapTouched maps size bytes of a new file at path shared, writes every
// page and writes them back (msync), so that they are resident and clean.
func mapTouched(t *testing.T, path string, size int) []byte {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	for i := 0; i < size; i += 4096 {
		m[i] = byte(i>>12) | 1
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return m
}

// residentKB is the Rss of the mappings of path in /proc/self/smaps.
func residentKB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fs := strings.Fields(line); len(fs) >= 5 && strings.Contains(fs[0], "-") {
			in = strings.HasSuffix(line, " "+path)
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			n, _ := strconv.Atoi(strings.Fields(line)[1])
			kb += n
		}
	}
	return kb
}

// TestReleaseMapped: releaseMapped drops the resident pages of the files
// mapped under its directory, and only those; what they hold is unchanged.
func TestReleaseMapped(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "db", "000001.sst"), filepath.Join(dir, "other.sst")
	if err := os.Mkdir(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 8 << 20
	mi, mo := mapTouched(t, in, size), mapTouched(t, out, size)
	rin, _ := filepath.EvalSymlinks(in)
	rout, _ := filepath.EvalSymlinks(out)
	if kb := residentKB(t, rin); kb < size/1024/2 {
		t.Skipf("the mapping is not resident after writing it (%d kB): nothing to test", kb)
	}
	if n := releaseMapped(filepath.Dir(in)); n != size {
		t.Errorf("releaseMapped advised %d bytes, want %d (the one mapping under the directory)", n, size)
	}
	if kb := residentKB(t, rin); kb > size/1024/4 {
		t.Errorf("after releaseMapped, %d kB of the store's file are resident, want at most %d", kb, size/1024/4)
	}
	if kb := residentKB(t, rout); kb < size/1024/2 {
		t.Errorf("a file outside the directory lost its pages: %d kB resident", kb)
	}
	for i := 0; i < size; i += 4096 {
		if mi[i] != byte(i>>12)|1 || mo[i] != byte(i>>12)|1 {
			t.Fatalf("byte %d changed by releaseMapped", i)
		}
	}
}

func TestSharedMapping(t *testing.T) {
	p := []byte("/s/db/")
	for _, c := range []struct {
		line   string
		lo, hi uintptr
		ok     bool
	}{
		{"7f0000000000-7f0000400000 r--s 00000000 fd:01 123  /s/db/000001.sst", 0x7f0000000000, 0x7f0000400000, true},
		{"7f0000000000-7f0000400000 rw-s 00000000 fd:01 123  /s/db/00001.mem", 0x7f0000000000, 0x7f0000400000, true},
		{"7f0000000000-7f0000400000 r--p 00000000 fd:01 123  /s/db/000001.sst", 0, 0, false}, // private
		{"7f0000000000-7f0000400000 r--s 00000000 fd:01 123  /s/dbx/000001.sst", 0, 0, false},
		{"7f0000000000-7f0000400000 rw-p 00000000 00:00 0", 0, 0, false},
		{"7f0000000000-7f0000400000 rw-p 00000000 00:00 0  [heap]", 0, 0, false},
		{"zz-7f0000400000 r--s 00000000 fd:01 123  /s/db/x", 0, 0, false},
	} {
		lo, hi, ok := sharedMapping([]byte(c.line), p)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("sharedMapping(%q) = %x, %x, %v; want %x, %x, %v", c.line, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

// TestReleasing: while a write runs (d.releasing), the store's mapped
// pages are released on a clock, before the write ends.
func TestReleasing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "000002.sst")
	const size = 8 << 20
	mapTouched(t, path, size)
	path, _ = filepath.EvalSymlinks(path)
	if kb := residentKB(t, path); kb < size/1024/2 {
		t.Skipf("the mapping is not resident after writing it (%d kB): nothing to test", kb)
	}
	d := &DB{dir: dir}
	stop := d.releasing()
	defer stop()
	deadline := time.Now().Add(20 * releaseInterval)
	for residentKB(t, path) > size/1024/4 {
		if time.Now().After(deadline) {
			t.Fatalf("%d kB still resident %s into the write", residentKB(t, path), 20*releaseInterval)
		}
		time.Sleep(releaseInterval / 4)
	}
}

// TestKeepMapped: after KeepMapped a large write releases nothing (its
// readers keep their pages), and stop returns at once.
func TestKeepMapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "000002.sst")
	const size = 8 << 20
	mapTouched(t, path, size)
	path, _ = filepath.EvalSymlinks(path)
	before := residentKB(t, path)
	if before < size/1024/2 {
		t.Skipf("the mapping is not resident after writing it (%d kB): nothing to test", before)
	}
	d := &DB{dir: dir}
	d.KeepMapped()
	stop := d.releasing()
	time.Sleep(3 * releaseInterval)
	stop()
	if kb := residentKB(t, path); kb < before/2 {
		t.Errorf("%d kB resident after the write, %d before: released despite KeepMapped", kb, before)
	}
}
