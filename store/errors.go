package store

import "errors"

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
)
