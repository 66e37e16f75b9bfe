package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

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
		d.dnext = max(d.dnext, d.dgen)
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
// facts listed in its undo log, the symbols from rec.NSym on, its split
// entries, the undo log and finally the pending marker.
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
			return true, dl.del(k)
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
	if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Delete(metaPending) }); err != nil {
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
		dl.n++
		if err := dl.wb.Set(slices.Clone(key), slices.Clone(val)); err != nil {
			return err
		}
		if rk != nil {
			return dl.wb.Set(rk, nil)
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
