package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"iter"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// ReplaceDerivedRecord implements Store: ReplaceDerivedSeq, with program
// written under a new material id (W keys) in the same write batch as the
// facts, and the flip to the new generation pointing the material state
// at it, with an empty change log.
func (d *DB) ReplaceDerivedRecord(ctx context.Context, size int64, program []byte, facts iter.Seq2[Derived, error]) error {
	return d.replaceDerivedChecked(ctx, program, func(old int) error {
		return checkSpace(d.dir, derivedNeed(size+recordBytes(program), d.memTableSize(), old), "storing derived facts")
	}, func() (iter.Seq2[Derived, error], error) { return facts, nil })
}

// recordBytes estimates the bytes a record takes to write.
func recordBytes(program []byte) int64 {
	if program == nil {
		return 0
	}
	return int64(len(program)) + int64(len(program)/recordPart+1)*(13+entryOverhead)
}

// Materialised implements Store. It takes the writers' lock: a load in
// flight writes its log entries before it commits.
func (d *DB) Materialised() (ms MaterialState, err error) {
	defer d.shield(&err)()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	d.mu.RLock()
	mat, closed := d.mat, d.closed
	d.mu.RUnlock()
	if closed {
		return ms, wrapf("store: materialised: %w", ErrClosed)
	}
	if mat.ID == 0 {
		return ms, nil
	}
	err = d.view(func(txn *badger.Txn) error {
		var err error
		if ms.Program, err = readRecord(txn, mat); err != nil {
			return err
		}
		if mat.Overflow {
			ms.Overflow = true
			return nil
		}
		ms.Changes = make([]BaseChange, 0, mat.Count)
		_, err = scanPrefix(txn, binary.BigEndian.AppendUint64([]byte{tagLog}, mat.ID), nil, true, func(k, v []byte) (bool, error) {
			_, f, err := decodeLogKey(k)
			if err != nil || len(v) != 1 || v[0] > logAdded {
				return false, errCorrupt
			}
			ms.Changes = append(ms.Changes, BaseChange{Fact: f, Added: v[0] == logAdded})
			return true, nil
		})
		if err == nil && uint64(len(ms.Changes)) != mat.Count {
			err = errCorrupt
		}
		return err
	})
	if err != nil {
		return MaterialState{}, wrapf("store: materialised: %w", err)
	}
	return ms, nil
}

// readRecord reads the record of mat (non-nil, even when empty).
func readRecord(txn *badger.Txn, mat matState) ([]byte, error) {
	rec := make([]byte, 0, mat.RecLen)
	seq := uint32(0)
	_, err := scanPrefix(txn, binary.BigEndian.AppendUint64([]byte{tagRecord}, mat.ID), nil, true, func(k, v []byte) (bool, error) {
		if len(k) != 13 || getID(k[9:]) != seq || uint64(len(rec)+len(v)) > mat.RecLen {
			return false, errCorrupt
		}
		seq++
		rec = append(rec, v...)
		return true, nil
	})
	if err == nil && uint64(len(rec)) != mat.RecLen {
		err = errCorrupt
	}
	return rec, err
}

// setter is what writes a record: a transaction or a write batch.
type setter interface{ Set(k, v []byte) error }

// writeRecord writes program as the record of material id, in parts.
func writeRecord(w setter, id uint64, program []byte) error {
	for seq := uint32(0); ; seq++ {
		part := program[:min(len(program), recordPart)]
		if err := w.Set(recordKey(id, seq), part); err != nil {
			return err
		}
		program = program[len(part):]
		if len(program) == 0 {
			return nil
		}
	}
}

// newMat is the material state after a derived write that stores program
// as the record (none if nil), with an empty change log. The record gets
// an id never allocated before, in this process or (as far as committed
// states tell) before it: leftovers of a write that failed and could not
// clean up never mix with a later record (Open removes them).
func (d *DB) newMat(program []byte) matState {
	m := matState{Last: max(d.mat.Last, d.matLast)}
	if program != nil {
		m.Last++
		m.ID, m.RecLen = m.Last, uint64(len(program))
	}
	d.matLast = m.Last
	return m
}

// setMat writes mat to txn if it differs from the committed state, and
// raises the format if mat has a record.
func (d *DB) setMat(txn *badger.Txn, mat matState) error {
	if mat == d.mat {
		return nil
	}
	if mat.ID != 0 {
		if err := d.raiseFormat(txn, formatMaterial); err != nil {
			return err
		}
	}
	return txn.Set(metaMat, mat.encode())
}

// raiseFormat sets the format version in txn to v if the store's is lower,
// and lower than what txn already set (a transaction may raise it more
// than once: for a layer or a rule table's switch, then for a record).
// The caller updates d.format once txn commits (commitFormat).
func (d *DB) raiseFormat(txn *badger.Txn, v uint32) error {
	if d.format >= v {
		return nil
	}
	if b, err := getValue(txn, metaFormat); err == nil && len(b) == 4 && binary.BigEndian.Uint32(b) >= v {
		return nil
	}
	return txn.Set(metaFormat, binary.BigEndian.AppendUint32(nil, v))
}

// commitFormat records that a transaction that raised the format to v
// committed.
func (d *DB) commitFormat(v uint32) { d.format = max(d.format, v) }

// materialPrefixes are the key prefixes of the record and log of old, the
// committed state being replaced by a derived write (none when old has
// no record).
func materialPrefixes(old matState) [][]byte {
	if old.ID == 0 {
		return nil
	}
	return [][]byte{
		binary.BigEndian.AppendUint64([]byte{tagRecord}, old.ID),
		binary.BigEndian.AppendUint64([]byte{tagLog}, old.ID),
	}
}

// changeLogCap is the most facts the change log holds.
func (d *DB) changeLogCap() int {
	if d.logCap > 0 {
		return d.logCap
	}
	return MaxChangeLog
}

// logPlan is what a write of base facts does to the change log: nothing
// (no record, or the log overflowed before), drop it (the write makes it
// overflow), or log each fact with val, except that a fact logged the other
// way loses its entry: the log holds each fact's net change since the
// record.
type logPlan struct {
	id       uint64 // the log's material id; 0: nothing to do
	val      byte   // logAdded or logRemoved, for every fact
	prev     []byte // per fact: 0 when not logged, else 1 + its logged value
	fresh    int    // facts not logged before
	undone   int    // facts logged the other way, whose entries go (net change)
	overflow bool
}

// planLog looks up in txn the log entries of facts (distinct base facts
// that a load adds, or a retraction removes, as val says).
func (d *DB) planLog(txn *badger.Txn, facts []Fact, val byte) (logPlan, error) {
	mat := d.mat
	lp := logPlan{id: mat.ID, val: val}
	if mat.ID == 0 || mat.Overflow || len(facts) == 0 {
		return logPlan{}, nil
	}
	capacity := d.changeLogCap()
	if len(facts) > capacity {
		lp.overflow = true
		return lp, nil
	}
	lp.prev = make([]byte, len(facts))
	var kbuf []byte
	for i, f := range facts {
		kbuf = logKey(kbuf[:0], mat.ID, f)
		v, err := getValue(txn, kbuf)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			lp.fresh++
		case err != nil:
			return lp, err
		case len(v) != 1 || v[0] > logAdded:
			return lp, errCorrupt
		default:
			lp.prev[i] = 1 + v[0]
			if v[0] != val {
				lp.undone++
			}
		}
	}
	if mat.Count+uint64(lp.fresh) > uint64(capacity) {
		lp.overflow, lp.prev = true, nil
	}
	return lp, nil
}

// writes reports whether the plan writes log entries.
func (lp *logPlan) writes() bool { return lp.id != 0 && !lp.overflow }

// changed reports whether fact i's entry changes.
func (lp *logPlan) changed(i int) bool { return lp.prev[i] != 1+lp.val }

// undoes reports whether fact i was logged the other way: the write takes
// it back to the state the record was made in, and its entry goes (the log
// holds net changes: a fact retracted and loaded again is not a change).
func (lp *logPlan) undoes(i int) bool { return lp.prev[i] != 0 && lp.prev[i] != 1+lp.val }

// appendUndo appends to an undo log value what restores the entry of fact
// i, whose log key is key.
func (lp *logPlan) appendUndo(dst []byte, i int, key []byte) []byte {
	switch {
	case lp.prev[i] == 0:
		return appendUndoDelete(dst, key)
	case lp.changed(i):
		return appendUndoSet(dst, key, []byte{lp.prev[i] - 1})
	}
	return dst
}

// writeEntries writes the log entries of the plan's facts to wb, in key
// order.
func (lp *logPlan) writeEntries(wb *badger.WriteBatch, facts []Fact, ar *arena) error {
	if !lp.writes() {
		return nil
	}
	keys := make([][]byte, 0, len(facts))
	var drop [][]byte
	for i, f := range facts {
		switch {
		case lp.undoes(i):
			drop = append(drop, logKey(ar.alloc(14+4*len(f.Args)), lp.id, f))
		case lp.changed(i):
			keys = append(keys, logKey(ar.alloc(14+4*len(f.Args)), lp.id, f))
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	val := []byte{lp.val}
	for _, k := range keys {
		if err := wb.Set(k, val); err != nil {
			return err
		}
	}
	slices.SortFunc(drop, bytes.Compare)
	for _, k := range drop {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// bytes estimates the key and value bytes the plan writes for facts: the
// entries and their undo log copies.
func (lp *logPlan) bytes(facts []Fact) int64 {
	if !lp.writes() {
		return 0
	}
	var n int64
	for _, f := range facts {
		n += 2*int64(14+4*len(f.Args)) + 5 + entryOverhead
	}
	return n
}

// state is the material state after the write, from the committed one.
func (lp *logPlan) state(cur matState) matState {
	switch {
	case lp.id == 0:
	case lp.overflow:
		cur.Count, cur.Overflow = 0, true
	default:
		cur.Count = cur.Count + uint64(lp.fresh) - uint64(lp.undone)
	}
	return cur
}

// dropLog deletes the entries of the change log of before, the material
// state before the log overflowed (the next Open does it if this fails).
func (d *DB) dropLog(before matState) {
	prefix := binary.BigEndian.AppendUint64([]byte{tagLog}, before.ID)
	if before.Count > 1<<14 {
		// a read view of the log keeps it until it closes
		_ = d.dropUnread(func(v *DB) bool { return v.mat.ID == before.ID && !v.mat.Overflow }, prefix)
	} else {
		_ = d.deletePrefixes(prefix)
	}
}
