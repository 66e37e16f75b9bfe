package store

import "errors"

// OpenReadOnly opens the store in dir read-only (Open with
// Options.ReadOnly), after rolling back a load that was interrupted when
// it can: a store that a read-only Open finds ErrIncomplete is opened for
// writing once, which rolls the load back, closed, and opened read-only
// again. When that cannot be done (another process has the store open, or
// the directory is not writable), the error is the first Open's.
func OpenReadOnly(dir string) (*DB, error) {
	st, err := Open(dir, Options{ReadOnly: true})
	if errors.Is(err, ErrIncomplete) {
		if rw, rerr := Open(dir, Options{}); rerr == nil {
			if rerr = rw.Close(); rerr == nil {
				st, err = Open(dir, Options{ReadOnly: true})
			}
		}
	}
	return st, err
}
