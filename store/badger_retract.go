package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// Retract implements Store. A retraction runs like a load, under a new
// generation: a pending marker, an undo log that puts the removed facts
// (and the change log entries it overwrites) back, the deletions and log
// entries (WriteBatch), then one small transaction that commits the
// generation and the counters and removes the marker. On failure, and on
// the next Open after a crash, the undo log is applied. Readers of counts
// only see committed state; scans may see some of the facts go before the
// commit, as they may see a load's facts come.
func (d *DB) Retract(ctx context.Context, b *Batch) (RetractStats, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	txn := d.bdb.NewTransaction(false)
	defer txn.Discard()
	var kbuf []byte
	has := func(f Fact) (bool, error) {
		kbuf = factKey(kbuf[:0], f)
		_, err := txn.Get(kbuf)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	r, err := prepareRetract(ctx, b, d.dict.lookup, has)
	if err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	if len(r.facts) == 0 {
		return r.stats(), nil
	}
	lp, err := d.planLog(txn, r.facts, logRemoved)
	if err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	txn.Discard()
	if err := checkSpace(d.dir, loadAmplification*(retractBytes(r.facts)+lp.bytes(r.facts)), fmt.Sprintf("retracting %d facts", len(r.facts))); err != nil {
		return RetractStats{}, err
	}
	gen := d.gen + 1
	rec := pendingRecord{Gen: gen, NSym: uint32(len(d.dict.names))}
	err = d.bdb.Update(func(txn *badger.Txn) error {
		// The undo log puts keys back: a format 2 build would delete them.
		if err := d.raiseFormat(txn, formatMaterial); err != nil {
			return err
		}
		return txn.Set(metaPending, rec.encode())
	})
	if err == nil {
		d.commitFormat(formatMaterial)
		err = d.bdb.Sync()
	}
	if err != nil {
		return RetractStats{}, wrapf("store: retract: %w", noSpace(d.dir, err))
	}
	d.step("retract:pending")
	err = d.writeRetract(ctx, r, gen, &lp)
	if err == nil {
		err = d.commitRetract(r, gen, &lp)
	}
	if err != nil {
		if rerr := d.rollback(rec); rerr != nil {
			err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		return RetractStats{}, wrapf("store: retract: %w", noSpace(d.dir, err))
	}
	d.mu.Lock()
	for ra, n := range r.removed {
		if d.base[ra] -= n; d.base[ra] == 0 {
			delete(d.base, ra)
		}
	}
	d.gen = gen
	oldMat := d.mat
	d.mat = lp.state(oldMat)
	d.mu.Unlock()
	d.step("retract:committed")
	// Cleanup failures leave garbage that the next Open removes.
	_ = d.dropPrefixes(binary.BigEndian.AppendUint64([]byte{tagUndo}, gen))
	if lp.overflow {
		d.dropLog(oldMat)
	}
	d.step("retract:done")
	return r.stats(), nil
}

// retractBytes estimates the key and value bytes a retraction of facts
// writes: a deletion marker for each index entry, and the undo log.
func retractBytes(facts []Fact) int64 {
	var n int64
	for _, f := range facts {
		k := int64(6 + 4*len(f.Args))
		if len(f.Args) == 2 {
			k = 13
			n += k + entryOverhead
		}
		n += 2*k + 4 + entryOverhead
	}
	return n
}

// writeRetract writes the undo log of r, then deletes its facts and writes
// the change log entries of lp.
func (d *DB) writeRetract(ctx context.Context, r *retraction, gen uint64, lp *logPlan) error {
	if err := d.writeUndo(gen, r.facts, lp, 2200, func(dst, key []byte) []byte { return appendUndoSet(dst, key, nil) }); err != nil {
		return err
	}
	d.step("retract:undo")

	// Deletions in key order, as loads write: F, N, then R keys.
	var ar arena
	keys := make([][]byte, 0, len(r.facts))
	var rev [][]byte
	for _, f := range r.facts {
		keys = append(keys, factKey(ar.alloc(factKeyLen(f)), f))
		if len(f.Args) == 2 {
			rev = append(rev, revKey(ar.alloc(13), f.Rel, f.Args[1], f.Args[0]))
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	slices.SortFunc(rev, bytes.Compare)
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	for i, k := range append(keys, rev...) {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			d.step("retract:deleting")
		}
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	if err := lp.writeEntries(wb, r.facts, &ar); err != nil {
		return err
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.step("retract:written")
	return nil
}

// commitRetract commits generation gen in one transaction: the counters,
// the change log's new size, and the removal of the pending marker.
func (d *DB) commitRetract(r *retraction, gen uint64, lp *logPlan) error {
	err := d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Set(metaGen, u64(gen)); err != nil {
			return err
		}
		for ra, n := range r.removed {
			k := countKey(ra.Rel, ra.Arity)
			var err error
			if left := d.base[ra] - n; left > 0 {
				err = txn.Set(k, u64(uint64(left)))
			} else {
				err = txn.Delete(k)
			}
			if err != nil {
				return err
			}
		}
		if m := lp.state(d.mat); m != d.mat {
			if err := txn.Set(metaMat, m.encode()); err != nil {
				return err
			}
		}
		return txn.Delete(metaPending)
	})
	if err != nil {
		return err
	}
	return d.bdb.Sync()
}
