package store

import (
	"maps"
	"slices"
)

// Viewer is a Store that gives read-only views of its state: DB and Mem.
type Viewer interface {
	// ReadView returns a Store that reads the state the store has now,
	// whatever is written to it afterwards: the same base facts, derived
	// facts, record, change log, relations, counts and splits, and the
	// symbols the dictionary had (ids are stable, so the names of those
	// are the store's). It is for reading (a DB view refuses writes with
	// ErrReadOnly) and safe for concurrent use. Close releases it, not the store. Take
	// a view when no write is in flight: a write that commits while the
	// view is taken may be seen in part.
	ReadView() (Store, error)
}

var (
	_ Viewer = (*DB)(nil)
	_ Viewer = (*Mem)(nil)
)

// ReadView implements Viewer with one Badger read transaction, kept open
// (and the versions of the keys it reads kept) until the view is closed.
func (d *DB) ReadView() (Store, error) {
	if d.parent != nil {
		return nil, wrapf("store: read view of a read view: %w", ErrReadOnly)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, wrapf("store: read view: %w", ErrClosed)
	}
	v := &DB{
		dir: d.dir, opts: d.opts, bdb: d.bdb, format: d.format,
		dict:    dict{names: slices.Clip(d.dict.names)},
		base:    maps.Clone(d.base),
		derived: maps.Clone(d.derived),
		gen:     d.gen, dgen: d.dgen, dnext: d.dnext, mat: d.mat,
		splits: maps.Clone(d.splits),
		parent: d,
		snap:   d.bdb.NewTransaction(false),
	}
	v.opts.ReadOnly = true
	return v, nil
}

// viewLookup is Lookup in a read view: the store's id of name, if the
// view's dictionary has it.
func (d *DB) viewLookup(name string) (ID, bool, error) {
	if err := d.open(); err != nil {
		return 0, false, err
	}
	id, ok, err := d.parent.Lookup(name)
	if err != nil || !ok {
		return 0, false, err
	}
	return id, int(id) < len(d.dict.names), nil
}

// closeView releases a read view's transaction.
func (d *DB) closeView() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	d.closed = true
	d.snap.Discard()
	return nil
}

// ReadView implements Viewer. Mem replaces the sets a write changes
// rather than changing them, so a view shares them.
func (m *Mem) ReadView() (Store, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, wrapf("store: read view: %w", ErrClosed)
	}
	return &Mem{
		dict:     dict{names: slices.Clip(m.dict.names), ids: maps.Clone(m.dict.ids)},
		base:     maps.Clone(m.base),
		derived:  maps.Clone(m.derived),
		splits:   maps.Clone(m.splits),
		record:   m.record,
		changes:  maps.Clone(m.changes),
		overflow: m.overflow,
		logCap:   m.logCap,
	}, nil
}
