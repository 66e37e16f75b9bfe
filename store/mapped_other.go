//go:build !linux

package store

// releaseMapped does nothing outside Linux (see mapped_linux.go).
func releaseMapped(string) int64 { return 0 }
