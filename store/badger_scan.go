package store

import (
	"errors"
	"iter"
	"slices"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// scanFacts yields the decoded keys under prefix (from start, if not nil).
func scanFacts(txn *badger.Txn, prefix, start []byte, yield func(Fact, error) bool) (bool, error) {
	return scanPrefix(txn, prefix, start, false, func(k, _ []byte) (bool, error) {
		f, err := decodeFactKey(k)
		if err != nil {
			return false, err
		}
		return yield(f, nil), nil
	})
}

// Scan implements Store: facts come sorted by arity, then arguments.
func (d *DB) Scan(rel ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		guardSeq(d, yield, func(yield func(Fact, error) bool) {
			nrel := putID([]byte{tagNary}, rel)
			err := d.view(func(txn *badger.Txn) error {
				for _, a := range []byte{0, 1} {
					if more, err := scanFacts(txn, append(slices.Clip(nrel), a), nil, yield); !more || err != nil {
						return err
					}
				}
				if more, err := scanFacts(txn, putID([]byte{tagFwd}, rel), nil, yield); !more || err != nil {
					return err
				}
				_, err := scanFacts(txn, nrel, append(slices.Clip(nrel), 3), yield)
				return err
			})
			if err != nil {
				yield(Fact{}, wrapf("store: scan %d: %w", rel, err))
			}
		})
	}
}

// ScanFirst implements Store.
func (d *DB) ScanFirst(rel, a ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		guardSeq(d, yield, func(yield func(Fact, error) bool) {
			d.mu.RLock()
			as := arities(d.base, rel)
			d.mu.RUnlock()
			err := d.view(func(txn *badger.Txn) error {
				for _, ar := range as {
					if ar == 0 {
						continue
					}
					var prefix []byte
					if ar == 2 {
						prefix = putID(putID([]byte{tagFwd}, rel), a)
					} else {
						prefix = putID(append(putID([]byte{tagNary}, rel), byte(ar)), a)
					}
					if more, err := scanFacts(txn, prefix, nil, yield); !more || err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				yield(Fact{}, wrapf("store: scan %d first %d: %w", rel, a, err))
			}
		})
	}
}

// ScanObject implements Store.
func (d *DB) ScanObject(rel, o ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		guardSeq(d, yield, func(yield func(Fact, error) bool) {
			err := d.view(func(txn *badger.Txn) error {
				_, err := scanFacts(txn, putID(putID([]byte{tagRev}, rel), o), nil, yield)
				return err
			})
			if err != nil {
				yield(Fact{}, wrapf("store: scan %d object %d: %w", rel, o, err))
			}
		})
	}
}

// Has implements Store.
func (d *DB) Has(f Fact) (bool, error) {
	if len(f.Args) > maxArity {
		return false, nil
	}
	found := false
	err := d.view(func(txn *badger.Txn) error {
		_, err := txn.Get(factKey(nil, f))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return false, wrapf("store: has: %w", err)
	}
	return found, nil
}

// Splits implements Store.
func (d *DB) Splits() ([]string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	names := make([]string, 0, len(d.splits))
	for name := range d.splits {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// Split implements Store.
func (d *DB) Split(name string) iter.Seq2[Triple, error] {
	return func(yield func(Triple, error) bool) {
		guardSeq(d, yield, func(yield func(Triple, error) bool) {
			err := d.view(func(txn *badger.Txn) error {
				item, err := txn.Get(append([]byte{tagSplitPt}, name...))
				if errors.Is(err, badger.ErrKeyNotFound) {
					return ErrUnknownSplit
				}
				if err != nil {
					return err
				}
				v, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				gen, err := getU64(v[:min(8, len(v))])
				if err != nil {
					return err
				}
				_, err = scanPrefix(txn, splitPrefix(name, gen), nil, true, func(_, v []byte) (bool, error) {
					if len(v)%12 != 0 {
						return false, errCorrupt
					}
					for ; len(v) > 0; v = v[12:] {
						t, err := decodeTriple(v[:12])
						if err != nil {
							return false, err
						}
						if !yield(t, nil) {
							return false, nil
						}
					}
					return true, nil
				})
				return err
			})
			if err != nil {
				yield(Triple{}, wrapf("store: split %q: %w", name, err))
			}
		})
	}
}
