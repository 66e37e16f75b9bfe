package miner

import (
	"context"
	"io"

	"github.com/drumql/drumql/internal/atomicfile"
)

// Steps of WriteSnapshotFile, reported to its step function.
const (
	// StepWriting: a piece of the data reached the temporary file.
	StepWriting = "snapshot:writing"
	// StepWritten: all of it has (not synced, not renamed).
	StepWritten = "snapshot:written"
	// StepRenamed: the file replaced the target (synced).
	StepRenamed = "snapshot:renamed"
)

// SnapshotFileError is the error of WriteSnapshotFile when the file itself
// could not be created or put in place (as opposed to the snapshot's data
// not being read or written): Err is the file system's error.
type SnapshotFileError struct{ Err error }

func (e *SnapshotFileError) Error() string { return e.Err.Error() }
func (e *SnapshotFileError) Unwrap() error { return e.Err }

// WriteSnapshotFile writes the snapshot of src (WriteSnapshot) to the file
// at path and returns its size: the data goes to a temporary file beside
// path as it is produced, which is synced and renamed over path once
// whole, so that a killed or failing write leaves path as it was. step,
// when not nil, is called at each step (StepWriting after each write,
// StepWritten, StepRenamed): where a test kills the process.
func WriteSnapshotFile(ctx context.Context, path string, src GraphSource, step func(string)) (int64, error) {
	if step == nil {
		step = func(string) {}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return 0, &SnapshotFileError{Err: err}
	}
	defer f.Abort()
	w := &stepWriter{w: f, step: step}
	if err := WriteSnapshot(ctx, w, src); err != nil {
		return w.n, err
	}
	step(StepWritten)
	if err := f.Commit(); err != nil {
		return w.n, &SnapshotFileError{Err: err}
	}
	step(StepRenamed)
	return w.n, nil
}

// stepWriter passes writes on to w, counting the bytes written, and reports
// StepWriting after each.
type stepWriter struct {
	w    io.Writer
	n    int64
	step func(string)
}

// Write writes p to w.
func (s *stepWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err == nil {
		s.step(StepWriting)
	}
	return n, err
}
