// Package atomicfile writes files so that an interrupted write never leaves
// half a file: the data goes to a temporary file in the same directory,
// which is then renamed over the target.
package atomicfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFile writes data to path through a temporary file (named after path,
// in its directory) and a rename. A new file gets mode 0644 masked by the
// umask, as os.WriteFile gives it; a file replaced keeps its permissions.
// On error the temporary file is removed and path is left as it was.
func WriteFile(path string, data []byte) error {
	tmp, err := create(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		err = tmp.Chmod(fi.Mode().Perm())
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// create makes a new temporary file beside path with mode 0644 (the kernel
// applies the umask; os.CreateTemp would give 0600).
func create(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for range 10000 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "createtemp", Path: filepath.Join(dir, "."+base+".tmp*"), Err: os.ErrExist}
}
