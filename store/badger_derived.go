package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/dgraph-io/badger/v4"
)

// ReplaceDerived implements Store. The facts are written under a new derived
// generation; one small transaction then points the store at it, and the old
// generation is deleted afterwards.
func (d *DB) ReplaceDerived(ctx context.Context, ds []Derived) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	d.mu.RLock()
	old := 0
	for _, n := range d.derived {
		old += n
	}
	d.mu.RUnlock()
	if err := checkSpace(d.dir, derivedBytes(ds, old), fmt.Sprintf("storing %d derived facts", len(ds))); err != nil {
		return err
	}
	if err := d.replaceDerived(ctx, ds); err != nil {
		return wrapf("store: replace derived: %w", noSpace(d.dir, err))
	}
	return nil
}

func (d *DB) replaceDerived(ctx context.Context, ds []Derived) error {
	idx, err := dedupDerived(ctx, ds)
	if err != nil {
		return err
	}
	gen := d.dnext + 1
	if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaDNext, u64(gen)) }); err != nil {
		return err
	}
	d.dnext = gen
	genPrefix := binary.BigEndian.AppendUint64([]byte{tagDerived}, gen)
	counts := make(map[relArity]int)
	var ar arena
	var vbuf []byte
	wb := d.bdb.NewWriteBatch()
	write := func() error {
		for n, i := range idx {
			if n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			x := &ds[i]
			k := derivedKey(ar.alloc(14+4*len(x.Fact.Args)), gen, x.Fact)
			vbuf = encodeDerivedValue(vbuf[:0], x.Confidence, x.Prov)
			if err := wb.Set(k, ar.copy(vbuf)); err != nil {
				return err
			}
			counts[relArity{x.Fact.Rel, len(x.Fact.Args)}]++
		}
		if err := wb.Flush(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return d.bdb.Sync()
	}
	err = write()
	if err == nil {
		err = d.bdb.Update(func(txn *badger.Txn) error {
			for ra, n := range counts {
				if err := txn.Set(dcountKey(gen, ra.Rel, ra.Arity), u64(uint64(n))); err != nil {
					return err
				}
			}
			return txn.Set(metaDerived, u64(gen))
		})
	}
	if err != nil {
		wb.Cancel()
		// The new generation is garbage; the next Open removes what this misses.
		_ = d.deletePrefixes(genPrefix, binary.BigEndian.AppendUint64([]byte{tagDCount}, gen))
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.mu.Lock()
	old := d.dgen
	d.dgen = gen
	d.derived = counts
	d.mu.Unlock()
	_ = d.deletePrefixes(binary.BigEndian.AppendUint64([]byte{tagDerived}, old),
		binary.BigEndian.AppendUint64([]byte{tagDCount}, old))
	return nil
}

// ClearDerived implements Store.
func (d *DB) ClearDerived() error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return wrapf("store: clear derived: %w", err)
	}
	if err := checkSpace(d.dir, 0, "clearing derived facts"); err != nil {
		return err
	}
	if err := d.replaceDerived(context.Background(), nil); err != nil {
		return wrapf("store: clear derived: %w", noSpace(d.dir, err))
	}
	return nil
}

// derivedGen reads the visible derived generation inside txn.
func derivedGen(txn *badger.Txn) (uint64, error) { return getU64Meta(txn, metaDerived) }

// ScanDerived implements Store: facts come sorted by arity, then arguments.
func (d *DB) ScanDerived(rel ID) iter.Seq2[Derived, error] {
	return func(yield func(Derived, error) bool) {
		guardSeq(d, yield, func(yield func(Derived, error) bool) {
			err := d.view(func(txn *badger.Txn) error {
				gen, err := derivedGen(txn)
				if err != nil {
					return err
				}
				prefix := putID(binary.BigEndian.AppendUint64([]byte{tagDerived}, gen), rel)
				_, err = scanPrefix(txn, prefix, nil, true, func(k, v []byte) (bool, error) {
					_, f, err := decodeDerivedKey(k)
					if err != nil {
						return false, err
					}
					conf, prov, err := decodeDerivedValue(v)
					if err != nil {
						return false, err
					}
					return yield(Derived{Fact: f, Confidence: conf, Prov: prov}, nil), nil
				})
				return err
			})
			if err != nil {
				yield(Derived{}, wrapf("store: scan derived %d: %w", rel, err))
			}
		})
	}
}

// GetDerived implements Store.
func (d *DB) GetDerived(f Fact) (Derived, bool, error) {
	if len(f.Args) > maxArity {
		return Derived{}, false, nil
	}
	var out Derived
	found := false
	err := d.view(func(txn *badger.Txn) error {
		gen, err := derivedGen(txn)
		if err != nil {
			return err
		}
		v, err := getValue(txn, derivedKey(nil, gen, f))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		conf, prov, err := decodeDerivedValue(v)
		if err != nil {
			return err
		}
		out, found = Derived{Fact: cloneFact(f), Confidence: conf, Prov: prov}, true
		return nil
	})
	if err != nil {
		return Derived{}, false, wrapf("store: get derived: %w", err)
	}
	return out, found, nil
}
