package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// Load implements Store. The load runs under a new generation: a pending
// marker naming it is committed first, then an undo log of the new fact
// keys, then the data (WriteBatch), then one small transaction that commits
// the generation, the counters and the split pointers and removes the
// marker. On failure, and on the next Open after a crash, the pending
// generation is rolled back.
func (d *DB) Load(ctx context.Context, b *Batch, progress func(done, total int)) (LoadStats, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	// The dictionary only changes under wmu, which we hold.
	nsym0 := len(d.dict.names)
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
	p, err := prepareBatch(ctx, b, nsym0, d.dict.lookup, has)
	if err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	if p.empty() {
		if progress != nil {
			progress(0, 0)
		}
		return p.stats(), nil
	}
	lp, err := d.planLog(txn, p.facts, logAdded)
	if err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	txn.Discard()
	if err := checkSpace(d.dir, loadAmplification*(p.loadBytes()+lp.bytes(p.facts)), fmt.Sprintf("a load of %d facts and %d symbols", len(p.facts), len(p.newNames))); err != nil {
		return LoadStats{}, err
	}
	gen := d.gen + 1
	rec := pendingRecord{Gen: gen, NSym: uint32(nsym0), Splits: p.splitNames}
	err = d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaPending, rec.encode()) })
	if err == nil {
		err = d.bdb.Sync()
	}
	if err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	d.step("load:pending")
	err = d.writeLoad(ctx, p, gen, progress, &lp)
	if err == nil {
		err = d.commitLoad(p, gen, &lp)
	}
	if err != nil {
		if rerr := d.rollback(rec); rerr != nil {
			err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		return LoadStats{}, wrapf("store: load: %w", noSpace(d.dir, err))
	}

	d.mu.Lock()
	for _, name := range p.newNames {
		d.dict.add(name)
	}
	for ra, n := range p.added {
		d.base[ra] += n
	}
	var old [][]byte
	for name, ts := range p.splits {
		if ptr, ok := d.splits[name]; ok {
			old = append(old, splitPrefix(name, ptr.gen))
		}
		d.splits[name] = splitPtr{gen, len(ts)}
	}
	d.gen = gen
	oldMat := d.mat
	d.mat = lp.state(oldMat)
	d.mu.Unlock()
	d.step("load:committed")
	// Cleanup failures leave garbage that the next Open removes. The undo
	// log, as large as the facts' keys, goes with whole tables, not
	// deletion markers (a load of 1.5M facts took 173 MiB, 153 MiB so).
	_ = d.deletePrefixes(old...)
	_ = d.dropPrefixes(binary.BigEndian.AppendUint64([]byte{tagUndo}, gen))
	if lp.overflow {
		d.dropLog(oldMat)
	}
	d.step("load:done")
	return p.stats(), nil
}

// writeUndo writes, under generation gen, the undo log of a write of
// facts, in chunks, and syncs it: for each fact, what entry appends for
// its key (what undoes the write) and what undoes lp's change log entry.
// A chunk is written out when less than margin bytes of room are left.
func (d *DB) writeUndo(gen uint64, facts []Fact, lp *logPlan, margin int, entry func(dst, key []byte) []byte) error {
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	var chunk, kbuf []byte
	seq := uint64(0)
	flushChunk := func() error {
		k := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte{tagUndo}, gen), seq)
		seq++
		err := wb.Set(k, chunk)
		chunk = nil
		return err
	}
	for i, f := range facts {
		if chunk == nil {
			chunk = make([]byte, 0, undoChunk)
		}
		chunk = entry(chunk, factKey(kbuf[:0], f))
		if lp.writes() {
			chunk = lp.appendUndo(chunk, i, logKey(kbuf[:0], lp.id, f))
		}
		if len(chunk) > undoChunk-margin {
			if err := flushChunk(); err != nil {
				return err
			}
		}
	}
	if len(chunk) > 0 {
		if err := flushChunk(); err != nil {
			return err
		}
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	return d.bdb.Sync()
}

// writeLoad writes the undo log, then the data of p under generation gen
// and the change log entries of lp.
func (d *DB) writeLoad(ctx context.Context, p *prepared, gen uint64, progress func(done, total int), lp *logPlan) error {
	var ar arena
	if err := d.writeUndo(gen, p.facts, lp, 1100, appendUndoDelete); err != nil {
		return err
	}
	d.step("load:undo")

	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	total, done := p.items(), 0
	tick := func() error {
		done++
		if done%checkEvery == 0 {
			d.step("load:writing")
			if progress != nil {
				progress(done, total)
			}
			return ctx.Err()
		}
		return nil
	}
	for i, name := range p.newNames {
		id := ID(p.nsym0 + i)
		nk := nameKey(ar.alloc(nameKeyLen(name)), name)
		sk := putID(append(ar.alloc(5), tagSym), id)
		if err := wb.Set(nk, putID(ar.alloc(4), id)); err != nil {
			return err
		}
		if err := wb.Set(sk, ar.copy([]byte(name))); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	// The new symbols are queued: the WriteBatch may have committed some
	// of them, which a rollback removes (from rec.NSym on).
	d.step("load:symbols")
	// Binary facts go in key order, F then R: sorted inserts are much
	// cheaper for Badger's memtable than random ones.
	var bin [][3]ID
	for _, f := range p.facts {
		if len(f.Args) == 2 {
			bin = append(bin, [3]ID{f.Rel, f.Args[0], f.Args[1]})
			continue
		}
		if err := wb.Set(naryKey(ar.alloc(6+4*len(f.Args)), f.Rel, f.Args), nil); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	slices.SortFunc(bin, func(a, b [3]ID) int { return cmpTriple(a[0], a[1], a[2], b[0], b[1], b[2]) })
	for _, t := range bin {
		if err := wb.Set(fwdKey(ar.alloc(13), t[0], t[1], t[2]), nil); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	slices.SortFunc(bin, func(a, b [3]ID) int { return cmpTriple(a[0], a[2], a[1], b[0], b[2], b[1]) })
	for _, t := range bin {
		if err := wb.Set(revKey(ar.alloc(13), t[0], t[2], t[1]), nil); err != nil {
			return err
		}
	}
	if err := lp.writeEntries(wb, p.facts, &ar); err != nil {
		return err
	}
	for _, name := range p.splitNames {
		prefix := splitPrefix(name, gen)
		ts := p.splits[name]
		for c := 0; c*splitChunk < len(ts); c++ {
			k := binary.BigEndian.AppendUint64(append(ar.alloc(len(prefix)+8), prefix...), uint64(c))
			chunk := ts[c*splitChunk : min(len(ts), (c+1)*splitChunk)]
			v := ar.alloc(12 * len(chunk))
			for _, t := range chunk {
				v = putID(putID(putID(v, t.S), t.R), t.O)
			}
			if err := wb.Set(k, v); err != nil {
				return err
			}
			for range chunk {
				if err := tick(); err != nil {
					return err
				}
			}
		}
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if progress != nil {
		progress(total, total)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.step("load:written")
	return nil
}

// commitLoad makes generation gen visible in one transaction, with the
// change log's new size.
func (d *DB) commitLoad(p *prepared, gen uint64, lp *logPlan) error {
	err := d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Set(metaGen, u64(gen)); err != nil {
			return err
		}
		nsym := binary.BigEndian.AppendUint32(nil, uint32(p.nsym0+len(p.newNames)))
		if err := txn.Set(metaNSym, nsym); err != nil {
			return err
		}
		for ra, n := range p.added {
			if err := txn.Set(countKey(ra.Rel, ra.Arity), u64(uint64(d.base[ra]+n))); err != nil {
				return err
			}
		}
		for name, ts := range p.splits {
			v := binary.BigEndian.AppendUint64(u64(gen), uint64(len(ts)))
			if err := txn.Set(append([]byte{tagSplitPt}, name...), v); err != nil {
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

// cmpTriple orders triples lexicographically.
func cmpTriple(a0, a1, a2, b0, b1, b2 ID) int {
	switch {
	case a0 != b0:
		return cmp.Compare(a0, b0)
	case a1 != b1:
		return cmp.Compare(a1, b1)
	}
	return cmp.Compare(a2, b2)
}

// splitChunk is how many triples one split entry holds.
const splitChunk = 1024
