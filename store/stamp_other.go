//go:build !linux

package store

import "os"

// fileStampOf is the stamp of a file: on this system its size and
// modification time only.
func fileStampOf(fi os.FileInfo) tableStamp {
	return tableStamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
}
