//go:build linux

package store

import (
	"os"
	"syscall"
)

// fileStampOf is the stamp of a file: on Linux with its ctime, inode and
// device.
func fileStampOf(fi os.FileInfo) tableStamp {
	st := tableStamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Ctime = s.Ctim.Nano()
		st.Ino, st.Dev = s.Ino, uint64(s.Dev)
	}
	return st
}
