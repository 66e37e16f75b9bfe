// Package atomicfile writes files so that an interrupted write never leaves
// half a file: the data goes to a temporary file in the same directory,
// which is synced to the device and then renamed over the target, and the
// directory is synced so that the rename lasts too. A process killed (or
// a machine that loses power) before the rename leaves the target as it
// was, and a temporary file beside it; after the rename, the new file.
// [CheckWritable] tells beforehand whether such a write can succeed.
package atomicfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// WriteFile writes data to path through a temporary file (named after path,
// in its directory) and a rename. A new file gets mode 0644 masked by the
// umask, as os.WriteFile gives it; a file replaced keeps its permissions.
// On error the temporary file is removed and path is left as it was.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is a file being written in place of another: its data goes to a
// temporary file beside the target, which Commit puts in the target's
// place. Abort, or an error of Commit, removes the temporary file.
type File struct {
	tmp  *os.File
	path string
	done bool
}

// Create starts writing a file that Commit will put at path, with the
// permissions WriteFile gives it.
func Create(path string) (*File, error) {
	tmp, err := create(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, err
		}
	}
	return &File{tmp: tmp, path: path}, nil
}

// Write writes p to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit syncs the temporary file, closes it, renames it to the target
// path and syncs the directory. On error the target is left as it was
// (unless only the directory's sync failed: then the rename happened but
// may not survive a power loss) and the temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	err := f.tmp.Sync()
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		return err
	}
	return syncDir(filepath.Dir(f.path))
}

// Abort removes the temporary file, unless Commit was called.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// syncDir syncs the directory dir, so that a rename in it is on the
// device. Windows has no way to sync a directory: there it does nothing.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
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
