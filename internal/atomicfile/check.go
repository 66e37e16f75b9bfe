package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// NotWritableError is the error of [CheckWritable] when no file can be
// written at the path: its message says why without naming the path.
type NotWritableError struct {
	Why string // what is wrong; "" when Err says it
	Err error  // the underlying error, if any
}

// Error returns Why with Err after it, or Err's message alone.
func (e *NotWritableError) Error() string {
	switch {
	case e.Why == "":
		return e.Err.Error()
	case e.Err != nil:
		return e.Why + ": " + e.Err.Error()
	}
	return e.Why
}

// Unwrap returns Err.
func (e *NotWritableError) Unwrap() error { return e.Err }

// CheckWritable reports, before any work that would end in writing path
// with [WriteFile], whether that write can succeed: the directory of path
// exists and is a directory, path is not a directory, and a file can be
// created in the directory (it is created and removed). What forbids the
// write is a *[NotWritableError]; any other error is that of removing the
// file the check created.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &NotWritableError{Why: fmt.Sprintf("the directory %s does not exist", dir)}
	case err != nil:
		return &NotWritableError{Err: err}
	case !fi.IsDir():
		return &NotWritableError{Why: fmt.Sprintf("%s is not a directory", dir)}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &NotWritableError{Why: "is a directory"}
	}
	f, err := os.CreateTemp(dir, ".drumql-check*")
	if err != nil {
		return &NotWritableError{Why: "cannot write to " + dir, Err: errors.Unwrap(err)}
	}
	f.Close()
	return os.Remove(f.Name())
}
