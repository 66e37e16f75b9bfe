package store

import (
	"bytes"
	"errors"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// getMeta reads a meta key in its own read transaction; ok is false when
// the key is absent.
func (d *DB) getMeta(key []byte) ([]byte, bool, error) {
	var v []byte
	err := d.bdb.View(func(txn *badger.Txn) error {
		var err error
		v, err = getValue(txn, key)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// getValue copies the value of key out of txn.
func getValue(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// getU64Meta reads a big-endian uint64 meta value; an absent key reads as 0.
func getU64Meta(txn *badger.Txn, key []byte) (uint64, error) {
	v, err := getValue(txn, key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return getU64(v)
}

// scanPrefix calls fn with the key (and, if vals, the value) of every entry
// whose key starts with prefix, from start (or prefix) on, until fn returns
// false. Key and value are only valid during the call.
func scanPrefix(txn *badger.Txn, prefix, start []byte, vals bool, fn func(k, v []byte) (bool, error)) (bool, error) {
	// Values are read as each item comes, not prefetched: Badger prefetches
	// each value in a goroutine of its own, and the store's values are
	// small and kept in the LSM tree beside their keys, so a scan of four
	// million derived facts spent a fifth of its time starting and
	// scheduling goroutines.
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
	defer it.Close()
	if start == nil {
		start = prefix
	}
	for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		var v []byte
		if vals {
			var err error
			if v, err = item.ValueCopy(nil); err != nil {
				return false, err
			}
		}
		more, err := fn(item.Key(), v)
		if err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// deleter deletes keys through a WriteBatch.
type deleter struct {
	wb *badger.WriteBatch
	n  int
	// lo and hi are the smallest and the largest key written, with what
	// was written (reclaim repeats it).
	lo, hi written
}

// written is a key written through a deleter: deleted, or set to val.
type written struct {
	key, val []byte
	set      bool
}

// newDeleter starts a deleter on a new WriteBatch.
func (d *DB) newDeleter() *deleter { return &deleter{wb: d.bdb.NewWriteBatch()} }

// del queues the deletion of a copy of k.
func (dl *deleter) del(k []byte) error {
	k = slices.Clone(k)
	dl.note(written{key: k})
	return dl.wb.Delete(k)
}

// set queues setting a copy of k to a copy of v.
func (dl *deleter) set(k, v []byte) error {
	w := written{key: slices.Clone(k), val: slices.Clone(v), set: true}
	dl.note(w)
	return dl.wb.Set(w.key, w.val)
}

// note counts the write w and keeps it if its key is the smallest or the
// largest so far.
func (dl *deleter) note(w written) {
	if dl.n == 0 || bytes.Compare(w.key, dl.lo.key) < 0 {
		dl.lo = w
	}
	if dl.n == 0 || bytes.Compare(w.key, dl.hi.key) > 0 {
		dl.hi = w
	}
	dl.n++
}

// deletePrefixes deletes every key under the prefixes.
func (d *DB) deletePrefixes(prefixes ...[]byte) error {
	dl := d.newDeleter()
	defer dl.wb.Cancel()
	err := d.bdb.View(func(txn *badger.Txn) error {
		for _, p := range prefixes {
			_, err := scanPrefix(txn, p, nil, false, func(k, _ []byte) (bool, error) {
				return true, dl.del(k)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return dl.wb.Flush()
}

// dropPrefixes removes every key under the prefixes with Badger's
// DropPrefix: the tables that hold only such keys are deleted and the
// others rewritten without them, so the space comes back at once instead
// of after compactions carry per-key deletion markers down every level.
// It blocks other writes while it runs; use it for large contiguous
// ranges (a derived generation), deletePrefixes for a few keys.
func (d *DB) dropPrefixes(prefixes ...[]byte) error {
	return d.bdb.DropPrefix(prefixes...)
}

// arena hands out byte slices carved from large blocks, so a WriteBatch can
// keep references to many small keys without one allocation each.
type arena struct{ buf []byte }

// alloc returns an empty slice with capacity n.
func (a *arena) alloc(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(n, 1<<20))
	}
	l := len(a.buf)
	a.buf = a.buf[:l+n]
	return a.buf[l : l : l+n]
}

// copy returns a copy of b held by the arena.
func (a *arena) copy(b []byte) []byte { return append(a.alloc(len(b)), b...) }
