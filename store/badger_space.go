package store

import (
	"os"
	"path/filepath"
	"strings"
)

// DiskUsage is what a store takes on disk.
type DiskUsage struct {
	// Bytes is the space the store's files take (allocated blocks; files
	// that are not Badger's, such as a marker a script left, are not
	// counted).
	Bytes int64
	// Reclaimable is the part of Bytes that compactions free: old values
	// and deleted keys still held by the tables, as Badger counts them.
	Reclaimable int64
}

// DiskUsage reports the space the store takes and how much of it is
// reclaimable.
func (d *DB) DiskUsage() (DiskUsage, error) {
	if err := d.open(); err != nil {
		return DiskUsage{}, wrapf("store: disk usage: %w", err)
	}
	u, err := d.diskUsage()
	if err != nil {
		return DiskUsage{}, wrapf("store: disk usage: %w", err)
	}
	return u, nil
}

// diskUsage is DiskUsage without the check that d is open.
func (d *DB) diskUsage() (DiskUsage, error) {
	var u DiskUsage
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return DiskUsage{}, err
	}
	for _, e := range ents {
		if name := e.Name(); isBadgerFile(name) {
			u.Bytes += allocatedBytes(filepath.Join(d.dir, name))
		}
	}
	for _, t := range d.bdb.Tables() {
		u.Reclaimable += int64(t.StaleDataSize)
	}
	u.Reclaimable = min(u.Reclaimable, u.Bytes)
	return u, nil
}

// isBadgerFile reports whether name is one of the files Badger keeps in a
// store's directory.
func isBadgerFile(name string) bool {
	switch name {
	case "MANIFEST", "KEYREGISTRY", "DISCARD", "LOCK":
		return true
	}
	for _, ext := range []string{".sst", ".vlog", ".mem"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
