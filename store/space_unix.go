//go:build unix

package store

import (
	"os"
	"path/filepath"
	"syscall"
)

// freeBytes is the space available to unprivileged users on the file system
// of dir or of its nearest existing parent.
func freeBytes(dir string) (int64, bool) {
	p := dir
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			return 0, false
		}
		p = parent
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(p, &fs); err != nil {
		return 0, false
	}
	return int64(fs.Bavail) * int64(fs.Bsize), true
}
