//go:build !unix

package store

import (
	"io"
	"os"
)

// freeBytes is unknown on this system: writers are not checked.
func freeBytes(string) (int64, bool) { return 0, false }

// writableDir is not checked on this system: Badger's error stands.
func writableDir(string) error { return nil }

// lockDir does nothing on this system; Badger's own lock still applies.
func lockDir(string, bool) (func(), error) { return func() {}, nil }

// mapFile reads the file into memory on this system.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	data := make([]byte, size)
	_, err := io.ReadFull(f, data)
	return data, func() {}, err
}

// allocatedBytes is the size of the file at path on this system, or 0.
func allocatedBytes(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
