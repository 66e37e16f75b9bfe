//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// existingDir returns dir, or its nearest parent that exists when dir does
// not; ok is false when none does.
func existingDir(dir string) (string, bool) {
	for p := dir; ; {
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		p = parent
	}
}

// freeBytes is the space available to unprivileged users on the file system
// of dir or of its nearest existing parent.
func freeBytes(dir string) (int64, bool) {
	p, ok := existingDir(dir)
	if !ok {
		return 0, false
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(p, &fs); err != nil {
		return 0, false
	}
	return int64(fs.Bavail) * int64(fs.Bsize), true
}

// writableDir reports why dir, or its nearest existing parent when dir is
// missing, cannot be written (EROFS, EACCES), or nil.
func writableDir(dir string) error {
	p, ok := existingDir(dir)
	if !ok {
		return nil
	}
	err := syscall.Access(p, 2) // W_OK
	if err != nil && p != dir {
		return fmt.Errorf("%s: %w", p, err)
	}
	return err
}

// lockDir takes an flock on dir (shared or exclusive, without waiting) for
// the checks that run before Badger takes its own lock; the returned func
// releases it. A conflicting lock is ErrInUse.
func lockDir(dir string, shared bool) (func(), error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrInUse
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

// mapFile maps size bytes of f read-only; unmap releases the mapping.
func mapFile(f *os.File, size int) (data []byte, unmap func(), err error) {
	data, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// allocatedBytes is the space the file at path takes on disk (its
// allocated blocks: a sparse file counts what it holds), or 0.
func allocatedBytes(path string) int64 {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0
	}
	return st.Blocks * 512
}
