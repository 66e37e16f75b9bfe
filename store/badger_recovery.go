package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// loadState reads the dictionary, counters and pointers into memory.
func (d *DB) loadState() error {
	d.dict = newDict()
	d.base = make(map[relArity]int)
	d.derived = make(map[relArity]int)
	d.splits = make(map[string]splitPtr)
	d.mat = matState{}
	return d.bdb.View(func(txn *badger.Txn) error {
		var err error
		if d.gen, err = getU64Meta(txn, metaGen); err != nil {
			return err
		}
		if d.dgen, err = getU64Meta(txn, metaDerived); err != nil {
			return err
		}
		if d.dnext, err = getU64Meta(txn, metaDNext); err != nil {
			return err
		}
		if d.rtable, err = ruleTableOf(txn, d.dgen); err != nil {
			return err
		}
		if d.layer, err = layerOf(txn); err != nil {
			return err
		}
		d.dnext = max(d.dnext, d.dgen, d.rtable, d.layer.gen)
		v, err := getValue(txn, metaMat)
		switch {
		case err == nil:
			if d.mat, err = decodeMat(v); err != nil {
				return err
			}
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		_, err = scanPrefix(txn, []byte{tagSym}, nil, true, func(k, v []byte) (bool, error) {
			if len(k) != 5 || getID(k[1:]) != ID(len(d.dict.names)) {
				return false, fmt.Errorf("dictionary: id %x out of sequence: %w", k[1:], errCorrupt)
			}
			d.dict.add(string(v))
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagCount}, nil, true, func(k, v []byte) (bool, error) {
			n, err := getU64(v)
			if len(k) != 6 || err != nil {
				return false, errCorrupt
			}
			d.base[relArity{getID(k[1:]), int(k[5])}] = int(n)
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, binary.BigEndian.AppendUint64([]byte{tagDCount}, d.dgen), nil, true, func(k, v []byte) (bool, error) {
			n, err := getU64(v)
			if len(k) != 14 || err != nil {
				return false, errCorrupt
			}
			d.derived[relArity{getID(k[9:]), int(k[13])}] = int(n)
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagSplitPt}, nil, true, func(k, v []byte) (bool, error) {
			if len(v) != 16 {
				return false, errCorrupt
			}
			d.splits[string(k[1:])] = splitPtr{binary.BigEndian.Uint64(v), int(binary.BigEndian.Uint64(v[8:]))}
			return true, nil
		})
		return err
	})
}

// rollback removes everything the pending load rec may have written: the
// facts listed in its undo log, the symbols from rec.NSym on and its split
// entries; then it gives their space back and removes the undo log
// (reclaim), and finally the pending marker. Killed before the marker is
// removed, it runs again at the next Open, from what is left of the undo
// log (applying an entry twice changes nothing).
func (d *DB) rollback(rec pendingRecord) error {
	dl := d.newDeleter()
	defer dl.wb.Cancel()
	undo := binary.BigEndian.AppendUint64([]byte{tagUndo}, rec.Gen)
	err := d.bdb.View(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, undo, nil, true, func(k, v []byte) (bool, error) {
			for len(v) > 0 {
				op, key, val, rest, err := nextUndo(v)
				if err != nil {
					return false, err
				}
				v = rest
				if err := dl.undo(op, key, val); err != nil {
					return false, err
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagName}, nil, true, func(k, v []byte) (bool, error) {
			if len(v) == 4 && getID(v) >= rec.NSym {
				return true, dl.del(k)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagSym}, putID([]byte{tagSym}, rec.NSym), false, func(k, _ []byte) (bool, error) {
			return true, dl.del(k)
		})
		if err != nil {
			return err
		}
		for _, name := range rec.Splits {
			_, err = scanPrefix(txn, splitPrefix(name, rec.Gen), nil, false, func(k, _ []byte) (bool, error) {
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
	if err := dl.wb.Flush(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.step("rollback:undone")
	if err := d.reclaim(undo, dl); err != nil {
		return err
	}
	err = d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Delete(metaReclaim); err != nil {
			return err
		}
		return txn.Delete(metaPending)
	})
	if err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.step("rollback:done")
	return nil
}

// undo queues one undo log entry: the deletion of key, or setting it to
// val; for an F key the R key of the same fact goes with it.
func (dl *deleter) undo(op byte, key, val []byte) error {
	var rk []byte
	if len(key) == 13 && key[0] == tagFwd {
		rk = revKey(nil, getID(key[1:]), getID(key[9:]), getID(key[5:]))
	}
	if op == undoSet {
		if err := dl.set(key, val); err != nil {
			return err
		}
		if rk != nil {
			return dl.set(rk, nil)
		}
		return nil
	}
	if err := dl.del(key); err != nil {
		return err
	}
	if rk != nil {
		return dl.del(rk)
	}
	return nil
}

// reclaim gives back the space of the keys the rollback dl deleted or set
// and of the undo log under the prefix undo, which it removes. Deleting a
// key in Badger adds a deletion marker: until a compaction brings the
// marker and the key together on the last level, both take space (a load
// of 1.5M facts killed halfway took 50 MiB, 130 MiB after its rollback).
// Badger compacts a table of the last level again only when it holds 10
// MiB of such data and is an hour old, so with 4 MiB tables markers that
// reach it stay: while the rollback runs, its read transaction keeps
// every compaction from dropping them.
//
// So reclaim compacts twice. It drops the undo log with DropPrefix, which
// first writes the memtable to a table (Badger has no other way to flush
// it), and compacts every level into the last (Flatten). Then it repeats
// the writes to the smallest and the largest key the rollback wrote (the
// same deletion, or the same value: nothing changes) and flushes them
// with a DropPrefix of metaReclaim, a key set for that: their table spans
// every key the rollback wrote, so the compaction that brings it to the
// last level rewrites all the tables there that hold them, markers and
// keys dropped. The final transaction of the rollback deletes metaReclaim
// if a kill left it.
//
// Flatten rewrites the store's tables, so reclaim is skipped when the
// keys written take less than minReclaim or less than a 64th of the store
// (what they leave is then that small), and when the device has less
// free space than the store takes. A skipped reclaim deletes the undo log
// key by key and leaves the space to Badger's compactions, as does a
// rollback run again after a kill during reclaim, the undo log gone.
func (d *DB) reclaim(undo []byte, dl *deleter) error {
	u, err := d.diskUsage()
	if err != nil {
		return err
	}
	keys := int64(dl.n) * rolledBackKey
	if keys < max(minReclaim, u.Bytes/64) || checkSpace(d.dir, u.Bytes, "giving back the space of a rolled-back write") != nil {
		return d.deletePrefixes(undo)
	}
	if err := d.dropPrefixes(undo); err != nil {
		return err
	}
	d.step("rollback:flushed")
	if err := d.bdb.Flatten(1); err != nil {
		return err
	}
	err = d.bdb.Update(func(txn *badger.Txn) error {
		for _, w := range []written{dl.lo, dl.hi} {
			var err error
			if w.set {
				err = txn.Set(w.key, w.val)
			} else {
				err = txn.Delete(w.key)
			}
			if err != nil {
				return err
			}
		}
		return txn.Set(metaReclaim, nil)
	})
	if err != nil {
		return err
	}
	d.step("rollback:flattened")
	if err := d.dropPrefixes(metaReclaim); err != nil {
		return err
	}
	if err := d.bdb.Flatten(1); err != nil {
		return err
	}
	d.step("rollback:reclaimed")
	return nil
}

// rolledBackKey is what a key a rollback deletes takes until it is
// reclaimed: the key (a binary fact's, 13 bytes) and its deletion marker,
// each with Badger's bookkeeping. minReclaim is the least space of such
// keys that reclaim compacts the store for.
const (
	rolledBackKey = 2 * (13 + entryOverhead)
	minReclaim    = 1 << 20
)
