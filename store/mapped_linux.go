//go:build linux

package store

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// madvPageout is Linux's MADV_PAGEOUT (5.4 and later): reclaim the range's
// pages. It never changes what the memory holds (pages of a file are read
// back from it when touched again), so it is safe on a range that was
// unmapped and mapped again to something else since /proc/self/maps was
// read; kernels without it answer EINVAL and nothing happens.
const madvPageout = 21

// releaseMapped asks the kernel to reclaim the resident pages of the files
// under dir that are mapped shared into this process: Badger's tables,
// value logs and memtable logs, which it writes and reads through mappings.
// A table Badger writes stays resident as long as it is open (all of them,
// to the close), so a large write's tables would otherwise count in the
// process's RSS, about 40 bytes a derived fact. Clean pages are dropped
// and read back from the file when needed; dirty ones (a memtable log not
// yet written back) are kept. It returns the bytes of the mappings it
// advised, 0 when /proc/self/maps cannot be read.
func releaseMapped(dir string) int64 {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r // the kernel names mapped files by their resolved path
	}
	prefix := []byte(abs + "/")
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		lo, hi, ok := sharedMapping(sc.Bytes(), prefix)
		if !ok {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPageout); e == 0 {
			n += int64(hi - lo)
		}
	}
	return n
}

// sharedMapping parses a line of /proc/self/maps ("lo-hi perms offset dev
// inode path") and reports the range of a shared mapping of a file whose
// path starts with prefix.
func sharedMapping(line, prefix []byte) (lo, hi uintptr, ok bool) {
	p := bytes.IndexByte(line, '/') // the fields before the path hold no '/'
	if p < 0 || !bytes.HasPrefix(line[p:], prefix) {
		return 0, 0, false
	}
	f := bytes.Fields(line[:p])
	if len(f) < 2 || len(f[1]) != 4 || f[1][3] != 's' {
		return 0, 0, false
	}
	r := bytes.IndexByte(f[0], '-')
	if r < 0 {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(string(f[0][:r]), 16, 64)
	b, err2 := strconv.ParseUint(string(f[0][r+1:]), 16, 64)
	if err1 != nil || err2 != nil || b <= a {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}
