package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// A layer is a set of changes over the visible derived generation, kept as
// a generation of its own: D<layer><rel><k><args> holds the fact's value
// as it is now (added or changed), or an empty value, a tombstone, for a
// fact of the generation that is deleted. mlayer names the layer and
// counts its entries. Readers read through it: a key of the layer hides
// the generation's. The E counts of the generation are the counts seen
// through the layer, and values of both refer to the generation's rule
// table.
//
// An update too large for one transaction writes a new layer, the old
// layer's entries merged with its changes, in write batches under a new
// generation number; one transaction then points mlayer at it, with the
// counts, the rule table entries it adds and the material state. Until
// then the new layer is garbage (the next Open removes it). So the update
// costs about its own size and the old layer's, not the visible facts':
// an update of 400,000 facts over twelve million wrote all twelve million
// again before. Once the layer would hold more than layerShare of the
// visible facts, the update instead merges the generation, the layer and
// its changes into a new generation (updateByCopy), with no layer.
const layerShare = 4 // the layer holds at most a quarter of the visible facts

// layerState is the value of mlayer: the layer's generation number (0 for
// no layer) and its number of entries, tombstones included.
type layerState struct{ gen, n uint64 }

func (l layerState) encode() []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, l.gen), l.n)
}

// layerOf reads the layer in txn (the zero state when there is none).
func layerOf(txn *badger.Txn) (layerState, error) {
	v, err := getValue(txn, metaLayer)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return layerState{}, nil
	}
	if err != nil {
		return layerState{}, err
	}
	if len(v) != 16 || binary.BigEndian.Uint64(v) == 0 {
		return layerState{}, errCorrupt
	}
	return layerState{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}, nil
}

// throughIter iterates the facts of a derived generation seen through its
// layer (if any), in key order, within a key range sub (a relation, or
// nothing for all): suffix and val are the current fact's key without the
// generation and its value, valid until next.
type throughIter struct {
	base, layer *badger.Iterator
	bp, lp      []byte // the prefixes of the range in the generation and the layer
	ok          bool
	suffix, val []byte
	kbuf, vbuf  []byte
}

// newThroughIter starts an iteration of generation gen through layer (0:
// none) in txn, a read transaction; next gives the first fact.
func newThroughIter(txn *badger.Txn, gen, layer uint64, sub []byte) *throughIter {
	t := &throughIter{bp: append(derivedPrefix(gen), sub...)}
	t.base = txn.NewIterator(badger.IteratorOptions{Prefix: t.bp})
	t.base.Seek(t.bp)
	if layer != 0 {
		t.lp = append(derivedPrefix(layer), sub...)
		t.layer = txn.NewIterator(badger.IteratorOptions{Prefix: t.lp})
		t.layer.Seek(t.lp)
	}
	return t
}

// close releases the iterators.
func (t *throughIter) close() {
	t.base.Close()
	if t.layer != nil {
		t.layer.Close()
	}
}

// next moves to the next visible fact; t.ok is false at the end.
func (t *throughIter) next() error {
	for {
		bok := t.base.ValidForPrefix(t.bp)
		lok := t.layer != nil && t.layer.ValidForPrefix(t.lp)
		if !bok && !lok {
			t.ok = false
			return nil
		}
		c := -1
		switch {
		case !bok:
			c = 1
		case lok:
			c = bytes.Compare(t.base.Item().Key()[9:], t.layer.Item().Key()[9:])
		}
		it := t.base
		if c >= 0 {
			it = t.layer
		}
		item := it.Item()
		var err error
		t.kbuf = append(t.kbuf[:0], item.Key()[9:]...)
		if t.vbuf, err = item.ValueCopy(t.vbuf[:0]); err != nil {
			return err
		}
		if c == 0 {
			t.base.Next() // hidden by the layer's entry
		}
		it.Next()
		if c >= 0 && len(t.vbuf) == 0 {
			continue // a tombstone
		}
		if len(t.kbuf) < 5 || len(t.kbuf) != 5+4*int(t.kbuf[4]) {
			return errCorrupt
		}
		t.ok, t.suffix, t.val = true, t.kbuf, t.vbuf
		return nil
	}
}

// getThrough reads the value of the fact whose key without the generation
// is suffix in generation gen through layer (0: none); ErrKeyNotFound
// when it is absent or deleted.
func getThrough(txn *badger.Txn, gen, layer uint64, suffix []byte) ([]byte, error) {
	if layer != 0 {
		v, err := getValue(txn, append(derivedPrefix(layer), suffix...))
		if err == nil {
			if len(v) == 0 {
				return nil, badger.ErrKeyNotFound
			}
			return v, nil
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return nil, err
		}
	}
	return getValue(txn, append(derivedPrefix(gen), suffix...))
}

// LayerStatus is the layer of changes over the derived facts, as stats
// shows it: the changes that updates too large for one transaction wrote
// over the visible generation.
type LayerStatus struct {
	// Entries counts the layer's facts, added, changed and deleted.
	Entries int
	// MergeAt is the number of entries past which an update merges the
	// layer and the generation under it into a new generation: a quarter
	// of the visible derived facts.
	MergeAt int
}

// Layer returns the state of the derived facts' layer (zero Entries when
// there is none).
func (d *DB) Layer() LayerStatus {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return LayerStatus{Entries: int(d.layer.n), MergeAt: d.visibleDerived() / layerShare}
}

// visibleDerived counts the visible derived facts; d.mu held.
func (d *DB) visibleDerived() int {
	total := 0
	for _, c := range d.derived {
		total += c
	}
	return total
}

// layerFits reports whether an update of n changes may go to a layer: the
// layer, with them, would hold at most 1/layerShare of the visible facts.
func (d *DB) layerFits(n int) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return int(d.layer.n)+n <= d.visibleDerived()/layerShare
}

// layerBytes estimates the bytes of the visible layer's entries, which a
// new layer writes again: Badger's estimate of its tables, or a lower
// bound per entry if that is less.
func (d *DB) layerBytes() int64 {
	if d.layer.gen == 0 {
		return 0
	}
	onDisk, _ := d.bdb.EstimateSize(derivedPrefix(d.layer.gen))
	return max(int64(onDisk), int64(d.layer.n)*(18+entryOverhead))
}

// writeLayer writes generation gen, the new layer: the entries of the
// visible layer merged with ops, through write batches, flushed and
// synced. Rules that ops add go to u's transaction, and the changes of
// the visible counts to u.delta; u.layer becomes the new layer's state.
func (d *DB) writeLayer(ctx context.Context, u *inPlace, gen uint64, ops []updateOp) error {
	rt := d.bdb.NewTransaction(false) // Badger allows one iterator in a read-write transaction
	defer rt.Discard()
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	old := u.layer
	prefix := derivedPrefix(gen)
	var n uint64
	var ar arena
	put := func(suffix, v []byte) error {
		n++
		if n%checkEvery == 0 {
			d.step("update:layering")
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return wb.Set(append(append(ar.alloc(len(prefix)+len(suffix)), prefix...), suffix...), ar.copy(v))
	}
	var it *badger.Iterator
	var lp []byte
	if old.gen != 0 {
		lp = derivedPrefix(old.gen)
		it = rt.NewIterator(badger.IteratorOptions{Prefix: lp})
		defer it.Close()
		it.Seek(lp)
	}
	var vbuf []byte
	for i := 0; ; {
		haveOld := it != nil && it.ValidForPrefix(lp)
		if !haveOld && i == len(ops) {
			break
		}
		c := 1
		switch {
		case !haveOld:
			c = 1
		case i == len(ops):
			c = -1
		default:
			c = bytes.Compare(it.Item().Key()[9:], ops[i].key)
		}
		if c < 0 {
			// An entry of the old layer that ops leave as it is.
			v, err := it.Item().ValueCopy(vbuf[:0])
			if err != nil {
				return err
			}
			vbuf = v
			if err := put(it.Item().Key()[9:], v); err != nil {
				return err
			}
			it.Next()
			continue
		}
		op := &ops[i]
		i++
		before, inBase, err := u.visibleBefore(rt, it, c == 0, op)
		if err != nil {
			return err
		}
		if c == 0 {
			it.Next()
		}
		if op.put == nil {
			if before {
				u.delta[op.relArity()]--
			}
			if inBase {
				if err := put(op.key, nil); err != nil { // a tombstone
					return err
				}
			}
			continue
		}
		v, err := u.value(op.put)
		if err != nil {
			return err
		}
		if err := put(op.key, v); err != nil {
			return err
		}
		if !before {
			u.delta[op.relArity()]++
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	u.layer = layerState{gen, n}
	d.step("update:layered")
	return nil
}

// visibleBefore reports whether op's fact is visible before the update,
// and whether the generation under the layer holds it (read only for a
// deletion, which needs a tombstone then). inOld says the old layer's
// iterator it is at the fact's entry.
func (u *inPlace) visibleBefore(rt *badger.Txn, it *badger.Iterator, inOld bool, op *updateOp) (before, inBase bool, err error) {
	if inOld {
		size := it.Item().ValueSize()
		before = size > 0
		if op.put != nil {
			return before, false, nil
		}
	}
	_, err = rt.Get(append(derivedPrefix(u.gen), op.key...))
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return false, false, err
	}
	inBase = err == nil
	if !inOld {
		before = inBase
	}
	return before, inBase, nil
}

// layerOp writes one put or delete of an update in place to the layer: a
// put sets the layer's entry; a delete of a fact the generation holds
// sets a tombstone, of one only the layer holds removes its entry.
func (u *inPlace) layerOp(op *updateOp) error {
	txn := u.txn
	lk := append(append(u.ar.alloc(9+len(op.key)), derivedPrefix(u.layer.gen)...), op.key...)
	item, err := txn.Get(lk)
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return err
	}
	inLayer, before, inBase := err == nil, false, false
	if inLayer {
		before = item.ValueSize() > 0
	}
	if !inLayer || op.put == nil {
		_, err := txn.Get(append(derivedPrefix(u.gen), op.key...))
		if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		inBase = err == nil
		if !inLayer {
			before = inBase
		}
	}
	if op.put == nil {
		if !before {
			return nil
		}
		u.delta[op.relArity()]--
		if inBase {
			if !inLayer {
				u.layer.n++
			}
			return txn.Set(lk, []byte{})
		}
		u.layer.n--
		return txn.Delete(lk)
	}
	if err := u.set(lk, op.put); err != nil {
		return err
	}
	if !inLayer {
		u.layer.n++
	}
	if !before {
		u.delta[op.relArity()]++
	}
	return nil
}
