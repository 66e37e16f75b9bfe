package store

import (
	"maps"
	"slices"
	"sync"
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
	// Under pins.mu: a drop decided after the view registers sees it.
	d.pins.mu.Lock()
	defer d.pins.mu.Unlock()
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
		gen:     d.gen, dgen: d.dgen, rtable: d.rtable, layer: d.layer, dnext: d.dnext, mat: d.mat,
		splits: maps.Clone(d.splits),
		parent: d,
		snap:   d.bdb.NewTransaction(false),
	}
	v.opts.ReadOnly = true
	if d.pins.views == nil {
		d.pins.views = map[*DB]struct{}{}
	}
	d.pins.views[v] = struct{}{}
	return v, nil
}

// pins are the read views open on a DB, and the key ranges that writes
// replaced while a view could read them. Badger keeps the old versions of
// keys that a transaction overwrites or deletes for the transactions that
// read them, but DropPrefix (dropPrefixes: a replaced derived generation,
// a long change log) removes them at once: such a drop waits until no
// open view reads the range (dropUnread).
type pins struct {
	mu       sync.Mutex
	views    map[*DB]struct{}
	deferred []deferredDrop
}

// deferredDrop is a drop that waits for the views that read its range
// (reads reports whether a view does) to close.
type deferredDrop struct {
	reads    func(v *DB) bool
	prefixes [][]byte
}

// read reports whether an open view reads dd's range.
func (p *pins) read(dd deferredDrop) bool {
	for v := range p.views {
		if dd.reads(v) {
			return true
		}
	}
	return false
}

// dropUnread drops the keys under the prefixes (dropPrefixes) now, or,
// when an open read view reads them (reads), once no open view does.
// The caller holds wmu.
func (d *DB) dropUnread(reads func(v *DB) bool, prefixes ...[]byte) error {
	dd := deferredDrop{reads, prefixes}
	d.pins.mu.Lock()
	if d.pins.read(dd) {
		d.pins.deferred = append(d.pins.deferred, dd)
		d.pins.mu.Unlock()
		return nil
	}
	d.pins.mu.Unlock()
	return d.dropPrefixes(prefixes...)
}

// dropLater runs the deferred drops that no view reads any more, as a
// writer: DropPrefix refuses the writes that run beside it.
func (d *DB) dropLater(prefixes [][]byte) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.open() == nil {
		_ = d.dropPrefixes(prefixes...)
	}
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

// closeView releases a read view's transaction, and the drops it
// deferred (in the background: they wait for the store's writers).
func (d *DB) closeView() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	d.closed = true
	d.snap.Discard()
	d.mu.Unlock()
	p := &d.parent.pins
	p.mu.Lock()
	delete(p.views, d)
	var drop [][]byte
	kept := p.deferred[:0]
	for _, dd := range p.deferred {
		if p.read(dd) {
			kept = append(kept, dd)
		} else {
			drop = append(drop, dd.prefixes...)
		}
	}
	clear(p.deferred[len(kept):])
	p.deferred = kept
	p.mu.Unlock()
	if len(drop) > 0 {
		go d.parent.dropLater(drop)
	}
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
