package store

import (
	"github.com/dgraph-io/badger/v4"
)

// Lookup implements Store.
func (d *DB) Lookup(name string) (ID, bool, error) {
	if d.parent != nil {
		return d.viewLookup(name)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, false, ErrClosed
	}
	id, ok := d.dict.lookup(name)
	return id, ok, nil
}

// Intern implements Store.
func (d *DB) Intern(name string) (ID, error) {
	if id, ok, err := d.Lookup(name); err != nil || ok {
		return id, err
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return 0, wrapf("store: intern %q: %w", name, err)
	}
	if id, ok := d.dict.lookup(name); ok {
		return id, nil
	}
	if err := checkSpace(d.dir, int64(2*len(name)+64), "adding a symbol"); err != nil {
		return 0, err
	}
	id := ID(len(d.dict.names))
	err := d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Set(nameKey(nil, name), putID(nil, id)); err != nil {
			return err
		}
		if err := txn.Set(putID([]byte{tagSym}, id), []byte(name)); err != nil {
			return err
		}
		return txn.Set(metaNSym, putID(nil, id+1))
	})
	if err != nil {
		return 0, wrapf("store: intern %q: %w", name, noSpace(d.dir, err))
	}
	d.mu.Lock()
	d.dict.add(name)
	d.mu.Unlock()
	return id, nil
}

// Name implements Store.
func (d *DB) Name(id ID) (string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return "", ErrClosed
	}
	if int(id) >= len(d.dict.names) {
		return "", wrapf("store: name of %d: %w", id, ErrUnknownID)
	}
	return d.dict.names[id], nil
}

// NumSymbols implements Store.
func (d *DB) NumSymbols() (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, ErrClosed
	}
	return len(d.dict.names), nil
}

// Relations implements Store.
func (d *DB) Relations() ([]RelationStats, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	return relationsFrom(d.base, d.derived, func(id ID) string { return d.dict.names[id] }), nil
}

// Count implements Store.
func (d *DB) Count(rel ID) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, ErrClosed
	}
	n := 0
	for ra, c := range d.base {
		if ra.Rel == rel {
			n += c
		}
	}
	return n, nil
}
