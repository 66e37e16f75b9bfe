package store

import (
	"errors"
	"fmt"
	"strings"
)

// More errors returned by stores, beside those declared with the Store
// contract.
var (
	// ErrUnknownID is returned by Name for an id outside the dictionary.
	ErrUnknownID = errors.New("store: unknown symbol id")
	// ErrReadOnly is returned by writes to a store opened read-only.
	ErrReadOnly = errors.New("store: opened read-only")
	// ErrNoTestSplit is returned by MakeInductive for a batch without test
	// triples.
	ErrNoTestSplit = errors.New("store: no test split")
	// ErrNotWritable is returned by Open without ReadOnly when the store's
	// directory (or, for a new store, its nearest existing parent) cannot
	// be written: a read-only file system, or no write permission.
	ErrNotWritable = errors.New("store: directory not writable")
	// ErrNameTooLong is returned for a symbol longer than MaxNameLen bytes.
	ErrNameTooLong = fmt.Errorf("store: name longer than %d bytes", MaxNameLen)
)

// MaxNameLen is the longest symbol name in bytes: 1 MiB. A name is a
// value of the dictionary; its index key holds the name itself only up to
// maxKeyName bytes (Badger keys are limited to 64 KiB), a digest of it
// beyond (see nameKey).
const MaxNameLen = 1 << 20

// opError is an error of a store operation whose message names the
// operation once: wrapping a sentinel of this package, "store: load: closed"
// rather than "store: load: store: closed".
type opError struct {
	msg string
	err error
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.err }

// wrapf is fmt.Errorf for the store's "store: OP: %w" messages: the prefix
// "store: " of the wrapped errors is dropped from the message (errors.Is and
// errors.As still see them).
func wrapf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &opError{msg: strings.ReplaceAll(err.Error(), ": store: ", ": "), err: errors.Unwrap(err)}
}
